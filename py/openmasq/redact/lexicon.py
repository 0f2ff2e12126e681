"""Word lexicons of the model-free detectors: Faker's per-locale first names and surnames, and the
curated lists (stopwords, generic terms, homographs, countries, notorious people and brands)."""

from __future__ import annotations

import importlib
import re
import unicodedata
from collections.abc import Iterable
from functools import cache, lru_cache
from importlib import resources

from ..patterns import deferred

# --- locales -------------------------------------------------------------------------------------

# Our language ids and the Faker person providers that make up each one. Only the provider
# modules are imported (class attributes read): building Faker() would load every provider.
# de_CH and nl_BE are left out: their lists are largely the French-speaking neighbours' names.
LOCALES: dict[str, tuple[str, ...]] = {
    "fr": ("fr_FR", "fr_CH", "fr_BE", "fr_CA"),
    "en": ("en_US", "en_GB", "en_IE", "en_NZ"),
    "de": ("de_DE", "de_AT"),
    "es": ("es_ES", "es_MX"),
    "it": ("it_IT",),
    "pt": ("pt_PT", "pt_BR"),
    "nl": ("nl_NL",),
}
# Ties between languages go to the first one (the product is French-first).
_LOCALE_ORDER = tuple(LOCALES)
_GENDERS = ("m", "f", "x")


# --- small closed lists ----------------------------------------------------------------------------

HONORIFICS: frozenset[str] = frozenset({
    "M.", "MM.", "Mme", "Mme.", "Mmes", "Mlle", "Mlle.", "Mlles", "Dr", "Dr.", "Dre", "Pr", "Pr.",
    "Me", "Me.", "Maître", "Maitre", "Monsieur", "Madame", "Mademoiselle", "Docteur", "Docteure",
    "Professeur", "Professeure", "Mr", "Mr.", "Mrs", "Mrs.", "Ms", "Ms.", "Miss", "Mx", "Mx.", "Sir",
    "Lady", "Lord", "Prof", "Prof.", "Herr", "Herrn", "Hrn.", "Frau", "Hr.", "Fr.", "Sr", "Sr.", "Sra", "Sra.", "Srta",
    "Srta.", "Señor", "Señora", "Señorita", "Doña", "Dra", "Dra.", "Sig.", "Sig.ra", "Sig.na",
    "Signor", "Signore", "Signora", "Signorina", "Dott.", "Dott.ssa", "Avv.", "Ing.", "Dhr.",
    "Mevr.", "Mw.", "Meneer", "Mevrouw", "Senhor", "Senhora", "Exmo.", "Exma.",
    "Doctor", "Doctora", "Dottore", "Dottoressa", "Doktor", "Professor", "Profesor", "Profesora", "Professore",
    "Professoressa",
})

LEGAL_FORMS: frozenset[str] = frozenset({
    # France
    "SARL", "S.A.R.L.", "SAS", "S.A.S.", "SASU", "SA", "S.A.", "EURL", "SCI", "SNC", "SCOP", "SCP",
    "SELARL", "SELAS", "SCA", "GIE", "EIRL",
    # Germany, Austria, Switzerland
    "GmbH", "gGmbH", "AG", "KG", "OHG", "oHG", "UG", "GbR", "e.V.", "eG", "KGaA", "mbH",
    # English-speaking countries
    "Inc.", "Inc", "Ltd", "Ltd.", "Limited", "LLC", "L.L.C.", "LLP", "PLC", "plc", "Plc", "Corp.",
    "Corp", "Corporation", "Co.", "L.P.",
    # Spain, Italy, Portugal, Latin America
    "S.L.", "SL", "S.L.U.", "SLU", "S.A.U.", "S.p.A.", "SpA", "S.P.A.", "S.r.l.", "Srl", "SRL",
    "S.R.L.", "S.n.c.", "S.a.s.", "Lda", "Lda.", "Ltda", "Ltda.",
    # Benelux and the North
    "BV", "B.V.", "NV", "N.V.", "VOF", "V.O.F.", "SPRL", "SCRL", "ASBL", "VZW", "ApS", "A/S", "Oy",
    "Oyj", "ASA", "AB", "HB", "ehf.",
    # Central and Eastern Europe, Baltics, Turkey
    "Kft.", "Zrt.", "Nyrt.", "s.r.o.", "spol. s r.o.", "a.s.", "Sp. z o.o.", "sp. z o.o.", "d.o.o.",
    "d.d.", "OÜ", "AS", "UAB", "SIA", "A.Ş.", "Ltd. Şti.", "SE",
    # Elsewhere in English
    "Pty Ltd", "Pty. Ltd.", "Pte. Ltd.", "Pte Ltd", "PLLC", "Sdn Bhd", "Pvt. Ltd.", "Pvt Ltd",
})

NAME_PARTICLES: frozenset[str] = frozenset({
    "de", "du", "des", "de la", "d'", "d’", "van", "von", "van der", "van den", "van de", "von der",
    "von dem", "vom", "zu", "zur", "ter", "ten", "da", "di", "del", "della", "dello", "dei", "degli",
    "dos", "das", "do", "le", "la", "les", "lo", "y", "af", "av", "mac", "ben", "bin", "ibn", "el", "al",
})

# Words of a stripped org name (reference 2.4, 63 words): legal forms and company descriptors.
_ORG_AFFIXES = frozenset({
    "sa", "sas", "sasu", "sarl", "eurl", "sci", "snc", "scop", "scp", "selarl", "selas", "sca", "gie",
    "ei", "eirl", "inc", "incorporated", "ltd", "limited", "llc", "llp", "plc", "corp", "corporation",
    "co", "company", "gmbh", "ggmbh", "ag", "kg", "ohg", "ug", "gbr", "ev", "kgaa", "mbh", "bv", "nv",
    "srl", "spa", "sl", "slu", "lda", "ltda", "sprl", "asbl", "oy", "group", "groupe", "holding",
    "societe", "entreprise", "cabinet", "etablissement", "etablissements", "ets", "association",
    "fondation", "mutuelle", "compagnie", "cie", "forme", "ab", "kft", "zrt", "sro", "doo", "pty",
    "pte", "pllc", "pvt",
})
_DANGLING_CONNECTORS = frozenset({"en", "de", "du", "des", "et", "of", "the", "&", "und", "d'", "l'"})

# Calendar abbreviations (reference 2.4); "sam" is left out because Sam is a common first name.
_CALENDAR_ABBREVIATIONS = frozenset({
    "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "lun", "mar", "mer",
    "jeu", "ven", "dim", "jan", "janv", "feb", "fev", "fevr", "apr", "avr", "jun", "jul", "juil",
    "aug", "sep", "sept", "oct", "nov", "dec", "mo", "di", "mi", "do", "fr", "sa", "so",
})
_CURRENCY_CODES = frozenset({
    "EUR", "USD", "GBP", "CHF", "JPY", "CNY", "RMB", "CAD", "AUD", "NZD", "SEK", "NOK", "DKK", "PLN",
    "CZK", "HUF", "RON", "BGN", "TRY", "RUB", "UAH", "INR", "BRL", "MXN", "ARS", "CLP", "COP", "ZAR",
    "MAD", "TND", "DZD", "XOF", "XAF", "XPF", "AED", "SAR", "QAR", "ILS", "KRW", "SGD", "HKD", "THB",
    "BTC", "ETH", "USDT", "USDC",
})
_CURRENCY_SYMBOLS = frozenset("€$£¥₣₹₽₿₩₺₪¢")
_MARKUP_TAG = deferred(r"</?[A-Za-z][A-Za-z0-9-]{0,20}(?:\s[^<>]{0,200})?/?>")
_ARTICLES = frozenset({
    "le", "la", "les", "l'", "l", "un", "une", "des", "du", "the", "a", "an", "der", "die", "das",
    "ein", "eine", "el", "los", "las", "il", "lo", "gli", "o", "os", "as", "het", "een", "de",
})
_PUBLIC_BODY = deferred(
    r"^(?:mairie|prefecture|sous prefecture|tribunal(?: judiciaire| de commerce| administratif| de"
    r" grande instance| d'instance| de proximite| des prud'hommes)?|cour d'appel|conseil (?:departem"
    r"ental|regional|general|municipal)|cpam|caf|urssaf|carsat|msa|rectorat|academie|region|depar"
    r"tement|commune|ville|hotel de ville|centre des impots|tresorerie|direction (?:regionale|depa"
    r"rtementale|generale)|ministere|ambassade|consulat|chu|chr|centre hospitalier|universite|pole"
    r" emploi|france travail|gendarmerie|commissariat|police municipale|city of|city council|coun"
    r"ty council|town hall|department of|ministry of|embassy of|consulate of|university of|stadt|a"
    r"yuntamiento|comune|gemeente)"
    r" (?:de la |de l'|du |des |de |d'|of the |of |di |del |della |van |der |von )\S"
)
# The first words of an AI model's name, and the words that may follow them ("Claude Sonnet 4.6",
# "Mistral Large"): a family word followed by anything else ("Claude Dupont") is not a model.
_AI_FAMILIES = frozenset({
    "gpt", "chatgpt", "claude", "gemini", "llama", "mistral", "mixtral", "codestral", "ministral",
    "qwen", "deepseek", "phi", "gemma", "grok", "copilot", "dall e", "dalle", "whisper", "sora",
    "o1", "o3", "o4", "falcon", "bard", "palm", "midjourney", "stable diffusion", "command r",
})
_AI_MODEL_WORDS = frozenset({
    "sonnet", "opus", "haiku", "instant", "pro", "flash", "ultra", "nano", "mini", "turbo", "large",
    "medium", "small", "tiny", "base", "instruct", "chat", "code", "coder", "vision", "max", "plus",
    "lite", "preview", "experimental", "exp", "omni", "thinking", "reasoner", "embed", "embedding",
    "mixture", "moe", "it", "latest",
})
# Issuers whose regional or product entities start with the issuer's name
# ("Crédit Agricole Alpes Provence", "Orange Business").
_ISSUERS = frozenset({
    "credit agricole", "caisse d'epargne", "banque populaire", "credit mutuel", "bnp paribas",
    "societe generale", "la banque postale", "hsbc", "lcl", "cic", "axa", "allianz", "groupama",
    "orange", "sfr", "bouygues", "edf", "engie", "santander", "ing", "barclays", "american express",
    "visa", "mastercard", "google", "microsoft", "amazon", "apple", "maif", "macif", "generali",
})
_TRANSACTIONAL_MAILBOXES = frozenset({
    "noreply", "no-reply", "no_reply", "donotreply", "do-not-reply", "ne-pas-repondre",
    "nepasrepondre", "notification", "notifications", "notify", "alert", "alerts", "info", "infos",
    "news", "newsletter", "support", "help", "aide", "contact", "service-client", "serviceclient",
    "customer-service", "customerservice", "billing", "invoice", "invoices", "facture", "factures",
    "facturation", "security", "securite", "account", "accounts", "compte", "mailer-daemon",
    "postmaster", "bounce", "bounces", "hello", "team", "feedback", "order", "orders", "commande",
    "commandes", "shipping", "livraison", "receipts", "verify", "verification", "calendar",
    "calendar-notification", "drive-shares-noreply", "jobs-noreply", "messages-noreply",
})


# --- normalisation -------------------------------------------------------------------------------

# One apostrophe; letters without a decomposition read as their base letter ("Yıldırım" is "yildirim",
# "Łukasz" is "lukasz", "Đặng" is "dang").
_APOSTROPHES = str.maketrans({"’": "'", "ʼ": "'", "‘": "'", "`": "'", "ı": "i", "ł": "l", "đ": "d", "ø": "o"})
# Keys may change length (the same-shape folding of _plain may not): ligatures read as their two letters.
_KEY_LETTERS = str.maketrans({**{chr(k): v for k, v in _APOSTROPHES.items()}, "œ": "oe", "æ": "ae"})
_HYPHENS = deferred(r"[-‐‑_\s]+")


@lru_cache(maxsize=32768)
def lexicon_key(text: str) -> str:
    """Lookup form of a word or value: case- and accent-folded, one apostrophe, hyphens, dashes
    and runs of spaces read as one space ("Jean-Pierre" -> "jean pierre")."""
    if text.isascii():
        folded = text.lower()
    else:
        decomposed = unicodedata.normalize("NFD", text.casefold())
        folded = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).translate(_KEY_LETTERS)
    return _HYPHENS.sub(" ", folded).strip()


def _plain(text: str) -> str:
    """Case- and accent-folded text of the same shape (not cached: used on context windows)."""
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).translate(_APOSTROPHES)


# --- curated data files ----------------------------------------------------------------------------

@cache
def _data(name: str) -> str:
    return (resources.files("openmasq.redact") / "data" / "lexicon" / name).read_text(encoding="utf-8")


def _paragraphs(name: str) -> list[str]:
    """The file's entry paragraphs: comment and blank lines end a paragraph, and the lines of one
    paragraph are joined (an entry may wrap onto the next line)."""
    paragraphs: list[str] = []
    current: list[str] = []
    for line in _data(name).splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            if current:
                paragraphs.append(" ".join(current))
            current = []
        else:
            current.append(stripped)
    if current:
        paragraphs.append(" ".join(current))
    return paragraphs


# How each list file is read: these two as word lists, these as paragraphs of words, any other
# as a comma-separated list.
_WORD_LISTS = ("stopwords.txt", "frequent_words.txt")
_PARAGRAPH_LISTS = ("tickers.txt", "service_domains.txt")
_SECTIONED_LISTS = ("world_names.txt", "personal_words.txt")  # read by _world_names and _personal_words


def load_all() -> None:
    """Read every list file and name index now rather than on first use: a server does this before
    its first request (proxy.warm_engine), so that no request pays for it."""
    for entry in sorted((resources.files("openmasq.redact") / "data" / "lexicon").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".txt") and entry.name not in _WORD_LISTS + _PARAGRAPH_LISTS + _SECTIONED_LISTS:
            _comma_set(entry.name)
    for name in _WORD_LISTS:
        _word_set(name)
    for loader in (_tickers, _service_domains, _compact_generic, _everyday_name_words, _common_words, _extras,
                   _personal_words):
        loader()


@cache
def _comma_set(name: str) -> frozenset[str]:
    """A comma-separated list file as a set of lookup keys."""
    keys = (lexicon_key(entry) for paragraph in _paragraphs(name) for entry in paragraph.split(","))
    return frozenset(key for key in keys if key)


def list_keys(name: str) -> frozenset[str]:
    """The lookup keys of a comma-separated list file of data/lexicon ("person_cues.txt")."""
    return _comma_set(name)


@cache
def _word_set(name: str) -> frozenset[str]:
    """A whitespace-separated list file as a set of lookup keys."""
    return frozenset(lexicon_key(word) for paragraph in _paragraphs(name) for word in paragraph.split())


@cache
def _tickers() -> frozenset[str]:
    words = (word for paragraph in _paragraphs("tickers.txt") for word in paragraph.split())
    return frozenset(word for word in words if re.fullmatch(r"[A-Z]{2,5}", word))


@cache
def _service_domains() -> frozenset[str]:
    paragraphs = _paragraphs("service_domains.txt")
    return frozenset(word.lower() for paragraph in paragraphs for word in paragraph.split())


@cache
def _compact_generic() -> frozenset[str]:
    """Generic terms with their separators removed ("r.c.s." and "rcs" both give "rcs")."""
    return frozenset(_compact(term) for term in _comma_set("generic_terms.txt"))


_SEPARATORS = deferred(r"[\s.'/_-]+")


def _compact(key: str) -> str:
    return _SEPARATORS.sub("", key)


# --- Faker names ---------------------------------------------------------------------------------

class _NameIndex:
    """Every locale's first names (with gender) and surnames, keyed by lookup form."""

    def __init__(self) -> None:
        # key -> {language: set of genders}; key -> {language: share of the language's providers
        # that list it}.
        self.first: dict[str, dict[str, set[str]]] = {}
        self.first_hits: dict[str, dict[str, float]] = {}
        self.surname_hits: dict[str, dict[str, float]] = {}
        # Original spellings for fake generation, in provider order.
        self.spellings: dict[tuple[str, str], list[str]] = {}
        self.surname_spellings: dict[str, list[str]] = {}

    def add_provider(self, language: str, provider: type) -> None:
        genders: dict[str, set[str]] = {}
        for gender, attribute in (("m", "first_names_male"), ("f", "first_names_female")):
            names = _usable_names(getattr(provider, attribute, ()))
            self.spellings.setdefault((language, gender), []).extend(names)
            for name in names:
                genders.setdefault(lexicon_key(name), set()).add(gender)
        weight = 1 / len(LOCALES[language])
        for key, found in genders.items():
            self.first.setdefault(key, {}).setdefault(language, set()).update(found)
            _count(self.first_hits, key, language, weight)
        surnames = _usable_names(getattr(provider, "last_names", ()))
        self.surname_spellings.setdefault(language, []).extend(surnames)
        for key in {lexicon_key(name) for name in surnames}:
            _count(self.surname_hits, key, language, weight)


def _count(hits: dict[str, dict[str, float]], key: str, language: str, weight: float) -> None:
    counts = hits.setdefault(key, {})
    counts[language] = counts.get(language, 0) + weight


def _usable_names(names: Iterable[object]) -> list[str]:
    """Single-word names of 2 to 30 letters, hyphens and apostrophes allowed ("Jean-Pierre",
    "O'Neil"); Faker's multi-word entries ("Juan Ignacio", "Da Silva") are left out."""
    out: list[str] = []
    for name in names:
        text = str(name)
        if 2 <= len(text) <= 30 and text.replace("-", "").replace("'", "").replace("’", "").isalpha():
            out.append(text)
    return out


@cache
def _names() -> _NameIndex:
    """Load every provider once (the first lookup pays for importing Faker, about 0.1 s)."""
    index = _NameIndex()
    for language, providers in LOCALES.items():
        for locale in providers:
            module = importlib.import_module(f"faker.providers.person.{locale}")
            index.add_provider(language, module.Provider)
    return index


# --- detection-only names of the wider world --------------------------------------------------------

# Faker locales beyond our languages whose person lists use the Latin script (or have romanised
# lists): their names are read as names by the detectors, never drawn as fakes. Names that are also
# everyday words or places are kept as ambiguous first names (they need a surname) and dropped as
# surnames.
_EXTRA_LOCALES = (
    "en", "en_IN", "en_KE", "en_NG", "en_PK", "en_TH", "sw", "yo_NG", "ig_NG", "ha_NG", "tw_GH", "zu_ZA",
    "id_ID", "vi_VN", "tr_TR", "az_AZ", "uz_UZ", "pl_PL", "cs_CZ", "sk_SK", "hr_HR", "sl_SI", "hu_HU",
    "ro_RO", "lt_LT", "lv_LV", "et_EE", "fi_FI", "sv_SE", "no_NO", "da_DK", "is_IS", "ga_IE", "fr_DZ",
    "fr_QC", "es_AR", "es_CL", "es_CO", "es_CA", "de_CH", "de_LU", "de_LI", "nl_BE", "ja_JP", "zh_CN",
    "zh_TW", "ru_RU", "uk_UA", "bg_BG", "el_GR",
)
# Provider attributes: first-name lists with the gender they give, then surname lists. Vietnamese
# middle names ("Văn", "Thị") are given-name words; romanised lists stand for the native ones.
_EXTRA_FIRST_ATTRIBUTES = (
    ("first_names_male", "m"), ("first_names_female", "f"), ("first_romanized_names_male", "m"),
    ("first_romanized_names_female", "f"), ("first_names", "x"), ("first_names_nonbinary", "x"),
    ("first_names_unisex", "x"), ("first_romanized_names", "x"), ("middle_names", "x"),
)
_EXTRA_SURNAME_ATTRIBUTES = (
    "last_names", "last_names_male", "last_names_female", "unisex_last_names", "male_last_names",
    "last_names_without_suffix", "last_romanized_names",
)
# Locales whose native lists are transliterated here (their romanised lists do not exist in Faker);
# Vietnamese middle names are given names, Russian and Ukrainian ones are patronymics (left out).
_NO_MIDDLE_NAMES = frozenset({"ru_RU", "uk_UA", "bg_BG", "el_GR"})

# Plain transliteration tables (common press spellings, not a standard): Cyrillic and Greek.
_CYRILLIC_COMMON = {
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh", "з": "z",
    "и": "i", "й": "y", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s",
    "т": "t", "у": "u", "ф": "f", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "",
    "ы": "y", "ь": "", "э": "e", "ю": "yu", "я": "ya",
}
_TRANSLITERATIONS: dict[str, dict[str, str]] = {
    "ru_RU": _CYRILLIC_COMMON,
    "uk_UA": {**_CYRILLIC_COMMON, "г": "h", "ґ": "g", "є": "ye", "и": "y", "і": "i", "ї": "yi", "'": ""},
    "bg_BG": {**_CYRILLIC_COMMON, "х": "h", "щ": "sht", "ъ": "a", "ь": "y"},
    "el_GR": {
        "ου": "ou", "αυ": "av", "ευ": "ev", "μπ": "b", "ντ": "nt", "γγ": "ng", "γκ": "gk", "α": "a",
        "β": "v", "γ": "g", "δ": "d", "ε": "e", "ζ": "z", "η": "i", "θ": "th", "ι": "i", "κ": "k", "λ": "l",
        "μ": "m", "ν": "n", "ξ": "x", "ο": "o", "π": "p", "ρ": "r", "σ": "s", "ς": "s", "τ": "t", "υ": "y",
        "φ": "f", "χ": "ch", "ψ": "ps", "ω": "o",
    },
}
# Spelling variants of transliterated endings ("Dmitriy" / "Dmitry", "Mariya" / "Maria", "Andriy" /
# "Andrii").
_ENDING_VARIANTS = (("iy", ("y", "i", "ii")), ("iya", ("ia",)), ("yy", ("y",)), ("kh", ("h",)))
_GREEK_DIGRAPHS = deferred("ου|αυ|ευ|μπ|ντ|γγ|γκ")


def _transliterated(names: list[str], table: dict[str, str]) -> list[str]:
    """Cyrillic or Greek names in Latin letters, with the usual spelling variants of their endings
    (all names in one pass: this runs on thousands of them)."""
    text = "\n".join(names).casefold()
    if "ου" in table:  # Greek: accents off first, then the digraphs ("Γιώργος" -> "giorgos")
        text = _GREEK_DIGRAPHS.sub(lambda m: table[m.group()], _without_marks(unicodedata.normalize("NFD", text)))
    else:  # Cyrillic: "й" and "ї" are letters of their own, read before any accent is dropped
        text = unicodedata.normalize("NFC", text)
    singles: dict[str, str | int | None] = {k: v for k, v in table.items() if len(k) == 1}
    latin = text.translate(str.maketrans(singles))
    spellings: list[str] = []
    for name in latin.split("\n"):
        spellings.append(name)
        for ending, replacements in _ENDING_VARIANTS:
            if name.endswith(ending):
                spellings += [name[: -len(ending)] + other for other in replacements]
    return spellings


def _without_marks(decomposed: str) -> str:
    """`decomposed` without its combining marks (the set of marks is read from the text itself)."""
    marks = {ch for ch in set(decomposed) if unicodedata.combining(ch)}
    if not marks:
        return decomposed
    return re.sub("[" + "".join(sorted(marks)) + "]", "", decomposed)


def _provider_names(provider: type, attribute: str) -> list[str]:
    values = getattr(provider, attribute, ())
    if isinstance(values, dict):
        return [str(v) for v in values]
    return [str(v) for v in values] if isinstance(values, (tuple, list, set, frozenset)) else []


# A whole line that is one name word: letters, inner hyphens and apostrophes, 3 to 30 characters.
_NAME_LINE = deferred(r"^[^\W\d_](?:[^\W\d_]|['’-]){2,29}$", re.MULTILINE)
_FOLD_MARKS = _APOSTROPHES
_FOLD_GAPS = deferred(r"[-‐‑_ \t]+")


def _fold_lines(names: Iterable[str]) -> list[str]:
    """`lexicon_key` of many one-line names at once (one normalisation pass instead of one a name)."""
    decomposed = unicodedata.normalize("NFD", "\n".join(names).casefold())
    folded = _without_marks(decomposed).translate(_FOLD_MARKS)
    return [line.strip() for line in _FOLD_GAPS.sub(" ", folded).split("\n")]


def _name_word_keys(names: Iterable[str]) -> set[str]:
    """Lookup keys of the one-word names of 3 to 30 letters in Latin script. Most names are
    ASCII: those are folded by lower-casing alone (the costly Unicode pass is for the others)."""
    unique = dict.fromkeys(names)
    ascii_text = _FOLD_GAPS.sub(" ", "\n".join(n for n in unique if n.isascii() and " " not in n).lower())
    keys = set(_ASCII_NAME_KEY.findall(ascii_text))
    others = _NAME_LINE.findall("\n".join(n for n in unique if not n.isascii()))
    keys.update(key for key in _fold_lines(others) if _is_latin(key))
    return keys


# A whole line that is one folded ASCII name word ("jean pierre" from "Jean-Pierre", "o'neil").
_ASCII_NAME_KEY = deferred(r"^[a-z](?:[a-z']| (?=[a-z])){2,29}$", re.MULTILINE)


class _ExtraNames:
    """Detection-only first names (key -> "m", "f" or "x"), ambiguous ones, and surnames."""

    def __init__(self) -> None:
        self.first: dict[str, str] = {}
        self.ambiguous: set[str] = set()
        self.surnames: set[str] = set()


def _extra_names(core_first: Iterable[str], core_surnames: Iterable[str]) -> _ExtraNames:
    """The wider world's names without those our languages know. A name listed for one gender
    only has it; names that are everyday words or places become ambiguous first names and are
    no surnames."""
    by_gender: dict[str, list[str]] = {"m": [], "f": [], "x": []}
    surnames: list[str] = []
    for locale in _EXTRA_LOCALES:
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        table = _TRANSLITERATIONS.get(locale)
        for attribute, gender in _EXTRA_FIRST_ATTRIBUTES:
            if not (attribute == "middle_names" and locale in _NO_MIDDLE_NAMES):
                by_gender[gender] += _latin(_provider_names(provider, attribute), table)
        for attribute in _EXTRA_SURNAME_ATTRIBUTES:
            surnames += _latin(_provider_names(provider, attribute), table)
    world = _world_names()
    for gender in "mfx":
        by_gender[gender] += _plain_world_names(world[f"first {gender}"])
    surnames += _plain_world_names(world["surnames"])
    male, female, either = (_name_word_keys(by_gender[g]) for g in "mfx")
    extra = _ExtraNames()
    extra.first = dict.fromkeys(either, "x")
    extra.first.update(dict.fromkeys(male - female, "m"))
    extra.first.update(dict.fromkeys(female - male, "f"))
    extra.first.update(dict.fromkeys(male & female, "x"))
    for key in core_first:
        extra.first.pop(key, None)
    for key in _word_set("stopwords.txt") & extra.first.keys():
        del extra.first[key]  # "The", "Else": never a first name in our texts
    everyday = _everyday_name_words()
    core_surnames = set(core_surnames)
    extra.ambiguous = {key for key in extra.first if key in everyday}
    extra.surnames = _name_word_keys(surnames) - everyday - core_surnames
    return extra


def _world_names() -> dict[str, list[str]]:
    """Section ("first m", "first f", "first x", "surnames") -> names, from world_names.txt (generated by
    scripts/build_word_lists.py from names-dataset: the commonest names of 105 countries)."""
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in _data("world_names.txt").splitlines():
        if line.startswith("# first ") or line == "# surnames":
            current = sections.setdefault(line[2:], [])
        elif not line.startswith("#"):
            current += line.split()
    return sections


def _plain_world_names(names: list[str]) -> list[str]:
    """The world list's names that are no everyday word, frequent word, place or country: in a list drawn from
    what people typed as their name, those are mostly not names ("Madrid", "Ave", "Davide" the word)."""
    excluded = _everyday_name_words() | _word_set("frequent_words.txt")
    return [name for name in names if lexicon_key(name) not in excluded and not is_place(name)
            and not is_country(name)]


def _latin(names: list[str], table: dict[str, str] | None) -> list[str]:
    return _transliterated(names, table) if table is not None and names else names


def _is_latin(key: str) -> bool:
    return all(ch < "\u0250" or "\u1e00" <= ch <= "\u1eff" or ch in " '" for ch in key)


@cache
def _everyday_name_words() -> frozenset[str]:
    """Words a name list may hold that are also everyday words or places: the common-word
    dictionary, function words, generic terms, places, countries and brands."""
    return (
        _common_words() | _word_set("stopwords.txt") | _comma_set("generic_terms.txt")
        | _comma_set("places.txt") | _comma_set("countries.txt") | _comma_set("brands.txt")
    )


# Faker's word lists of our languages (the commonest words of each) stand for a dictionary.
_LOREM_LOCALES = ("en_US", "fr_FR", "de_DE", "es_ES", "it_IT", "nl_NL")


@cache
def _common_words() -> frozenset[str]:
    """Everyday words of our languages: Faker's word lists, our list of words that open
    headings, titles and job titles, and the name words that are also English words."""
    words: list[str] = []
    for locale in _LOREM_LOCALES:
        words += [str(w) for w in importlib.import_module(f"faker.providers.lorem.{locale}").Provider.word_list]
    return frozenset(set(_fold_lines(words)) | _comma_set("common_words.txt") | _comma_set("everyday_names.txt")
                     | _comma_set("request_verbs.txt"))


@lru_cache(maxsize=16384)
def is_common_word(word: str) -> bool:
    """An everyday word of one of our languages (a small dictionary: Faker's word lists, heading
    and title words, function words and generic terms), plural "s" forgiven."""
    key = _name_key(word)
    if not key:
        return False
    common = _common_words()
    if key in common or is_stopword(key) or is_generic_term(key):
        return True
    return len(key) > 3 and key[-1] == "s" and (key[:-1] in common or is_generic_term(key[:-1]))


@lru_cache(maxsize=16384)
def is_frequent_word(word: str) -> bool:
    """Among the 10,000 commonest words of French, English, German, Spanish or Italian (wordfreq): the
    dictionary that tells a name typed in lower case from a word ("azul", "rose" and "pierre" are words,
    "karim" is not)."""
    return lexicon_key(word.strip()) in _word_set("frequent_words.txt")


_INFLECTIONS = ("en", "n", "e", "s", "er", "es")
COMPOUND_TAIL = 6


@lru_cache(maxsize=16384)
def is_everyday_form(word: str) -> bool:
    """A frequent word, an inflected form of one ("Tarifen": "tarif" + "en") or a compound ending with one
    ("Einwegflaschen": "flaschen"), the way German writes its nouns; a word with a capital inside
    ("PixelForge") is no such compound."""
    key = lexicon_key(word)
    if is_frequent_word(key) or any(key.endswith(end) and is_frequent_word(key[: -len(end)])
                                    for end in _INFLECTIONS if len(key) - len(end) >= 4):
        return True
    if any(ch.isupper() for ch in word[1:]) or " " in key:
        return False
    return any(is_frequent_word(key[cut:]) for cut in range(3, len(key) - COMPOUND_TAIL + 1))


# The order of the paragraphs of the per-language lists (frequent_words.txt, personal_words.txt).
LIST_LANGUAGES = ("fr", "en", "de", "es", "it")


@cache
def _personal_words() -> dict[str, frozenset[str]]:
    by_lang = {lang: frozenset(lexicon_key(w) for w in paragraph.split())
               for lang, paragraph in zip(LIST_LANGUAGES, _paragraphs("personal_words.txt"), strict=True)}
    return {**by_lang, "auto": frozenset().union(*by_lang.values())}


def personal_words(lang: str) -> frozenset[str]:
    """The words of `lang` that speak of someone (pronouns, possessives, verbs of living and moving:
    personal_words.txt); every language's for "auto" or a language without a list."""
    words = _personal_words()
    return words.get(lang, words["auto"])


def frequent_word_lists() -> list[str]:
    """frequent_words.txt's paragraphs, one a language (fr, en, de, es, it), words by frequency (language.py)."""
    return _paragraphs("frequent_words.txt")


def is_request_verb(word: str) -> bool:
    """An imperative that opens a request ("Contacte", "Cherche", "Find"): a common word too."""
    return _name_key(word) in _comma_set("request_verbs.txt")


def _name_key(word: str) -> str:
    key = lexicon_key(word.strip().rstrip(".,;:!?"))
    return key[:-2] if key.endswith("'s") and len(key) > 3 else key


@lru_cache(maxsize=16384)
def is_first_name(word: str) -> bool:
    """A first name of one of our locales; a hyphenated name when every part is one."""
    key = _name_key(word)
    if not key:
        return False
    if _is_first_name_key(key):
        return True
    parts = key.split(" ")
    return len(parts) > 1 and "-" in word and all(_is_first_name_key(part, compound=True) for part in parts)


def _is_first_name_key(key: str, *, compound: bool = False) -> bool:
    """In our languages' lists, or in the wider world's (an everyday word from there does not
    make a compound name: "Saint-Étienne" is a town)."""
    if key in _names().first:
        return True
    extras = _extras()
    return key in extras.first and not (compound and key in extras.ambiguous)


@lru_cache(maxsize=16384)
def is_surname(word: str) -> bool:
    """A surname of one of our locales (Faker's lists), case and accents ignored."""
    key = _name_key(word)
    return bool(key) and (key in _names().surname_hits or key in _extras().surnames)


@lru_cache(maxsize=16384)
def is_core_first_name(word: str) -> bool:
    """A first name of one of our own languages' lists (not only of the wider world's)."""
    key = _name_key(word)
    return bool(key) and key in _names().first


@cache
def _extras() -> _ExtraNames:
    """The wider world's names, loaded on first use (after our own languages' names)."""
    index = _names()
    return _extra_names(index.first, index.surname_hits)


@lru_cache(maxsize=16384)
def locale_of_name(word: str) -> str | None:
    """The language a real name word most likely belongs to: the one with the largest share of
    providers listing it (as a first name or as a surname), ties going to the earlier language
    (French first). A hyphenated first name is read by its first part."""
    key = _name_key(word)
    if not key:
        return None
    index = _names()
    if key not in index.first and key not in index.surname_hits and " " in key and is_first_name(word):
        key = key.split(" ")[0]
    first, last = index.first_hits.get(key, {}), index.surname_hits.get(key, {})
    if not first and not last:
        return None
    def evidence(lang: str) -> tuple[float, int]:
        return max(first.get(lang, 0.0), last.get(lang, 0.0)), -_LOCALE_ORDER.index(lang)

    return max(_LOCALE_ORDER, key=evidence)


def first_name_gender(word: str) -> str | None:
    """"m", "f" or "x" (both, in the name's own language) for a first name, else None.
    A hyphenated name takes the gender of its first part ("Jean-Marie" is "m")."""
    key = _name_key(word)
    first = _names().first
    if key not in first and " " in key and is_first_name(word):
        key = key.split(" ")[0]
    genders_by_language = first.get(key)
    if not genders_by_language:
        return _extras().first.get(key) if key else None
    language = locale_of_name(key) or next(iter(genders_by_language))
    genders = genders_by_language.get(language) or set().union(*genders_by_language.values())
    return "x" if len(genders) > 1 else next(iter(genders))


def _language(locale: str) -> str:
    language = re.split(r"[-_]", locale.strip())[0].lower()
    if language not in LOCALES:
        raise ValueError(f"unknown locale {locale!r} (expected one of {', '.join(LOCALES)})")
    return language


@cache
def first_names(locale: str, gender: str) -> tuple[str, ...]:
    """Original spellings of a language's first names of one gender ("x": names given to both
    genders, or every name when the language has too few of those), without duplicates."""
    language = _language(locale)
    if gender not in _GENDERS:
        raise ValueError(f"unknown gender {gender!r} (expected m, f or x)")
    index = _names()
    if gender != "x":
        return _unique(index.spellings.get((language, gender), []))
    male = index.spellings.get((language, "m"), [])
    female_keys = {lexicon_key(n) for n in index.spellings.get((language, "f"), [])}
    both = _unique(n for n in male if lexicon_key(n) in female_keys)
    if len(both) >= 10:
        return both
    return _unique([*male, *index.spellings.get((language, "f"), [])])


@cache
def surnames(locale: str) -> tuple[str, ...]:
    """Original spellings of a language's surnames, without duplicates."""
    return _unique(_names().surname_spellings.get(_language(locale), []))


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        key = lexicon_key(name)
        if key not in seen:
            seen.add(key)
            out.append(name)
    return tuple(out)


# --- word lists ----------------------------------------------------------------------------------

@lru_cache(maxsize=16384)
def is_stopword(word: str) -> bool:
    """A function word of FR/EN/DE/ES/IT/PT/NL ("de", "the", "und", "l'")."""
    key = lexicon_key(word.strip())
    return bool(key) and (key in _word_set("stopwords.txt") or key.rstrip("'") in _word_set("stopwords.txt"))


@lru_cache(maxsize=16384)
def is_homograph(word: str) -> bool:
    """A first name or surname that is also an everyday word ("pierre", "rose", "will")."""
    key = lexicon_key(word.strip())
    if key in _comma_set("homographs.txt"):
        return True
    return key in _extras().ambiguous and key not in _names().surname_hits  # "Smith" stays a name


@lru_cache(maxsize=16384)
def is_weak_first_name(word: str) -> bool:
    """A first name only in the wider world's lists that is also an everyday word or a place
    ("Golden", "Major", "Mai"): it makes a name only with a surname that is no everyday word."""
    key = _name_key(word)
    return bool(key) and key in _extras().ambiguous


@lru_cache(maxsize=16384)
def is_country(value: str) -> bool:
    """A country, its short form or a continent, in English, French or its own language."""
    stripped = value.strip()
    return lexicon_key(stripped.strip(".")) in _comma_set("countries.txt") or stripped in ("US", "UK")


@lru_cache(maxsize=16384)
def is_place(value: str) -> bool:
    """A major city or region (French ones and world cities) or a country."""
    key = lexicon_key(value.strip())
    return key in _comma_set("places.txt") or is_country(value)


@lru_cache(maxsize=16384)
def is_honorific(word: str) -> bool:
    """A civility or title ("M.", "Mme", "Dr", "Herr", "Sra.")."""
    stripped = word.strip()
    return stripped in HONORIFICS or stripped.rstrip(".") in _HONORIFIC_BARE or stripped.title() in HONORIFICS


_HONORIFIC_BARE = frozenset(h.rstrip(".") for h in HONORIFICS if len(h.rstrip(".")) > 1)
_LEGAL_FORM_KEYS = frozenset(_compact(lexicon_key(form)) for form in LEGAL_FORMS)


@lru_cache(maxsize=16384)
def is_legal_form(word: str) -> bool:
    """A company legal form ("SARL", "GmbH", "S.p.A.", "Inc."); case matters for the short ones
    ("SA" is one, the French "sa" is not)."""
    stripped = word.strip().strip(",")
    if stripped in LEGAL_FORMS:
        return True
    compact = _compact(lexicon_key(stripped))
    return len(compact) >= 3 and compact in _LEGAL_FORM_KEYS and not stripped.islower()


@lru_cache(maxsize=16384)
def is_org_descriptor(word: str) -> bool:
    """A word that says a capitalised name is a business or an organisation when it opens or
    closes it: an industry, a trade or a kind of organisation ("Freight", "Holdings",
    "Boulangerie", "Kanzlei", "Farmacia"), plural "s" forgiven."""
    key = lexicon_key(word.strip())
    descriptors = _comma_set("org_descriptors.txt")
    return key in descriptors or (len(key) > 3 and key[-1] == "s" and key[:-1] in descriptors) or any(
        key.endswith(head) and len(key) - len(head) >= 3 for head in _comma_set("org_compound_heads.txt"))


@lru_cache(maxsize=16384)
def is_trade_word(word: str) -> bool:
    """A trade, shop or practice word after which any capitalised words make the business's name
    ("Boulangerie Le Bon Grain", "Farmacia San Teodoro")."""
    return lexicon_key(word.strip()) in _comma_set("org_trades.txt")


@cache
def club_abbreviations() -> tuple[frozenset[str], frozenset[str]]:
    """The abbreviations that open a club's name and those that close it, case kept ("TSV", "FC")."""
    before, after = _paragraphs("club_abbreviations.txt")[:2]
    return frozenset(before.split()), frozenset(after.split())


@lru_cache(maxsize=16384)
def is_currency(value: str) -> bool:
    """An ISO currency code (in capitals), a currency symbol or a currency name."""
    stripped = value.strip()
    if stripped in _CURRENCY_CODES or (len(stripped) == 1 and stripped in _CURRENCY_SYMBOLS):
        return True
    return lexicon_key(stripped) in _CURRENCY_NAMES


_CURRENCY_NAMES = frozenset({
    "euro", "euros", "dollar", "dollars", "livre sterling", "livres sterling", "pound sterling",
    "pounds sterling", "franc suisse", "francs suisses", "yen", "yuan", "renminbi", "roupie", "rupee",
    "rouble", "ruble", "peso", "pesos", "bitcoin", "bitcoins", "zloty", "forint", "couronne", "krone",
})


@lru_cache(maxsize=16384)
def is_calendar_abbreviation(word: str) -> bool:
    """A day or month abbreviation ("lun", "janv", "sept", "Jan."), never those that are only
    first names ("sam")."""
    return lexicon_key(word.strip()).rstrip(".") in _CALENDAR_ABBREVIATIONS


@lru_cache(maxsize=16384)
def is_generic_term(value: str) -> bool:
    """A whole value that names a kind of thing, never someone (reference 2.4): document types,
    field labels, legal and payroll vocabulary, legal forms, greetings, honorifics, days and
    months (not those that are first names), roles, business and tech words, currencies."""
    stripped = value.strip()
    key = lexicon_key(stripped)
    if not key:
        return False
    generic = _comma_set("generic_terms.txt")
    if key in generic or key.rstrip(".") in generic or is_calendar_abbreviation(stripped):
        return True
    compact = _compact(key)
    if compact and compact != key and compact in _compact_generic():
        return True
    return bool(_MARKUP_TAG.fullmatch(stripped)) or is_currency(stripped)


def _value_words(key: str) -> list[str]:
    return [w for w in re.split(r"[\s._/'-]+", key) if w]


def _is_generic_word(word: str) -> bool:
    if any(ch.isdigit() for ch in word):
        return False
    return is_stopword(word) or is_generic_term(word) or word in _ARTICLES


@lru_cache(maxsize=8192)
def is_non_pii_term(value: str, category: str = "") -> bool:
    """The single "never PII on its own" test (reference 2.4): a stopword, a generic term, a
    registry mention, a compound of generic words, a generic word after one article, a clinical
    term (outside the health category) or a public-body compound ("Mairie de Lyon")."""
    stripped = value.strip()
    if not stripped:
        return True
    if is_stopword(stripped) or is_generic_term(stripped):
        return True
    key = lexicon_key(stripped)
    if key.startswith(("rcs ", "greffe ")):
        return True
    words = _value_words(key)
    if len(words) >= 2 and all(_is_generic_word(w) for w in words):
        return True
    if len(words) >= 2 and words[0] in _ARTICLES and is_generic_term(" ".join(words[1:])):
        return True
    if category != "health" and _is_clinical(key, words):
        return True
    return bool(_PUBLIC_BODY.match(key))


def _is_clinical(key: str, words: list[str]) -> bool:
    clinical = _comma_set("clinical_terms.txt")
    if key in clinical:
        return True
    return len(words) >= 2 and all(w in clinical or _is_generic_word(w) for w in words) and any(
        w in clinical for w in words
    )


@lru_cache(maxsize=8192)
def strip_org_affixes(value: str) -> str:
    """An org name without its legal forms and company descriptors at either end, without a
    dangling connector, and without boilerplate before a spaced dash or colon (reference 2.4):
    "Atelier Torbel SARL" -> "Atelier Torbel", "Cabinet Bezier" -> "Bezier". Never strips to
    fewer than 2 characters (the input is returned then)."""
    original = value.strip()
    text = _after_boilerplate(original)
    words = text.split()
    while words and _is_affix_word(words[0]):
        words.pop(0)
    while words and (_is_affix_word(words[-1]) or lexicon_key(words[-1]) in _DANGLING_CONNECTORS):
        words.pop()
    while words and lexicon_key(words[0]) in _DANGLING_CONNECTORS - {"the", "l'"}:
        words.pop(0)
    result = " ".join(words).strip(" ,;:-–—")
    return result if len(result) >= 2 else original


def _is_affix_word(word: str) -> bool:
    compact = _compact(lexicon_key(word.strip(",;:()")))
    return compact in _ORG_AFFIXES or is_legal_form(word.strip(",;:()"))


def _after_boilerplate(value: str) -> str:
    """The right side of "Société : Karl Studio" / "Cabinet d'avocats - Bezier" when everything on
    the left is boilerplate."""
    parts = re.split(r"\s[-–—:]\s|\s?:\s", value, maxsplit=1)
    if len(parts) == 2 and parts[1].strip():
        left_words = _value_words(lexicon_key(parts[0]))
        if left_words and all(w in _ORG_AFFIXES or _is_generic_word(w) for w in left_words):
            return parts[1].strip()
    return value


# --- notoriety (reference 9.8) ---------------------------------------------------------------------

_LEADING_TITLES = frozenset({
    "president", "presidente", "president of", "monsieur", "madame", "mr", "mrs", "ms", "dr", "sir",
    "pope", "pape", "king", "queen", "roi", "reine", "prince", "princess", "princesse", "saint",
    "general", "chancellor", "chanceliere", "chancelier", "premier ministre", "prime minister",
})


@lru_cache(maxsize=8192)
def is_notorious(
    value: str, category: str, *, commercial: bool, people: bool, tied_to_writer: bool = False
) -> bool:
    """Whether a value names a public entity that ships in clear for its coarse category
    (reference 9.8). Countries are always exempt; famous people need `people`, brands and
    service domains need `commercial`; anything tied to the writer is kept redacted."""
    stripped = value.strip().strip(",;:")
    if not stripped:
        return False
    if is_country(stripped):
        return True
    if tied_to_writer:
        return False
    if stripped in _tickers():
        return True
    if category == "email":
        return commercial and _is_service_mailbox(stripped)
    if commercial and _is_service_domain(stripped):
        return True
    if category == "location":
        return _is_listed(stripped, "state_bodies.txt")
    if category == "name":
        return _is_notorious_name(stripped, commercial=commercial, people=people)
    if category == "company":
        return _is_notorious_company(stripped, commercial=commercial)
    return False


def _is_notorious_name(value: str, *, commercial: bool, people: bool) -> bool:
    if people and is_famous_person(value):
        return True
    if is_ai_model_name(value):
        return True
    return len(value.split()) >= 2 and _is_famous_org(value, commercial=commercial)


def _is_notorious_company(value: str, *, commercial: bool) -> bool:
    if _is_famous_org(value, commercial=commercial) or is_ai_model_name(value):
        return True
    return commercial and _has_issuer_prefix(value)


def is_famous_person(value: str) -> bool:
    """A world-famous person (leaders, historical figures, artists, athletes...), also after a
    leading title ("Président Macron")."""
    key = lexicon_key(value.strip())
    people = _comma_set("notorious_people.txt")
    if key in people:
        return True
    words = key.split(" ")
    for size in (2, 1):
        if len(words) > size and " ".join(words[:size]) in _LEADING_TITLES:
            return " ".join(words[size:]) in people
    return False


def _is_listed(value: str, name: str) -> bool:
    """In a list file; short and stopword-like entries count only in ALL-CAPS ("UN", "FO" and
    "WHO" are bodies only when written as acronyms)."""
    key = lexicon_key(value)
    if key not in _comma_set(name):
        return False
    if len(key) <= 3 or is_stopword(key):
        return value.isupper()
    return True


def _org_variants(value: str) -> list[str]:
    """The value, without a trailing country ("HSBC France"), without legal forms ("Github,
    Inc."), and both."""
    variants = [value]
    words = value.split()
    if len(words) >= 2 and is_country(words[-1]):
        variants.append(" ".join(words[:-1]))
    for variant in list(variants):
        stripped = strip_org_affixes(variant)
        if stripped != variant:
            variants.append(stripped)
    return variants


def _is_famous_org(value: str, *, commercial: bool) -> bool:
    names = ["state_bodies.txt", "organisations.txt"] + (["brands.txt"] if commercial else [])
    return any(_is_listed(variant, name) for variant in _org_variants(value) for name in names)


def _has_issuer_prefix(value: str) -> bool:
    words = lexicon_key(value).split(" ")
    return any(len(words) > size and " ".join(words[:size]) in _ISSUERS for size in (1, 2, 3))


def is_ai_model_name(value: str) -> bool:
    """An AI model by shape: a model family followed by versions or model words ("Claude Sonnet
    4.6", "GPT-4o", "Mistral Large"); a bare family word ("Claude") is not one."""
    words = lexicon_key(value).split(" ")
    for size in (2, 1):
        if len(words) > size and " ".join(words[:size]) in _AI_FAMILIES:
            rest = words[size:]
            return all(any(ch.isdigit() for ch in w) or w in _AI_MODEL_WORDS for w in rest)
    return False


def _registrable_domain(host: str) -> str:
    labels = host.lower().strip(".").split(".")
    if len(labels) >= 3 and labels[-2] in ("co", "com", "org", "net", "gouv", "gov", "ac"):
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


_URL_HOST = deferred(
    r"^(?:[a-z][a-z0-9+.-]{1,15}://)?(?:[^@/\s]{1,64}@)?([a-z0-9.-]{1,253})", re.IGNORECASE
)


def _is_service_domain(value: str) -> bool:
    """A URL, host or domain of a notorious service, or any site of the French state (gouv.fr)."""
    match = _URL_HOST.match(value.strip())
    if not match or "." not in match.group(1):
        return False
    host = match.group(1).lower().rstrip(".")
    if host.endswith(".gouv.fr") or host == "gouv.fr":
        return True
    domains = _service_domains()
    return host in domains or _registrable_domain(host) in domains


def _is_service_mailbox(value: str) -> bool:
    """A transactional mailbox (no-reply@, support@...) at a notorious service's domain."""
    local, at, domain = value.strip().rpartition("@")
    if not at:
        return False
    return local.lower() in _TRANSACTIONAL_MAILBOXES and _is_service_domain(domain)


# Text that ties the entity right after it to the writer ("je travaille chez", "my employer is").
_TIE_VERB = (
    r"(?:je|j')\s*(?:travaille|travaillais|bosse|bossais|suis (?:employee?|salariee?|stagiaire|"
    r"alternante?|consultante?|cadre|ingenieure?|developpeu(?:r|se)|manager|directeur|directrice|"
    r"responsable|associee?|fondat(?:eur|rice)))|j'ai (?:ete )?(?:embauchee?|recrutee?)|j'ai rejoint|"
    r"je viens de rejoindre|nous travaillons|on travaille|i(?: work| worked| am working|'m working)|"
    r"i'm (?:employed|an intern|interning)|i am employed|i (?:just )?joined|we work|"
    r"ich arbeite|ich bin (?:angestellt|beschaftigt)|wir arbeiten|trabajo|trabajamos|lavoro|"
    r"lavoriamo|trabalho|trabalhamos|ik werk|wij werken|we werken"
)
_TIE_PREPOSITION = (
    r"(?:chez|pour|a|au sein de|au sein du|dans|at|for|with|bei|fur|en|para|presso|per|da|in|na|no|em|"
    r"bij|voor)"
)
_TIE_POSSESSIVE = (
    r"(?:mon (?:employeur|entreprise|boulot|job|travail|stage|patron)|ma (?:boite|societe|compagnie|"
    r"start ?up|startup|structure)|notre (?:entreprise|societe|boite|startup|agence|cabinet|employeur)|"
    r"my (?:employer|company|firm|job|workplace)|our (?:company|firm|startup|employer)|"
    r"mein (?:arbeitgeber|unternehmen)|meine firma|unsere firma|mi (?:empresa|empleador|trabajo)|"
    r"nuestra empresa|la mia azienda|il mio datore di lavoro|(?:a )?minha empresa|o meu empregador|"
    r"mijn (?:werkgever|bedrijf)|ons bedrijf)"
)
_ARTICLE_OR_DESCRIPTOR = (
    r"(?:(?:la |le |l'|les |the |der |die |das |el |il |lo |a |o |de )?(?:societe |entreprise |"
    r"groupe |boite |company |firm |firma |empresa |azienda |bedrijf |agence |cabinet )?)"
)
_TIE_BEFORE = deferred(
    rf"(?:\b(?:{_TIE_VERB})\b[^.!?\n]{{0,30}}?\b{_TIE_PREPOSITION}\s+{_ARTICLE_OR_DESCRIPTOR}"
    rf"|\b{_TIE_POSSESSIVE}(?:\s*(?:,|:|est|c'est|is|ist|es|e|e'|is)\s*|\s+){_ARTICLE_OR_DESCRIPTOR})$"
)
_TIE_AFTER = deferred(
    r"^\s*,?\s*(?:(?:qui est |which is |c'est )?(?:mon|notre|my|our) (?:employeur|employer|entreprise|"
    r"company|boite)|ou je (?:travaille|bosse)|where i work|bei (?:der|dem) ich arbeite|"
    r"donde trabajo|dove lavoro|onde trabalho|waar ik werk)"
)


def ties_to_writer(text: str, start: int, end: int) -> bool:
    """Whether the text ties the entity at [start, end) to the writer: an employment phrase right
    before it ("je travaille chez X", "I work at X", "mon employeur X", "ich arbeite bei X") or
    right after it ("X, mon employeur")."""
    before = _plain(text[max(0, start - 80) : start])
    if _TIE_BEFORE.search(before):
        return True
    after = _plain(text[end : end + 40])
    return bool(_TIE_AFTER.match(after))
