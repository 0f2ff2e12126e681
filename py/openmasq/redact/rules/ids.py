"""National and company identifiers: French NIR, SIREN (in context), SIRET, VAT numbers, Spanish
DNI/NIE, UK National Insurance numbers and US SSNs; checksummed where the scheme has one."""

from __future__ import annotations

import re

from ...patterns import deferred
from ..checksums import (
    abn_valid,
    cif_valid,
    codice_fiscale_valid,
    dni_valid,
    fr_tax_id_valid,
    fr_vat_valid,
    it_vat_valid,
    nie_valid,
    nif_klm_valid,
    nino_valid,
    nir_valid,
    siren_valid,
    siret_valid,
    ssn_valid,
    steuer_id_valid,
    svnr_valid,
)
from ._base import Hit, keyword_before, lowered, most_digits_in_a_run, near_long_numbers, starts_token

# --- French NIR, SIREN, SIRET -----------------------------------------------------------------

# Sex, year, month, department (2A/2B for Corsica), commune, order, key; single separators.
_NIR = deferred(
    r"[12378](?<![\w.-][12378])[ .-]?\d{2}[ .-]?\d{2}[ .-]?(?:\d{2}|2[ABab])[ .-]?\d{3}[ .-]?\d{3}[ .-]?\d{2}"
    r"(?![\w]|[ .-]\d)"
)
_SIRET = deferred(r"\d(?<![\w.,]\d)(?<!\d[ .]\d)(?:[ .]?\d){13}(?![\w]|[ .]\d)")
_SIREN = deferred(r"\d(?<![\w.,]\d)(?<!\d[ .]\d)\d{2}([ .]?)\d{3}\1\d{3}(?![\w]|[ .]\d)")
_SIREN_BEFORE = deferred(r"(?i)\b(?:siren|rcs|r\.c\.s\.|immatricul\w{0,6}|registre du commerce)\b")
_SIREN_AFTER = deferred(r"[ ,]{0,3}(?:R\.?C\.?S\.?|RCS)\b")
_SIREN_PROBE = deferred(r"siren|r\.?c\.?s|immatricul|registre du commerce")  # lower-cased text


def find_nirs(text: str) -> list[Hit]:
    """French social security numbers with their key (score 1.0)."""
    # "2 84 06 2A 012 345 94": Corsica's letter splits the digits; the window spans it.
    matches = near_long_numbers(text, _NIR, 6, 24)
    return [Hit(m.start(), m.end(), "nir", 1.0) for m in matches if nir_valid(m.group(0))]


def find_sirets(text: str) -> list[Hit]:
    """SIRET numbers (14 digits, both checksums; score 1.0)."""
    matches = near_long_numbers(text, _SIRET, 14, 4)
    return [Hit(m.start(), m.end(), "siret", 1.0) for m in matches if siret_valid(m.group(0))]


def find_sirens(text: str) -> list[Hit]:
    """SIREN numbers (9 digits, Luhn) next to "SIREN"/"RCS": nine digits alone are too common."""
    if most_digits_in_a_run(text) < 9 or not _SIREN_PROBE.search(lowered(text)):
        return []
    hits: list[Hit] = []
    for m in near_long_numbers(text, _SIREN, 9, 4):
        if not siren_valid(m.group(0)):
            continue
        if keyword_before(_SIREN_BEFORE, text, m.start(), 40) or _SIREN_AFTER.match(text, m.end()):
            hits.append(Hit(m.start(), m.end(), "siren", 1.0))
    return hits


# --- VAT numbers --------------------------------------------------------------------------------

_FR_VAT = deferred(r"FR(?<![\w]FR)[ ]?\d{2}[ ]?\d{3}[ ]?\d{3}[ ]?\d{3}(?![\w]|[ ]\d)")
_VAT_KEYWORD = deferred(
    r"(?i:\b(?:n[°o]\.?[ ]?)?(?:tva(?:[ ]intra(?:communautaire)?)?|vat(?:[ ](?:number|no\.?|id|reg\.?))?|"
    r"ust-?id(?:nr)?\.?|ust\.?-?idnr\.?|uid(?:-nr\.?)?|mwst(?:-?nr\.?)?|p\.[ ]?iva|partita[ ]iva|iva|"
    r"nif(?:-iva)?|cif|btw(?:-nummer)?|num[ée]ro[ ]de[ ]tva)(?![\w]))"
    r"(?:[ ]{1,3}[a-zé]{1,12}){0,2}[ ]{0,3}[:=#-]?[ ]{0,3}"
    r"(?P<vat>(?:[A-Z]{2}|CHE)?[ -]?[0-9A-Z][0-9A-Z .-]{5,16}[0-9A-Z])(?![\w])"
)
_VAT_PROBE = deferred(r"tva|vat|ust|uid|mwst|p\.[ ]?iva|partita|iva|nif|cif|btw|num[ée]ro[ ]de")
# Compact shapes of EU (and Swiss, UK) VAT numbers after the country prefix.
_VAT_BODY = {
    "AT": r"U\d{8}", "BE": r"[01]\d{9}", "BG": r"\d{9,10}", "CY": r"\d{8}[A-Z]", "CZ": r"\d{8,10}",
    "DE": r"\d{9}", "DK": r"\d{8}", "EE": r"\d{9}", "EL": r"\d{9}", "GR": r"\d{9}",
    "ES": r"[0-9A-Z]\d{7}[0-9A-Z]", "FI": r"\d{8}", "FR": r"[0-9A-HJ-NP-Z]{2}\d{9}", "HR": r"\d{11}",
    "HU": r"\d{8}", "IE": r"\d[0-9A-Z+*]\d{5}[A-W][A-I]?", "IT": r"\d{11}", "LT": r"\d{9}|\d{12}",
    "LU": r"\d{8}", "LV": r"\d{11}", "MT": r"\d{8}", "NL": r"\d{9}B\d{2}", "PL": r"\d{10}",
    "PT": r"\d{9}", "RO": r"\d{2,10}", "SE": r"\d{12}", "SI": r"\d{8}", "SK": r"\d{10}",
    "GB": r"\d{9}|\d{12}", "XI": r"\d{9}|\d{12}", "CHE": r"\d{9}(?:MWST|TVA|IVA)?",
}
_VAT_SHAPES = {country: re.compile(body) for country, body in _VAT_BODY.items()}
# Without a country prefix, after the keyword: Italian partita IVA, Spanish CIF/NIF.
_VAT_BARE = deferred(r"\d{11}|[A-HJNP-SUVW]\d{7}[0-9A-J]")


def find_vats(text: str) -> list[Hit]:
    """French VAT numbers with a valid key anywhere (1.0); other EU shapes after a VAT keyword (0.9)."""
    hits = [
        Hit(m.start(), m.end(), "vat", 1.0) for m in near_long_numbers(text, _FR_VAT, 9, 8) if fr_vat_valid(m.group(0))
    ]
    for keyword in _VAT_PROBE.finditer(lowered(text)):
        m = _VAT_KEYWORD.match(text, keyword.start())
        if m is None:
            continue
        end = _vat_end(m.group("vat"))
        if end:
            hits.append(Hit(m.start("vat"), m.start("vat") + end, "vat", 0.9))
    return hits


def _vat_end(value: str) -> int:
    """Length of the longest prefix of `value` with a VAT shape, cut at a separator; 0 if none."""
    cuts = [len(value)] + [i for i in range(len(value) - 1, 0, -1) if value[i] in " .-"]
    for cut in cuts:
        compact = re.sub(r"[ .-]", "", value[:cut])
        if _is_vat_shape(compact):
            return len(value[:cut].rstrip(" .-"))
    return 0


def _is_vat_shape(compact: str) -> bool:
    prefix = "CHE" if compact.startswith("CHE") else compact[:2]
    shape = _VAT_SHAPES.get(prefix)
    if shape is not None and shape.fullmatch(compact[len(prefix):]):
        return prefix != "FR" or fr_vat_valid(compact)
    return _VAT_BARE.fullmatch(compact) is not None


# --- Spanish DNI/NIE, UK NINO, US SSN -------------------------------------------------------------

_DNI = deferred(r"\d(?<![\w.-]\d)\d\.?\d{3}\.?\d{3}[ -]?[A-Za-z](?!\w)")
_NIE = deferred(r"[XYZxyz](?<![\w-][XYZxyz])[ -]?\d{7}[ -]?[A-Za-z](?!\w)")
_NINO = deferred(r"[A-Za-z]{2}[ ]?\d{2}[ ]?\d{2}[ ]?\d{2}[ ]?[A-Da-d](?!\w)")
_NINO_DIGITS = deferred(r"\d\d[ ]?\d\d[ ]?\d\d[ ]?[A-Da-d](?!\w)")
_SSN_DASHED = deferred(r"\d(?<![\w-]\d)\d{2}-\d{2}-\d{4}(?![\w]|-\d)")
_SSN_LOOSE = deferred(r"\d(?<![\w.-]\d)\d{2}[ .]?\d{2}[ .]?\d{4}(?![\w]|[ .-]\d)")
# lower-cased; "social" alone is how an SSN is asked for ("what's your social?"), before a valid SSN only
_SSN_WORDS = deferred(r"\b(?:ssn|social(?:[ ]security(?:[ ](?:number|no\.?|#))?)?|soc\.?[ ]sec\.?|ss#)")


def find_dnis(text: str) -> list[Hit]:
    """Spanish DNI: 8 digits and the matching control letter (score 1.0)."""
    matches = near_long_numbers(text, _DNI, 8, 6)
    return [Hit(m.start(), m.end(), "dni", 1.0) for m in matches if dni_valid(m.group(0))]


def find_nies(text: str) -> list[Hit]:
    """Spanish NIE: X/Y/Z, 7 digits and the matching control letter (score 1.0)."""
    matches = near_long_numbers(text, _NIE, 7, 6)
    return [Hit(m.start(), m.end(), "nie", 1.0) for m in matches if nie_valid(m.group(0))]


def find_ninos(text: str) -> list[Hit]:
    """UK National Insurance numbers with a valid prefix and suffix letter (score 0.95)."""
    hits: list[Hit] = []
    for digits in near_long_numbers(text, _NINO_DIGITS, 6, 6):
        # The two prefix letters sit right before the digits, maybe with one space.
        for start in (digits.start() - 2, digits.start() - 3):
            m = _NINO.match(text, start) if start >= 0 else None
            if m is not None and m.end() == digits.end() and starts_token(text, start, ""):
                if nino_valid(m.group(0)) and _same_case_letters(m.group(0)):
                    hits.append(Hit(start, m.end(), "nino", 0.95))
                break
    return hits


def _same_case_letters(value: str) -> bool:
    letters = [ch for ch in value if ch.isalpha()]
    return all(ch.isupper() for ch in letters) or all(ch.islower() for ch in letters)


def find_ssns(text: str) -> list[Hit]:
    """US SSNs: after an SSN keyword in any layout (1.0), or dashed with a valid area/group/serial (0.85)."""
    hits: list[Hit] = []
    low = lowered(text)
    keyword_present = any(word in low for word in ("ssn", "social", "soc. sec", "soc sec", "ss#"))
    for m in near_long_numbers(text, _SSN_DASHED, 9, 4):
        if ssn_valid(m.group(0)):
            near = keyword_present and keyword_before(_SSN_WORDS, low, m.start(), 40)
            hits.append(Hit(m.start(), m.end(), "ssn", 1.0 if near else 0.85))
    if keyword_present:
        for m in near_long_numbers(text, _SSN_LOOSE, 9, 4):
            if "-" not in m.group(0) and ssn_valid(m.group(0)) and keyword_before(_SSN_WORDS, low, m.start(), 40):
                hits.append(Hit(m.start(), m.end(), "ssn", 1.0))
    return hits


# --- identifiers found anywhere by their check digits ------------------------------------------
# (by label whatever their check: labelled.py)

_CODICE_FISCALE = deferred(
    r"(?<![A-Za-z0-9])(?:[A-Z]{6}[0-9LMNPQRSTUV]{2}[ABCDEHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]"
    r"|[a-z]{6}[0-9lmnpqrstuv]{2}[abcdehlmprst][0-9lmnpqrstuv]{2}[a-z][0-9lmnpqrstuv]{3}[a-z])(?![A-Za-z0-9])"
)
_CF_PROBE = deferred(r"[A-Za-z]{6}\d")
# "12 345 678 901": how Steuer-IDs and ABNs are printed; compact 11 digits only by label.
_GROUPED_11 = deferred(r"\d(?<![\w.,]\d)(?<!\d[ .]\d)\d [0-9]{3} [0-9]{3} [0-9]{3}(?![\w]|[ .]\d)")
_SVNR = deferred(r"\d(?<![\w.-]\d)\d[ ]?\d{6}[ ]?[A-Z][ ]?\d{3}(?![\w])")
_CIF = deferred(r"(?<![\w-])[A-HJNP-SUVW]\d{7}[0-9A-J](?![\w])")
_NIF_KLM = deferred(r"(?<![\w-])[KLM]\d{7}[A-Z](?![\w])")
_IT_VAT = deferred(r"(?<![\w])IT[ ]?\d{11}(?![\w]|[ ]\d)")
# The numéro fiscal as the tax notice prints it: "30 23 217 600 053".
_FR_TAX_ID = deferred(r"[0-3](?<![\w.,][0-3])(?<!\d[ .][0-3])\d [0-9]{2} [0-9]{3} [0-9]{3} [0-9]{3}(?![\w]|[ .]\d)")
# A reference named just before: the number is that reference's, whatever its digits say.
_REFERENCE_WORDS = deferred(
    r"(?i)(?:commande|order|facture|invoice|r[ée]f[ée]rence|\bref\b|bestell|rechnung|pedido|factura|ordine|"
    r"fattura|ticket|tracking|suivi|colis|parcel|ean|isbn|gtin|article|artikel|produit|product|sku)"
)


def unreferenced(text: str, start: int) -> bool:
    return not keyword_before(_REFERENCE_WORDS, text, start, 30)


def find_checked_ids(text: str) -> list[Hit]:
    """Codice fiscale (1.0, 0.75 with a wrong check letter), SV-Nummer and K/L/M NIF (1.0); grouped
    Steuer-IDs, ABNs and numéros fiscaux, CIFs and "IT" VAT numbers (0.9, not right after an order or invoice word)."""
    hits: list[Hit] = []
    if _CF_PROBE.search(text):
        # The layout (a birth month's letter among them) is the codice fiscale's own: a wrong check letter
        # still makes one, at a lower score.
        hits += [Hit(m.start(), m.end(), "codice_fiscale", 1.0 if codice_fiscale_valid(m.group(0)) else 0.75)
                 for m in _CODICE_FISCALE.finditer(text)]
    for m in near_long_numbers(text, _GROUPED_11, 11, 2):
        if not unreferenced(text, m.start()):
            continue
        if steuer_id_valid(m.group(0)):
            hits.append(Hit(m.start(), m.end(), "steuer_id", 0.9))
        elif abn_valid(m.group(0)):
            hits.append(Hit(m.start(), m.end(), "abn", 0.9))
    hits += [Hit(m.start(), m.end(), "tax_id", 0.9) for m in near_long_numbers(text, _FR_TAX_ID, 13, 2)
             if fr_tax_id_valid(m.group(0)) and unreferenced(text, m.start())]
    hits += [Hit(m.start(), m.end(), "svnr", 1.0) for m in near_long_numbers(text, _SVNR, 6, 6)
             if svnr_valid(m.group(0))]
    hits += [Hit(m.start(), m.end(), "cif", 0.9) for m in near_long_numbers(text, _CIF, 7, 3)
             if cif_valid(m.group(0)) and unreferenced(text, m.start())]
    hits += [Hit(m.start(), m.end(), "nif", 1.0) for m in near_long_numbers(text, _NIF_KLM, 7, 3)
             if nif_klm_valid(m.group(0))]
    hits += [Hit(m.start(), m.end(), "vat", 1.0) for m in near_long_numbers(text, _IT_VAT, 11, 4)
             if it_vat_valid(m.group(0))]
    return hits


# Licence plates in a layout only plates have: Spanish "4821 KLM" (consonants only), French "AB-123-CD" (with its
# dashes) and British "KX19 PLU" (an age identifier of two digits). A plate names a car and so its owner (0.8).
_PLATES = deferred(
    r"(?<![\w-])(?:\d{4}[ -]?[BCDFGHJKLMNPRSTVWXYZ]{3}|[A-HJ-NP-TV-Z]{2}-\d{3}-[A-HJ-NP-TV-Z]{2}|"
    r"[A-Z]{2}(?:0[2-9]|[1-2]\d|5[1-9]|[67]\d) [A-Z]{3})(?![\w-])"
)


def find_plates(text: str) -> list[Hit]:
    return [Hit(m.start(), m.end(), "record_id", 0.8) for m in _PLATES.finditer(text) if unreferenced(text, m.start())]


def find_ids(text: str) -> list[Hit]:
    return (
        find_nirs(text) + find_sirens(text) + find_sirets(text) + find_vats(text)
        + find_dnis(text) + find_nies(text) + find_ninos(text) + find_ssns(text) + find_checked_ids(text)
        + find_plates(text)
    )
