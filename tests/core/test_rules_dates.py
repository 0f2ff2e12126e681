"""Rule detection of full dates and, after a birth phrase, dates of birth (the date only)."""

from __future__ import annotations

import pytest

from openmasq.redact.rules import detect_dates, detect_rules


def spans_of(text: str, kind: str) -> list[tuple[str, int, int]]:
    return [(s.value, s.start, s.end) for s in detect_rules(text) if s.kind == kind]


def located(text: str, value: str) -> list[tuple[str, int, int]]:
    start = text.index(value)
    return [(value, start, start + len(value))]


BIRTH_DATES = [
    ("Jean, né le 12/03/1985 à Lyon", "12/03/1985"),
    ("née le 3 mars 1985", "3 mars 1985"),
    ("né(e) le 1er janvier 2000", "1er janvier 2000"),
    ("née à Lyon le 3 mars 1985", "3 mars 1985"),
    ("Date de naissance : 12.03.1985", "12.03.1985"),
    ("Date de naissance :\n12/03/1985", "12/03/1985"),
    ("born on March 3, 1985", "March 3, 1985"),
    ("He was born in Paris on 3 March 1985.", "3 March 1985"),
    ("DOB: 1985-03-12", "1985-03-12"),
    ("D.O.B.: 03/12/1985", "03/12/1985"),
    ("geboren am 12.03.1985", "12.03.1985"),
    ("Geburtsdatum: 12. März 1985", "12. März 1985"),
    ("nacido el 3 de marzo de 1985", "3 de marzo de 1985"),
    ("fecha de nacimiento: 03/03/1985", "03/03/1985"),
    ("nato il 3 marzo 1985", "3 marzo 1985"),
    ("data di nascita 12/03/1985", "12/03/1985"),
    ("né le 12\u00a0mars\u00a01985", "12\u00a0mars\u00a01985"),
    ("Mi hijo Mateo nació el 3 de noviembre de 2017 y", "3 de noviembre de 2017"),
    # the birth verb after the date
    ("Mein Opa ist am 02.02.1938 geboren, wie viele Tage", "02.02.1938"),
    # the writer's own birth, an abbreviated label, a birthday after the date
    ("Me llamo Esteban, nací el 9 de julio de 1995 en Cusco", "9 de julio de 1995"),
    ("Nombre: Grace\nFecha nac.: 02/08/1994", "02/08/1994"),
    ("Mein Mann hat am 03.11.1962 Geburtstag, ab wann", "03.11.1962"),
    # a two-digit year after a month name, a birth phrase after the date
    ("Date of birth 14 Feb 79, Irish citizen", "14 Feb 79"),
    ("nacido el 3 de mayo del 85 en Sevilla", "3 de mayo del 85"),
    ("le 4 juin 1990 je suis née à Dakar", "4 juin 1990"),
    # the month in Roman numerals
    ("tengo 41 años (nací el 15/VIII/1985), ¿puedo", "15/VIII/1985"),
    ("Ich bin am 3.IV.1988 geboren", "3.IV.1988"),
]


@pytest.mark.parametrize(("text", "value"), BIRTH_DATES)
def test_date_after_a_birth_phrase_is_a_date_of_birth(text: str, value: str) -> None:
    assert spans_of(text, "dob") == located(text, value)
    assert spans_of(text, "date") == []


DATES = [
    ("le 12/03/2024 à 14h30", "12/03/2024"),
    ("réunion le 3 mars 2024.", "3 mars 2024"),
    ("on March 3rd, 2024", "March 3rd, 2024"),
    ("am 12. März 2024", "12. März 2024"),
    ("el 3 de marzo de 2024", "3 de marzo de 2024"),
    ("il 3 marzo 2024", "3 marzo 2024"),
    ("2024-03-12T10:00", "2024-03-12"),
    ("due 12/31/2024", "12/31/2024"),
    ("le 1er janvier 2000", "1er janvier 2000"),
    ("3 Sept. 2024", "3 Sept. 2024"),
    ("12.03.24", "12.03.24"),
    ("Dec 25, 2023", "Dec 25, 2023"),
    ("lundi 5 août 2024", "5 août 2024"),
    ("2024/03/12", "2024/03/12"),
    ("du 12 mars 2024 au 15 mars 2024", "15 mars 2024"),
    ("consegna il 31-XII-2024", "31-XII-2024"),
]


@pytest.mark.parametrize(("text", "value"), DATES)
def test_full_date_is_found(text: str, value: str) -> None:
    assert set(located(text, value)) <= set(spans_of(text, "date"))


NOT_DATES = [
    "en 1985",
    "le 32/13/2024",
    "le 31/31/2024",
    "version 1.2.3",
    "à 14h30",
    "la saison 2023-2024",
    "12/2024",
    "3 mars",
    "March 2024",
    "IP 10.0.0.1",
    "1.2.33.4",
    "1985-13-40",
    "le 3 truc 2024",
    "3 mai 20245",
    "x12/03/2024",
    "chapitre 3 V 2000",  # Roman months need a date's separator
    "le 32/XII/2024",
    "3/XIII/2024",
]


@pytest.mark.parametrize("text", NOT_DATES)
def test_no_date_without_day_month_and_year(text: str) -> None:
    assert spans_of(text, "date") == []
    assert spans_of(text, "dob") == []


NOT_BIRTH_DATES = [
    "Je ne suis pas venu le 12/03/2024",
    "né en 1985",
    "Il est né. Le 12/03/2024 nous sommes partis",
    "la société, née en 2010, a signé le 12/03/2024",
    "born to run, released 1975",
    "meeting on 3 Mar 85 people",
]


@pytest.mark.parametrize("text", NOT_BIRTH_DATES)
def test_birth_phrase_far_from_or_unrelated_to_the_date_gives_no_dob(text: str) -> None:
    assert spans_of(text, "dob") == []


def test_dates_and_birth_dates_have_their_scores() -> None:
    scores = {s.kind: s.score for s in detect_dates("né le 12/03/1985, arrivé le 01/02/2020")}
    assert scores == {"dob": 0.9, "date": 0.8}
