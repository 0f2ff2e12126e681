"""Organisation names found without a model: a capitalised name with its legal form, a name after
an organisation cue ("la société X", "our client X"), and a company e-mail domain's name when the
text also spells it out."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from ..patterns import deferred
from . import lexicon, places
from .spans import Span
from .text import has_combining_marks
from .words import JOINING_GAPS, TextView

# Org words: letters and digits, joined by hyphens, apostrophes or "&" ("Coca-Cola", "L'Oréal",
# "AT&T", "3M"); a lone "&" is a connector word.
_WORD = deferred(r"(?:[^\W_]+|[\u0300-\u036f]+)+(?:[-‐'’&](?:[^\W_]+|[\u0300-\u036f]+)+){0,6}|&")
# The same words in a text without combining accents (most texts), found faster.
_PLAIN_WORD = deferred(r"[^\W_]+(?:[-‐'’&][^\W_]+){0,6}|&")
# A lower-case elided article glued to a capitalised name ("dell'Autofficina", "l'Agence").
_LOWER_ELISION = deferred(r"[a-zà-ÿ]{1,5}['’]")
_LEGAL_FORM_GAP = deferred(r",?[ \t]{1,3}")

# Words that link two capitalised words inside one name ("Dupont et Fils", "Bank of America").
_CONNECTORS = frozenset({
    "&", "et", "and", "und", "y", "e", "of", "de", "du", "des", "the", "van", "von", "di", "del", "da",
    "d'", "l'",
})
# A capitalised article or particle may open the name ("La Poste", "The Boring Company", "Van
# Dijk BV"); German articles do not ("Der Tennisclub Grün-Weiß e.V.": "Der" is the sentence's).
_OPENING_ARTICLES = frozenset({
    "le", "la", "les", "l'", "the", "el", "il", "het", "de", "los", "las", "van", "von", "di", "da",
    "del", "della", "du", "des", "dos",
})
# Cue words that end a name read backwards ("Client Acme SARL" is the company "Acme SARL").
_CUE_WORDS = frozenset({
    "client", "cliente", "clients", "fournisseur", "partenaire", "prestataire", "customer", "supplier",
    "vendor", "partner", "employeur", "employer", "kunde", "chez", "bei",
})
# French legal forms also written before the name ("la SARL Dupont et Fils").
_PREFIX_FORMS = frozenset({"SARL", "SAS", "SASU", "EURL", "SCI", "SNC", "SCOP", "SCP", "SELARL", "SELAS"})
# Words that say the capitalised words are a business, not a person ("Karl Studio").
_BUSINESS_WORDS = frozenset({
    "studio", "studios", "atelier", "agence", "agency", "conseil", "consulting", "consultants",
    "services", "service", "solutions", "technologies", "technology", "tech", "digital", "design",
    "media", "group", "groupe", "holding", "partners", "associes", "avocats", "immobilier", "transports",
    "logistique", "industries", "international", "labs", "lab", "systems", "software", "data",
    "networks", "cloud", "web", "store", "shop", "market", "creative", "capital", "invest", "ventures",
    "finance", "assurances", "bank", "banque", "boulangerie", "restaurant", "cafe", "hotel", "garage",
    "pharmacie", "construction", "renovation", "formation", "production", "productions", "events",
    "company", "compagnie", "cie", "fils", "freres", "sons", "brothers", "co", "corp", "factory",
    "works", "maison", "editions", "publishing", "energie", "energy", "motors", "automobiles",
})


def _legal_form_pattern() -> re.Pattern[str]:
    """Every spelling of a legal form, the two compound forms first, then the longest first; the
    forms are grouped by their first character so that the regex engine jumps to the characters a
    form can start with and tries only the forms starting there (one alternation of all 160 forms
    tried at every word start cost ~170 µs per 2 kB prompt). The look-behind sits after that
    first character."""
    forms: set[str] = set()
    for form in lexicon.LEGAL_FORMS:
        forms.update({form, form.upper()})
        if form.isupper() and len(form) >= 4 and "." not in form:
            forms.add(form.title())
    compounds = [("G", r"mbH & Co\.? KG"), ("U", r"G \(haftungsbeschränkt\)")]
    plain = [(f[0], re.escape(f[1:])) for f in sorted(forms, key=len, reverse=True)]
    rests_by_first: dict[str, list[str]] = {}
    for first, rest in compounds + plain:
        rests_by_first.setdefault(first, []).append(rest)
    groups = "|".join(
        rf"{re.escape(first)}(?<![\w.&].)(?:{'|'.join(rests)})" for first, rests in rests_by_first.items()
    )
    return re.compile(rf"(?:{groups})(?![\w&])")


_LEGAL_FORM = _legal_form_pattern()

# Organisation cues: the words right before an org name (compared folded, word by word).
_CUE_PHRASES = (
    "chez", "la société", "l'entreprise", "l'agence", "le cabinet", "le groupe", "la start-up",
    "la startup", "la banque", "l'association", "la boîte", "la marque", "l'enseigne", "l'éditeur",
    "l'organisme", "la compagnie", "la firme", "la mutuelle", "l'assureur", "l'opérateur",
    "mon employeur", "notre employeur", "l'employeur", "client", "cliente", "notre client",
    "notre cliente", "le client", "la cliente", "un client", "une cliente", "du client", "partenaire",
    "notre partenaire", "le partenaire", "nos partenaires", "les partenaires", "fournisseur",
    "notre fournisseur", "le fournisseur", "prestataire", "notre prestataire", "le prestataire",
    "le sous-traitant", "la filiale", "the company", "the firm", "the agency", "the startup", "the bank",
    "our client", "the client", "a client", "my client", "customer", "our customer", "the customer",
    "partner", "our partner", "the partner", "vendor", "our vendor", "the vendor", "supplier",
    "our supplier", "the supplier", "my employer", "die firma", "der firma", "das unternehmen",
    "dem unternehmen", "kunde", "unser kunde", "der kunde", "unser partner", "der lieferant",
    "la empresa", "la compañía", "la sociedad", "la agencia", "el cliente", "nuestro cliente",
    "el proveedor", "l'azienda", "la società", "la ditta", "l'agenzia", "il cliente",
    "il nostro cliente", "il fornitore", "a empresa", "a companhia", "a sociedade", "o cliente",
    "nosso cliente", "o fornecedor", "het bedrijf", "de firma", "klant", "de klant", "onze klant",
    "de leverancier", "bei", "presso",
)
_EMAIL = deferred(r"(?<![\w.+-])[\w.+-]{1,64}@((?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24})(?![\w-])")
_WEBMAIL_LABELS = frozenset({
    "gmail", "googlemail", "yahoo", "ymail", "hotmail", "outlook", "live", "msn", "aol", "icloud", "me",
    "mac", "orange", "wanadoo", "free", "sfr", "neuf", "laposte", "bbox", "numericable", "club-internet",
    "aliceadsl", "libertysurf", "protonmail", "proton", "pm", "tutanota", "tuta", "gmx", "web",
    "t-online", "freenet", "yandex", "mail", "zoho", "libero", "virgilio", "tiscali", "alice", "qq",
    "163", "126", "naver", "seznam", "wp", "o2", "example", "test", "localhost", "skynet", "telenet",
    "fastmail", "hey", "mailbox", "posteo", "sapo", "terra", "uol", "bol", "arcor", "ziggo", "kpnmail",
})
_SECOND_LEVEL = frozenset({"co", "com", "org", "net", "gouv", "gov", "ac", "edu"})


class _OrgWords:
    """The org words of a text view with their offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        matches = list((_WORD if has_combining_marks(text) else _PLAIN_WORD).finditer(text))
        self.starts = [m.start() for m in matches]
        self.ends = [m.end() for m in matches]
        self.texts = [m.group() for m in matches]
        if "'" in text or "’" in text:
            self._split_elisions()
        # Word i and word i+1 are joined: glued by an apostrophe, or one to three spaces or tabs apart.
        self.links = [
            (word[-1] in "'’") if gap_start == gap_end else text[gap_start:gap_end] in JOINING_GAPS
            for gap_start, gap_end, word in zip(self.ends[:-1], self.starts[1:], self.texts[:-1], strict=True)
        ]

    def _split_elisions(self) -> None:
        """"dell'Autofficina", "l'Agence": a lower-case elided article is a word of its own. Only
        the words holding an apostrophe need a look."""
        starts: list[int] = []
        ends: list[int] = []
        texts: list[str] = []
        cursor = 0
        for k, word in enumerate(self.texts):
            if "'" not in word and "’" not in word:
                continue
            elision = _LOWER_ELISION.match(word)
            if not (elision and elision.end() < len(word) and word[elision.end()].isupper()):
                continue
            starts += self.starts[cursor:k]
            ends += self.ends[cursor:k]
            texts += self.texts[cursor:k]
            cursor = k + 1
            start = self.starts[k]
            starts += [start, start + elision.end()]
            ends += [start + elision.end(), self.ends[k]]
            texts += [word[: elision.end()], word[elision.end() :]]
        if cursor:
            self.starts = starts + self.starts[cursor:]
            self.ends = ends + self.ends[cursor:]
            self.texts = texts + self.texts[cursor:]

    def joined(self, i: int) -> bool:
        return self.links[i]

    def after_keys(self, key_of: Callable[[str], str], keys: frozenset[str]) -> list[int]:
        """In order, the words that follow a word joined to them whose `key_of` is in `keys`:
        the only words a cue ending with one of `keys` can stand before (few; testing every
        capitalised word for a cue cost more than the rest of the cue search)."""
        return [k + 1 for k, key in enumerate(map(key_of, self.texts[:-1])) if key in keys and self.links[k]]

    def index_ending_before(self, position: int) -> int:
        """The last word that ends at or before `position` (-1 when none)."""
        return bisect.bisect_right(self.ends, position) - 1

    def index_starting_at(self, position: int) -> int:
        """The word starting at `position` (-1 when none)."""
        k = bisect.bisect_left(self.starts, position)
        return k if k < len(self.starts) and self.starts[k] == position else -1


# The word predicates below read a word alone and are cached: the same words come back in every
# text, and each costs several lexicon look-ups.
@lru_cache(maxsize=16384)
def _is_name_word(word: str) -> bool:
    """A word that can belong to an org name: capitalised or starting with a digit, not a
    function word, honorific or cue word. Generic words may ("La Poste"): see `_trimmed`."""
    if not (word[0].isupper() or word[0].isdigit()):
        return False
    if not any(ch.isalpha() for ch in word) or len(word) < 2 or sum(ch.isdigit() for ch in word) > 1:
        return False
    key = lexicon.lexicon_key(word)
    if key in _CUE_WORDS or lexicon.is_honorific(word) or lexicon.is_legal_form(word):
        return False
    return not lexicon.is_stopword(word) or key in _OPENING_ARTICLES


@lru_cache(maxsize=16384)
def _is_filler(word: str) -> bool:
    """A generic word that is not a business word: it can sit inside a known org's name but does
    not start or end an unknown one ("Facture Acme SARL" is "Acme SARL")."""
    key = lexicon.lexicon_key(word)
    if key in _BUSINESS_WORDS or key in _OPENING_ARTICLES or lexicon.is_org_descriptor(word):
        return False
    return lexicon.is_generic_term(word) and not lexicon.is_surname(word)


@lru_cache(maxsize=16384)
def _is_loose_end(word: str) -> bool:
    return _is_filler(word) or (not word[0].isupper() and lexicon.lexicon_key(word) in _CONNECTORS)


def _trimmed(words: _OrgWords, first: int, last: int, *, keep_end: bool) -> tuple[int, int]:
    """The name words [first, last] without leading (and, unless `keep_end`, trailing) filler
    words and dangling connectors, unless the whole is a notorious organisation; (-1, -1) when
    nothing but fillers remains."""
    value = words.text[words.starts[first] : words.ends[last]]
    if lexicon.is_notorious(value, "company", commercial=True, people=True):
        return first, last
    while first < last and (_is_loose_end(words.texts[first]) or _opens_request(words, first)):
        first += 1
    while not keep_end and last > first and _is_loose_end(words.texts[last]):
        last -= 1
    if _is_filler(words.texts[first]) or (not keep_end and _is_filler(words.texts[last])):
        return -1, -1
    return first, last


def _opens_request(words: _OrgWords, k: int) -> bool:
    """Word k is the verb a request opens with ("Contacte Karl Studio SAS"), not the name's."""
    return lexicon.is_request_verb(words.texts[k]) and _opens_sentence(words, k)


def _name_before(words: _OrgWords, k: int, limit: int = 5) -> int:
    """Walking back from word k: the first word of the org name that ends with word k, or -1.
    Lower-case connectors are crossed only between name words; a capitalised article opens it."""
    first = -1
    count = 0
    while k >= 0 and count < limit:
        word = words.texts[k]
        key = lexicon.lexicon_key(word)
        if first >= 0 and key in _OPENING_ARTICLES and word[0].isupper():
            return k
        if _is_name_word(word) and key not in _OPENING_ARTICLES:
            first, count = k, count + 1
        elif not (first >= 0 and key in _CONNECTORS and not word[0].isupper()):
            break
        if k == 0 or not words.joined(k - 1):
            break
        k -= 1
    return first


def _name_after(words: _OrgWords, k: int, limit: int = 4) -> int:
    """Walking forward from word k: the last word of the org name that starts with word k, or -1."""
    last = -1
    count = 0
    while k < len(words.texts) and count < limit:
        word = words.texts[k]
        key = lexicon.lexicon_key(word)
        if _is_name_word(word) and (key not in _OPENING_ARTICLES or last < 0):
            last, count = k, count + 1
        elif not (last >= 0 and key in _CONNECTORS and not word[0].isupper()):
            break
        if k + 1 >= len(words.texts) or not words.joined(k):
            break
        k += 1
    return last


def _looks_like_person(words: _OrgWords, first: int, last: int) -> bool:
    """"Jean Dupont", "Marie": a first name and surname-like words, no business word. A word
    that is only a surname in our languages is no first name here ("A empresa Tavares")."""
    texts = words.texts[first : last + 1]
    head = texts[0]
    if not lexicon.is_first_name(head):
        return False
    if len(texts) == 1 and lexicon.is_surname(head) and not lexicon.is_core_first_name(head):
        return False
    return not any(lexicon.lexicon_key(w) in _BUSINESS_WORDS or lexicon.is_org_descriptor(w) for w in texts)


def _cue_keys(phrases: tuple[str, ...]) -> frozenset[str]:
    """Cue phrases as the scanner sees them: folded org words joined by one space."""
    return frozenset(" ".join(lexicon.lexicon_key(m.group()) for m in _WORD.finditer(p)) for p in phrases)


_CUES = _cue_keys(_CUE_PHRASES)
_CUE_ENDS = frozenset(cue.rsplit(" ", 1)[-1] for cue in _CUES)
_LONGEST_CUE = max(cue.count(" ") + 1 for cue in _CUES)


class _Found(NamedTuple):
    """An org found on the text view: [start, end), how, and how sure."""

    start: int
    end: int
    source: str
    score: float
    # Found without a legal form by a rule of this module whose value is worth looking for
    # again elsewhere in the text ("la démo pour Zentavio ... Zentavio a signé").
    echoes: bool = False


def _legal_form_spans(words: _OrgWords) -> list[_Found]:
    """"Atelier Torbel SARL", "Müller GmbH", "Github, Inc.", and "la SARL Dupont et Fils"."""
    out: list[_Found] = []
    text = words.text
    for match in _LEGAL_FORM.finditer(text):
        k = words.index_ending_before(match.start())
        first = -1
        if k >= 0 and _LEGAL_FORM_GAP.fullmatch(text, words.ends[k], match.start()):
            first = _name_before(words, k)
            if first >= 0:
                first, _ = _trimmed(words, first, k, keep_end=True)
        if first >= 0:
            out.append(_Found(words.starts[first], match.end(), "rule", 0.95))
            continue
        if match.group() in _PREFIX_FORMS:
            after = words.index_starting_at(_skip_spaces(text, match.end()))
            last = _name_after(words, after) if after >= 0 and after > k else -1
            if last >= 0:
                after, last = _trimmed(words, after, last, keep_end=False)
            if last >= 0:
                out.append(_Found(match.start(), words.ends[last], "rule", 0.9))
    return out


def _skip_spaces(text: str, position: int) -> int:
    end = position
    while end < len(text) and end - position < 3 and text[end] in " \t":
        end += 1
    return end


def _cue_spans(words: _OrgWords) -> list[_Found]:
    """Capitalised words after an organisation cue ("chez Karl Studio", "la société Zurita",
    "our client Globex", "l'azienda Ferri"), with a legal form that follows."""
    out: list[_Found] = []
    text = words.text
    for first in words.after_keys(lexicon.lexicon_key, _CUE_ENDS):
        head = words.texts[first][0]
        if not (head.isupper() or head.isdigit()) or not _follows_cue(words, first):
            continue
        if _is_title_case_cue(words, first - 1):
            continue  # "Head of Customer Success", "Customer Feedback": a title, not a cue
        last = _name_after(words, first)
        if last < 0 or lexicon.lexicon_key(words.texts[last]) in _OPENING_ARTICLES:
            continue
        first, last = _trimmed(words, first, last, keep_end=False)
        if last < 0:
            continue
        start, end = words.starts[first], words.ends[last]
        form = _LEGAL_FORM.match(text, _skip_legal_gap(text, end))
        if form:
            end = form.end()
        elif not _is_known_org(text[start:end]) and (
            _looks_like_person(words, first, last) or _is_place_or_generic(text[start:end])
            or _only_everyday_words(words, first, last)
        ):
            continue
        out.append(_Found(start, end, "context", 0.9 if form else 0.75))
    return out


def _is_title_case_cue(words: _OrgWords, k: int) -> bool:
    """The cue word k is capitalised inside a title in Title Case: a capitalised word before it,
    maybe across "of" ("Head of Customer Success", "Update, Customer Feedback"). German nouns
    are capitalised anyway ("die Firma Brenner")."""
    if not words.texts[k][0].isupper() or _opens_sentence(words, k) or k == 0:
        return False
    before = k - 1
    if lexicon.lexicon_key(words.texts[before]) in _TITLE_LINKS and before > 0:
        before -= 1
    return words.texts[before][0].isupper() and not _opens_sentence(words, before)


_TITLE_LINKS = frozenset({"of", "de", "du", "des", "for", "and", "und", "et", "&"})


def _opens_sentence(words: _OrgWords, k: int) -> bool:
    """Only spaces and opening punctuation between word k and the line start or a sentence end."""
    text = words.text
    pos = words.starts[k] - 1
    while pos >= 0 and text[pos] in " \t\"'«»“”‘’([{*•–—->" and words.starts[k] - pos < 12:
        pos -= 1
    return pos < 0 or text[pos] in ".!?…:;\n\r"


def _only_everyday_words(words: _OrgWords, first: int, last: int) -> bool:
    """"chez Moi", "our client Success", "bei Tarifen": no word of the name singles anything out."""
    return all(lexicon.is_common_word(w) or (lexicon.is_everyday_form(w) and not lexicon.is_surname(w)
                                             and not lexicon.is_first_name(w))
               for w in (words.texts[j] for j in _capitalised(words, first, last)))


def _follows_cue(words: _OrgWords, k: int) -> bool:
    """One of the cue phrases ends right before word k, spaces between ("la société Zurita")."""
    if not words.joined(k - 1) or lexicon.lexicon_key(words.texts[k - 1]) not in _CUE_ENDS:
        return False
    keys: list[str] = []
    j = k - 1
    while j >= 0 and len(keys) < _LONGEST_CUE:
        keys.insert(0, lexicon.lexicon_key(words.texts[j]))
        if " ".join(keys) in _CUES:
            return True
        if j == 0 or not words.joined(j - 1):
            return False
        j -= 1
    return False


def _skip_legal_gap(text: str, position: int) -> int:
    gap = _LEGAL_FORM_GAP.match(text, position)
    return gap.end() if gap else position


def _is_known_org(value: str) -> bool:
    """A notorious organisation, brand or public body ("La Poste", "France Travail")."""
    notorious = lexicon.is_notorious(value, "company", commercial=True, people=True)
    return notorious and not lexicon.is_country(value)


def _is_place_or_generic(value: str) -> bool:
    return lexicon.is_place(value) or lexicon.is_non_pii_term(value, "company")


# Bound on the names looked for again across the text (each is one pass over it).
_MAX_ECHOED_NAMES = 50


def _echo_spans(text: str, found: list[_Found]) -> list[_Found]:
    """The other occurrences of an org found with its legal form, written without it ("Karl
    Studio SAS" ... "le contrat avec Karl Studio")."""
    cores: list[str] = []
    for item in found:
        if item.source != "rule" and not item.echoes:
            continue
        value = text[item.start : item.end]
        core = lexicon.strip_org_affixes(value) if item.source == "rule" else value
        if core not in cores and len(core) >= 3 and not lexicon.is_non_pii_term(core, "company"):
            cores.append(core)
    if not cores:
        return []
    # Longest first, so that "Karl Studio Group" wins over "Karl Studio" where both match.
    names = [core.split() for core in cores[:_MAX_ECHOED_NAMES]]
    ranked = list(reversed(sorted(names, key=_echo_rank)))  # of equal ranks, the later name first
    return [_Found(start, end, "context", 0.8) for start, end in _first_echoes(text, ranked)]


def _echo_rank(words: list[str]) -> int:
    """The length of the name as a pattern would spell it (escaped words, each gap allowing one to
    three spaces or tabs): the order the echoes have always been tried in."""
    return sum(len(re.escape(word)) for word in words) + len(r"[ \t]{1,3}") * (len(words) - 1)


def _first_echoes(text: str, names: list[list[str]]) -> list[tuple[int, int]]:
    """Left to right, without overlaps, where one of `names` (each a list of words) is written
    with one to three spaces or tabs between its words and stands alone (not glued to a word,
    an address or a path); where several match at one place, the first of `names` wins. Plain
    string searches: no pattern is compiled per text (one cost ~0.2 ms on each prompt)."""
    found: dict[int, tuple[int, int]] = {}  # start -> (rank of the name, end)
    for rank, words in enumerate(names):
        start = text.find(words[0])
        while start >= 0:
            end = _echo_end(text, start, words)
            if end is not None and (start not in found or found[start][0] > rank):
                found[start] = (rank, end)
            start = text.find(words[0], start + 1)
    out: list[tuple[int, int]] = []
    cursor = 0
    for start in sorted(found):
        if start >= cursor:
            cursor = found[start][1]
            out.append((start, cursor))
    return out


def _echo_end(text: str, start: int, words: list[str]) -> int | None:
    """Where `words` spelled from `start` end, or None when they are not there, standing alone."""
    if start > 0 and _glued_before(text[start - 1]):
        return None
    end = start + len(words[0])
    for word in words[1:]:
        gap = end
        while gap < len(text) and gap - end < 4 and text[gap] in " \t":
            gap += 1
        if not 1 <= gap - end <= 3 or not text.startswith(word, gap):
            return None
        end = gap + len(word)
    if end < len(text) and _glued_after(text[end]):
        return None
    return end


def _glued_before(ch: str) -> bool:
    return ch.isalnum() or ch in "_@./-"


def _glued_after(ch: str) -> bool:
    return ch.isalnum() or ch in "_@-"


def _domain_name_spans(text: str) -> list[_Found]:
    """The name of a company e-mail domain ("jean@karl-studio.fr" -> "Karl Studio") wherever the
    text also spells it out outside addresses; webmail domains say nothing about an employer."""
    emails = list(_EMAIL.finditer(text))
    email_starts = [e.start() for e in emails]
    out: list[_Found] = []
    seen: set[str] = set()
    for email in emails:
        parts = _domain_label_parts(email.group(1))
        if not parts or "-".join(parts) in seen or len(seen) >= _MAX_ECHOED_NAMES:
            continue
        seen.add("-".join(parts))
        pattern = re.compile(
            r"(?<![\w@./-])" + r"[ \t-]?".join(map(re.escape, parts)) + r"(?![\w@-])(?!\.[A-Za-z])",
            re.IGNORECASE,
        )
        for found in pattern.finditer(text):
            inside = bisect.bisect_right(email_starts, found.start()) - 1
            if inside < 0 or found.start() >= emails[inside].end():
                out.append(_Found(found.start(), found.end(), "context", 0.8))
    return out


def _domain_label_parts(domain: str) -> list[str]:
    """The words of a domain's registrable label, or [] for webmail, public or generic labels."""
    labels = domain.lower().split(".")
    if len(labels) < 2:
        return []
    label = labels[-3] if len(labels) >= 3 and labels[-2] in _SECOND_LEVEL else labels[-2]
    if label in _WEBMAIL_LABELS or labels[-2] in ("gouv", "gov"):
        return []
    parts = [p for p in re.split(r"[-_]", label) if p]
    if sum(len(p) for p in parts) < 3 or all(lexicon.is_non_pii_term(p) for p in parts):
        return []
    return parts


# --- names without a legal form --------------------------------------------------------------------

# Lower-case words that may stand inside a business name ("Domaine de la Source", "Praxis am
# Markt", "Clinique du Lac", "Farmacia di Teodoro").
_INNER_CONNECTORS = _CONNECTORS | frozenset({
    "am", "an", "im", "zum", "zur", "der", "au", "aux", "a", "la", "le", "les", "el", "los", "las",
    "il", "lo", "dei", "della", "delle", "degli", "sur", "on", "upon", "en",
})
_RUN_LIMIT = 6


@lru_cache(maxsize=16384)
def _is_run_word(word: str) -> bool:
    """A capitalised word that may belong to a business name run ("Tarnwell", "Freight", "La",
    "Le" in "Boulangerie Le Bon Grain")."""
    if _is_name_word(word):
        return True
    key = lexicon.lexicon_key(word)
    return word[0].isupper() and (key in _OPENING_ARTICLES or key in _INNER_CONNECTORS) and key not in _CONJUNCTIONS


def _run_around(words: _OrgWords, k: int) -> tuple[int, int]:
    """The run of capitalised words joined to word k, lower-case connectors crossed only between
    capitalised words ("Clinique du Lac Bleu"); at most _RUN_LIMIT words each way. A
    conjunction joins two name words, never two names ("Banque X et la Banque Y")."""
    first = k
    j = k - 1
    while j >= 0 and k - j <= _RUN_LIMIT and words.joined(j):
        if _is_run_word(words.texts[j]):
            first = j
        elif not _is_conjunction(words.texts[j]) or j + 1 != first or _opens_another_name(words, first):
            break  # backwards only "&" and "et" are crossed: "Jean Moreau de [Vexalis Conseil]"
        j -= 1
    last = k
    j = k + 1
    while j < len(words.texts) and j - k <= _RUN_LIMIT and words.joined(j - 1):
        if _is_run_word(words.texts[j]):
            if j - 1 > last and _is_conjunction(words.texts[j - 1]) and _opens_another_name(words, j):
                break
            last = j
        elif not _is_inner_connector(words, j) or (_is_conjunction(words.texts[j - 1]) and j - 1 != last):
            break
        j += 1
    return first, last


def _is_inner_connector(words: _OrgWords, j: int) -> bool:
    word = words.texts[j]
    return (word == "&" or not word[0].isupper()) and lexicon.lexicon_key(word) in _INNER_CONNECTORS


_CONJUNCTIONS = frozenset({"&", "et", "and", "und", "y", "e"})


def _is_conjunction(word: str) -> bool:
    return lexicon.lexicon_key(word) in _CONJUNCTIONS


def _opens_another_name(words: _OrgWords, j: int) -> bool:
    """After a conjunction, a descriptor followed by more name words opens a second business
    ("Crédit Agricole et Banque Populaire"); "Dupont et Fils" ends there."""
    nxt = j + 1
    continues = nxt < len(words.texts) and words.joined(j) and _is_run_word(words.texts[nxt])
    return lexicon.is_org_descriptor(words.texts[j]) and continues


@lru_cache(maxsize=16384)
def _is_distinctive(word: str) -> bool:
    """A capitalised word that singles a business out: not a descriptor, an everyday word, a
    country or a function word ("Tarnwell", "Rossetti", "Annecy"; not "Dental", "Park")."""
    if not word[0].isupper() or lexicon.is_org_descriptor(word) or lexicon.is_country(word):
        return False
    if lexicon.is_stopword(word) or lexicon.is_generic_term(word):
        return False
    if lexicon.is_notorious(word, "company", commercial=True, people=False):
        return False  # "Banco Santander", "Google Cloud": the brand's own entity
    return lexicon.is_surname(word) or not lexicon.is_common_word(word)


def _capitalised(words: _OrgWords, first: int, last: int) -> list[int]:
    return [j for j in range(first, last + 1) if words.texts[j][0].isupper() and words.texts[j] != "&"]


def _descriptor_spans(words: _OrgWords) -> list[_Found]:
    """Names that an industry or kind-of-organisation word opens or closes, without a legal
    form: "Tarnwell Freight", "Kovar Dental Care", "Groupe Vantelis Industrie", "Kanzlei Morvek",
    "Clinique du Lac Bleu". Another word must single the business out, except after a trade
    word ("Boulangerie Le Bon Grain", "Farmacia San Teodoro")."""
    out: list[_Found] = []
    end_of_last = -1
    for k, word in enumerate(words.texts):
        if k <= end_of_last or not word[0].isupper() or not lexicon.is_org_descriptor(word):
            continue
        first, last = _run_around(words, k)
        first, last = _trimmed_run(words, first, last, keep_end=first == k and lexicon.is_trade_word(word))
        if first < 0 or not _names_a_business(words, first, last):
            continue
        out.append(_Found(words.starts[first], words.ends[last], "context", 0.75, echoes=True))
        end_of_last = last
    return out


def _lowercase_trade_spans(words: _OrgWords) -> list[_Found]:
    """The capitalised name after a trade word in lower case: "la boulangerie Morel", "alla pasticceria Da Nino",
    "en la panadería La Espiga de Oro" (the name without the trade word, as after a cue), or a surname in lower
    case ("bei spedition krüger"). Not before a
    place, a country or a famous brand alone ("la pharmacie Paris Nord" is left to the place detector)."""
    out: list[_Found] = []
    for k, word in enumerate(words.texts[:-1]):
        if not (word.islower() and lexicon.is_trade_word(_cue_word_key(word)) and words.joined(k)):
            continue  # "l'école Jules-Ferry": the elided article is read past
        head, crossed = _past_trade_qualifiers(words, k + 1)
        if crossed:
            # "au cabinet dentaire des Tilleuls", "lo studio dentistico Sorriso Chiaro": past a qualifier or a
            # particle, the capitalised words are the name, everyday ones too
            _, last = _run_around(words, head)
            out.append(_Found(words.starts[head], words.ends[last], "context", 0.7, echoes=True))
            continue
        if _lowercase_surname(words.texts[head]):  # "bei spedition krüger", "dalla carrozzeria bianchi"
            out.append(_Found(words.starts[head], words.ends[head], "context", 0.7, echoes=True))
            continue
        if not _is_run_word(words.texts[head]):
            # a capitalised particle first ("pasticceria Da Nino")
            particle = words.texts[head][:1].isupper() and len(words.texts[head]) <= 3
            if not (particle and head + 1 < len(words.texts) and words.joined(head)
                    and _is_run_word(words.texts[head + 1])):
                continue
        _, last = _run_around(words, head if _is_run_word(words.texts[head]) else head + 1)
        while last > head and (_is_loose_end(words.texts[last])
                               or lexicon.lexicon_key(words.texts[last]) in _OPENING_ARTICLES):
            last -= 1
        texts = [words.texts[j] for j in _capitalised(words, head, last)]
        if not texts or not any(_is_distinctive(t) for t in texts) or all(
                lexicon.is_place(t) or lexicon.is_country(t) for t in texts):
            continue
        out.append(_Found(words.starts[head], words.ends[last], "context", 0.7, echoes=True))
    return out


# Lower-case particles between a trade word and the name it opens ("cabinet dentaire des Tilleuls").
_NAME_PARTICLES = frozenset({"de", "du", "des", "la", "d'", "l'", "del", "della", "dei", "di", "am", "zum", "zur"})


def _past_trade_qualifiers(words: _OrgWords, head: int) -> tuple[int, bool]:
    """The first word of the name after a lower-case trade word, past its lower-case qualifiers ("dentaire",
    "dentistico"), a particle and the trade's field after it ("de inglés"), and whether any of them was crossed
    before a capitalised word."""
    first, last = head, len(words.texts) - 1
    while head < last and words.joined(head - 1) and words.texts[head].islower() and lexicon.is_org_descriptor(
            words.texts[head]):
        head += 1
    start = head
    while head < last and words.joined(head - 1) and lexicon.lexicon_key(words.texts[head]) in _NAME_PARTICLES \
            and words.texts[head].islower():
        head += 1
    if head > start and head < last and words.joined(head) and words.texts[head].islower() \
            and not lexicon.is_stopword(words.texts[head]):
        head += 1  # the trade's field: "academia de inglés Speak Up", "école de danse Tutu"
    crossed = head > first and words.joined(head - 1) and _is_run_word(words.texts[head])
    return (head, True) if crossed else (start, False)


def _club_spans(words: _OrgWords) -> list[_Found]:
    """A club named with its abbreviation before or after the name, often its town's: "TSV Eichenau-Moosbach",
    "AS Montigny-le-Bretonneux", "Harwick Vale FC" (the abbreviation is part of the name)."""
    before, after = lexicon.club_abbreviations()
    out: list[_Found] = []
    last_word = len(words.texts) - 1
    for k, word in enumerate(words.texts):
        if k < last_word and words.joined(k) and _lower_club_before_town(word, words.texts[k + 1], before):
            # typed in lower case, before its town: "beim tsv eichenau"
            out.append(_Found(words.starts[k], words.ends[k + 1], "context", 0.7, echoes=True))
            continue
        if word in before and k < last_word and words.joined(k) and _names_a_club(words.texts[k + 1]):
            _, last = _run_around(words, k + 1)
            out.append(_Found(words.starts[k], words.ends[last], "context", 0.75, echoes=True))
        elif word in after and k > 0 and words.joined(k - 1) and _names_a_club(words.texts[k - 1]):
            first, _ = _trimmed_run(words, _run_around(words, k - 1)[0], k, keep_end=True)
            if first >= 0:
                out.append(_Found(words.starts[first], words.ends[k], "context", 0.75, echoes=True))
    return out


def _lower_club_before_town(word: str, following: str, before: frozenset[str]) -> bool:
    """A club's abbreviation typed in lower case before a town no everyday word names ("tsv eichenau"; not "es
    una")."""
    return (word.islower() and word.upper() in before and len(word) >= 2 and following.islower()
            and not lexicon.is_frequent_word(following) and not lexicon.is_stopword(following)
            and bool(places.place_key_kind(lexicon.lexicon_key(following))))


def _names_a_club(word: str) -> bool:
    """A title-case word that singles a club out ("Eichenau-Moosbach", "Villaverde"; not "Army", "PLAYER")."""
    return word[0].isupper() and not word.isupper() and _is_distinctive(word)


def _lowercase_surname(word: str) -> bool:
    """A surname typed in lower case that is no everyday word ("krüger", "bianchi"; not "martin", "parc")."""
    return word.islower() and lexicon.is_surname(word) and not lexicon.is_common_word(word)


def _trimmed_run(words: _OrgWords, first: int, last: int, *, keep_end: bool = False) -> tuple[int, int]:
    """The run without the everyday words that open a sentence or a heading before the name
    ("Merci Tarnwell Freight" -> "Tarnwell Freight") and without dangling connectors; with `keep_end` (a
    name a trade word opens: "Clinique du Parc", "Boulangerie du Centre") its capitalised generic words stay."""
    while first < last and (_is_loose_end(words.texts[first]) or _is_plain_word(words.texts[first])):
        first += 1
    while last > first and _is_loose_end(words.texts[last]) and not (keep_end and words.texts[last][0].isupper()):
        last -= 1
    while first < last and lexicon.lexicon_key(words.texts[last]) in _OPENING_ARTICLES:
        last -= 1
    return (first, last) if last > first else (-1, -1)


@lru_cache(maxsize=16384)
def _is_plain_word(word: str) -> bool:
    """An everyday capitalised word that is neither a descriptor nor a name: "Merci", "Update"."""
    if lexicon.is_org_descriptor(word) or lexicon.is_surname(word) or lexicon.is_place(word):
        return False
    return lexicon.is_common_word(word) or (lexicon.is_first_name(word) and lexicon.is_homograph(word))


def _names_a_business(words: _OrgWords, first: int, last: int) -> bool:
    capitals = _capitalised(words, first, last)
    if len(capitals) < 2:
        return False
    texts = [words.texts[j] for j in capitals]
    opens = lexicon.is_org_descriptor(texts[0])
    closes = lexicon.is_org_descriptor(texts[-1])
    if not (opens or closes):
        return False
    if _reads_as_person(texts):
        return False
    if opens and lexicon.is_trade_word(texts[0]) and not all(lexicon.is_country(t) for t in texts[1:]):
        return True
    return any(_is_distinctive(t) for t in texts)


def _reads_as_person(texts: list[str]) -> bool:
    """"Emma Stone", "Yaw Baker": a first name then name words, the descriptor being a surname."""
    if not lexicon.is_first_name(texts[0]) or lexicon.is_org_descriptor(texts[0]):
        return False
    return all(lexicon.is_surname(t) or lexicon.is_first_name(t) for t in texts[1:])


def _ampersand_spans(words: _OrgWords) -> list[_Found]:
    """Two names joined by "&" ("Korvel & Stam", "Kanzlei Morvek & Partner", "Ferrand & Lopes
    Avocats"), unless both sides are first names (two people) or everyday words ("Rock & Roll")."""
    out: list[_Found] = []
    for k, word in enumerate(words.texts):
        if word != "&" or k == 0 or k + 1 >= len(words.texts):
            continue
        if not (words.joined(k - 1) and words.joined(k)):
            continue
        if not (_is_run_word(words.texts[k - 1]) and _is_run_word(words.texts[k + 1])):
            continue
        first, last = _run_around(words, k)
        first, last = _trimmed_run(words, first, last)
        if first < 0 or first >= k or last <= k:
            continue
        left = [words.texts[j] for j in _capitalised(words, first, k - 1)]
        right = [words.texts[j] for j in _capitalised(words, k + 1, last)]
        if _two_people(left, right) or not any(_is_distinctive(t) for t in left + right):
            continue
        out.append(_Found(words.starts[first], words.ends[last], "context", 0.75, echoes=True))
    return out


def _two_people(left: list[str], right: list[str]) -> bool:
    return all(lexicon.is_first_name(t) for t in left[:1] + right[:1]) and not any(
        lexicon.is_org_descriptor(t) for t in left + right
    )


# Weak cues: a business noun and a preposition, or a workplace verb, before a name that must look
# invented ("la démo pour Zentavio", "the team at Quorvix", "service achats Zentavio").
_WEAK_CUE_NOUNS = (
    "démo", "demo", "devis", "quote", "proposal", "proposition", "offre", "offer", "facture",
    "invoice", "contrat", "contract", "projet", "project", "mission", "audit", "présentation",
    "presentation", "pitch", "migration", "livraison", "delivery", "commande", "order", "maquette",
    "mockup", "prototype", "campagne", "campaign", "rapport", "report", "onboarding",
    "intégration", "integration", "partenariat", "partnership", "compte", "account", "dossier",
    "équipe", "équipes", "team", "teams", "service", "département", "department", "collègues",
    "colleagues", "people", "folks", "achats", "purchasing", "comptabilité", "accounting", "rh",
    "hr", "support", "direction", "management", "ceo", "cto", "dsi", "daf", "drh", "boss",
    "fondateur", "founder", "rendez-vous", "meeting", "réunion", "call", "appel", "visite",
    "visit", "salon", "stand", "site", "appli", "app", "licence", "license", "abonnement",
    "subscription", "angebot", "rechnung", "vertrag", "projekt", "präsentation", "termin",
    "presupuesto", "factura", "contrato", "proyecto", "reunión", "preventivo", "fattura",
    "contratto", "progetto", "riunione",
)
_WEAK_CUE_LINKS = ("pour", "for", "für", "per", "para", "de", "d'", "of", "chez", "at", "bei",
                   "presso", "avec", "with", "mit", "con", "da", "di", "del", "de la", "du")
_WEAK_CUE_PHRASES = (
    *(f"{noun} {link}" for noun in _WEAK_CUE_NOUNS for link in _WEAK_CUE_LINKS),
    "travaille pour", "travaille chez", "bosse pour", "work for", "works for", "working for",
    "work at", "works at", "working at", "worked at", "job at", "intern at", "joined", "joining",
    "rejoint", "rejoindre", "recruté par", "hired by", "racheté par", "acquired by", "rachat de",
    "acquisition of", "merger with", "fusion avec", "concurrent", "competitor", "startup",
    "start-up", "scale-up", "pme", "the team at", "service achats", "service commercial",
    "service client", "service comptabilité", "service informatique", "service juridique",
    "arbeitet bei", "arbeite bei", "trabaja en", "trabajo en", "lavora presso", "lavoro presso",
    "lavora per", "lavoro per", "trabaja para", "trabajo para", "l'équipe", "les équipes",
    "équipe de", "team von", "equipo de", "squadra di", "on the", "sur le compte",
)


@lru_cache(maxsize=16384)
def _cue_word_key(word: str) -> str:
    key = lexicon.lexicon_key(word)
    elided = _LOWER_ELISION.match(key)
    return key[elided.end() :] if elided and elided.end() < len(key) else key


_WEAK_CUES = frozenset(" ".join(_cue_word_key(w) for w in cue.split(" ")) for cue in _cue_keys(_WEAK_CUE_PHRASES))
_WEAK_CUE_ENDS = frozenset(cue.rsplit(" ", 1)[-1] for cue in _WEAK_CUES)
_LONGEST_WEAK_CUE = max(cue.count(" ") + 1 for cue in _WEAK_CUES)
# Words after the name that close an "on the X account" cue.
_ACCOUNT_WORDS = frozenset({"account", "team", "project", "deal", "contract", "client", "customer"})


def _weak_cue_spans(words: _OrgWords) -> list[_Found]:
    """One to three invented-looking capitalised words after a weak cue ("la démo pour
    Zentavio", "l'équipe de Zentavio", "works at Quorvix", "on the Tarnwell account")."""
    out: list[_Found] = []
    for first in words.after_keys(_cue_word_key, _WEAK_CUE_ENDS):
        if not words.texts[first][0].isupper() or not _follows_weak_cue(words, first):
            continue
        last = _name_after(words, first, limit=3)
        if last < 0 or not all(_looks_invented(words.texts[j]) for j in _capitalised(words, first, last)):
            continue
        if _cue_is_the(words, first) and not _account_word_follows(words, last):
            continue
        if last + 1 < len(words.texts) and words.joined(last) and _is_run_word(words.texts[last + 1]):
            continue  # the name goes on: another rule reads it
        out.append(_Found(words.starts[first], words.ends[last], "context", 0.7, echoes=True))
    return out


# What a client or a supplier does, right after its name: "Kelvara a signé le devis", "Quantix signed", "Nordwerk
# hat bestellt", "Vexora ha firmato": an invented-looking name before them is an organisation (or a person whose
# name no list knows: masked all the same).
_BUSINESS_VERBS = deferred(
    r"(?i:[ \t]+(?:a[ \t]+(?:sign[ée]|valid[ée]|command[ée]|pay[ée]|refus[ée]|accept[ée]|relanc[ée]|r[ée]pondu|"
    r"envoy[ée]|demand[ée]|rachet[ée]|recrut[ée])|attend[ \t]+(?:notre|le|la|les|votre)|nous[ \t]+doit|"
    r"(?:has[ \t]+)?(?:signed|approved|ordered|paid|rejected|accepted|replied|sent[ \t]+(?:us|the)|"
    r"wants[ \t]+(?:a|the|us)|owes[ \t]+us|is[ \t]+waiting[ \t]+for)|"
    r"hat[ \t]+(?:unterschrieben|bestellt|bezahlt|abgelehnt|angenommen|geantwortet|zugesagt)|"
    r"ha[ \t]+(?:firmado|pedido|pagado|aceptado|rechazado|respondido|firmato|ordinato|pagato|accettato|"
    r"rifiutato|risposto))(?![\w]))"
)


def _business_verb_spans(words: _OrgWords) -> list[_Found]:
    """One or two invented-looking capitalised words right before what a client or a supplier does."""
    out: list[_Found] = []
    for last, word in enumerate(words.texts):
        # the verb first: a regex match at one offset, where the word test reads dictionaries
        if not _BUSINESS_VERBS.match(words.text, words.ends[last]) or not _looks_invented(word):
            continue
        first = last
        if first > 0 and words.joined(first - 1) and _looks_invented(words.texts[first - 1]):
            first -= 1
        out.append(_Found(words.starts[first], words.ends[last], "context", 0.7, echoes=True))
    return out


def _follows_weak_cue(words: _OrgWords, k: int) -> bool:
    return _follows(words, k, _WEAK_CUES, _WEAK_CUE_ENDS, _LONGEST_WEAK_CUE)


def _cue_is_the(words: _OrgWords, k: int) -> bool:
    return lexicon.lexicon_key(words.texts[k - 1]) in ("the", "le")


def _account_word_follows(words: _OrgWords, last: int) -> bool:
    nxt = last + 1
    return nxt < len(words.texts) and words.joined(last) and lexicon.lexicon_key(words.texts[nxt]) in _ACCOUNT_WORDS


def _follows(words: _OrgWords, k: int, cues: frozenset[str], ends: frozenset[str], longest: int) -> bool:
    """One of `cues` ends right before word k, spaces between; an elided article before a cue
    word is not part of it ("l'équipe de" reads as "équipe de")."""
    if not words.joined(k - 1) or _cue_word_key(words.texts[k - 1]) not in ends:
        return False
    keys: list[str] = []
    j = k - 1
    while j >= 0 and len(keys) < longest:
        keys.insert(0, _cue_word_key(words.texts[j]))
        if " ".join(keys) in cues:
            return True
        if j == 0 or not words.joined(j - 1):
            return False
        j -= 1
    return False


@lru_cache(maxsize=16384)
def _looks_invented(word: str) -> bool:
    """A made-up name word: no everyday word, first name, place or country of our lists
    ("Zentavio", "Quorvix", "PixelForge"); a known surname is no business name on its own."""
    if not (word[0].isupper() or word[0].isdigit()) or len(word) < 3 or word.isupper():
        return False
    if lexicon.is_common_word(word) or lexicon.is_place(word) or lexicon.is_country(word):
        return False
    if lexicon.is_everyday_form(word):  # "bei Tarifen", "bei Einwegflaschen": German nouns
        return False
    if lexicon.is_first_name(word) or lexicon.is_surname(word) or lexicon.is_honorific(word):
        return False
    return not lexicon.is_famous_person(word)


def _without_overlaps(found: list[_Found]) -> list[_Found]:
    """Of overlapping finds, keep the longest (then the surest, then the first)."""
    kept: list[_Found] = []
    for item in sorted(found, key=lambda f: (f.start, -(f.end - f.start), -f.score)):
        if kept and item.start < kept[-1].end:
            last = kept[-1]
            if (item.end - item.start, item.score) > (last.end - last.start, last.score):
                kept[-1] = item
            continue
        kept.append(item)
    return kept


def detect_orgs(text: str) -> list[Span]:
    """Organisation names (kind "org"), legal form included when written. Notorious brands are
    returned too: whether they ship in clear is policy's decision."""
    view = TextView(text)
    words = _OrgWords(view.text)
    found = _legal_form_spans(words)
    found += _cue_spans(words) + _descriptor_spans(words) + _ampersand_spans(words) + _weak_cue_spans(words)
    found += _business_verb_spans(words)
    found += _lowercase_trade_spans(words) + _club_spans(words)
    found += _echo_spans(view.text, found) + _domain_name_spans(view.text)
    found = [_with_listed_partners(view.text, f) for f in found]
    return [view.span(f.start, f.end, "org", f.source, f.score) for f in _without_overlaps(found)]


# "Baird, Lowe and Finch LLP": a firm named after its partners lists them, comma-separated, before the last
# "and"; the name found from its legal form starts at the last two.
_PARTNERS_NAME = deferred(r"[A-Z][^\W\d_]+(?:[-'’][^\W\d_]+)? (?:and|&|et|und|y|e) [A-Z]")
_PARTNER_BEFORE = deferred(r"([A-Z][^\W\d_]+(?:[-'’][^\W\d_]+)?), $")


def _with_listed_partners(text: str, found: _Found) -> _Found:
    """`found` grown left over the partners listed before it, when it is a firm named after two of them."""
    if not _PARTNERS_NAME.match(text, found.start):
        return found
    start = found.start
    for _ in range(4):
        before = _PARTNER_BEFORE.search(text[max(0, start - 40) : start])
        if before is None or lexicon.is_stopword(before.group(1)) or lexicon.is_common_word(before.group(1)):
            break
        start -= len(before.group())
    return found._replace(start=start)
