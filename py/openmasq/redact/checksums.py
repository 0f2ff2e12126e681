"""Check digits of the structured identifiers we detect and fake.

Each scheme has a `*_valid` predicate (detection) and, where a fake must pass the same check,
the function that computes the check part (fake generation)."""

from __future__ import annotations

import re

from ..patterns import deferred

_NON_ALNUM = deferred(r"[^0-9A-Za-z]")


def compact(value: str) -> str:
    """Drop spaces, dots, dashes and other separators."""
    return _NON_ALNUM.sub("", value)


# --- Luhn (payment cards, SIREN, SIRET) ---------------------------------------------------

def luhn_sum(digits: str) -> int:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total


def luhn_valid(digits: str) -> bool:
    return digits.isdigit() and luhn_sum(digits) % 10 == 0


def luhn_check_digit(payload: str) -> str:
    """The digit to append to `payload` so that the whole passes Luhn."""
    return str((10 - luhn_sum(payload + "0") % 10) % 10)


# --- IBAN (ISO 13616 mod-97) and French RIB key --------------------------------------------

def _iban_numeric(rearranged: str) -> int:
    return int("".join(str(int(ch, 36)) for ch in rearranged))


def iban_valid(value: str) -> bool:
    iban = compact(value).upper()
    if not re.fullmatch(r"[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}", iban):
        return False
    return _iban_numeric(iban[4:] + iban[:4]) % 97 == 1


def iban_check_digits(country: str, bban: str) -> str:
    """The two ISO check digits for `country` + `bban`."""
    return f"{98 - _iban_numeric(bban.upper() + country.upper() + '00') % 97:02d}"


_RIB_LETTERS = {ch: str(v) for v, letters in enumerate(("", "AJ", "BKS", "CLT", "DMU", "ENV", "FOW", "GPX",
                                                          "HQY", "IRZ")) for ch in letters}


def rib_key(bank: str, branch: str, account: str) -> str:
    """French RIB key over bank (5), branch (5) and account (11, letters allowed)."""
    acc = "".join(_RIB_LETTERS.get(ch, ch) for ch in account.upper())
    return f"{97 - (89 * int(bank) + 15 * int(branch) + 3 * int(acc)) % 97:02d}"


# --- French identifiers -------------------------------------------------------------------

def siren_valid(value: str) -> bool:
    digits = compact(value)
    return len(digits) == 9 and luhn_valid(digits)


def siret_valid(value: str) -> bool:
    digits = compact(value)
    if len(digits) != 14 or not digits.isdigit():
        return False
    # La Poste's establishments are numbered with a digit-sum rule instead of Luhn.
    if digits.startswith("356000000"):
        return sum(int(d) for d in digits) % 5 == 0
    return luhn_valid(digits) and luhn_valid(digits[:9])


def nir_key(body13: str) -> str:
    """Key of a French NIR (social security number); Corsica's 2A/2B count as 19/18."""
    numeric = body13.upper().replace("2A", "19").replace("2B", "18")
    return f"{97 - int(numeric) % 97:02d}"


def nir_valid(value: str) -> bool:
    nir = compact(value).upper()
    if not re.fullmatch(r"[12378][0-9]{2}(0[1-9]|1[0-2]|[2-9][0-9])(2[AB]|[0-9]{2})[0-9]{6}[0-9]{2}", nir):
        return False
    return nir_key(nir[:13]) == nir[13:]


def fr_vat_key(siren: str) -> str:
    return f"{(12 + 3 * (int(siren) % 97)) % 97:02d}"


def fr_vat_valid(value: str) -> bool:
    vat = compact(value).upper()
    if not re.fullmatch(r"FR[0-9]{2}[0-9]{9}", vat):
        return False
    return siren_valid(vat[4:]) and fr_vat_key(vat[4:]) == vat[2:4]


# --- Spanish DNI / NIE ----------------------------------------------------------------------

_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni_letter(number: str) -> str:
    return _DNI_LETTERS[int(number) % 23]


def dni_valid(value: str) -> bool:
    dni = compact(value).upper()
    return bool(re.fullmatch(r"[0-9]{8}[A-Z]", dni)) and dni_letter(dni[:8]) == dni[8]


def nie_valid(value: str) -> bool:
    nie = compact(value).upper()
    if not re.fullmatch(r"[XYZ][0-9]{7}[A-Z]", nie):
        return False
    return dni_letter(str("XYZ".index(nie[0])) + nie[1:8]) == nie[8]


# --- UK National Insurance number and US SSN ---------------------------------------------------

_NINO = deferred(r"(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z][0-9]{6}[A-D]")


def nino_valid(value: str) -> bool:
    return bool(_NINO.fullmatch(compact(value).upper()))


def ssn_valid(value: str) -> bool:
    digits = compact(value)
    if len(digits) != 9 or not digits.isdigit():
        return False
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


# --- Payment cards ----------------------------------------------------------------------------

def card_brand(digits: str) -> str | None:
    """The network of a card number by its IIN range and length, or None."""
    n = len(digits)
    two, four, six = int(digits[:2]), int(digits[:4]), int(digits[:6])
    if digits[0] == "4" and n in (13, 16, 19):
        return "visa"
    if (51 <= two <= 55 or 222100 <= six <= 272099) and n == 16:
        return "mastercard"
    if two in (34, 37) and n == 15:
        return "amex"
    if (four == 6011 or two == 65 or 644 <= int(digits[:3]) <= 649) and n in (16, 19):
        return "discover"
    if 3528 <= four <= 3589 and 16 <= n <= 19:
        return "jcb"
    if (two == 36 or 300 <= int(digits[:3]) <= 305 or two in (38, 39)) and 14 <= n <= 19:
        return "diners"
    if two in (50, 56, 57, 58, 63, 67) and 12 <= n <= 19:
        return "maestro"
    if two == 62 and 16 <= n <= 19:
        return "unionpay"
    return None


def card_valid(value: str) -> bool:
    digits = compact(value)
    return digits.isdigit() and 13 <= len(digits) <= 19 and luhn_valid(digits) and card_brand(digits) is not None


# --- National check digits inside some IBANs (so a fake BBAN passes the bank's own check) -----

_ES_WEIGHTS = (1, 2, 4, 8, 5, 10, 9, 7, 3, 6)


def _es_control(ten_digits: str) -> str:
    value = 11 - sum(int(d) * w for d, w in zip(ten_digits, _ES_WEIGHTS, strict=True)) % 11
    return str({11: 0, 10: 1}.get(value, value))


def es_bban_check_digits(bank_branch: str, account: str) -> str:
    """The two "DC" digits of a Spanish BBAN: bank+branch (8 digits), then account (10)."""
    return _es_control("00" + bank_branch) + _es_control(account)


def be_bban_check_digits(first10: str) -> str:
    """The last two digits of a Belgian BBAN: the first ten modulo 97 (97 instead of 0)."""
    return f"{int(first10) % 97 or 97:02d}"
