"""Fake structured identifiers (IBAN, BIC, card, SIREN/SIRET, NIR, VAT, DNI/NIE, NINO, SSN,
codice fiscale, Steuer-ID, SV-Nummer, CIF/NIF, EIN, ABN, TFN, numéro fiscal...) that pass the
same check digits as the real scheme, laid out under the original separators."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from ...patterns import deferred
from .. import checksums
from ._shape import DIGITS, UPPER, alnum_only, distinct, redraw_char, relayout, swap_digits

# Countries whose IBAN carries a French RIB (bank, branch, account, key) as its BBAN.
RIB_COUNTRIES = frozenset({
    "FR", "MC", "GP", "MQ", "GF", "RE", "PM", "YT", "NC", "PF", "TF", "WF", "BL", "MF",
})
_NINO_FIRST = "ABCEGHJKLMNOPRSTWXYZ"
_NINO_SECOND = "ABCEGHJKLMNPRSTWXYZ"
_NINO_FORBIDDEN = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})
# Metropolitan départements of birth for a fake NIR (20 is split into 2A/2B and left out).
_NIR_DEPARTMENTS = tuple(f"{n:02d}" for n in range(1, 96) if n != 20)


def _random_digits(count: int, rng: random.Random) -> str:
    return "".join(rng.choice(DIGITS) for _ in range(count))


def fake_digits(real: str, rng: random.Random) -> str:
    """Every digit redrawn (a leading non-zero digit stays non-zero), everything else kept;
    a value without digits gets its letters scrambled instead."""
    return swap_digits(real, rng)


def fake_amount(real: str, rng: random.Random) -> str:
    """Same currency, separators and number of digits (so the same order of magnitude)."""
    return fake_digits(real, rng)


# --- bank -----------------------------------------------------------------------------------

def _with_national_check(country: str, bban: str) -> str:
    """Recompute the check digits some countries put inside the BBAN."""
    if country in RIB_COUNTRIES and len(bban) == 23:
        return bban[:21] + checksums.rib_key(bban[:5], bban[5:10], bban[10:21])
    if country == "ES" and len(bban) == 20 and bban.isdigit():
        return bban[:8] + checksums.es_bban_check_digits(bban[:8], bban[10:]) + bban[10:]
    if country == "BE" and len(bban) == 12 and bban.isdigit():
        return bban[:10] + checksums.be_bban_check_digits(bban[:10])
    return bban


def fake_iban(real: str, rng: random.Random) -> str:
    """Same country and length, letters of the BBAN kept, digits redrawn, the French RIB key
    (and Spanish/Belgian national digits) and the ISO mod-97 check digits recomputed."""
    iban = alnum_only(real).upper()
    if re.fullmatch(r"[0-9]{10}[0-9A-Z]{11}[0-9]{2}", iban):  # a French RIB without its IBAN prefix
        return distinct(real, rng, lambda r: relayout(real, _with_national_check(
            "FR", "".join(r.choice(DIGITS) if ch.isdigit() else ch for ch in iban))))
    if not re.fullmatch(r"[A-Z]{2}[0-9]{2}[0-9A-Z]{4,40}", iban):
        return fake_digits(real, rng)
    country, bban = iban[:2], iban[4:]

    def make(r: random.Random) -> str:
        drawn = "".join(r.choice(DIGITS) if ch.isdigit() else ch for ch in bban)
        new_bban = _with_national_check(country, drawn)
        return relayout(real, country + checksums.iban_check_digits(country, new_bban) + new_bban)

    return distinct(real, rng, make)


def fake_bic(real: str, rng: random.Random) -> str:
    """Bank code redrawn, country kept, location and branch redrawn by class ("XXX" kept)."""
    bic = alnum_only(real)
    if len(bic) not in (8, 11):
        return fake_digits(real, rng)

    def make(r: random.Random) -> str:
        bank = "".join(r.choice(UPPER) for _ in range(4))
        location = "".join(redraw_char(ch, r) for ch in bic[6:8])
        branch = bic[8:]
        if branch and branch.upper() != "XXX":
            branch = "".join(redraw_char(ch, r) for ch in branch)
        return relayout(real, bank + bic[4:6] + location + branch)

    return distinct(real, rng, make)


def _card_candidate(digits: str, brand: str | None, rng: random.Random) -> str | None:
    for keep in (1, 2, 4, 6):
        for _ in range(20):
            body = digits[:keep] + _random_digits(len(digits) - keep - 1, rng)
            candidate = body + checksums.luhn_check_digit(body)
            if candidate != digits and (brand is None or checksums.card_brand(candidate) == brand):
                return candidate
    return None


def fake_card(real: str, rng: random.Random) -> str:
    """Same brand, length and grouping, first digit kept, Luhn-valid."""
    digits = "".join(ch for ch in real if ch.isdigit() and ch.isascii())
    if not 12 <= len(digits) <= 19:
        return fake_digits(real, rng)
    brand = checksums.card_brand(digits)
    candidate = _card_candidate(digits, brand, rng)
    if candidate is None:
        return fake_digits(real, rng)
    return relayout(real, candidate)


# --- French identifiers -----------------------------------------------------------------------

def siren_digits(rng: random.Random) -> str:
    body = rng.choice("123456789") + _random_digits(7, rng)
    return body + checksums.luhn_check_digit(body)


def _siret_digits(rng: random.Random) -> str:
    siren = siren_digits(rng)
    while siren == "356000000":  # La Poste numbers its sites with another rule
        siren = siren_digits(rng)
    # Most establishments are numbered 0001x; keep that look most of the time.
    nic = "000" + rng.choice("123456789") if rng.random() < 0.7 else _random_digits(4, rng)
    body = siren + nic
    return body + checksums.luhn_check_digit(body)


def _fake_fixed_length(
    real: str, rng: random.Random, length: int, draw: Callable[[random.Random], str]
) -> str:
    if len(alnum_only(real)) != length:
        return fake_digits(real, rng)
    return distinct(real, rng, lambda r: relayout(real, draw(r)))


def fake_siren(real: str, rng: random.Random) -> str:
    """A Luhn-valid SIREN in the same layout ("123 456 789")."""
    return _fake_fixed_length(real, rng, 9, siren_digits)


def fake_siret(real: str, rng: random.Random) -> str:
    """A Luhn-valid SIRET (itself over a Luhn-valid SIREN) in the same layout."""
    return _fake_fixed_length(real, rng, 14, _siret_digits)


def _nir_body(sex: str, rng: random.Random) -> str:
    year = rng.randint(1940, 2004) % 100
    month = rng.randint(1, 12)
    department = rng.choice(_NIR_DEPARTMENTS)
    return f"{sex}{year:02d}{month:02d}{department}{rng.randint(1, 990):03d}{rng.randint(1, 999):03d}"


def fake_nir(real: str, rng: random.Random) -> str:
    """Same sex digit, a birth year 1940-2004, a month 01-12, a metropolitan département and a
    valid key; same spacing. A 13-character NIR (without key) stays without key."""
    compact = alnum_only(real).upper()
    if len(compact) not in (13, 15) or compact[0] not in "12378":
        return fake_digits(real, rng)
    sex = compact[0]

    def make(r: random.Random) -> str:
        body = _nir_body(sex, r)
        return relayout(real, body + checksums.nir_key(body) if len(compact) == 15 else body)

    return distinct(real, rng, make)


def fake_vat(real: str, rng: random.Random) -> str:
    """French VAT: a valid key over a fake SIREN; other countries: digits redrawn, letters kept."""
    compact = alnum_only(real).upper()
    italian = compact.removeprefix("IT")
    if len(italian) == 11 and italian.isdigit() and compact[:2] in ("IT", italian[:2]):
        return distinct(real, rng, lambda r: relayout(real, compact[: len(compact) - 11] + _it_vat(italian, r)))
    if not (compact.startswith("FR") and len(compact) == 13 and compact[2:].isdigit()):
        return fake_digits(real, rng)

    def make(r: random.Random) -> str:
        siren = siren_digits(r)
        return relayout(real, "FR" + checksums.fr_vat_key(siren) + siren)

    return distinct(real, rng, make)


def _it_vat(digits: str, rng: random.Random) -> str:
    """Seven new digits, the same tax office, and the Luhn check digit of a partita IVA."""
    body = _random_digits(7, rng) + digits[7:10]
    return body + checksums.luhn_check_digit(body)


# --- Spanish, British and American identifiers ----------------------------------------------------

def fake_dni(real: str, rng: random.Random) -> str:
    """Eight new digits and their control letter, same layout."""
    if len(alnum_only(real)) != 9:
        return fake_digits(real, rng)

    def make(r: random.Random) -> str:
        number = _random_digits(8, r)
        return relayout(real, number + checksums.dni_letter(number))

    return distinct(real, rng, make)


def fake_nie(real: str, rng: random.Random) -> str:
    """Same X/Y/Z letter, seven new digits and their control letter, same layout."""
    compact = alnum_only(real).upper()
    if len(compact) != 9 or compact[0] not in "XYZ":
        return fake_digits(real, rng)
    lead = compact[0]

    def make(r: random.Random) -> str:
        number = _random_digits(7, r)
        return relayout(real, lead + number + checksums.dni_letter(str("XYZ".index(lead)) + number))

    return distinct(real, rng, make)


def _nino_prefix(rng: random.Random) -> str:
    while True:
        prefix = rng.choice(_NINO_FIRST) + rng.choice(_NINO_SECOND)
        if prefix not in _NINO_FORBIDDEN:
            return prefix


def fake_nino(real: str, rng: random.Random) -> str:
    """A valid prefix pair, six new digits and a suffix A-D, same spacing."""
    if len(alnum_only(real)) != 9:
        return fake_digits(real, rng)

    def make(r: random.Random) -> str:
        return relayout(real, _nino_prefix(r) + _random_digits(6, r) + r.choice("ABCD"))

    return distinct(real, rng, make)


def fake_ssn(real: str, rng: random.Random) -> str:
    """Area 001-899 (not 666), group 01-99, serial 0001-9999, same layout."""
    if len(alnum_only(real)) != 9:
        return fake_digits(real, rng)

    def make(r: random.Random) -> str:
        area = r.randint(1, 898)
        area = area + 1 if area >= 666 else area
        return relayout(real, f"{area:03d}{r.randint(1, 99):02d}{r.randint(1, 9999):04d}")

    return distinct(real, rng, make)


# --- identifiers added with the labelled detectors ------------------------------------------------
# A value given by its label may not have its scheme's shape (a typo, another country's format):
# it then keeps its shape, each letter and digit redrawn by class.

def fake_same_shape(real: str, rng: random.Random) -> str:
    """Every letter and digit redrawn within its class (case kept), separators kept."""
    return distinct(real, rng, lambda r: "".join(redraw_char(ch, r) for ch in real))


def _shaped(
    real: str, rng: random.Random, fits: Callable[[str], bool], draw: Callable[[str, random.Random], str]
) -> str:
    """`draw(compact, rng)` laid out like `real` when its compact form fits the scheme, else
    the same shape redrawn."""
    compact = alnum_only(real).upper()
    if not fits(compact):
        return fake_same_shape(real, rng)
    return distinct(real, rng, lambda r: relayout(real, draw(compact, r)))


_CF_CONSONANTS = "BCDFGHJKLMNPQRSTVZ"
_CF_MONTHS = "ABCDEHLMPRST"


def _codice_fiscale(compact: str, rng: random.Random) -> str:
    letters = "".join(rng.choice(_CF_CONSONANTS) for _ in range(6))
    day = rng.randint(1, 28) + (40 if compact[9:11].isdigit() and int(compact[9:11]) > 40 else 0)
    place = rng.choice("ABCDEFGHILM") + _random_digits(3, rng)
    body = f"{letters}{rng.randint(40, 99):02d}{rng.choice(_CF_MONTHS)}{day:02d}{place}"
    return body + checksums.codice_fiscale_check(body)


def fake_codice_fiscale(real: str, rng: random.Random) -> str:
    """Six consonants, a birth year, month letter and day (women's day + 40 kept), a place code
    and a valid check letter."""
    return _shaped(real, rng, checksums.codice_fiscale_shape, _codice_fiscale)


def _steuer_id(_compact: str, rng: random.Random) -> str:
    while True:
        first10 = rng.choice("123456789") + _random_digits(9, rng)
        if checksums.steuer_id_structure(first10):
            return first10 + checksums.iso7064_mod11_10(first10)


def fake_steuer_id(real: str, rng: random.Random) -> str:
    """Eleven digits with the Steuer-ID's structure (one digit repeated) and check digit."""
    return _shaped(real, rng, lambda c: len(c) == 11 and c.isdigit(), _steuer_id)


def _svnr(compact: str, rng: random.Random) -> str:
    serial = rng.randint(50, 99) if int(compact[9:11]) >= 50 else rng.randint(0, 49)
    body = (f"{compact[:2]}{rng.randint(1, 28):02d}{rng.randint(1, 12):02d}{rng.randint(40, 99):02d}"
            f"{rng.choice(UPPER)}{serial:02d}")
    return body + checksums.svnr_check(body)


def fake_svnr(real: str, rng: random.Random) -> str:
    """Same area and sex (serial below or above 50), another birth date and initial, valid check."""
    return _shaped(real, rng, lambda c: bool(re.fullmatch(r"\d{8}[A-Z]\d{3}", c)), _svnr)


_ID_CARD_LETTERS = "CFGHJKLMNPRTVWXYZ"


def _id_card(compact: str, rng: random.Random) -> str:
    serial = rng.choice(_ID_CARD_LETTERS) + "".join(rng.choice(_ID_CARD_LETTERS + DIGITS) for _ in range(8))
    return serial + checksums.icao_check_digit(serial)


def fake_id_card(real: str, rng: random.Random) -> str:
    """A German identity card number (nine characters and the ICAO check digit) for one of that
    shape; any other card number keeps its shape."""
    return _shaped(real, rng, lambda c: len(c) == 10 and c[0] in _ID_CARD_LETTERS and c[-1].isdigit(), _id_card)


def fake_passport(real: str, rng: random.Random) -> str:
    """Same shape (letters where letters were, digits where digits were)."""
    return fake_same_shape(real, rng)


def fake_nif(real: str, rng: random.Random) -> str:
    """K/L/M kept, seven new digits and their control letter; DNI- and NIE-shaped ones as those."""
    compact = alnum_only(real).upper()
    if len(compact) == 9 and compact[0] in "XYZ":
        return fake_nie(real, rng)
    if len(compact) == 9 and compact[:8].isdigit():
        return fake_dni(real, rng)

    def draw(c: str, r: random.Random) -> str:
        digits = _random_digits(7, r)
        return c[0] + digits + checksums.dni_letter(digits)

    return _shaped(real, rng, lambda c: bool(re.fullmatch(r"[KLM]\d{7}[A-Z]", c)), draw)


def _cif(compact: str, rng: random.Random) -> str:
    seven = _random_digits(7, rng)
    return compact[0] + seven + checksums.cif_control_char(compact[0], seven)


def fake_cif(real: str, rng: random.Random) -> str:
    """Same organisation letter, seven new digits and their control character."""
    return _shaped(real, rng, lambda c: bool(re.fullmatch(r"[A-HJNP-SUVW]\d{7}[0-9A-J]", c)), _cif)


# Prefixes the IRS assigns (campus and Internet codes); a fake EIN uses one of them.
_EIN_PREFIXES = ("10", "12", "20", "26", "27", "30", "32", "35", "36", "37", "38", "45", "46", "47",
                 "51", "52", "54", "56", "57", "58", "61", "65", "81", "82", "83", "84", "86", "87", "88")


def fake_ein(real: str, rng: random.Random) -> str:
    """An assigned two-digit prefix and seven new digits, same layout."""
    return _shaped(real, rng, lambda c: len(c) == 9 and c.isdigit(),
                   lambda _c, r: r.choice(_EIN_PREFIXES) + _random_digits(7, r))


def _abn(_compact: str, rng: random.Random) -> str:
    while True:
        body = _random_digits(9, rng)
        head = checksums.abn_prefix(body)
        if head is not None:
            return head + body


def fake_abn(real: str, rng: random.Random) -> str:
    """Eleven digits passing the ABN's modulus-89 check."""
    return _shaped(real, rng, lambda c: len(c) == 11 and c.isdigit(), _abn)


def _tfn(compact: str, rng: random.Random) -> str:
    while True:
        candidate = rng.choice("123456789") + _random_digits(len(compact) - 1, rng)
        if checksums.tfn_valid(candidate):
            return candidate


def fake_tfn(real: str, rng: random.Random) -> str:
    """Eight or nine digits passing the TFN's modulus-11 check."""
    return _shaped(real, rng, lambda c: len(c) in (8, 9) and c.isdigit(), _tfn)


def _fr_tax_id(compact: str, rng: random.Random) -> str:
    first10 = compact[0] + _random_digits(9, rng)
    return first10 + checksums.fr_tax_id_key(first10)


def fake_tax_id(real: str, rng: random.Random) -> str:
    """A French numéro fiscal keeps its first digit and gets a valid key (mod 511); other tax
    numbers keep their shape."""
    return _shaped(real, rng, lambda c: len(c) == 13 and c.isdigit() and c[0] in "0123", _fr_tax_id)


# The head of a record number that names its kind ("MRN", "POL-", "E-"): short, or set apart by a separator.
_RECORD_PREFIX = deferred(r"[^\W\d_]{1,3}(?=\d)|[^\W\d_]{1,4}[-/ ](?=\w)")


def fake_record_id(real: str, rng: random.Random) -> str:
    """A prefix naming the kind kept ("MRN", "POL-"); every other letter and digit redrawn by class: the
    letters of a driving licence, a plate or a booking code are as much the user's as its digits (a UK
    licence starts with the surname)."""
    prefix = _RECORD_PREFIX.match(real)
    head = prefix.group(0) if prefix else ""
    return distinct(real, rng, lambda r: head + "".join(redraw_char(ch, r) for ch in real[len(head):]))
