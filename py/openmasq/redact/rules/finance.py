"""Banking values: IBAN (mod-97, spaced or compact, one line-wrap tolerated), BIC/SWIFT after
its keyword, and payment cards (Luhn and a known brand range). A wrong key still makes an IBAN or a
card when the value is laid out as one (lower scores: IBAN_SHAPE_SCORE, CARD_SHAPE_SCORE)."""

from __future__ import annotations

import itertools

from ...patterns import deferred
from ..checksums import card_brand, iban_valid, luhn_valid
from ._base import Hit, lowered, near_long_numbers

# --- IBAN -----------------------------------------------------------------------------------

# Registered IBAN lengths; a country missing here only gets the generic 15..34 bound.
IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28,
    "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
    "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
    "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
    "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18,
    "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24,
    "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24,
    "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}
# The two check digits after two letters: scanned digit-first, which skips prose quickly.
_IBAN_HEAD = deferred(r"\d(?<=[A-Za-z]{2}\d)\d")
# Greedy run of IBAN characters with single spaces/dashes or one line break between them; the
# validator then cuts it back at a separator to the longest valid prefix.
_IBAN_RUN = deferred(r"[A-Za-z]{2}\d{2}(?:(?:[ -]|\r?\n)?[A-Za-z0-9]){10,40}")


def find_ibans(text: str) -> list[Hit]:
    """IBANs whose mod-97 key and registered length hold (score 1.0)."""
    hits: list[Hit] = []
    covered_to = 0
    for head in _IBAN_HEAD.finditer(text):
        start = head.start() - 2
        # A run that holds no IBAN may have swallowed the head of one ("ref AB12 FR76 ..."),
        # so every head is tried, except inside an IBAN already found.
        if start < covered_to or (start > 0 and text[start - 1].isalnum()):
            continue
        m = _IBAN_RUN.match(text, start)
        if m is None:
            continue
        end, score = _longest_valid_iban(text, start, m.end()), 1.0
        if not end:
            end, score = _iban_laid_out(text, start, m.end()), IBAN_SHAPE_SCORE
        if end:
            hits.append(Hit(start, end, "iban", score))
            covered_to = end
    return hits


# An IBAN with a wrong key is still the user's IBAN when it is written as one: a country's code, its
# registered length, in groups of four in one case ("DE44 5001 0517 5407 3249 32", "at48 2011 ..."), or
# compact in capitals with an account part of digits but for a bank code's few letters. No order number or
# reference is written so.
IBAN_SHAPE_SCORE = 0.75
_IBAN_GROUPS = deferred(
    r"[A-Z]{2}\d{2}(?: [A-Z0-9]{4})+(?: [A-Z0-9]{1,3})?|[a-z]{2}\d{2}(?: [a-z0-9]{4})+(?: [a-z0-9]{1,3})?"
    # compact, in capitals ("ES7621000813610123456789", "IT47K0306909606100000117215", "GB29NWBK60161331926819")
    r"|[A-Z]{2}\d{2}[A-Z0-9]{11,30}(?![A-Za-z0-9])"
)
_BANK_CODE_LETTERS = 4  # at most, in a compact IBAN's account part (GB's "NWBK", IT's one CIN letter)


def _iban_laid_out(text: str, start: int, end: int) -> int:
    expected = IBAN_LENGTHS.get(text[start : start + 2].upper())
    m = _IBAN_GROUPS.match(text, start, end)
    if expected is None or m is None:
        return 0
    while m.end() > start and sum(ch.isalnum() for ch in m.group(0)) > expected:
        m = _IBAN_GROUPS.match(text, start, m.end() - 1)
        if m is None:
            return 0
    length = sum(ch.isalnum() for ch in m.group(0))
    cut_at_a_separator = m.end() == len(text) or not text[m.end()].isalnum()
    return m.end() if length == expected and cut_at_a_separator and _account_part_of_digits(m.group(0)) else 0


def _account_part_of_digits(value: str) -> bool:
    """A compact value's account part is digits but for a bank code's few letters (a spaced one in groups of
    four is an IBAN's layout whatever its letters)."""
    return " " in value or sum(ch.isalpha() for ch in value[4:]) <= _BANK_CODE_LETTERS


def _longest_valid_iban(text: str, start: int, end: int) -> int:
    """End of the longest valid IBAN starting at `start`, cut at a separator; 0 when none.
    Only cuts giving the country's registered length are checked (one, for a known country)."""
    head = text[start : start + 2].upper()
    expected = IBAN_LENGTHS.get(head)
    if expected is None and not text[start : start + 2].isupper():
        return 0
    lengths = {expected} if expected else set(range(15, 35))
    count, newlines, cuts = 0, 0, []
    for i in range(start, end):
        ch = text[i]
        if ch.isalnum():
            count += 1
            if i + 1 == end or text[i + 1] in " -\r\n":
                cuts.append((i + 1, count))
        elif ch == "\n":
            newlines += 1
            if newlines > 1:
                break
    for cut, length in reversed(cuts):
        if length in lengths and iban_valid(text[start:cut]):
            return cut
    return 0


# --- BIC / SWIFT ------------------------------------------------------------------------------

# "BIC", "SWIFT", "code BIC", then up to four lower-case filler words ("de la banque") and an
# optional colon; the code itself is upper-case (bank 4, country 2, location 2, branch 3).
_BIC = deferred(
    r"(?i:\b(?:bic|swift)(?:[ /-](?:swift|bic|code))?)(?:[ ]{1,3}[a-zà-ÿ']{1,12}){0,4}[ ]{0,3}[:=-]?[ ]{0,3}"
    r"(?P<bic>[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?)(?![A-Za-z0-9])"
)


_BIC_KEYWORD = deferred(r"bic|swift")


def find_bics(text: str) -> list[Hit]:
    """BIC/SWIFT codes, only after their keyword (score 0.95)."""
    hits: list[Hit] = []
    for keyword in _BIC_KEYWORD.finditer(lowered(text)):
        m = _BIC.match(text, keyword.start())
        if m is not None:
            hits.append(Hit(m.start("bic"), m.end("bic"), "bic", 0.95))
    return hits


# --- payment cards ------------------------------------------------------------------------------

# A digit run with single space/dash separators; each iteration consumes exactly one digit, so
# the repetition cannot backtrack into alternatives.
_DIGIT_RUN = deferred(r"\d(?<![\w.,]\d)(?<!\d[ -]\d)[\d -]{12,}")
_DIGITS = deferred(r"\d+")
_CARD_MAX_RUN = 26  # a card number plus a CVV or a short suffix; longer runs are something else


def find_cards(text: str) -> list[Hit]:
    """Card numbers of 13-19 digits passing Luhn and a brand range (score 1.0)."""
    hits: list[Hit] = []
    for m in near_long_numbers(text, _DIGIT_RUN, 13, 4):
        for groups in _single_separated_segments(text, m.start(), m.end()):
            digits = sum(b - a for a, b in groups)
            if 13 <= digits <= _CARD_MAX_RUN:
                hits.extend(_cards_in_groups(text, groups))
    return hits


def _single_separated_segments(text: str, start: int, end: int) -> list[list[tuple[int, int]]]:
    """The run's digit groups, cut where more than one space or dash separates two groups;
    segments longer than a card (plus a suffix) are dropped as they are read."""
    segments: list[list[tuple[int, int]]] = [[]]
    for g in _DIGITS.finditer(text, start, end):
        current = segments[-1]
        if current and g.start() - current[-1][1] > 1:
            current = []
            segments.append(current)
        if len(current) <= _CARD_MAX_RUN:
            current.append((g.start(), g.end()))
    return segments


def _cards_in_groups(text: str, groups: list[tuple[int, int]]) -> list[Hit]:
    """Longest card-valid sequences of whole digit groups, left to right."""
    hits: list[Hit] = []
    digits = [text[a:b] for a, b in groups]
    i = 0
    while i < len(groups):
        end = _longest_card_from(digits, i)
        if end is None:
            i += 1
        else:
            hits.append(Hit(groups[i][0], groups[end - 1][1], "card", 1.0))
            i = end
    if not hits and _laid_out_as_a_card(text, groups, digits):
        hits.append(Hit(groups[0][0], groups[3][1], "card", CARD_SHAPE_SCORE))
    return hits


# A card number with a wrong digit is still the user's card when it is written as one: four groups of
# four digits in a network's range ("5412 7534 1298 0061"), unless a word before it names another
# thing ("order 4970 1012 3456 7891").
CARD_SHAPE_SCORE = 0.7
_OTHER_NUMBER_BEFORE = deferred(
    r"(?i:order|commande|bestell|pedido|ordine|r[ée]f|invoice|facture|rechnung|factura|fattura|tracking|suivi|"
    r"colis|parcel|sendung|ticket|serial|s[ée]rie|lot|batch|imei|ean|sku|isbn)"
)


def _laid_out_as_a_card(text: str, groups: list[tuple[int, int]], digits: list[str]) -> bool:
    if len(groups) != 4 or any(len(group) != 4 for group in digits):
        return False
    if len({text[a[1] : b[0]] for a, b in itertools.pairwise(groups)}) != 1:
        return False
    if card_brand("".join(digits)) is None:
        return False
    after = groups[3][1]
    if after < len(text) and text[after] in " -" and text[after + 1 : after + 2].isdigit():
        return False
    return _OTHER_NUMBER_BEFORE.search(text, max(0, groups[0][0] - 30), groups[0][0]) is None


def _longest_card_from(digits: list[str], i: int) -> int | None:
    """The end group of the longest card number starting at group `i`, or None. Cards are
    written in groups of 4 to 6 digits (the last may have 3): a run of pairs ("06 12 34 56
    78 06 12 34") never hides one."""
    for j in range(len(digits), i, -1):
        if any(len(group) < 4 for group in digits[i : j - 1]) or len(digits[j - 1]) < 3:
            continue
        number = "".join(digits[i:j])
        if len(number) < 13:
            return None
        if len(number) <= 19 and card_brand(number) is not None and luhn_valid(number):
            return j
    return None


# --- bank account numbers in a national layout ------------------------------------------------

# A Spanish CCC as banks print it, entity-office-check-account ("2085-9234-71-0123456789"): the 4-4-2-10
# layout names it, whatever its check digits say (0.9; nothing else is written so).
_CCC = deferred(r"(?<![\w-])\d{4}([ -])\d{4}\1\d{2}\1\d{10}(?![\w]|[ -]\d)")


def find_laid_out_accounts(text: str) -> list[Hit]:
    return [Hit(m.start(), m.end(), "account_number", 0.9) for m in _CCC.finditer(text)]


def find_finance(text: str) -> list[Hit]:
    return find_ibans(text) + find_bics(text) + find_cards(text) + find_laid_out_accounts(text)
