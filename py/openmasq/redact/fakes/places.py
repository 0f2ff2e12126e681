"""Fake postal addresses and places: same country and shape, house number redrawn, street type
kept, street name, town and postal code replaced by a real little-known town and its code."""

from __future__ import annotations

import importlib
import random
import re
from dataclasses import dataclass
from functools import cache, lru_cache

from ...patterns import deferred
from ..places import US_STATES, country_of_town, regions_like, towns_of
from ..rules.address import POST_BOX_WORDS
from ..text import strip_accents
from . import _places_data as data
from ._shape import DIGITS, UPPER, distinct, match_case, pick_near_length, redraw_digits, scramble
from .names import LANGUAGE_LOCALES, fake_surname, pools

FR_REGIONS = (
    "Auvergne-Rhône-Alpes", "Bourgogne-Franche-Comté", "Bretagne", "Centre-Val de Loire", "Corse",
    "Grand Est",
    "Hauts-de-France", "Île-de-France", "Normandie", "Nouvelle-Aquitaine", "Occitanie", "Pays de la Loire",
    "Provence-Alpes-Côte d'Azur",
)
_OLD_FR_REGIONS = (
    "Alsace", "Aquitaine", "Auvergne", "Bourgogne", "Champagne-Ardenne", "Franche-Comté",
    "Languedoc-Roussillon",
    "Limousin", "Lorraine", "Midi-Pyrénées", "Nord-Pas-de-Calais", "Basse-Normandie", "Haute-Normandie",
    "Picardie", "Poitou-Charentes", "Rhône-Alpes", "PACA",
)

# Street-type words per country (folded: lower case, no accents, no trailing dot); kept as is.
STREET_TYPES: dict[str, frozenset[str]] = {
    "FR": frozenset(
        [
            "rue", "r", "av", "avenue", "bd", "boulevard", "bld", "blvd", "pl", "place", "chemin", "ch",
            "che", "allee", "impasse", "imp", "route", "rte", "quai", "cours", "crs", "square", "sq",
            "passage", "voie", "sentier", "faubourg", "fbg", "lieu-dit", "residence", "res", "hameau",
            "rond-point", "esplanade", "promenade", "villa", "cite", "parvis", "montee", "traverse",
            "ruelle", "venelle", "clos", "domaine", "lotissement", "zone", "za", "zi", "zac", "mail",
        ]),
    "ES": frozenset(
        [
            "calle", "c", "cl", "avenida", "avda", "av", "plaza", "pza", "paseo", "po", "camino",
            "carretera", "ctra", "ronda", "travesia", "glorieta", "pasaje", "callejon", "rambla",
            "urbanizacion", "urb",
        ]),
    "IT": frozenset(
        [
            "via", "viale", "vle", "piazza", "p.zza", "piazzale", "corso", "c.so", "largo", "vicolo",
            "strada", "contrada", "localita", "lungomare", "borgo", "vico", "salita",
        ]),
    "EN": frozenset(
        [
            "street", "st", "road", "rd", "avenue", "ave", "lane", "ln", "drive", "dr", "close", "way",
            "court", "ct", "place", "pl", "crescent", "cres", "gardens", "gdns", "terrace", "boulevard",
            "blvd", "square", "sq", "row", "mews", "hill", "parkway", "pkwy", "highway", "hwy", "circle",
            "cir", "trail", "walk", "grove",
        ]),
    "DE": frozenset([
        "strasse", "str", "weg", "platz", "allee", "gasse", "ring", "damm", "ufer", "chaussee", "steig",
        "pfad", "markt",
    ]),
    "NL": frozenset([
        "straat", "laan", "weg", "plein", "gracht", "kade", "singel", "dijk", "dreef", "pad", "hof",
        "steeg", "markt",
    ]),
    "PT": frozenset([
        "rua", "r", "avenida", "av", "travessa", "largo", "praca", "alameda", "estrada", "beco", "calcada",
    ]),
}
_DE_SUFFIXES = ("strasse", "str", "weg", "platz", "allee", "gasse", "ring", "damm", "ufer", "steig", "pfad")
_NL_SUFFIXES = ("straat", "laan", "weg", "plein", "gracht", "kade", "singel", "dijk", "dreef", "steeg")
# Words of an address that describe its structure, never a person or a place: kept verbatim.
KEYWORDS = frozenset(
    [
        "bis", "ter", "quater", "batiment", "bat", "building", "bldg", "appartement", "appart", "appt",
        "apt", "apartment", "etage", "floor", "fl", "escalier", "esc", "porte", "suite", "ste", "unit",
        "flat", "piso", "puerta", "planta", "escalera", "portal", "interno", "int", "scala", "cedex", "bp",
        "bajo", "izq", "izda", "izquierda", "dcha", "dcho", "derecha", "og", "eg", "dg", "obergeschoss", "stock",
        "hinterhaus", "vorderhaus", "seitenflugel", "gartenhaus", "links", "rechts", "stiege", "tur", "top", "bloc",
        "block", "plot", "house", "door", "shop", "villa", "sector", "phase", "h",
        "cs", "tsa", "cp", "bte", "boite", "box", "po", "chez", "c/o", "attn", "att", "lieu", "dit",
        "france", "deutschland", "germany", "espana", "spain", "italia", "italy", "belgique", "belgie",
        "belgium", "suisse", "schweiz", "switzerland", "nederland", "netherlands", "portugal", "usa", "uk",
        "n", "s", "e", "w", "ne", "nw", "se", "sw", "north", "south", "east", "west", "no", "nr",
    ]
)
CONNECTORS = frozenset(
    [
        "de", "du", "des", "la", "le", "les", "l", "d", "of", "the", "di", "del", "della", "dei", "degli",
        "delle", "dello", "do", "da", "dos", "das", "am", "an", "der", "den", "dem", "im", "auf", "zum",
        "zur", "y", "e", "et", "and", "van", "het", "'s", "'t",
    ]
)

FR_STREET_TAILS = (
    "des Tilleuls", "des Lilas", "des Acacias", "des Peupliers", "des Érables", "des Châtaigniers",
    "des Glycines", "des Coquelicots", "des Marronniers", "des Cerisiers", "des Vignes", "des Prés",
    "des Sources", "des Écoles", "des Jardins", "des Rosiers", "des Mésanges", "des Hirondelles", "du Moulin",
    "du Stade", "du Lavoir", "du Château", "du Pont", "du Bois", "du Puits", "du Verger", "du Marché",
    "du Four", "de la Gare", "de la Fontaine", "de la Mairie", "de la Forêt", "de la Croix", "de la Poste",
    "de la Liberté", "de la Paix", "de la République", "de l'Église", "de l'Étang", "de l'Abbaye",
    "Pasteur", "Jean Jaurès", "Victor Hugo", "Gambetta", "Voltaire", "Émile Zola", "Jules Ferry",
    "Anatole France", "Carnot", "Saint-Martin", "des Fleurs", "des Mimosas", "du Levant", "des Charmes",
)
ES_STREET_TAILS = (
    "Mayor", "Real", "Nueva", "del Sol", "de la Paz", "del Carmen", "de los Olivos", "de la Iglesia",
    "del Río",
    "de San Roque", "de la Constitución", "de Cervantes", "del Pilar", "de las Flores", "del Mar",
    "de la Estación", "del Molino", "de los Álamos", "de la Fuente", "de Santa Ana",
)
IT_STREET_TAILS = (
    "Garibaldi", "Mazzini", "Cavour", "dei Mille", "delle Rose", "del Mulino", "della Libertà", "Verdi",
    "Dante Alighieri", "San Francesco", "dei Tigli", "della Stazione", "del Popolo", "Marconi", "Matteotti",
    "dei Pini", "delle Querce", "della Chiesa", "dei Mulini", "Santa Lucia",
)
PT_STREET_TAILS = (
    "das Flores", "do Comércio", "da Liberdade", "de Santo António", "da Igreja", "do Sol", "das Oliveiras",
    "Nova", "Direita", "da Escola", "do Mercado", "dos Pescadores", "da Fonte", "do Castelo",
)
EN_STREET_WORDS = (
    "Oak", "Maple", "Elm", "Cedar", "Pine", "Willow", "Church", "Mill", "Park", "Station", "Victoria", "High",
    "Chestnut", "Meadow", "Orchard", "Spring", "Birch", "Walnut", "Green", "Lake", "River", "Forest", "Ash",
    "Holly", "Cherry", "Bridge", "Market", "School", "Hawthorn", "Sycamore", "Linden", "Beech", "Alder",
)
DE_STREET_STEMS = (
    "Linden", "Birken", "Eichen", "Mühlen", "Garten", "Schul", "Kirch", "Berg", "Wiesen", "Bahnhof", "Rosen",
    "Sonnen", "Tannen", "Ahorn", "Buchen", "Feld", "Wald", "Brunnen", "Burg", "Goethe", "Schiller", "Post",
    "Kastanien", "Heide", "Dorf", "Hafen", "Kloster", "Mozart",
)
DE_STREET_ADJECTIVES = (
    "Alte", "Neue", "Lange", "Hohe", "Breite", "Obere", "Untere", "Kurze", "Große", "Kleine",
)
NL_STREET_STEMS = (
    "Linden", "Eiken", "Kerk", "Molen", "School", "Dorps", "Beuken", "Berken", "Wilgen", "Esdoorn",
    "Kastanje",
    "Prinsen", "Oranje", "Tuin", "Veld", "Bos", "Haven", "Markt", "Stations", "Zuider", "Noorder",
)
# Longer than any real address or place: a plain scramble (linear on hostile input).
MAX_ADDRESS_LENGTH = 400
MAX_PLACE_LENGTH = 120
_LANGUAGE_OF_COUNTRY = {"FR": "fr", "BE": "fr", "CH": "fr", "DE": "de", "AT": "de", "ES": "es", "IT": "it",
                        "GB": "en", "US": "en", "NL": "nl", "PT": "pt"}

_TOKEN = deferred(r"[^\W\d_]{1,60}['’]?|[0-9]{1,12}|\s{1,20}|.", re.DOTALL)
_GB_POSTCODE = deferred(r"\b([A-Z]{1,2}[0-9][A-Z0-9]?) ?([0-9][ABD-HJLNP-UW-Z]{2})\b", re.IGNORECASE)
_US_STATE_ZIP = deferred(r"\b([A-Z]{2}|[a-z]{2})[ \u00a0]{1,3}([0-9]{5})(-[0-9]{4})?\b")
_NL_POSTCODE = deferred(r"\b([1-9][0-9]{3}) ?([A-Z]{2})\b")
_PT_POSTCODE = deferred(r"\b([0-9]{4})-([0-9]{3})\b")
_FIVE_DIGITS = deferred(r"(?<![0-9])([0-9]{5})(?![0-9])")
_FOUR_DIGITS = deferred(r"(?<![0-9])([1-9][0-9]{3})(?![0-9])")


@dataclass(frozen=True)
class Town:
    name: str
    postcode: str
    area: str = ""  # French région, US state, Italian province


# Cached: street words, town names and keywords are folded again for every address and every pick.
@lru_cache(maxsize=65536)
def _fold(word: str) -> str:
    return strip_accents(word.casefold()).rstrip(".").replace("ß", "ss")


# --- town pools -------------------------------------------------------------------------------

def _faker_cities(locale: str) -> tuple[str, ...]:
    module = importlib.import_module(f"faker.providers.address.{locale}")
    return tuple(sorted({str(c) for c in getattr(module.Provider, "cities", ())}))


def _italian_towns() -> tuple[Town, ...]:
    module = importlib.import_module("faker.providers.address.it_IT")
    table = getattr(module.Provider, "cap_city_province", {})
    rows = ((str(city), str(cap), str(province))
            for cap, entries in table.items() for city, province in entries)
    towns = {Town(*row) for row in rows}
    return tuple(sorted(towns, key=lambda t: (t.name, t.postcode)))


def _department(postcode: str) -> str:
    if postcode.startswith("97"):
        return postcode[:3]
    if postcode.startswith("20"):
        return "2A" if int(postcode) < 20200 else "2B"
    return postcode[:2]


@cache
def towns(country: str) -> tuple[Town, ...]:
    """Little-known real towns of a country (famous cities removed)."""
    if country == "FR":
        rows = tuple(Town(n, c, data.FR_REGION_OF_DEPARTMENT.get(_department(c), "")) for n, c in
                     data.parse_towns(data.FR_TOWNS))
    elif country == "US":
        rows = tuple(Town(n, z, s) for n, s, z in data.parse_towns(data.US_TOWNS))
    elif country in ("DE", "ES", "GB", "BE", "CH"):
        block = {"DE": data.DE_TOWNS, "ES": data.ES_TOWNS, "GB": data.GB_TOWNS, "BE": data.BE_TOWNS,
                 "CH": data.CH_TOWNS}[country]
        rows = tuple(Town(n, c) for n, c in data.parse_towns(block))
    elif country == "IT":
        rows = _italian_towns()
    elif country in ("NL", "PT", "AT"):
        locale = {"NL": "nl_NL", "PT": "pt_PT", "AT": "de_AT"}[country]
        rows = tuple(Town(c, "") for c in _faker_cities(locale))
    else:
        return towns("FR")
    famous = {_fold(c) for c in data.FAMOUS_CITIES.get(country, ())}
    return tuple(t for t in rows if _fold(t.name) not in famous)


# Where a lone place name is looked for first; France first (the app is French-first), the big
# Italian list (16,000 places) last so most look-ups never load it.
_PLACE_COUNTRY_ORDER = ("FR", "BE", "CH", "DE", "AT", "ES", "GB", "US", "NL", "PT", "IT")


def load_all() -> None:
    """Every country's towns and place names, and the street names' first names, now rather than
    on first use (see lexicon.load_all)."""
    for country in _PLACE_COUNTRY_ORDER:
        _place_keys(country)
    for language in LANGUAGE_LOCALES:
        _first_names(language)  # and the language's name pools
    _french_towns_by_department()
    _country_keys()
    _french_divisions()


@cache
def _place_keys(country: str) -> frozenset[str]:
    """Folded names of a country's towns and famous cities."""
    names = [t.name for t in towns(country)] + list(data.FAMOUS_CITIES.get(country, ()))
    return frozenset(_fold(n) for n in names)


def _country_of_place(name: str) -> str | None:
    key = _fold(name)
    return next((c for c in _PLACE_COUNTRY_ORDER if key in _place_keys(c)), None)


# --- country detection ------------------------------------------------------------------------

def _word_votes(words: list[str]) -> dict[str, int]:
    votes: dict[str, int] = {}
    for word in words:
        for country, types in STREET_TYPES.items():
            if word in types:
                votes[country] = votes.get(country, 0) + 1
        if word.endswith(_DE_SUFFIXES) and len(word) > 5:
            votes["DE"] = votes.get("DE", 0) + 2
        if word.endswith(_NL_SUFFIXES) and len(word) > 6:
            votes["NL"] = votes.get("NL", 0) + 2
        if word in ("du", "des", "le", "l'", "cedex", "bis", "ter"):  # "de" and "la" are Spanish and Italian too
            votes["FR"] = votes.get("FR", 0) + 1
    return votes


def detect_country(address: str) -> str:
    """ISO code of an address's country from its postal code and words (default France)."""
    postcode = _GB_POSTCODE.search(address)
    # "sw1a 2aa" in lower case inside an address is more likely a word; ending it, it is the postcode.
    if postcode and (postcode.group(0).isupper() or not address[postcode.end():].strip()):
        return "GB"
    state_zip = _US_STATE_ZIP.search(address)
    if state_zip and state_zip.group(1).upper() in US_STATES:
        return "US"
    words = [_fold(t) for t in _TOKEN.findall(address) if t[:1].isalpha()]
    votes = _word_votes(words)
    if _PT_POSTCODE.search(address):
        votes["PT"] = votes.get("PT", 0) + 2
    if _NL_POSTCODE.search(address) and not _FIVE_DIGITS.search(address):
        votes["NL"] = votes.get("NL", 0) + 2
    if not votes:
        # Town names settle it only when no street word did: the town table loads every
        # country's list (~150 ms the first time).
        for word in words:
            country = _country_of_place(word)
            if country:
                votes[country] = votes.get(country, 0) + 1
    if not votes:
        return "FR"
    best = max(votes.values())
    ranked = [c for c in ("FR", "DE", "ES", "IT", "NL", "PT", "EN") if votes.get(c) == best]
    country = ranked[0] if ranked else max(votes, key=lambda c: votes[c])
    return "US" if country == "EN" else country


def _normal_country(country: str | None) -> str | None:
    if not country:
        return None
    code = country.strip().upper()
    aliases = {"UK": "GB", "EN": "GB", "FRANCE": "FR", "GERMANY": "DE", "SPAIN": "ES", "ITALY": "IT",
               "USA": "US", "UNITED STATES": "US", "NETHERLANDS": "NL", "BELGIUM": "BE", "SWITZERLAND": "CH"}
    code = aliases.get(code, code)
    if "_" in code or "-" in code:
        code = re.split(r"[-_]", code)[-1]
    return code if len(code) == 2 else None


# --- picking a town consistent with the real one ------------------------------------------------

@lru_cache(maxsize=256)
def _french_candidates(real_postcode: str) -> tuple[Town, ...]:
    """Same département if the table has one there, else the same région, else anywhere."""
    all_towns = towns("FR")
    if not real_postcode:
        return all_towns
    department = _department(real_postcode)
    same = tuple(t for t in _french_towns_by_department().get(department, ()) if t.postcode != real_postcode)
    if same:
        return same
    region = data.FR_REGION_OF_DEPARTMENT.get(department, "")
    return tuple(t for t in all_towns if t.area == region and region) or all_towns


@cache
def _french_towns_by_department() -> dict[str, tuple[Town, ...]]:
    """French towns per département, in the table's order: grouped once rather than by reading
    every town's postal code for each new real code."""
    groups: dict[str, list[Town]] = {}
    for town in towns("FR"):
        groups.setdefault(_department(town.postcode), []).append(town)
    return {department: tuple(group) for department, group in groups.items()}


def _town_name(town: Town) -> str:
    return town.name


def pick_town(country: str, rng: random.Random, *, real_name: str = "", real_postcode: str = "") -> Town:
    """A town of `country`, of a length near the real name's, in the same French département or
    région when the real postal code says where; never the real town itself."""
    pool = _french_candidates(real_postcode) if country == "FR" else towns(country)
    real_key = _fold(real_name)
    town = pool[0]
    for _ in range(8):
        town = pick_near_length(pool, len(real_name) or 8, rng, key=_town_name)
        if _fold(town.name) != real_key:
            break
    return town


def _case_like(template: str, value: str) -> str:
    """ALL CAPS and all lower mirrored; otherwise the value's own casing ("Sarlat-la-Canéda")."""
    letters = [ch for ch in template if ch.isalpha()]
    if len(letters) > 1 and all(ch.isupper() for ch in letters):
        return value.upper()
    if letters and all(ch.islower() for ch in letters):
        return value.lower()
    return value


# --- postal codes -----------------------------------------------------------------------------

def _postcode_for(country: str, town: Town, real_code: str, rng: random.Random) -> str:
    """The town's code when the table has one, else the real code's shape with digits redrawn."""
    if country == "GB":
        inward = rng.choice(DIGITS) + "".join(rng.choice("ABDEFGHJLNPQRSTUWXYZ") for _ in range(2))
        space = " " if " " in real_code or not real_code else ""
        return town.postcode + space + inward
    if town.postcode and len(town.postcode) == len(re.sub(r"[^0-9]", "", real_code) or town.postcode):
        return town.postcode
    if country == "NL":
        letters = "".join(rng.choice(UPPER.replace("S", "")) for _ in range(2))
        return re.sub(r"[A-Za-z]{2}$", letters, redraw_digits(real_code, rng, keep=1))
    return redraw_digits(real_code, rng, keep=1)


def _locality_pattern(country: str) -> re.Pattern[str]:
    if country == "GB":
        return _GB_POSTCODE
    if country == "NL":
        return _NL_POSTCODE
    if country == "PT":
        return _PT_POSTCODE
    if country in ("BE", "CH", "AT"):
        return _FOUR_DIGITS
    return _FIVE_DIGITS


# --- the street part ----------------------------------------------------------------------------

def _street_tail(country: str, rng: random.Random) -> str:
    """A believable street name (what follows "rue", "Calle", "Via"...) for type-first countries."""
    language = _LANGUAGE_OF_COUNTRY.get(country, "fr")
    tails = {"FR": FR_STREET_TAILS, "BE": FR_STREET_TAILS, "CH": FR_STREET_TAILS, "ES": ES_STREET_TAILS,
             "IT": IT_STREET_TAILS, "PT": PT_STREET_TAILS}.get(country, FR_STREET_TAILS)
    if rng.random() < 0.5:
        return rng.choice(tails)
    first = rng.choice(_first_names(language))
    return f"{first} {rng.choice(pools(language).surnames)}"


@cache
def _first_names(language: str) -> tuple[str, ...]:
    """A language's male then female first names in one tuple, joined once rather than per street."""
    p = pools(language)
    return p.male + p.female


def _english_street_name(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(EN_STREET_WORDS)
    return rng.choice(pools("en").surnames)


def _german_compound(word: str, rng: random.Random) -> str:
    """"Hauptstraße" -> "Lindenstraße": the stem replaced, the street-type suffix kept."""
    folded = _fold(word)
    suffix = next(s for s in _DE_SUFFIXES + _NL_SUFFIXES if folded.endswith(s))
    cut = len(word) - (len(suffix) - (1 if "ß" in word[-len(suffix):] and "ss" in suffix else 0))
    stems = NL_STREET_STEMS if suffix in _NL_SUFFIXES else DE_STREET_STEMS
    stem = rng.choice(stems)
    if word[:cut].endswith("-"):
        stem += "-"
    tail = word[cut:]
    return _case_like(word, stem + (tail if stem.endswith("-") or not tail[:1].isupper() else tail.lower()))


def _is_type_word(word: str, country: str) -> bool:
    key = _fold(word)
    family = "EN" if country in ("GB", "US") else country if country in STREET_TYPES else "FR"
    return key in STREET_TYPES[family]


def _is_compound_street(word: str, country: str) -> bool:
    key = _fold(word)
    if country in ("DE", "AT", "CH"):
        return len(key) > 5 and key.endswith(_DE_SUFFIXES) and key not in STREET_TYPES["DE"]
    if country == "NL":
        return len(key) > 6 and key.endswith(_NL_SUFFIXES) and key not in STREET_TYPES["NL"]
    return False


ORDINAL_SIGNS = "ºª°"


def _is_kept_word(word: str) -> bool:
    key = _fold(word).rstrip("'’")
    return key in KEYWORDS or key in CONNECTORS or word[:1] in ORDINAL_SIGNS  # "ºA" of "1ºA": the floor's door


def _fake_street_part(text: str, country: str, rng: random.Random) -> str:
    """House numbers redrawn, street type and keywords kept, the street name replaced."""
    tokens = _TOKEN.findall(text)
    out = list(tokens)
    words = [i for i, t in enumerate(tokens) if t[:1].isalpha()]
    type_at = next((i for i in words if _is_type_word(tokens[i], country)), None)
    name_run = _name_run(tokens, words, type_at, country)
    for i, token in enumerate(tokens):
        if token.isdigit():
            out[i] = redraw_digits(token, rng)
        elif i in name_run:
            out[i] = ""
        elif i == type_at:
            continue  # the street type, kept ("C/", "Calle")
        elif token[:1].isalpha() and _is_compound_street(token, country):
            out[i] = _german_compound(token, rng)
        elif token[:1].isalpha() and len(token) == 1 and i > 0 and tokens[i - 1].isdigit():
            continue  # "12B": the suffix letter keeps its style
        elif token[:1].isalpha() and len(token) == 1:
            out[i] = match_case(token, rng.choice(UPPER))
        elif token[:1].isalpha() and not _is_kept_word(token) and not _is_type_word(token, country):
            out[i] = match_case(token, fake_surname(token.capitalize(), rng))
    if name_run:
        first = min(name_run)
        template = "".join(tokens[first:max(name_run) + 1])
        out[first] = _case_like(template, _new_street_name(country, rng))
    return "".join(out)


def _name_run(tokens: list[str], words: list[int], type_at: int | None, country: str) -> set[int]:
    """Token indexes of the street's own name: after the type word in French, Spanish, Italian
    and Portuguese; before it in English, German and Dutch. Numbers, commas and keywords end it."""
    if type_at is None:
        return set()
    after = country not in ("GB", "US", "DE", "AT", "NL")
    step = 1 if after else -1
    run: list[int] = []
    i = type_at + step
    while 0 <= i < len(tokens):
        token = tokens[i]
        if token.isdigit() or token in (",", ";", "\n") or (token[:1].isalpha() and _is_stop_word(token)):
            break
        run.append(i)
        i += step
    while run and not tokens[run[-1]][:1].isalpha():
        run.pop()
    while run and not tokens[run[0]][:1].isalpha():
        run.pop(0)  # a space, or the "/" of "C/ Alcalá"
    has_name = any(tokens[i][:1].isalpha() and _fold(tokens[i]).rstrip("'’") not in CONNECTORS for i in run)
    return set(range(min(run), max(run) + 1)) if run and has_name else set()


def _is_stop_word(token: str) -> bool:
    key = _fold(token)
    return (key in KEYWORDS and key not in ("n", "s", "e", "w")) or (len(token) == 1 and token.isupper())


def _new_street_name(country: str, rng: random.Random) -> str:
    if country in ("GB", "US"):
        return _english_street_name(rng)
    if country in ("DE", "AT", "NL"):
        return rng.choice(DE_STREET_ADJECTIVES) if country != "NL" else rng.choice(NL_STREET_STEMS)
    return _street_tail(country, rng)


# --- addresses ----------------------------------------------------------------------------------

def _split_locality(real: str, country: str) -> tuple[str, str, re.Match[str] | None]:
    """(street part, locality part, postcode match inside the locality)."""
    pattern = _locality_pattern(country)
    if country == "US":
        match = _US_STATE_ZIP.search(real)
        if match and match.group(1).upper() in US_STATES:
            head = real[: match.start()]
            cut = head.rstrip(", ").rfind(",")
            start = cut + 1 if cut >= 0 else match.start()
            return real[:start], real[start:], _US_STATE_ZIP.search(real[start:])
        return real, "", None
    matches = list(pattern.finditer(real))
    if not matches:
        return _split_city_only(real)
    match = matches[-1]
    if country == "GB":
        head = real[: match.start()]
        cut = head.rstrip(", ").rfind(",")
        start = cut + 1 if cut >= 0 else match.start()
    else:
        start = match.start()
        if real[:start].rstrip().endswith(("(", "-")):
            start = real[:start].rstrip().rfind(" ") + 1
    return real[:start], real[start:], pattern.search(real[start:])


def _split_city_only(real: str) -> tuple[str, str, None]:
    """"12 rue des Lilas, Vierzon": a last comma-separated part without digits is the town."""
    head, comma, tail = real.rpartition(",")
    if comma and tail.strip() and not any(ch.isdigit() for ch in tail) and not _has_type_word(tail):
        return head + comma, tail, None
    return real, "", None


def _has_type_word(text: str) -> bool:
    return any(_fold(t) in types for t in _TOKEN.findall(text) for types in STREET_TYPES.values())


def _fake_locality(locality: str, match: re.Match[str] | None, country: str, rng: random.Random) -> str:
    """Postal code and town replaced together (a real town and its own code); keywords such as
    "Cedex" or the country name kept, a US state or an Italian province replaced by the new
    town's."""
    real_code = match.group(0) if match else ""
    code_start, code_end = (match.start(), match.end()) if match else (0, 0)
    if country == "US" and match:
        real_code = match.group(2)
    before = _city_words(locality[:code_start]) if match else ""
    after = _city_words(locality[code_end:])
    city_text = before if country in ("GB", "US") else after or before
    digits_only = re.sub(r"[^0-9]", "", real_code)
    town = pick_town(country, rng, real_name=city_text, real_postcode=digits_only if country == "FR" else "")
    new_code = _postcode_for(country, town, real_code, rng)
    head, tail = locality[:code_start], locality[code_end:]
    if city_text and city_text in tail and city_text == after:
        tail = tail.replace(city_text, _case_like(city_text, town.name), 1)
    elif city_text:
        head = head.replace(city_text, _case_like(city_text, town.name), 1)
    if country == "US" and match:
        plus4 = match.group(3) or ""
        state = _case_like(match.group(1), town.area)
        code_text = f"{state} {town.postcode}{redraw_digits(plus4, rng) if plus4 else ''}"
    elif match:
        code_text = _case_like(real_code, new_code)
    else:
        code_text = ""
    if country == "IT" and town.area:
        tail = re.sub(r"\b[A-Z]{2}\b", town.area, tail, count=1)
    tail = re.sub(r"[0-9]{1,6}", lambda m: redraw_digits(m.group(0), rng), tail)
    return head + code_text + tail


def _city_words(text: str) -> str:
    """The town name inside a locality fragment: words that are not keywords, no digits."""
    tokens = _TOKEN.findall(text)
    kept: list[str] = []
    for token in tokens:
        if token.isdigit() or token in (",", "(", ")", "\n"):
            if any(t[:1].isalpha() for t in kept):
                break
            kept = []
            continue
        if token[:1].isalpha() and _fold(token) in KEYWORDS and _fold(token) not in ("s", "e"):
            if any(t[:1].isalpha() for t in kept):
                break
            continue
        kept.append(token)
    return "".join(kept).strip(" -")


_POST_BOX_HEAD = deferred(POST_BOX_WORDS)
_BOX_NUMBER = deferred(r"\d{1,6}(?:[ ]\d{2,3}){0,2}")


def fake_address(real: str, rng: random.Random, *, country: str | None = None) -> str:
    """Same country and shape: house number redrawn (its "bis"/"B" suffix kept), street type
    kept, street name replaced by a believable one, postal code and town replaced together by a
    real little-known town of the same country (same French département or région)."""
    if len(real) > MAX_ADDRESS_LENGTH:
        return scramble(real, rng)
    code = _normal_country(country) or detect_country(real)

    def make(r: random.Random) -> str:
        box = _POST_BOX_HEAD.match(real)
        if box is not None:
            return _fake_post_box(real, box.end(), code, r)
        street, locality, match = _split_locality(real, code)
        new_street = _fake_street_part(street, code, r) if street else ""
        new_locality = _fake_locality(locality, match, code, r) if locality else ""
        return new_street + new_locality

    return distinct(real, rng, make)


def _fake_post_box(real: str, head_end: int, code: str, rng: random.Random) -> str:
    """"Postfach 11 02 34, 33602 Bielefeld": the box's words kept, its number redrawn, the town replaced."""
    number = _BOX_NUMBER.match(real, head_end)
    end = number.end() if number else head_end
    rest = real[end:]
    fake_rest = _fake_locality(rest, _locality_pattern(code).search(rest), code, rng) if rest.strip(" ,\n") else rest
    return real[:head_end] + redraw_digits(real[head_end:end], rng) + fake_rest


# --- places -------------------------------------------------------------------------------------

@cache
def _french_divisions() -> tuple[dict[str, str], tuple[str, ...]]:
    """Folded French département and région names -> kind, and the département names."""
    module = importlib.import_module("faker.providers.address.fr_FR")
    departments = tuple(str(name) for _, name in getattr(module.Provider, "departments", ()))
    kinds = {_fold(name): "department" for name in departments}
    kinds.update({_fold(name): "region" for name in FR_REGIONS + _OLD_FR_REGIONS})
    return kinds, departments


@cache
def _country_lists() -> tuple[tuple[str, ...], ...]:
    """Country names in French, English, German, Spanish and Italian (Faker's lists)."""
    lists: list[tuple[str, ...]] = []
    for locale in ("fr_FR", "en_US", "de_DE", "es_ES", "it_IT"):
        module = importlib.import_module(f"faker.providers.address.{locale}")
        lists.append(tuple(str(c) for c in getattr(module.Provider, "countries", ())))
    return tuple(lists)


@cache
def _country_keys() -> tuple[frozenset[str], ...]:
    return tuple(frozenset(_fold(n) for n in names) for names in _country_lists())


def _country_names_like(real: str) -> tuple[str, ...]:
    """The other countries named in the language of `real` when it is a country name."""
    key = _fold(real)
    for keys, names in zip(_country_keys(), _country_lists(), strict=True):
        if key in keys:
            return tuple(n for n in names if _fold(n) != key)
    return ()


def _fake_division(real: str, kind: str, rng: random.Random) -> str:
    _, departments = _french_divisions()
    pool = departments if kind == "department" else FR_REGIONS
    options = tuple(p for p in pool if _fold(p) != _fold(real))
    return _case_like(real, pick_near_length(options, len(real), rng))


def fake_location(real: str, rng: random.Random, *, country: str | None = None) -> str:
    """A real little-known town of the same country with a length near the real one; a French
    département or région becomes another one; "ST OUEN (93400)" keeps its shape with a town
    and code of the same département."""
    if len(real) > MAX_PLACE_LENGTH:
        return scramble(real, rng)
    if any(ch.isdigit() for ch in real):
        code = _normal_country(country) or ("FR" if _FIVE_DIGITS.search(real) else detect_country(real))
        match = _locality_pattern(code).search(real)
        # "Lyon 3e" has no postal code: the town is replaced and the number redrawn all the same.
        return distinct(real, rng, lambda r: _fake_locality(real, match, code, r))
    kind = _french_divisions()[0].get(_fold(real.strip()))
    if kind:
        return distinct(real, rng, lambda r: _fake_division(real.strip(), kind, r))
    regions = regions_like(real.strip())
    if regions:
        return distinct(real, rng, lambda r: _case_like(real, pick_near_length(regions, len(real), r)))
    country_names = _country_names_like(real.strip())
    if country_names:
        return distinct(real, rng, lambda r: _case_like(real, pick_near_length(country_names, len(real), r)))
    known = _normal_country(country) or _country_of_place(real.strip())
    world = () if known else _world_towns_like(real.strip())
    code = known or "FR"

    def make(r: random.Random) -> str:
        stripped = real.strip()
        name = pick_near_length(world, len(stripped), r) if world else pick_town(code, r, real_name=stripped).name
        return real.replace(stripped, _case_like(real, name), 1)

    return distinct(real, rng, make)


def _world_towns_like(name: str) -> tuple[str, ...]:
    """Other towns of the country of a town the fake lists do not hold ("Gurgaon", "Lekki"): the detection's
    world list (towns.txt), the real one left out."""
    country = country_of_town(name)
    key = _fold(name)
    return tuple(t for t in towns_of(country) if _fold(t) != key) if country else ()
