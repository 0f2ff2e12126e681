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


# --- Italian codice fiscale ---------------------------------------------------------------------

# Value of each character at an odd (1st, 3rd...) position; even positions count 0-9 and A=0..Z=25.
_CF_ODD = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                   (1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21,
                    2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23), strict=True))
# Digits of the date and place may be replaced by letters (omocodia) when two people collide.
CF_DIGIT_LETTERS = "LMNPQRSTUV"
_CF_SHAPE = deferred(
    r"[A-Z]{6}[0-9LMNPQRSTUV]{2}[ABCDEHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]"
)


def _cf_even(ch: str) -> int:
    return int(ch) if ch.isdigit() else ord(ch) - ord("A")


def codice_fiscale_check(first15: str) -> str:
    """The check letter of an Italian codice fiscale over its first 15 characters."""
    body = first15.upper()
    total = sum(_CF_ODD[ch] if i % 2 == 0 else _cf_even(ch) for i, ch in enumerate(body))
    return chr(ord("A") + total % 26)


def codice_fiscale_shape(value: str) -> bool:
    return bool(_CF_SHAPE.fullmatch(compact(value).upper()))


def codice_fiscale_valid(value: str) -> bool:
    cf = compact(value).upper()
    return codice_fiscale_shape(cf) and codice_fiscale_check(cf[:15]) == cf[15]


# --- German Steuer-ID, Personalausweis, Sozialversicherungsnummer -----------------------------

def iso7064_mod11_10(digits: str) -> str:
    """ISO 7064 MOD 11,10 check digit (German Steuer-ID)."""
    product = 10
    for ch in digits:
        total = (int(ch) + product) % 10 or 10
        product = total * 2 % 11
    return str((11 - product) % 10)


def steuer_id_structure(first10: str) -> bool:
    """One digit appears twice or three times among the first ten, the others once at most."""
    counts = [first10.count(d) for d in set(first10)]
    repeated = [c for c in counts if c > 1]
    return first10[0] != "0" and len(repeated) == 1 and repeated[0] in (2, 3)


def steuer_id_valid(value: str) -> bool:
    digits = compact(value)
    return (len(digits) == 11 and digits.isdigit() and steuer_id_structure(digits[:10])
            and iso7064_mod11_10(digits[:10]) == digits[10])


def icao_check_digit(value: str) -> str:
    """ICAO 9303 check digit (weights 7, 3, 1; A=10..Z=35): identity cards and passports."""
    total = 0
    for i, ch in enumerate(value.upper()):
        number = int(ch) if ch.isdigit() else ord(ch) - ord("A") + 10
        total += number * (7, 3, 1)[i % 3]
    return str(total % 10)


def _digit_sum(n: int) -> int:
    return sum(int(d) for d in str(n))


def svnr_check(first11: str) -> str:
    """Check digit of a German Sozialversicherungsnummer: area (2), birth date DDMMYY (6), the
    surname's initial (as its two-digit alphabet position) and serial (2)."""
    body = first11.upper()
    digits = body[:8] + f"{ord(body[8]) - ord('A') + 1:02d}" + body[9:11]
    weights = (2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1)
    return str(sum(_digit_sum(int(d) * w) for d, w in zip(digits, weights, strict=True)) % 10)


_SVNR_SHAPE = deferred(r"\d{2}(?:[0-6]\d|7[01])(?:0[1-9]|1[0-2])\d{2}[A-Z]\d{3}")


def svnr_valid(value: str) -> bool:
    svnr = compact(value).upper()
    return bool(_SVNR_SHAPE.fullmatch(svnr)) and int(svnr[2:4]) % 50 != 0 and svnr_check(svnr[:11]) == svnr[11]


# --- Australian ABN and TFN ---------------------------------------------------------------------

_ABN_WEIGHTS = (10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19)


def abn_valid(value: str) -> bool:
    digits = compact(value)
    if len(digits) != 11 or not digits.isdigit() or digits[0] == "0":
        return False
    numbers = [int(digits[0]) - 1] + [int(d) for d in digits[1:]]
    return sum(n * w for n, w in zip(numbers, _ABN_WEIGHTS, strict=True)) % 89 == 0


def abn_prefix(body9: str) -> str | None:
    """The first two digits that make `body9` (the last nine) a valid ABN, or None."""
    for head in range(10, 100):
        if abn_valid(f"{head}{body9}"):
            return str(head)
    return None


_TFN_WEIGHTS = {9: (1, 4, 3, 7, 5, 8, 6, 9, 10), 8: (10, 7, 8, 4, 6, 3, 5, 1)}


def tfn_valid(value: str) -> bool:
    digits = compact(value)
    weights = _TFN_WEIGHTS.get(len(digits))
    if weights is None or not digits.isdigit():
        return False
    return sum(int(d) * w for d, w in zip(digits, weights, strict=True)) % 11 == 0


# --- Spanish CIF and K/L/M NIF, Italian partita IVA, French numéro fiscal, NHS number ------------

CIF_LETTERS = "ABCDEFGHJNPQRSUVW"
_CIF_CONTROL_LETTERS = "JABCDEFGHI"


def cif_control(seven: str) -> int:
    """The control value (0-9) of a Spanish CIF over its seven digits."""
    even = sum(int(d) for d in seven[1::2])
    odd = sum(_digit_sum(2 * int(d)) for d in seven[0::2])
    return (10 - (even + odd) % 10) % 10


def cif_control_char(letter: str, seven: str) -> str:
    """Digit for companies (A, B, E, H), letter for bodies (K, P, Q, S, N, W), digit otherwise."""
    control = cif_control(seven)
    return _CIF_CONTROL_LETTERS[control] if letter.upper() in "KPQSNW" else str(control)


def cif_valid(value: str) -> bool:
    cif = compact(value).upper()
    if not re.fullmatch(r"[ABCDEFGHJNPQRSUVW][0-9]{7}[0-9A-J]", cif):
        return False
    control = cif_control(cif[1:8])
    return cif[8] in (str(control), _CIF_CONTROL_LETTERS[control])


def nif_klm_valid(value: str) -> bool:
    """Spanish NIF of people without DNI (K, L, M + 7 digits + the DNI letter of the digits)."""
    nif = compact(value).upper()
    return bool(re.fullmatch(r"[KLM][0-9]{7}[A-Z]", nif)) and dni_letter(nif[1:8]) == nif[8]


def it_vat_valid(value: str) -> bool:
    """Partita IVA: 11 digits, a Luhn check and a registered tax office (001-100, 120, 121, 888, 999)."""
    digits = compact(value).upper().removeprefix("IT")
    if len(digits) != 11 or not digits.isdigit() or not luhn_valid(digits):
        return False
    office = int(digits[7:10])
    return 1 <= office <= 100 or office in (120, 121, 888, 999)


def fr_tax_id_key(first10: str) -> str:
    """The three-digit key of a French numéro fiscal (SPI): the first ten digits modulo 511."""
    return f"{int(first10) % 511:03d}"


def fr_tax_id_valid(value: str) -> bool:
    digits = compact(value)
    return len(digits) == 13 and digits.isdigit() and digits[0] in "0123" and fr_tax_id_key(digits[:10]) == digits[10:]
