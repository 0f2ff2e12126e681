"""Rule detection of money amounts and of other standalone numbers (both off by default)."""

from __future__ import annotations

import pytest

from openmasq.redact.rules import detect_numbers, detect_rules


def spans_of(text: str, kind: str) -> list[tuple[str, int, int]]:
    return [(s.value, s.start, s.end) for s in detect_rules(text) if s.kind == kind]


def located(text: str, value: str) -> list[tuple[str, int, int]]:
    start = text.index(value)
    return [(value, start, start + len(value))]


AMOUNTS = [
    ("Total : 1 250,50 € TTC", "1 250,50 €"),
    ("payé $3,000 hier", "$3,000"),
    ("EUR 450", "EUR 450"),
    ("un budget de 12 k€", "12 k€"),
    ("450 EUR", "450 EUR"),
    ("1,5 M€ levés", "1,5 M€"),
    ("£1,250.99", "£1,250.99"),
    ("CHF 1'250.50", "CHF 1'250.50"),
    ("3000 euros", "3000 euros"),
    ("25 dollars", "25 dollars"),
    ("-12 €", "-12 €"),
    ("12€", "12€"),
    ("US$ 5", "US$ 5"),
    ("1.250,00 EUR", "1.250,00 EUR"),
    ("25 cents", "25 cents"),
    ("1\u202f250,50\u00a0€", "1\u202f250,50\u00a0€"),
]


@pytest.mark.parametrize(("text", "value"), AMOUNTS)
def test_amount_with_its_currency_is_found(text: str, value: str) -> None:
    assert spans_of(text, "amount") == located(text, value)


NOT_AMOUNTS = [
    "commande 45871",
    "il est 14h30",
    "les 3 places",
    "EURO 2024 commence",
    "européen",
    "2 millions d'euros",
    "US",
    "1 250,50",
    "€",
    "in 2024",
]


@pytest.mark.parametrize("text", NOT_AMOUNTS)
def test_no_amount_without_number_and_currency(text: str) -> None:
    assert spans_of(text, "amount") == []


NUMBERS = [
    ("commande 45871", "45871"),
    ("dossier n° 123", "123"),
    ("population 67000000", "67000000"),
    ("code 000123", "000123"),
    ("année 1850", "1850"),
    ("en 2150", "2150"),
    ("(202)", "202"),
]


@pytest.mark.parametrize(("text", "value"), NUMBERS)
def test_standalone_number_is_found(text: str, value: str) -> None:
    assert spans_of(text, "number") == located(text, value)


NOT_NUMBERS = [
    "en 2024",
    "année 1999",
    "12",
    "v123",
    "abc123def",
    "4111 1111 1111 1111",
    "1 250,50 €",
    "14h30",
    "3.14",
    "3.14159",
    "2099",
    "1900",
    "12.03.2024",
    "ref_123",
    "192.168.1.1",
]


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_no_number_for_years_short_glued_or_grouped_figures(text: str) -> None:
    assert spans_of(text, "number") == []


def test_numbers_and_amounts_have_low_scores() -> None:
    scores = {s.kind: s.score for s in detect_numbers("commande 45871 pour 120 €")}
    assert scores == {"number": 0.5, "amount": 0.9}
