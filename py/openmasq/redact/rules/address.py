"""Street addresses in French, English, German, Spanish and Italian layouts, with the postal code
and city that follow on the same or the next line."""

from __future__ import annotations

import re

from ...patterns import deferred
from ._base import Hit, lowered, starts_token, windowed_matches

# --- postal code and city -----------------------------------------------------------------------

# Words of a city name are separated by one space or hyphen and never contain one, so the
# split of "Saint-Denis-en-Val" is unique (no backtracking between word and separator).
_CITY_WORD = r"(?!(?i:cedex)\b)[A-ZÀ-Þ][\w'’]{1,30}"
# Next to a postal code the city may be typed in lower case ("75002 paris", "bristol bs6 7bw", "springfield, il
# 62704"): the code says it is the address's city.
_POSTAL_CITY_WORD = r"(?!(?i:cedex)\b)[A-ZÀ-Þa-zß-ÿ][\w'’]{1,30}"
_CITY_LINK = r"sur|sous|en|le|la|les|lès|lez|de|du|des|am|an|im|bei|ob|d['’]\w{1,20}|l['’]\w{1,20}"
_CITY = rf"{_CITY_WORD}(?:[ -](?:{_CITY_LINK}|{_CITY_WORD})){{0,4}}"
_POSTAL_CITY = rf"{_POSTAL_CITY_WORD}(?:[ -](?:{_CITY_LINK}|{_CITY_WORD})){{0,4}}"
_UK_POSTCODE = r"[A-Z]{1,2}\d[A-Z\d]?[ ]?\d[A-Z]{2}"
_TAIL = deferred(
    r"[ \t]{0,3},?[ \t]{0,3}(?:\r?\n[ \t]{0,8})?(?:"
    rf"(?:(?:[A-Z]{{1,2}}-)?\d{{5}}|\d{{2}}[ ]\d{{3}}|(?:CH-|A-|B-|L-)?\d{{4}})[ \t]{{1,3}}{_POSTAL_CITY}"
    r"(?:[ \t]{1,3}(?i:cedex)(?:[ \t]?\d{1,2})?|[ \t]\(?[A-Z]{2}\)?(?![\w]))?"
    rf"|{_POSTAL_CITY},[ \t]{{0,3}}(?:[A-Z]{{2}}|[a-z]{{2}})[ \t]{{1,2}}\d{{5}}(?:-\d{{4}})?"
    rf"|(?:{_POSTAL_CITY},?[ \t]{{1,3}})?(?:{_UK_POSTCODE}|{_UK_POSTCODE.lower()})"
    r")(?![\w])"
)


def _tail_end(text: str, pos: int) -> int | None:
    """End of a postal code + city (or US "City, ST 12345", UK postcode) right after `pos`."""
    m = _TAIL.match(text, pos)
    return m.end() if m else None


# --- street names read word by word ---------------------------------------------------------------

_NAME_TOKEN = deferred(r"[ ]{1,3}((?:[dlDL]['’]|[Dd]ell['’]|[Ss]ull['’]|[Dd]all['’]|[Aa]ll['’])?[\w'’.-]{1,30})")
_ELISION = deferred(r"^(?:[dlDL]['’]|[Dd]ell['’]|[Ss]ull['’]|[Dd]all['’]|[Aa]ll['’])")
_FR_PARTICLES = frozenset({
    "de", "du", "des", "la", "le", "les", "l'", "d'", "aux", "au", "à", "en", "sur", "sous", "et",
})
_ES_IT_PARTICLES = frozenset({
    "de", "del", "la", "las", "los", "el", "y", "i", "di", "della", "dei", "degli", "delle", "da",
    "dal", "dalla", "dello", "sul", "sulla", "per",
})


def _street_name_end(text: str, pos: int, particles: frozenset[str], digits_end_name: bool) -> int | None:
    """End of the capitalised words (with their particles) of a street name starting at `pos`."""
    name_end, named = None, False
    for _ in range(8):
        m = _NAME_TOKEN.match(text, pos)
        if m is None:
            break
        token = m.group(1)
        core = _ELISION.sub("", token)
        if token.lower() in particles:
            pos = m.end()
            continue
        if core[:1].isdigit() and (digits_end_name or len(core) > 4):
            break
        if not (core[:1].isupper() or core[:1].isdigit()):
            break
        pos = m.end()
        named = named or core[:1].isupper()
        name_end = pos - (len(token) - len(token.rstrip(".")))
        if token.endswith(".") and len(core) > 3:
            break  # a sentence ends here
    return name_end if named else None  # numbers alone ("rue 12") name no street


# --- French: "12 bis, avenue Victor Hugo" ---------------------------------------------------------

_FR_TYPES = (
    r"rue|avenue|av\.|bd|boulevard|blvd|place|pl\.|all[ée]e|chemin|ch\.|impasse|imp\.|quai|route|rte|"
    r"cours|square|passage|voie|sentier|cit[ée]|r[ée]sidence|lieu-dit|hameau|faubourg|fbg|rond-point|"
    r"esplanade|promenade|villa|parvis|chauss[ée]e|mont[ée]e|traverse|ruelle|venelle|clos|lotissement|"
    r"quartier|parc|zone|za|zi|zac"
)
_FR_STREET = deferred(
    r"\d(?<![\w,.]\d)\d{0,3}(?:[ ]?(?:bis|ter|quater|[A-Ha-h])(?![\w]))?,?[ ]{1,3}"
    rf"(?i:{_FR_TYPES})(?=[ ])"
)


# A country address has no house number: "lieu-dit La Croix, 24200 Sarlat", "Hameau des Prés, 05100 Briançon".
_FR_NUMBERLESS = deferred(r"(?<![\w-])(?i:lieu-dit|lieudit|hameau|r[ée]sidence|lotissement|domaine)(?=[ ])")


def _french_addresses(text: str) -> list[Hit]:
    hits: list[Hit] = []
    for m in _FR_STREET.finditer(text):
        name_end = _street_name_end(text, m.end(), _FR_PARTICLES, digits_end_name=False)
        if name_end is None:
            name_end = _lowercase_name_before_postcode(text, m.end())
        if name_end is not None:
            hits.append(_with_tail(text, m.start(), name_end))
    for m in _FR_NUMBERLESS.finditer(text):
        name_end = _street_name_end(text, m.end(), _FR_PARTICLES, digits_end_name=False)
        tail = _tail_end(text, name_end) if name_end is not None else None
        if tail is not None:  # without its postal code, "résidence principale" is no address
            hits.append(Hit(m.start(), tail, "address", 0.9))
    return hits


def _lowercase_name_before_postcode(text: str, pos: int) -> int | None:
    """"12 rue de la paix, 75002 paris": lower-case names count when a postal code follows."""
    for _ in range(6):
        m = _NAME_TOKEN.match(text, pos)
        if m is None or not m.group(1)[:1].isalpha():
            return None
        pos = m.end()
        if re.match(r",?[ ]{0,3}(?:\r?\n[ \t]{0,8})?\d{5}[ ]", text[pos : pos + 20]):
            return pos
    return None


# The unit written before the street number: "Flat 3, 56 Gloucester Road", "Appt 12, 3 rue ...".
_COMPLEMENT_BEFORE = deferred(
    r"(?:Flat|Apartment|Apt\.?|Unit|Suite|Appartement|Appt\.?|Bâtiment|Bât\.?|Escalier|Esc\.?|Piso|Interno|Int\.)"
    r"[ ]?#?[A-Za-z0-9]{1,5},?[ ]{1,2}$"
)


# A flat, floor, door or building between the street and the postal code ("Apt 4B", "Suite 200", "2. OG",
# "Hinterhaus", "Bât. B, Esc. 2", "3º B", "2º izq.", "piso 3", "scala B int. 5"): up to three of them, taken into
# the address only when the postal code and city follow (else the real code was left out of it).
_COMPLEMENT_AFTER = deferred(
    r",?[ ]{1,2}(?:"
    r"\d{1,2}[º°ª](?:[ ]?(?:izq(?:da|uierda)?\.?|dcha\.?|derecha|[A-Za-z])(?![\w]))?"
    r"|(?i:apt\.?|apartment|suite|ste\.?|unit|flat|floor|fl\.?|b[âa]t\.?|b[âa]timent|esc\.?|escalier|appt?\.?"
    r"|appartement|[ée]tage|porte|bloc|block|piso|planta|escalera|puerta|scala|int\.|interno|stiege|tür|top)"
    r"[ ]?(?:n[º°o]\.?[ ]?)?#?[A-Za-z0-9]{1,5}"
    r"|\d{1,2}\.[ ]?(?:OG|Obergeschoss|Stock|Etage)|EG|DG|Hinterhaus|Vorderhaus|Seitenflügel|Gartenhaus|bajo"
    r"|\d{1,2}(?:er|e|ème|st|nd|rd|th)[ ](?i:[ée]tage|floor)"
    r")(?![\w])"
)


def _complements_end(text: str, end: int) -> int:
    for _ in range(3):
        m = _COMPLEMENT_AFTER.match(text, end)
        if m is None:
            break
        end = m.end()
    return end


def _with_tail(text: str, start: int, end: int, score: float = 0.8) -> Hit:
    complement = _COMPLEMENT_BEFORE.search(text, max(0, start - 24), start)
    if complement is not None and (complement.start() == 0 or not text[complement.start() - 1].isalnum()):
        start = complement.start()
    tail = _tail_end(text, end)
    if tail is None:
        after = _complements_end(text, end)
        tail = _tail_end(text, after) if after > end else None
    return Hit(start, tail, "address", 0.9) if tail else Hit(start, end, "address", score)


# --- English: "221B Baker Street", "1600 Pennsylvania Avenue NW" ---------------------------------

_EN_TYPES = (
    r"Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Lane|Ln\.?|Drive|Dr\.?|Boulevard|Blvd\.?|Court|Ct\.?|"
    r"Place|Pl\.?|Terrace|Way|Close|Crescent|Square|Sq\.?|Parkway|Pkwy\.?|Highway|Hwy\.?|Circle|"
    r"Cir\.?|Loop|Row|Gardens|Mews|Hill|Walk|Trail|Grove|Park|Plaza|Alley|Broadway"
)
_EN_STREET = deferred(
    r"\d(?<![\w,.]\d)\d{0,4}[A-Za-z]?[ ]{1,3}(?:(?:[A-Z][\w'’-]{0,30}|\d{1,3}(?:st|nd|rd|th))[ ]{1,3}){0,4}"
    rf"(?:{_EN_TYPES})(?![\w])(?:[ ]{{1,3}}(?:NW|NE|SW|SE|N|S|E|W)\.?(?![\w]))?"
    r"(?:,?[ ]{1,3}(?:Apt|Apartment|Suite|Ste|Unit|Flat|Fl|Floor)\.?[ ]?#?[A-Za-z0-9-]{1,6}(?![\w]))?"
)


# The unit and its number first, then the street or the sector, as Nigeria and India write them: "Plot 15,
# Admiralty Way", "House No. 24, Sector 15", "Flat 3B, Lajpat Nagar".
_EN_UNIT_FIRST = deferred(
    r"(?<![\w])(?:Plot|House|Flat|Door|Shop|Block|Villa|H\.)[ ]?(?:No\.?|Number|#)?[ ]?\d{1,5}[A-Za-z]?,[ ]{1,3}"
    rf"(?:(?:[A-Z][\w'’-]{{1,30}}[ ]{{1,3}}){{1,4}}(?:{_EN_TYPES}|Nagar|Colony|Layout|Marg|Enclave|Vihar|Estate)"
    r"|Sector[ ]\d{1,3})(?![\w])"
)


def _english_addresses(text: str) -> list[Hit]:
    hits: list[Hit] = []
    for m in _EN_STREET.finditer(text):
        if m.group(0).split()[1:2] == ["Broadway"] or len(m.group(0).split()) >= 3:
            hits.append(_with_tail(text, m.start(), m.end()))
    hits += [_with_tail(text, m.start(), m.end()) for m in _EN_UNIT_FIRST.finditer(text)]
    return hits


# --- German: "Hauptstraße 5", "Berliner Str. 12", "Am Markt 3" ------------------------------------

_DE_SUFFIX = r"straße|strasse|str\.|weg|platz|allee|gasse|damm|ufer|chaussee|steig|pfad|markt|graben|stieg|kai"
_DE_WORD_TYPE = r"Straße|Strasse|Str\.|Weg|Platz|Allee|Gasse|Ring|Damm|Ufer|Chaussee|Markt|Steig|Pfad|Kai"
_DE_STREET = deferred(
    r"(?<![\w-])(?:"
    r"(?P<prep>Am|An[ ]der|An[ ]den|Auf[ ]dem|Auf[ ]der|Im|In[ ]der|Zum|Zur|Unter[ ]den|Hinter[ ]der|Alte|Alter)"
    r"[ ][A-ZÄÖÜ][\wäöüß-]{1,30}"
    rf"|[A-ZÄÖÜ][\wäöüß-]{{0,40}}(?:{_DE_SUFFIX})"
    rf"|[A-ZÄÖÜ][\wäöüß-]{{1,40}}[ -](?:{_DE_WORD_TYPE})"
    r")[ ]{1,2}\d{1,4}(?:[ ]?[a-zA-Z](?![\w]))?(?:[ ]?[-/][ ]?\d{1,4})?(?![\w]|[.,]\d)"
)


# German, Spanish and Italian addresses end with the house number after the street name, so
# they are looked for only before a number that follows a word ("Roma 10", "Str. 12",
# "Garibaldi, 12"): a digit-first scan that skips prose quickly.
_NUMBER_AFTER_WORD = deferred(r"\d(?<=[^\W\d_] \d)|\d(?<=[^\W\d_][.,] \d)")
_NAME_REACH = 80  # type word and street name fit in this many characters before the number

# Signs of a German street before its number: a street-type word (lower-cased text) or a
# leading preposition ("Am Markt 3").
_DE_SIGN = deferred(
    r"straße|strasse|str\.|weg\b|platz|allee|gasse|damm|ufer|chaussee|steig|pfad|markt|graben|stieg|kai\b|ring\b"
)
_DE_PREPOSITION = deferred(
    r"\b(?:Am|An der|An den|Auf dem|Auf der|Im|In der|Zum|Zur|Unter den|Hinter der|Alte|Alter) "
)


def _numbers_after_words(text: str) -> list[int]:
    """Numbers after a capitalised word ("Roma 10", "Str. 12", "Castellana nº 100"); a
    lower-case word before a number ("salle 3") ends no street name."""
    return [m.start() for m in _NUMBER_AFTER_WORD.finditer(text) if _capitalised_word_before(text, m.start() - 1)]


def _capitalised_word_before(text: str, end: int) -> bool:
    """True when the word ending before `end` (past a space and a "." or ",") is capitalised,
    looking past a number sign ("nº", "n.") once."""
    for _ in range(2):
        while end > 0 and text[end - 1] in " .,":
            end -= 1
        start = end
        while start > 0 and text[start - 1].isalpha():
            start -= 1
        if start == end:
            return False
        if text[start].isupper():
            return True
        if text[start:end].lower() not in ("n", "nº", "n°", "no", "núm", "num"):
            return False
        end = start
    return False


def _german_addresses(text: str, numbers: list[int]) -> list[Hit]:
    low = lowered(text)
    anchors = [
        (max(0, n - _NAME_REACH), n)
        for n in numbers
        if _DE_SIGN.search(low, max(0, n - _NAME_REACH), n) or _DE_PREPOSITION.search(text, max(0, n - _NAME_REACH), n)
    ]
    hits: list[Hit] = []
    for m in windowed_matches(text, _DE_STREET, anchors, 0, 100):
        # "Am Montag 3 ..." reads like a street; without a postal code it stays a weak guess.
        hits.append(_with_tail(text, m.start(), m.end(), 0.6 if m.group("prep") else 0.8))
    return hits


# --- The number after the name: "Calle Mayor 5", "C/ Alcalá 23", "Via Roma 10", "avenue de Cour 58" -------

# Street types written before the name (searched in the lower-cased text before a number).
_ES_IT_TYPE = deferred(
    r"(?:calle|c/|avenida|avda\.|av\.|plaza|pza\.|paseo|pº|ronda|camino|carretera|ctra\.|traves[íi]a|"
    r"glorieta|rambla|via|viale|v\.le|piazza|p\.zza|piazzale|corso|c\.so|largo|vicolo|lungotevere|"
    r"lungomare|strada|contrada|borgo|salita|"
    # French street types, the number after the name as in Switzerland and Belgium ("avenue de Cour 58")
    r"rue|avenue|boulevard|chemin|route|impasse|quai|all[ée]e)(?= )"
)
_FR_NUMBER_AFTER = frozenset({"rue", "avenue", "boulevard", "chemin", "route", "impasse", "quai", "allée", "allee"})
# A number after a street name that counts something else: "rue de Paris 2 fois", "route 66 km".
_COUNTED = deferred(r"[ ]?(?:ans?|fois|jours?|mois|km|m|min|h|heures?|euros?|€|%|x)(?![\w])")
_HOUSE_NUMBER = deferred(
    r",?[ ]{0,3}(?:(?i:n\.|nº|n°|no\.|núm\.|num\.)[ ]?)?\d{1,4}(?:[ ]?[A-Za-z](?![\w])|/[A-Za-z0-9]{1,3})?(?![\w])"
)


def _spanish_italian_addresses(text: str, numbers: list[int]) -> list[Hit]:
    low = lowered(text)
    hits: list[Hit] = []
    tried: set[int] = set()
    for n in numbers:
        for street_type in _ES_IT_TYPE.finditer(low, max(0, n - _NAME_REACH), n):
            start, end = street_type.start(), street_type.end()
            if start in tried or not starts_token(text, start, "/"):
                continue
            tried.add(start)
            hit = _spanish_italian_address(text, start, end)
            if hit is not None:
                hits.append(hit)
    return hits


def _spanish_italian_address(text: str, start: int, end: int) -> Hit | None:
    particles = _FR_PARTICLES if text[start:end].lower() in _FR_NUMBER_AFTER else _ES_IT_PARTICLES
    name_end = _street_name_end(text, end, particles, digits_end_name=True)
    number = _HOUSE_NUMBER.match(text, name_end) if name_end is not None else None
    if number is None or _COUNTED.match(text, number.end()):
        return None
    hit = _with_tail(text, start, number.end())
    # English "sent via Amazon 2 days ago": a lower-case "via" needs a comma or a postal code.
    if text[start:end] == "via" and hit.score <= 0.8 and not number.group(0).startswith(","):
        return None
    return hit


# --- typed in lower case, and post boxes -----------------------------------------------------------

# In chat a street is typed in lower case ("38 avenue de la république", "14 cranbrook rd", "calle alcalá 214
# 3ºd", "via dei serragli 41", "gneisenaustr 47"): a house number beside a street type still says address.
# One to four lower-case words make the name; a floor or a door may follow the Spanish and Italian number.
_LOW_WORD = r"[a-zà-ÿß][a-zà-ÿß'’-]{0,30}"
_LOW_NAME = rf"{_LOW_WORD}(?: {_LOW_WORD}){{0,3}}"
# Only the types that are no everyday word in lower case ("3 place de la gare", "2 cours de maths", "one way").
_LOW_FR_TYPES = r"rue|avenue|av\.|bd|boulevard|all[ée]e|chemin|impasse|quai|faubourg"
_LOW_EN_TYPES = r"street|st|road|rd|avenue|ave|lane|ln|drive|crescent|terrace|gardens|mews"
_LOW_ES_IT_TYPES = r"calle|c/|avenida|avda\.|paseo|plaza|ronda|via|viale|piazza|corso|vicolo|largo|strada"
_LOW_DE_SUFFIX = r"stra(?:ß|ss)e|str\.?|weg|platz|allee|gasse|ring|damm"
_LOWERCASE_STREET = deferred(
    rf"(?<![\w,.])\d{{1,4}}(?: ?(?:bis|ter|[a-h]))?,? (?:{_LOW_FR_TYPES}) (?:(?:de|du|des|la|le|les|d['’]|l['’]) ?)*"
    rf"{_LOW_WORD}(?: {_LOW_WORD}){{0,2}}(?=$|[\s,.;:!?)])"
    rf"|(?<![\w,.])\d{{1,4}}[a-z]? {_LOW_NAME} (?:{_LOW_EN_TYPES})\.?(?![\w])"
    rf"|(?<![\w])(?:{_LOW_ES_IT_TYPES}) {_LOW_NAME},? (?:n[º°.] ?)?\d{{1,4}}(?:/?[a-z](?![\w]))?"
    r"(?:,? \d{1,2}[º°ª] ?[a-z]?(?![\w]))?(?![\w])"
    rf"|(?<![\w])[a-zäöüß]{{2,30}}(?:{_LOW_DE_SUFFIX}) \d{{1,4}}[a-z]?(?![\w])"
)
# Words that end a lower-case name: what follows a street in a sentence, not part of its name.
_LOW_STOP = frozenset({
    "à", "a", "au", "en", "et", "y", "e", "in", "and", "at", "near", "pour", "for", "para", "per", "con", "with",
    "avec", "mit", "und", "bei", "por", "si", "se", "que", "che", "is", "es", "è", "est", "ist", "was", "il", "el",
})
# P.O. boxes, as each country writes them (fakes/places.py keeps the words and redraws the number).
POST_BOX_WORDS = (
    r"(?:P\.? ?O\.? ?Box|PO Box|Post Office Box|Postfach|Apartado(?: de [Cc]orreos)?|Apdo\.?|"
    r"Casella [Pp]ostale|Case [Pp]ostale|B\.P\.|BP)[ ]?(?:n[º°.] ?)?"
)
_POST_BOX = deferred(rf"(?<![\w]){POST_BOX_WORDS}\d{{1,6}}(?:[ ]\d{{2,3}}){{0,2}}(?![\w])")


# Words of a sentence, not of a street's name, between a number and a street type ("5 km down the road").
_NOT_NAME_WORDS = frozenset({
    "the", "a", "an", "of", "to", "down", "up", "along", "across", "my", "our", "your", "this", "that", "km", "mi",
    "miles", "mile", "m", "min", "mins", "minutes", "hours", "blocks", "yards", "feet", "ft", "steps", "metres",
    "meters", "more", "other", "different", "new", "old", "main", "big", "small", "long", "busy",
})


def _lowercase_addresses(text: str) -> list[Hit]:
    hits: list[Hit] = []
    for m in _LOWERCASE_STREET.finditer(lowered(text)):
        end = _before_stop_word(text, m.start(), m.end())
        if end is None or text[m.start() : end].lower() != text[m.start() : end]:
            continue
        if text[m.start()].isdigit() and any(w in _NOT_NAME_WORDS for w in text[m.start() : end].split()[1:]):
            continue
        hits.append(_with_tail(text, m.start(), end))
    return hits


def _before_stop_word(text: str, start: int, end: int) -> int | None:
    """The street cut before the first word of the sentence around it ("38 rue de la paix à montrouge")."""
    words = [(w.start(), w.end()) for w in re.finditer(r"[^\s,]+", text[start:end])]
    for i, (a, _b) in enumerate(words[2:], 2):
        if text[start + a : start + _b].lower() in _LOW_STOP:
            return start + words[i - 1][1] if i > 2 else None
    return end


def _post_boxes(text: str) -> list[Hit]:
    return [_with_tail(text, m.start(), m.end()) for m in _POST_BOX.finditer(text)]


_ADDRESS_PROBE = deferred(r"\d")


def find_addresses(text: str) -> list[Hit]:
    """Street addresses (0.8; 0.9 with a postal code and city; 0.6 for German "Am X 3")."""
    if not _ADDRESS_PROBE.search(text):
        return []
    numbers = _numbers_after_words(text)
    return (
        _french_addresses(text) + _english_addresses(text)
        + _german_addresses(text, numbers) + _spanish_italian_addresses(text, numbers)
        + _lowercase_addresses(text) + _post_boxes(text)
    )
