"""Towns and regions in free text: the place detector, and which places are famous.

A place is a run of one to five words whose folded form is a town (data/places/towns.txt, built from GeoNames
by scripts/build_place_lists.py) or a region (data/places/regions.txt, and Faker's French départements).
Names are words of many kinds, so how much a match needs around it depends on the word:
- a capitalised name that is no everyday word, first name or surname ("Villeurbanne", "Castelnaudary") is a
  place on its own;
- a name that is also such a word ("Nice", "Orange", "Florence", "Reading", "Essen") is a place only right
  after a word that introduces a place ("à Nice", "in Reading", "nach Essen");
- a name typed in lower case ("je suis à lyon") is a place only after such a word, and never when it is
  also an everyday word.
Which of them are masked is the policy's call (policy.py): a place in a message that ties it to nobody ("que
visiter à Florence ?") is spared below `strict`. Famous places (capitals, large cities, regions) are also
read in lower case and on their own when they are common words too ("London is expensive")."""

from __future__ import annotations

import importlib
from functools import cache, lru_cache
from importlib import resources
from typing import NamedTuple

from ..patterns import deferred
from . import lexicon
from .language import UNKNOWN, guess_language
from .spans import Span
from .words import Words

MAX_WORDS = 5
MIN_LENGTH = 3

# Words right before a place that introduce it (folded). Kept to prepositions of place and motion: a
# name-like word after them is read as a place even when it is also a word or a name.
PLACE_CUES = frozenset({
    # fr ("à": compared unfolded, since folded it is the English article)
    "à", "au", "aux", "en", "vers", "depuis", "pres", "dans", "habite", "sur",
    # en
    "in", "at", "from", "to", "near", "outside", "around", "via", "into", "across",
    # de
    "aus", "nach", "nahe", "um",
    # es (and "a" of es and it, before a capitalised name only)
    "desde", "hacia", "cerca", "a",
    # it
    "da", "verso", "vicino",
})
US_STATES = frozenset({
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA",
    "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM",
    "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA",
    "WV", "WI", "WY",
})
# The codes written after a town in an address: US states, Australian states and territories, Canadian provinces
# ("Austin TX", "Fitzroy VIC", "Halifax NS").
STATE_CODES = US_STATES | frozenset({
    "NSW", "VIC", "QLD", "SA", "WA", "TAS", "NT", "ACT",
    "ON", "QC", "BC", "AB", "MB", "SK", "NS", "NB", "NL", "PE", "YT", "NU",
})
# Articles that belong to a place's name ("Le Havre", "La Rochelle", "L'Aquila", "El Puerto"): the cue may
# come before them.
_ARTICLES = frozenset({"le", "la", "les", "l'", "el", "los", "las", "il", "lo"})


@cache
def _read(name: str) -> str:
    return (resources.files("openmasq.redact") / "data" / "places" / name).read_text(encoding="utf-8")


class _TownTable(NamedTuple):
    famous: dict[str, bool]  # folded name -> famous (a capital or a city of 250,000 or more somewhere)
    country: dict[str, str]  # folded name -> the first country listing it
    by_country: dict[str, tuple[str, ...]]  # country -> its little-known towns, as written


@cache
def _town_table() -> _TownTable:
    famous: dict[str, bool] = {}
    country: dict[str, str] = {}
    by_country: dict[str, list[str]] = {}
    for line in _read("towns.txt").splitlines():
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        key = lexicon.lexicon_key(fields[0])
        is_famous = len(fields) > 2 and fields[2] == "F"
        famous[key] = famous.get(key, False) or is_famous
        country.setdefault(key, fields[1])
        if not is_famous:
            by_country.setdefault(fields[1], []).append(fields[0])
    return _TownTable(famous, country, {c: tuple(names) for c, names in by_country.items()})


def _towns() -> dict[str, bool]:
    """Folded town name -> famous (a capital or a city of 250,000 or more somewhere)."""
    return _town_table().famous


def towns_of(country: str) -> tuple[str, ...]:
    """Little-known towns of `country` (ISO code) in towns.txt; () for a country it does not hold."""
    return _town_table().by_country.get(country, ())


def country_of_town(name: str) -> str | None:
    """The country of a town of towns.txt ("Gurgaon" -> "IN", "Lekki" -> "NG"), None when none holds it."""
    return _town_table().country.get(lexicon.lexicon_key(name.strip()))


@cache
def region_sections() -> tuple[tuple[str, ...], ...]:
    """The regions of regions.txt, one tuple per section (a country or a group of countries)."""
    sections: list[list[str]] = []
    for line in _read("regions.txt").splitlines():
        if line.startswith("# "):
            sections.append([])
        elif line.strip() and not line.startswith("#") and sections:
            sections[-1] += [entry.strip() for entry in line.split(",") if entry.strip()]
    return tuple(tuple(section) for section in sections if section)


def regions_like(value: str) -> tuple[str, ...]:
    """The other regions of the section that holds `value`, () when it is none."""
    key = lexicon.lexicon_key(value)
    for section in region_sections():
        keys = [lexicon.lexicon_key(name) for name in section]
        if key in keys:
            return tuple(name for name, k in zip(section, keys, strict=True) if k != key)
    return ()


@cache
def _regions() -> frozenset[str]:
    keys = {lexicon.lexicon_key(name) for section in region_sections() for name in section}
    module = importlib.import_module("faker.providers.address.fr_FR")
    keys.update(lexicon.lexicon_key(str(name)) for _, name in getattr(module.Provider, "departments", ()))
    return frozenset(key for key in keys if key)


def load_all() -> None:
    """Read the place lists now (a server does this before its first request)."""
    _town_table()
    _regions()
    _calendar_words()


@lru_cache(maxsize=8192)
def place_key_kind(key: str) -> str:
    """"famous", "town" or "region" for a folded name, "" for none."""
    if key in _regions():
        return "region"
    famous = _towns().get(key)
    if famous is None:
        return ""
    return "famous" if famous else "town"


def _is_ambiguous(words: Words, i: int) -> bool:
    """A one-word name that is also an everyday word or a person's name, or that opens a sentence while being
    one of the commonest words and no famous place ("Reading is my hobby"; "London is expensive" is London)."""
    word = words.texts[i]
    # A large city that is also a surname is the city first ("Sevilla"); one that is a first name or an
    # everyday word stays ambiguous ("Florence", "Santiago", "Nice").
    famous = place_key_kind(lexicon.lexicon_key(word)) == "famous" and lexicon.is_place(word)
    if (len(word) < 4 or lexicon.is_common_word(word) or lexicon.is_first_name(word)
            or (lexicon.is_surname(word) and not famous) or lexicon.is_homograph(word) or lexicon.is_stopword(word)):
        return True
    return (words.sentence_initial(i) and lexicon.is_frequent_word(word)
            and place_key_kind(lexicon.lexicon_key(word)) != "famous")


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def is_calendar_word(word: str) -> bool:
    """A month, a day or a feast ("Noël", "Ostern")."""
    return lexicon.lexicon_key(word) in _calendar_words()


@cache
def _calendar_words() -> frozenset[str]:
    """Months and days of our languages (a town "August", "Mai", "Domingo" somewhere), folded."""
    return frozenset(w for line in _read("calendar.txt").splitlines() if not line.startswith("#") for w in line.split())


def _previous_word(words: Words, i: int) -> str:
    """Word i-1 in lower case (unfolded) when only spaces separate it from word i."""
    return words.texts[i - 1].lower() if i > 0 and words.joined(i - 1) else ""


def _cued(words: Words, i: int, *, lower: bool = False, a_is_cue: bool = False) -> bool:
    """A word introducing a place right before word i (past an article of the name); before a name typed
    in lower case, "a" only in a text whose words are Spanish, Italian or French (in English it is the
    article)."""
    if _POSTCODE_BEFORE.search(words.text, max(0, words.starts[i] - 10), words.starts[i]):
        return True  # "46023 Valencia", "F-75011 Paris": a town in an address
    previous = _previous_word(words, i)
    if lexicon.lexicon_key(previous) in _ARTICLES:
        previous = _previous_word(words, i - 1)
    if lower and previous == "a":
        return a_is_cue
    return previous in PLACE_CUES or lexicon.lexicon_key(previous) in PLACE_CUES - {"a"}


_POSTCODE_BEFORE = deferred(r"(?<![\w.,-])(?:[A-Z]{1,2}-)?\d{4,5}[ \t]{1,2}$")


def _after_brand(words: Words, i: int) -> bool:
    """Right after a brand or product word ("macOS Sonoma", "Trek Marlin"): a model name, not a place."""
    previous = words.texts[i - 1] if i > 0 and words.joined(i - 1) else ""
    return bool(previous) and lexicon.is_notorious(previous, "company", commercial=True, people=False)


def _longest_match(words: Words, i: int) -> int:
    """How many words from word i make the longest place name (0: none); every word joined to the next by
    spaces, capitalised words only unless the run starts in lower case."""
    best = 0
    lower = not _capitalised(words.texts[i])
    parts: list[str] = []
    for j in range(i, min(words.count, i + MAX_WORDS)):
        if j > i and not words.joined(j - 1):
            break
        word = words.texts[j]
        if j > i and not lower and not _capitalised(word) and lexicon.lexicon_key(word) not in _JOINERS:
            break
        parts.append(word)
        if len(word) >= 1 and place_key_kind(lexicon.lexicon_key(" ".join(parts))):
            best = j - i + 1
    return best


# Lower-case words inside a capitalised place name ("Castel di Sangro", "Stratford-upon-Avon" is one word).
_JOINERS = frozenset({"de", "du", "des", "la", "le", "les", "di", "del", "della", "da", "y", "upon", "on", "am",
                      "an", "im", "in", "der", "sur", "sous", "en", "et", "and", "of", "the", "lès"})


# Words after a place name that make it the name of a public body or a product line, not a place someone is.
_BODY_WORDS = frozenset({"council", "university", "universite", "universitat", "universidad", "universita"})
_VERSION = deferred(r"\s\d+(?:\.\d+)+\b")


def _names_a_thing(words: Words, after: int) -> bool:
    """The place's name goes on into a public body ("Westminster City Council") or a version number follows
    ("macOS Sonoma 14.5")."""
    end = words.ends[after - 1]
    if _VERSION.match(words.text, end):
        return True
    following = [lexicon.lexicon_key(w) for w in words.texts[after : after + 2]]
    return any(word in _BODY_WORDS for word in following)


def _accepts(words: Words, i: int, count: int, a_is_cue: bool = False) -> bool:
    first = words.texts[i]
    value = " ".join(words.texts[i : i + count])
    key = lexicon.lexicon_key(value)
    if len(value) < MIN_LENGTH or key in _calendar_words() or lexicon.is_country(value):
        return False
    if lexicon.is_famous_person(value) or _after_brand(words, i) or _names_a_thing(words, i + count):
        return False
    if not _capitalised(first):
        # Typed in lower case: a well-known place after a word that introduces it ("je suis à lyon"), or a
        # smaller town whose name is no word or name of ours ("me he mudado a getafe").
        kind = place_key_kind(key)
        return (_cued(words, i, lower=True, a_is_cue=a_is_cue)
                and not lexicon.is_common_word(first) and not lexicon.is_stopword(first)
                and ((kind in ("famous", "region") and not (lexicon.is_frequent_word(first) and kind == "region"))
                     or (kind == "town" and _no_word_of_ours(first))))
    if words.texts[i + count - 1].isupper() and len(value) <= 3:
        return False  # an acronym
    if count == 1 and _is_ambiguous(words, i):
        return _cued(words, i)
    return True


def _no_word_of_ours(word: str) -> bool:
    """Neither an everyday word nor a name of any of our lists ("getafe", "casoria"; not "lagos", "marsala")."""
    return not (lexicon.is_frequent_word(word) or lexicon.is_everyday_form(word) or lexicon.is_first_name(word)
                or lexicon.is_surname(word) or lexicon.is_homograph(word) or len(word) < 4)


_A_IS_A_PREPOSITION = frozenset({"es", "it", "fr"})


def detect_places(text: str) -> list[Span]:
    """Towns and regions named in `text` (kind "location", source "lexicon"), longest first, no overlap; and
    the place a verb of living or moving names, listed or not ("je vis à Cluj", source "context")."""
    words = Words(text)
    found: list[Span] = []
    a_is_cue = " a " in text.lower() and guess_language(text) in _A_IS_A_PREPOSITION
    i = 0
    while i < words.count:
        count = _longest_match(words, i)
        if count and _accepts(words, i, count, a_is_cue):
            start, end = words.starts[i], words.ends[i + count - 1]
            found.append(Span(start, end, text[start:end], "location", "lexicon", 0.6))
            i += count
            continue
        i += 1
    taken = [(span.start, span.end) for span in found]
    for span in _residence_spans(text):
        if not any(span.start < end and start < span.end for start, end in taken):
            found.append(span)
    return sorted(found, key=lambda span: span.start)


# Where someone lives, moves or was born, then the place: "je vis à Cluj", "I live in Kothrud", "ich wohne in
# Ehrenfeld", "vivo en Arrasate", "abito a Quarto Oggiaro", "moved to Leeds".
_RESIDENCE_VERB = (
    r"(?i:\b(?:j['’]habite|habite|habitons|habitez|habitent|je vis|on vit|il vit|elle vit|vivons|vivent|"
    r"d[ée]m[ée]nag(?:e|é|er|ent|eons|é\(e\)s?)|install[ée]e?s?|n[ée]e?|"
    r"i live|we live|he lives|she lives|they live|lives|living|lived|moved|moving|relocated|based|born|grew up|"
    r"wohne|wohnt|wohnen|lebe|lebt|leben|gezogen|umgezogen|geboren|"
    r"vivo|vives|vive|vivimos|viven|me mud[ée]|nos mudamos|se mud[óo]|nac[íi]|naci[óo]|"
    r"abito|abiti|abita|abitiamo|vivo|viviamo|trasferit[oaie]|nat[oaie])"
    r"[ \t]+(?:(?:à|a|au|en|in|nach|to|at|near|en las afueras de|nei pressi di|près de|pres de|cerca de|"
    r"vicino a|bei|outside)[ \t]+))"
)
# A name of several words, or of hyphenated ones with a particle between ("Fort-de-France", "Saint-Jean-de-Luz").
_PARTICLE = r"(?:de|du|des|la|le|les|lès|sur|sous|en|di|del|am|an|im|upon|on)"
_COMPOUND = deferred(f"-{_PARTICLE}-")
_RESIDENCE = deferred(_RESIDENCE_VERB + r"(?P<place>[A-ZÀ-ÖØ-Þ][^\W\d_]{2,}(?:(?:-(?:" + _PARTICLE
                      + r"-)?|[ ])[A-ZÀ-ÖØ-Þ][^\W\d_]+){0,2})")
# Typed in lower case ("me he mudado a getafe", "moved to headingley"): one word, or two joined by a hyphen.
_RESIDENCE_LOWER = deferred(_RESIDENCE_VERB + r"(?P<place>[a-zà-öø-ÿ][^\W\d_]{2,}(?:-[a-zà-öø-ÿ][^\W\d_]+)?)(?![\w-])")


def _residence_spans(text: str) -> list[Span]:
    out = _lowercase_residence_spans(text)
    for m in _RESIDENCE.finditer(text):
        value = m.group("place")
        first = value.split(" ")[0].split("-")[0]
        compound = _COMPOUND.search(value) is not None  # "Fort-de-France": a name, whatever "Fort" is
        if lexicon.is_country(value):
            continue
        if not compound and (lexicon.is_common_word(first) or lexicon.is_stopword(first)):
            continue
        if lexicon.is_first_name(first) and not compound and not lexicon.is_place(value):
            continue  # "I live with..." is no place; "moved to Anna's" neither
        out.append(Span(m.start("place"), m.end("place"), value, "location", "context", 0.6))
    return out


def _lowercase_residence_spans(text: str) -> list[Span]:
    """A lower-case place after a verb of living or moving, when its first word is no word or name of ours."""
    out: list[Span] = []
    for m in _RESIDENCE_LOWER.finditer(text):
        value = m.group("place")
        first = value.split("-")[0]
        if lexicon.is_country(value) or lexicon.is_common_word(first) or lexicon.is_stopword(first):
            continue
        if _no_word_of_ours(first) or place_key_kind(lexicon.lexicon_key(value)):
            out.append(Span(m.start("place"), m.end("place"), value, "location", "context", 0.6))
    return out


# A sentence ends at "!", "?", a line break, or a full stop that closes no number or short abbreviation
# ("am 17. Mai", "St. Pauli", "z. B."): a sentence read too long only makes a place likelier to be masked.
_SENTENCE_END = deferred(r"[!?\n]|(?<![\d.])(?<!\b\w)(?<!\b\w\w)(?<!\b\w\w\w)\.")


def _sentence_around(text: str, start: int, end: int) -> str:
    left = max((m.end() for m in _SENTENCE_END.finditer(text, 0, start)), default=0)
    right = _SENTENCE_END.search(text, end)
    return text[left : right.start() if right else len(text)]


def tied_to_someone(text: str, start: int, end: int, lang: str = UNKNOWN) -> bool:
    """A word that speaks of someone (a pronoun, a possessive, a verb of living or moving: personal_words.txt)
    in the sentence of the place at [start, end), in the text's language ("auto": the one its words say); not the
    "me" of a request to the assistant ("Erklär mir", "explique-moi"), a possessive of the place's own things
    ("sus capitales", "ses quartiers"), nor the "sono" of a question ("Quali sono le regioni").
    """
    personal = lexicon.personal_words(guess_language(text) if lang == UNKNOWN else lang)
    words = Words(_sentence_around(text, start, end))
    keys = [lexicon.lexicon_key(word) for word in words.texts]
    return any(key in personal and not _impersonal_use(keys, k) for k, key in enumerate(keys))


# Object pronouns after a request ("tell me", "erklär mir"), possessives before what a place has, "are" after an
# interrogative: folded, for tied_to_someone.
_REQUEST_OBJECTS = frozenset({"me", "moi", "m'", "mir", "mich", "mi"})
_THIRD_POSSESSIVES = frozenset({"su", "sus", "son", "sa", "ses", "sein", "seine", "seinen", "its", "their", "his",
                                "her", "suo", "sua", "suoi", "sue", "loro", "leur", "leurs", "ihre", "ihren"})
_QUESTION_WORDS = frozenset({"quali", "quale", "quanti", "quante", "dove", "chi", "cosa", "come", "perche"})
# French impersonal verbs: the "il" before them is nobody ("qu'est-ce qu'il faut voir à Lisbonne ?").
# Not "fait", "reste", "arrive": "il reste à Lyon" is someone.
_IMPERSONAL_AFTER_IL = frozenset({"faut", "fallait", "faudra", "faudrait", "y", "vaut", "suffit", "semble",
                                  "parait", "pleut", "s'agit", "existe"})


def _impersonal_use(keys: list[str], k: int) -> bool:
    key = keys[k]
    before = keys[k - 1] if k else ""
    after = keys[k + 1] if k + 1 < len(keys) else ""
    if key in _REQUEST_OBJECTS and lexicon.is_request_verb(before):
        return True
    if key in _THIRD_POSSESSIVES and after in lexicon.list_keys("place_attributes.txt"):
        return True
    if key == "il" and after in _IMPERSONAL_AFTER_IL:
        return True
    return key == "sono" and before in _QUESTION_WORDS
