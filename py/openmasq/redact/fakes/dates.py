"""Fake dates in the real date's own format: same order, separators, widths, month and weekday
names in the same language and form; a valid date (day 1-28), birth years 1940-2004."""

from __future__ import annotations

import datetime
import random
import re
from dataclasses import dataclass

from ...patterns import deferred
from ..rules.dates import ROMAN_MONTHS
from ..text import strip_accents
from ._shape import distinct, match_case, swap_digits

# (full, abbreviated) month names; an abbreviation equal to the full name has no dot.
MONTHS: dict[str, tuple[tuple[str, str], ...]] = {
    "fr": (("janvier", "janv"), ("février", "févr"), ("mars", "mars"), ("avril", "avr"), ("mai", "mai"),
           ("juin", "juin"), ("juillet", "juil"), ("août", "août"), ("septembre", "sept"), ("octobre", "oct"),
           ("novembre", "nov"), ("décembre", "déc")),
    "en": (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may", "may"),
           ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep"), ("october", "oct"),
           ("november", "nov"), ("december", "dec")),
    "de": (("januar", "jan"), ("februar", "feb"), ("märz", "mär"), ("april", "apr"), ("mai", "mai"),
           ("juni", "jun"), ("juli", "jul"), ("august", "aug"), ("september", "sep"), ("oktober", "okt"),
           ("november", "nov"), ("dezember", "dez")),
    "es": (("enero", "ene"), ("febrero", "feb"), ("marzo", "mar"), ("abril", "abr"), ("mayo", "may"),
           ("junio", "jun"), ("julio", "jul"), ("agosto", "ago"), ("septiembre", "sep"), ("octubre", "oct"),
           ("noviembre", "nov"), ("diciembre", "dic")),
    "it": (("gennaio", "gen"), ("febbraio", "feb"), ("marzo", "mar"), ("aprile", "apr"), ("maggio", "mag"),
           ("giugno", "giu"), ("luglio", "lug"), ("agosto", "ago"), ("settembre", "set"), ("ottobre", "ott"),
           ("novembre", "nov"), ("dicembre", "dic")),
}
WEEKDAYS: dict[str, tuple[str, ...]] = {
    "fr": ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"),
    "en": ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    "de": ("montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag"),
    "es": ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"),
    "it": ("lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica"),
}
EN_WEEKDAY_ABBREVIATIONS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
# Ambiguous words ("mai", "mar") are read in the first language of this order.
LANGUAGE_ORDER = ("fr", "en", "de", "es", "it")
_EXTRA_SPELLINGS = {"sept": ("en", 8, 1), "tues": ("en", 1, 1), "thur": ("en", 3, 1), "thurs": ("en", 3, 1),
                    "setiembre": ("es", 8, 0), "maerz": ("de", 2, 0)}
_TOKEN = deferred(r"[0-9]{1,8}|[^\W\d_]{1,20}|.", re.DOTALL)
_EN_ORDINALS = frozenset({"st", "nd", "rd", "th"})
_DOB_YEARS = (1940, 2004)
MAX_DATE_LENGTH = 80  # longer: not a date, a digit swap


def _month_index() -> dict[str, tuple[tuple[str, int, int], ...]]:
    """Folded month name -> every (language, month, form) it can be, in LANGUAGE_ORDER."""
    table: dict[str, list[tuple[str, int, int]]] = {}
    for language in LANGUAGE_ORDER:
        for month, forms in enumerate(MONTHS[language]):
            for form, name in enumerate(forms):
                entries = table.setdefault(strip_accents(name), [])
                if not any(e[:2] == (language, month) for e in entries):
                    entries.append((language, month, form))
    return {key: tuple(entries) for key, entries in table.items()}


def _weekday_index() -> dict[str, tuple[str, int, int]]:
    table: dict[str, tuple[str, int, int]] = {}
    for language in reversed(LANGUAGE_ORDER):
        for day, name in enumerate(WEEKDAYS[language]):
            table[strip_accents(name)] = (language, day, 0)
    for day, name in enumerate(EN_WEEKDAY_ABBREVIATIONS):
        table[name] = ("en", day, 1)
    return table


_MONTH_OF = _month_index()
_WEEKDAY_OF = _weekday_index()


@dataclass
class _Parsed:
    """Positions (token indexes) of the date fields, and what the real date says."""

    tokens: list[str]
    year: int | None = None
    month: int | None = None
    day: int | None = None
    ambiguous_order: bool = False
    month_name: tuple[str, int, int] | None = None

    def zero_padded(self) -> bool:
        """"03" says the format pads; "12" alone does not, except in an all-numeric date."""
        slots = (i for i in (self.day, self.month) if i is not None)
        fields = [self.tokens[i] for i in slots if self.tokens[i].isdigit()]
        if any(len(f) == 2 and f.startswith("0") for f in fields):
            return True
        return self.month_name is None and bool(fields) and all(len(f) == 2 for f in fields)


def _key(token: str) -> str:
    return strip_accents(token.casefold())


def _month_word(token: str) -> tuple[str, int, int] | None:
    """What a month word is; among languages sharing it, the one spelling it exactly as written
    wins ("Dec" is English, "déc" French), then the first in LANGUAGE_ORDER."""
    if not token.isalpha():
        return None
    if token in ROMAN_MONTHS:  # "15/VIII/1985"
        return ("roman", ROMAN_MONTHS.index(token), 0)
    candidates = _MONTH_OF.get(_key(token))
    if not candidates:
        return _EXTRA_SPELLINGS.get(_key(token))
    written = token.casefold()
    exact = [c for c in candidates if MONTHS[c[0]][c[1]][c[2]] == written]
    return (exact or list(candidates))[0]


def _numbers(tokens: list[str]) -> list[int]:
    return [i for i, t in enumerate(tokens) if t.isdigit()]


def _date_numbers(tokens: list[str]) -> list[int]:
    """Indexes of the numbers of the date part (a time after "T", a space or ":" is left alone)."""
    numbers = _numbers(tokens)
    kept: list[int] = []
    for i in numbers:
        if kept and ":" in tokens[kept[-1]:i]:
            break
        if i + 1 < len(tokens) and tokens[i + 1] == ":":
            break
        kept.append(i)
    return kept[:3]


def _parse_named(p: _Parsed, month_at: int) -> _Parsed | None:
    p.month = month_at
    name = _month_word(p.tokens[month_at])
    p.month_name = name
    for i in _date_numbers(p.tokens):
        token = p.tokens[i]
        if len(token) == 4 and p.year is None:
            p.year = i
        elif len(token) <= 2 and p.day is None and 1 <= int(token) <= 31 and (p.year is None or i < month_at):
            p.day = i
        elif len(token) == 2 and p.year is None:
            p.year = i
    return p


def _parse_numeric(p: _Parsed) -> _Parsed | None:
    numbers = _date_numbers(p.tokens)
    values = [p.tokens[i] for i in numbers]
    if len(numbers) == 3:
        if len(values[0]) == 4:
            p.year, p.month, p.day = numbers
        elif len(values[2]) in (2, 4):
            first, second = int(values[0]), int(values[1])
            if first > 12:
                p.day, p.month, p.year = numbers
            elif second > 12:
                p.month, p.day, p.year = numbers
            else:
                p.day, p.month, p.year = numbers
                p.ambiguous_order = True
        else:
            return None
        return p
    widths = {len(values[0]), len(values[1])} if len(numbers) == 2 else set()
    if len(widths) == 2 and widths <= {1, 2, 4}:
        p.year, p.month = (numbers[0], numbers[1]) if len(values[0]) == 4 else (numbers[1], numbers[0])
        return p
    if len(numbers) == 1 and len(values[0]) == 4:
        p.year = numbers[0]
        return p
    return None


def _parse(real: str) -> _Parsed | None:
    tokens = _TOKEN.findall(real)
    p = _Parsed(tokens)
    month_at = next((i for i, t in enumerate(tokens) if _month_word(t)), None)
    if month_at is not None:
        return _parse_named(p, month_at)
    if len(_numbers(tokens)) == 1 and len(tokens[_numbers(tokens)[0]]) == 8:
        return _split_compact(p, _numbers(tokens)[0])
    return _parse_numeric(p)


def _split_compact(p: _Parsed, at: int) -> _Parsed | None:
    """"19850312" (or "12031985") becomes three tokens so it lays out like a separated date."""
    value = p.tokens[at]
    if value[:2] in ("19", "20") and 1 <= int(value[4:6]) <= 12:
        parts = [value[:4], value[4:6], value[6:]]
        order = ("year", "month", "day")
    elif 1 <= int(value[2:4]) <= 12:
        parts = [value[:2], value[2:4], value[4:]]
        order = ("day", "month", "year")
    else:
        return None
    p.tokens[at:at + 1] = parts
    for offset, field in enumerate(order):
        setattr(p, field, at + offset)
    return p


def _real_year(token: str) -> int:
    value = int(token)
    if len(token) == 2:
        return 1900 + value if value >= 30 else 2000 + value
    return value


def _draw(p: _Parsed, birth: bool, rng: random.Random) -> tuple[int, int, int]:
    if birth or p.year is None:
        year = rng.randint(*_DOB_YEARS) if birth else rng.randint(1990, 2030)
    else:
        year = _real_year(p.tokens[p.year]) + rng.randint(-2, 2)
    top = 12 if p.ambiguous_order else 28  # both ≤ 12 reads right in D/M and in M/D order
    return min(max(year, 1), 9999), rng.randint(1, 12), rng.randint(1, top)


def _number(value: int, token: str, pad: bool) -> str:
    return f"{value:02d}" if pad and len(token) == 2 else str(value)


def _month_text(real_token: str, name: tuple[str, int, int], month: int) -> str:
    language, real_month, form = name
    if language == "roman":
        return ROMAN_MONTHS[month - 1]
    canonical = MONTHS[language][real_month][form]
    new = MONTHS[language][month - 1][form]
    if _key(real_token) == strip_accents(canonical) and real_token.casefold() != canonical:
        new = strip_accents(new)
    return match_case(real_token, new)


def _render(p: _Parsed, year: int, month: int, day: int) -> str:
    out = list(p.tokens)
    pad = p.zero_padded()
    if p.year is not None:
        token = p.tokens[p.year]
        out[p.year] = f"{year % 100:02d}" if len(token) == 2 else str(year)
    if p.day is not None:
        out[p.day] = _number(day, p.tokens[p.day], pad)
        _fix_ordinal(out, p.day, day)
    if p.month is not None:
        token = p.tokens[p.month]
        if p.month_name is not None:
            out[p.month] = _month_text(token, p.month_name, month)
            _fix_abbreviation_dot(out, p)
        else:
            out[p.month] = _number(month, token, pad)
    if p.year is not None and p.day is not None:
        _fix_weekday(out, datetime.date(year, month, day).weekday())
    return "".join(out)


def _fix_ordinal(out: list[str], at: int, day: int) -> None:
    if at + 1 >= len(out):
        return
    suffix = out[at + 1]
    if suffix.casefold() in _EN_ORDINALS:
        new = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
        out[at + 1] = new.upper() if suffix.isupper() else new
    elif suffix.casefold() in ("er", "re") and day != 1:
        out[at + 1] = ""


def _fix_abbreviation_dot(out: list[str], p: _Parsed) -> None:
    """"janv." -> "mai" (not "mai."): French/German short forms that are whole words take no dot."""
    assert p.month is not None and p.month_name is not None
    at = p.month
    language, _, form = p.month_name
    if language not in MONTHS:
        return
    new_key = _key(out[at])
    is_whole_word = any(strip_accents(full) == new_key for full, _ in MONTHS[language])
    if form == 1 and is_whole_word and at + 1 < len(out) and out[at + 1] == ".":
        out[at + 1] = ""


def _fix_weekday(out: list[str], weekday: int) -> None:
    for i, token in enumerate(out):
        found = _WEEKDAY_OF.get(_key(token)) if token.isalpha() else None
        if found is None:
            continue
        language, _, form = found
        names = EN_WEEKDAY_ABBREVIATIONS if form == 1 else WEEKDAYS[language]
        out[i] = match_case(token, names[weekday])


def fake_date(real: str, rng: random.Random, *, birth: bool) -> str:
    """Same format as `real` (order, separators, zero padding, 2- or 4-digit year, month name
    language and form, weekday recomputed); day 1-28; birth years 1940-2004, other years within
    two years of the real one. Unparseable text gets a digit swap."""
    parsed = _parse(real) if len(real) <= MAX_DATE_LENGTH else None
    if parsed is None or (parsed.year is None and parsed.month is None):
        return swap_digits(real, rng)
    p = parsed
    return distinct(real, rng, lambda r: _render(p, *_draw(p, birth, r)))
