"""A value typed again, corrected: "ssn 531-84-0297 wait no 531-84-02977", "Reisepassnummer C01X9RT42 — nein,
C01X9RT24", "numéro fiscal 3012 458 796 123, attends non, 3012 458 796 132". The corrected value has its
predecessor's layout but may fail its check or miss its label: soon after a structured value, a value of the same
shape (the same sequence of digits and letters, a digit more or less) is the same kind of value."""

from __future__ import annotations

import functools
import re

from ._base import Hit
from .ids import unreferenced

# Kinds a correction can follow: identifiers, accounts and cards (phones and e-mails have their own rules).
_ECHOED_KINDS = frozenset({
    "iban", "card", "nir", "dni", "nie", "nif", "cif", "nino", "ssn", "siren", "siret", "vat", "steuer_id", "svnr",
    "codice_fiscale", "tax_id", "passport", "id_card", "record_id", "ein", "abn", "tfn", "account_number",
})
_REACH = 60
_ECHO_SCORE = 0.75
_SEPARATOR = r"[ ./-]?"


def _shape(value: str) -> str:
    return "".join("9" if ch.isdigit() else "A" for ch in value if ch.isalnum())


@functools.lru_cache(maxsize=256)
def _pattern_of(shape: str) -> re.Pattern[str]:
    """Letters and digits in `shape`'s order with single separators; a number may have a digit more or less."""
    if set(shape) == {"9"}:
        n = len(shape)
        body = rf"\d(?:{_SEPARATOR}\d){{{n - 2},{n}}}"
    else:
        body = _SEPARATOR.join(r"\d" if ch == "9" else "[A-Za-z]" for ch in shape)
    return re.compile(rf"(?<![\w]){body}(?![\w]|[ ./-]\d)")


def echo_corrections(text: str, hits: list[Hit]) -> list[Hit]:
    """The corrections of the structured values among `hits`: the first value of the same shape within reach."""
    found: list[Hit] = []
    taken = [(h.start, h.end) for h in hits if h.kind in _ECHOED_KINDS or h.kind in ("phone", "email")]
    for hit in sorted(h for h in hits if h.kind in _ECHOED_KINDS):
        value = text[hit.start : hit.end]
        shape = _shape(value)
        if len(shape) < 6:
            continue
        m = _pattern_of(shape).search(text, hit.end, min(len(text), hit.end + _REACH))
        if m is None or m.group(0) == value or any(a < m.end() and m.start() < b for a, b in taken):
            continue
        if unreferenced(text, m.start()):  # not "Kundennummer 4711-0815, Rechnung 4711-0816"
            found.append(Hit(m.start(), m.end(), hit.kind, _ECHO_SCORE))
    return found
