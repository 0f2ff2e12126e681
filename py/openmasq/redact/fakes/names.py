"""Fake first names, surnames and full person names drawn from Faker's per-locale name lists,
keeping the gender, the language, hyphenation, particles and casing of the real name."""

from __future__ import annotations

import importlib
import random
import re
from dataclasses import dataclass
from functools import cache, lru_cache

from ...patterns import deferred
from ._shape import ascii_like, distinct, fold_key, match_case, scramble

# Faker locales whose lists make up one language's pools (read-only class attributes of the
# locale provider modules; Faker() itself is never built: its setup costs ~100 ms more).
LANGUAGE_LOCALES: dict[str, tuple[str, ...]] = {
    "fr": ("fr_FR", "fr_CA", "fr_CH"),
    "en": ("en_US", "en_GB"),
    "de": ("de_DE", "de_AT"),
    "es": ("es_ES",),
    "it": ("it_IT",),
    "nl": ("nl_NL",),
    "pt": ("pt_PT", "pt_BR"),
}
# Ties between languages go to the first one here (the app is French-first).
LANGUAGE_ORDER = ("fr", "en", "es", "it", "pt", "nl", "de")
DEFAULT_LANGUAGE = "fr"

# Longer than any real name: faked as a plain scramble (linear on hostile input).
MAX_NAME_LENGTH = 200
# Lower-case particles kept verbatim in front of a surname ("de", "van der").
PARTICLES = frozenset({
    "de", "du", "des", "del", "della", "der", "den", "di", "da", "das", "do", "dos", "van", "von",
    "ter", "ten", "zu", "y", "le", "la", "les", "af", "av", "e",
})
# Capitalised articles that belong to the surname's particle rather than to its personal part.
_ARTICLES = frozenset({
    "la", "le", "les", "de", "du", "des", "del", "della", "di", "da", "van", "von", "der", "den",
})
_ELISION = deferred(r"^([A-Za-z]{1,2})(['’])(.+)$")
_HYPHEN = deferred(r"([-‐])")
_SPACE_RUNS = deferred(r"(\s+)")  # split keeping the runs: every name drawn is cut in words

CIVILITY_GENDER: dict[str, str] = {
    "m": "m", "mr": "m", "monsieur": "m", "herr": "m", "sr": "m", "sig": "m", "signor": "m", "señor": "m",
    "mme": "f", "mrs": "f", "ms": "f", "miss": "f", "madame": "f", "mlle": "f", "mademoiselle": "f",
    "frau": "f", "sra": "f", "srta": "f", "sig.ra": "f", "signora": "f", "señora": "f",
    "dr": "", "pr": "", "me": "", "prof": "", "dott": "", "maître": "",
}
_FEMININE_ENDINGS = ("a", "ette", "ine", "elle", "ie", "enne", "ise")


@dataclass(frozen=True)
class NamePools:
    """One language's names: single-word picks by gender, surnames, and folded look-ups."""

    male: tuple[str, ...]
    female: tuple[str, ...]
    unisex: tuple[str, ...]
    surnames: tuple[str, ...]
    gender_of: dict[str, str]
    surname_keys: frozenset[str]
    # Per locale: folded first names and surnames, and their exact (accented) spellings.
    first_by_locale: tuple[frozenset[str], ...] = ()
    last_by_locale: tuple[frozenset[str], ...] = ()
    # Surnames after an elision ("d'Artagnan" -> "d'Ormesson"): those starting with a vowel or h.
    vowel_surnames: tuple[str, ...] = ()


def _provider_names(locale: str, attribute: str) -> list[str]:
    module = importlib.import_module(f"faker.providers.person.{locale}")
    return [str(name) for name in getattr(module.Provider, attribute, ())]


def _single_words(names: list[str]) -> tuple[str, ...]:
    # Sorted: set order depends on the hash seed and the picks must be reproducible.
    return tuple(sorted({n for n in names if n.isalpha() and len(n) >= 2}))


@cache
def pools(language: str) -> NamePools:
    """The name pools of a language (loaded on first use: importing Faker costs ~0.1 s)."""
    male: list[str] = []
    female: list[str] = []
    surnames: list[str] = []
    first_by_locale: list[frozenset[str]] = []
    last_by_locale: list[frozenset[str]] = []
    for locale in LANGUAGE_LOCALES[language]:
        firsts = _provider_names(locale, "first_names_male") + _provider_names(locale, "first_names_female")
        lasts = _provider_names(locale, "last_names")
        male += _provider_names(locale, "first_names_male")
        female += _provider_names(locale, "first_names_female")
        surnames += lasts
        first_by_locale.append(_lookup_keys(firsts))
        last_by_locale.append(_lookup_keys(lasts))
    male_keys = {fold_key(n) for n in male}
    female_keys = {fold_key(n) for n in female}
    gender_of = {k: "u" if k in female_keys else "m" for k in male_keys}
    gender_of.update({k: "f" for k in female_keys - male_keys})
    male_words, female_words = _single_words(male), _single_words(female)
    unisex = tuple(n for n in male_words if gender_of.get(fold_key(n)) == "u")
    surname_words = _single_words(surnames)
    return NamePools(
        male=tuple(n for n in male_words if gender_of.get(fold_key(n)) == "m"),
        female=tuple(n for n in female_words if gender_of.get(fold_key(n)) == "f"),
        unisex=unisex,
        surnames=surname_words,
        gender_of=gender_of,
        surname_keys=frozenset(fold_key(n) for n in surnames),
        first_by_locale=tuple(first_by_locale),
        last_by_locale=tuple(last_by_locale),
        vowel_surnames=tuple(n for n in surname_words if n[0].lower() in "aeiouéèh") or surname_words,
    )


def _lookup_keys(names: list[str]) -> frozenset[str]:
    """Folded keys (accent-blind) and exact lower-case spellings prefixed with "=": an exact
    "Müller" says German more surely than the French list's "Muller"."""
    return frozenset({fold_key(n) for n in names} | {"=" + n.casefold() for n in names})


# Cached: asked for every name drawn, with the few locale spellings a caller uses.
@lru_cache(maxsize=256)
def language_of(locale: str | None) -> str | None:
    """"fr_FR", "fr-CA", "FR" or "fr" -> "fr"; None for unknown languages."""
    if not locale:
        return None
    language = re.split(r"[-_]", locale.strip().lower())[0]
    return language if language in LANGUAGE_LOCALES else None


def normal_gender(gender: str | None) -> str | None:
    if not gender:
        return None
    g = gender.strip().lower()
    if g in ("m", "male", "masculin", "masculine", "man", "homme", "h"):
        return "m"
    if g in ("f", "female", "féminin", "feminine", "woman", "femme"):
        return "f"
    return None


def is_first_name(word: str) -> bool:
    key = fold_key(word)
    return any(key in pools(lang).gender_of for lang in LANGUAGE_ORDER)


def is_surname(word: str) -> bool:
    key = fold_key(word)
    return any(key in pools(lang).surname_keys for lang in LANGUAGE_ORDER)


def _language_score(words: tuple[str, ...], per_locale: tuple[frozenset[str], ...]) -> float:
    """Share of the language's locales listing each word, plus a little for exact spellings:
    a surname every locale of a language lists is more typical of it than one a cosmopolitan
    list also holds (fr_FR lists "Garcia" and "Rossi", en_US "Alejandro")."""
    score = 0.0
    for word in words:
        key, exact = fold_key(word), "=" + word.casefold()
        score += sum(1 for keys in per_locale if key in keys) / len(per_locale)
        score += 0.01 * sum(1 for keys in per_locale if exact in keys) / len(per_locale)
    return score


def infer_language(words: list[str], *, surnames: bool = False) -> str:
    """The language whose lists know `words` best (default French). A first name any French
    list knows is read as French (the app is French-first, and the French lists hold few
    foreign first names); otherwise the language typical of the words wins."""
    return _inferred_language(tuple(w for w in words if w), surnames)


# Cached: a real name is faked once per attempt and per spelling, its language read each time.
@lru_cache(maxsize=16384)
def _inferred_language(words: tuple[str, ...], surnames: bool) -> str:
    if not surnames and any(fold_key(w) in pools(DEFAULT_LANGUAGE).gender_of for w in words):
        return DEFAULT_LANGUAGE
    best, best_score = DEFAULT_LANGUAGE, 0.0
    for lang in LANGUAGE_ORDER:
        p = pools(lang)
        score = _language_score(words, p.last_by_locale if surnames else p.first_by_locale)
        if score > best_score:
            best, best_score = lang, score
    return best


# Cached: read for every part of every first name drawn, in every attempt.
@lru_cache(maxsize=16384)
def gender_of_first_name(name: str, language: str) -> str | None:
    """"m", "f", "u" (both) from the language's lists, then any language's, then the ending."""
    key = fold_key(name)
    known = pools(language).gender_of.get(key)
    if known:
        return known
    for lang in LANGUAGE_ORDER:
        known = pools(lang).gender_of.get(key)
        if known:
            return known
    return "f" if key.endswith(_FEMININE_ENDINGS) else None


def _pool_for(gender: str | None, p: NamePools, rng: random.Random) -> tuple[str, ...]:
    if gender == "u" and len(p.unisex) >= 3:
        return p.unisex
    if gender not in ("m", "f"):
        gender = rng.choice("mf")
    return p.male if gender == "m" else p.female


def _pick_other(pool: tuple[str, ...], real: str, rng: random.Random) -> str:
    real_key = fold_key(real)
    pick = rng.choice(pool)
    for _ in range(6):
        if fold_key(pick) != real_key:
            break
        pick = rng.choice(pool)
    return pick


def fake_first_name(
    real: str, rng: random.Random, *, locale: str | None = None, gender: str | None = None
) -> str:
    """A first name of the same gender and language; "Jean-Pierre" -> "Louis-Marie" (each part
    keeps its own gender), casing mirrored."""
    if len(real) > MAX_NAME_LENGTH:
        return scramble(real, rng)
    pieces = _HYPHEN.split(real)
    parts = pieces[0::2]
    language = language_of(locale) or infer_language(parts)
    p = pools(language)
    forced = normal_gender(gender)
    genders = [forced or gender_of_first_name(part, language) for part in parts]
    lead = next((g for g in genders if g in ("m", "f")), None)

    def make(r: random.Random) -> str:
        out = list(pieces)
        for i, part in enumerate(parts):
            fake = _pick_other(_pool_for(genders[i] or lead, p, r), part, r)
            out[2 * i] = match_case(part, ascii_like(part, fake)) if part else fake
        return "".join(out)

    return distinct(real, rng, make)


def _split_particles(words: list[str]) -> int:
    """How many leading words are particles ("de", "van der", "de La" before "Fontaine"); the
    last word is always personal, so "Le Gall" keeps "Le" but a lone "Lebrun" is faked."""
    n = 0
    while n < len(words) - 1:
        word = words[n]
        folded = word.casefold()
        if (word.islower() and folded in PARTICLES) or folded in _ARTICLES:
            n += 1
            continue
        break
    return n


def _fake_surname_word(word: str, p: NamePools, rng: random.Random) -> str:
    """One surname word; a hyphenated word gets a surname per part, "d'Artagnan" keeps "d'"."""
    pieces = _HYPHEN.split(word)
    for i in range(0, len(pieces), 2):
        part = pieces[i]
        if not part:
            continue
        elided = _ELISION.match(part)
        if elided:
            head, quote, rest = elided.groups()
            fake = _pick_other(p.vowel_surnames, rest, rng)
            pieces[i] = head + quote + match_case(rest, ascii_like(rest, fake))
        else:
            fake = _pick_other(p.surnames, part, rng)
            pieces[i] = match_case(part, ascii_like(part, fake))
    return "".join(pieces)


def fake_surname(real: str, rng: random.Random, *, locale: str | None = None) -> str:
    """A surname of the same language with its particles kept ("de La Fontaine" -> "de La Morel")
    and its casing mirrored ("DUPONT" -> "MARCHAND")."""
    if len(real) > MAX_NAME_LENGTH:
        return scramble(real, rng)
    tokens = _SPACE_RUNS.split(real.strip())
    words = tokens[0::2]
    kept = _split_particles(words)
    personal = words[kept:]
    language = language_of(locale) or infer_language(personal, surnames=True)
    p = pools(language)

    def make(r: random.Random) -> str:
        out = list(tokens)
        for i in range(kept, len(words)):
            out[2 * i] = _fake_surname_word(words[i], p, r) if words[i] else words[i]
        return "".join(out)

    return distinct(real, rng, make)


def _civility_key(word: str) -> str:
    return word.casefold().rstrip(".")


def _is_initial(word: str) -> bool:
    return bool(re.fullmatch(r"[^\W\d_]\.?", word))


def _fake_initial(word: str, rng: random.Random) -> str:
    letter = word[0]
    others = [c for c in "ABCDEFGHIJLMNPRSTV" if c != letter.upper()]
    new = rng.choice(others)
    return (new if letter.isupper() else new.lower()) + word[1:]


def _person_roles(words: list[str]) -> list[str]:
    """"civility", "initial", "first" or "last" for each word of a person name. Particles ("de",
    "van") count as surname words so the surname keeps them. When some words are in capitals
    and others not ("DUPONT Jean"), the capitals are the surname wherever they stand."""
    roles = ["civility" if _civility_key(w) in CIVILITY_GENDER else "initial" if _is_initial(w) else "last"
             for w in words]
    names = [i for i, r in enumerate(roles) if r == "last"]
    candidates = [i for i in names if not _is_particle(words[i]) or i == names[-1]]
    capitals = [i for i in candidates if words[i].isupper() and len(words[i]) > 1]
    if capitals and len(capitals) < len(candidates):
        others = [i for i in candidates if i not in capitals]
        first = next((i for i in others if is_first_name(words[i])), others[0])
    elif len(candidates) > 1 or (candidates and "initial" not in roles and is_first_name(words[candidates[0]])):
        # A lone word known as a first name is read as one ("Marie a dit"); after an initial
        # ("J. Martin") it is the surname.
        first = candidates[0]
    else:
        return roles
    roles[first] = "first"
    return roles


def _is_particle(word: str) -> bool:
    return (word.islower() and word in PARTICLES) or word.casefold() in _ARTICLES


def fake_person(
    real: str, rng: random.Random, *, locale: str | None = None, gender: str | None = None
) -> str:
    """A full name faked word by word: civilities, particles and layout kept, first name of the
    same gender (read from the first name or the civility), the surname (with its particles)
    from the surname pool."""
    if len(real) > MAX_NAME_LENGTH:
        return scramble(real, rng)
    tokens = _SPACE_RUNS.split(real)
    words = tokens[0::2]
    roles = _person_roles(words)
    firsts = [w for w, r in zip(words, roles, strict=True) if r == "first"]
    lasts = [w for w, r in zip(words, roles, strict=True) if r == "last"]
    language = language_of(locale) or infer_language(firsts + lasts)
    civilities = [CIVILITY_GENDER[_civility_key(w)] for w, r in zip(words, roles, strict=True)
                  if r == "civility"]
    forced = normal_gender(gender) or next((g for g in civilities if g), None)

    def make(r: random.Random) -> str:
        out = list(tokens)
        i = 0
        while i < len(words):
            role = roles[i]
            if role == "first":
                out[2 * i] = fake_first_name(words[i], r, locale=language, gender=forced)
            elif role == "initial":
                out[2 * i] = _fake_initial(words[i], r)
            elif role == "last":
                end = i
                while end + 1 < len(words) and roles[end + 1] == "last":
                    end += 1
                surname = "".join(tokens[2 * i: 2 * end + 1])
                out[2 * i: 2 * end + 1] = [fake_surname(surname, r, locale=language)] + [""] * (2 * (end - i))
                i = end
            i += 1
        return "".join(out)

    return distinct(real, rng, make)
