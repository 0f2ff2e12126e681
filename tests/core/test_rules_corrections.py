"""A structured value typed again, corrected, right after the first: the second has the first's layout (a digit
more or less for a number) and is masked as the same kind, even failing its check or without its label."""

from __future__ import annotations

import pytest

from openmasq.redact.rules import detect_rules

CORRECTED = [
    ("Reisepassnummer C01X9RT42 — nein, C01X9RT24, sorry.", "C01X9RT24", "passport"),
    ("UK passport no. 548102937 — hang on, it's 548102973. The renewal", "548102973", "passport"),
    ("Mon numéro fiscal c'est le 3012 458 796 123, attends non, 3012 458 796 132.", "3012 458 796 132", "tax_id"),
    ("ssn is 531-84-0297 wait no 531-84-02977", "531-84-02977", "ssn"),
    ("Kundennummer 4711-0815, nein 4711-0816", "4711-0816", "record_id"),
]


@pytest.mark.parametrize(("text", "value", "kind"), CORRECTED)
def test_a_value_of_the_same_layout_soon_after_a_structured_value_is_its_correction(
    text: str, value: str, kind: str,
) -> None:
    start = text.index(value)
    assert (start, start + len(value), kind) in {(s.start, s.end, s.kind) for s in detect_rules(text)}


@pytest.mark.parametrize(("text", "value"), [
    ("Kundennummer 4711-0815, Rechnung 4711-0816 bezahlt", "4711-0816"),  # another thing's number
    ("SIREN 732 829 320, SIRET 732 829 320 00074", "320 00074"),  # inside the next identifier
    ("passeport 12AB34567, vol AF1234 le 12 mai", "AF1234"),  # another layout
])
def test_a_number_of_another_thing_or_layout_is_no_correction(text: str, value: str) -> None:
    start = text.index(value)
    assert not any(s.start == start and s.end == start + len(value) and s.kind != "number" for s in detect_rules(text))
