"""Full dates (numeric, ISO, with a month in Roman numerals or a month name in FR/EN/DE/ES/IT) and, when a birth phrase
precedes them ("né le", "born on", "DOB:", "geboren am"...), dates of birth."""

from __future__ import annotations

import re

from ...patterns import deferred
from ._base import Hit, lowered

_MONTHS: dict[str, int] = {}
for _number, _names in enumerate(
    (
        "janvier janv january jan januar jänner jän enero ene gennaio genn",
        "février fevrier févr fevr february feb februar febrero febbraio febb",
        "mars march mar märz maerz marzo",
        "avril avr april apr abril aprile",
        "mai may mayo maggio magg",
        "juin june jun juni junio giugno giu",
        "juillet juil july jul juli julio luglio lug",
        "août aout august aug agosto",
        "septembre sept september sep septiembre setiembre settembre sett",
        "octobre oct october oktober okt octubre ottobre ott",
        "novembre nov november noviembre",
        "décembre decembre déc dec december dezember dez diciembre dic dicembre",
    ),
    start=1,
):
    for _name in _names.split():
        _MONTHS[_name] = _number
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(?P<d>[0-3]?\d)(?:er|st|nd|rd|th|º|°)?\.?"
_YEAR = r"(?P<y>\d{4})"
_NUMERIC_DATES = (
    # 12/03/1985, 12.03.85, 3-12-1985 (day and month in either order), 1985-03-12
    re.compile(r"\d(?<![\w./-]\d)\d?(?P<sep>[/.-])\d{1,2}(?P=sep)(?:\d{4}|\d{2})(?![\w]|[/.-]\d)"),
    re.compile(r"\d(?<![\w./-]\d)\d{3}(?P<sep>[/.-])\d{1,2}(?P=sep)\d{1,2}(?!(?!T\d)\w|[/.-]\d)"),  # ISO "...T10:00"
)
# Months in Roman numerals, as some write a date by hand or on a form ("15/VIII/1985", "3-XI-1979", "12.IV.1990").
ROMAN_MONTHS = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")
_ROMAN_DATE = deferred(
    r"(?<![\w./-])(?P<d>[0-3]?\d)(?P<sep>[/.\-])(?P<m>" + "|".join(sorted(ROMAN_MONTHS, key=len, reverse=True))
    + r")(?P=sep)(?P<y>\d{4})(?![\w]|[/.-]\d)"
)
# Dates with a month name end with a four-digit year: they are looked for just before each year.
_YEAR_HIT = deferred(r"\d(?<![\w.,]\d)\d{3}(?![\w])")
_NAMED_DATES = (
    # 3 mars 1985, 1er janvier 2000, 12. März 1985, 3 de marzo de 1985, 3rd of March, 1985
    re.compile(
        rf"(?<![\w.]){_DAY}[ ]{{1,2}}(?:de[ ]|of[ ])?(?i:(?P<m>{_MONTH}))\.?,?[ ]{{1,2}}(?:de[ ]|del[ ])?{_YEAR}"
    ),
    # March 3, 1985; March 3rd 1985; Mar. 3, 1985
    re.compile(rf"(?<![\w])(?i:(?P<m>{_MONTH}))\.?[ ]{{1,2}}{_DAY},?[ ]{{1,2}}{_YEAR}"),
)
_NAMED_DATE_REACH = 40  # "1er septiembre de 2024": day, month and links fit well within this
_DOB_CONTEXT = deferred(  # searched in the lower-cased text
    r"(?:\bn[ée]e?s?(?:\(e\))?[ ]le\b|\bnée?s?\b|\bné\(e\)|date[ ]de[ ]naissance|\bddn\b|naissance|"
    r"\bborn\b|date[ ]of[ ]birth|\bd\.?o\.?b\b|birth[ ]?date|birthday|"
    r"geboren|\bgeb\.|geburtsdatum|geburtstag|"
    r"nacid[oa]|naci[óo]\b|nac[íi]\b|fecha[ ]de[ ]nacimiento|fecha[ ]nac\b|f\.[ ]?nac\.?|"
    r"nat[oa]\b|data[ ]di[ ]nascita)"
)
# Between the birth phrase and the date: a place ("née à Lyon le"), labels and punctuation,
# but no sentence end and no other number.
_DOB_GAP = deferred(r"(?:[^\d.!?\n]|\.(?=\S)){0,40}(?:\n[ \t]{0,8})?")


def find_dates(text: str) -> list[Hit]:
    """Full dates (day, month and year) that exist in the calendar (score 0.8)."""
    hits = [
        Hit(m.start(), m.end(), "date", 0.8)
        for pattern in _NUMERIC_DATES
        for m in pattern.finditer(text)
        if _is_numeric_date(m.group(0), m.group("sep"))
    ]
    hits += [Hit(m.start(), m.end(), "date", 0.8) for m in _ROMAN_DATE.finditer(text)
             if 1 <= int(m.group("d")) <= 31 and 1000 <= int(m.group("y")) <= 2999]
    for year in _YEAR_HIT.finditer(text):
        if not 1000 <= int(year.group(0)) <= 2999:
            continue
        hit = _named_date_ending_at(text, year.end())
        if hit is not None:
            hits.append(hit)
    return hits


_LETTERS = deferred(r"[^\W\d_]{3,}")


def _named_date_ending_at(text: str, end: int) -> Hit | None:
    start = max(0, end - 4 - _NAMED_DATE_REACH)
    # Most years in prose ("en 2023") have no month name before them: a set lookup says so.
    if not any(word.lower() in _MONTHS for word in _LETTERS.findall(text, start, end)):
        return None
    for pattern in _NAMED_DATES:
        for m in pattern.finditer(text, start, end):
            if m.end() == end and _is_named_date(m):
                return Hit(m.start(), m.end(), "date", 0.8)
    return None


def _is_numeric_date(value: str, sep: str) -> bool:
    parts = value.split(sep)
    numbers = [int(part) for part in parts]
    if len(parts[0]) == 4:  # year first: Y-M-D
        year, month, day = numbers
        return 1000 <= year <= 2999 and 1 <= month <= 12 and 1 <= day <= 31
    a, b, year = numbers
    if len(parts[2]) == 4 and not 1000 <= year <= 2999:
        return False
    return (1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31)


def _is_named_date(m: re.Match[str]) -> bool:
    return 1 <= int(m.group("d")) <= 31 and m.group("m").lower() in _MONTHS


def find_dobs(text: str) -> list[Hit]:
    """Dates a birth phrase introduces; the span is the date only (score 0.9)."""
    return [h for h in find_dates_and_dobs(text) if h.kind == "dob"]


def _birth_phrase_before(low: str, start: int) -> bool:
    phrases = _DOB_CONTEXT.finditer(low, max(0, start - 60), start)
    return any(_DOB_GAP.fullmatch(low, m.end(), start) for m in phrases)


# A birth verb right after the date, or the birthday it is: "ist am 02.02.1938 geboren", "was born", "è nato",
# "hat am 03.11.1962 Geburtstag".
_BIRTH_AFTER = deferred(
    r"[ ,]{1,3}(?:(?:je suis|j['’]suis|i was|ich bin|ich wurde|sono|yo)[ ])?"
    r"(?:geboren|born|n[ée]e?\b|nat[oa]\b|nacid[oa]\b|naci\b|geburtstag|birthday\b)"
)
# After a birth phrase a month name may come with a two-digit year ("Date of birth 3 Mar 85", "geb. 3. Mai 91",
# "nacido el 3 de mayo del 85").
_SHORT_YEAR_DATE = deferred(
    rf"(?<![\w.]){_DAY}[ ]{{1,2}}(?:de[ ]|of[ ])?(?i:(?P<m>{_MONTH}))\.?,?[ ]{{1,2}}(?:del?[ ])?['’]?(?P<y>\d{{2}})"
    r"(?![\w]|[.,]\d)"
)


def _birth_word_after(low: str, end: int) -> bool:
    return bool(_BIRTH_AFTER.match(low, end))


def find_dates_and_dobs(text: str) -> list[Hit]:
    """Every full date; a date of birth is reported as `dob` instead of `date`."""
    dates = find_dates(text)
    low = lowered(text)
    short = [Hit(m.start(), m.end(), "dob", 0.9) for m in _SHORT_YEAR_DATE.finditer(text)
             if _is_named_date(m) and _birth_phrase_before(low, m.start())] if _DOB_CONTEXT.search(low) else []
    return short + [Hit(h.start, h.end, "dob", 0.9)
                    if _birth_phrase_before(low, h.start) or _birth_word_after(low, h.end) else h for h in dates]
