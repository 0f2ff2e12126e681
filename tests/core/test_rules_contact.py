"""Rule detection of e-mail addresses and phone numbers: exact values and offsets."""

from __future__ import annotations

import phonenumbers
import pytest
from phonenumbers import PhoneNumberFormat, PhoneNumberType

from openmasq.redact.rules import detect_contact, detect_rules


def spans_of(text: str, kind: str) -> list[tuple[str, int, int]]:
    return [(s.value, s.start, s.end) for s in detect_rules(text) if s.kind == kind]


def expect(text: str, kind: str, value: str) -> None:
    start = text.index(value)
    assert (value, start, start + len(value)) in spans_of(text, kind), spans_of(text, kind)


EMAILS = [
    ("Écrivez à jean.dupont@example.fr demain", "jean.dupont@example.fr"),
    ("mail: Jean.Dupont+news@Example.CO.UK.", "Jean.Dupont+news@Example.CO.UK"),
    ("<marie_curie-1867@mail.univ-paris.fr>", "marie_curie-1867@mail.univ-paris.fr"),
    ("mailto:contact@jean-dupont.fr?subject=hi", "contact@jean-dupont.fr"),
    ("jérôme.élise@exemple.fr", "jérôme.élise@exemple.fr"),
    ("a@b.io", "a@b.io"),
    ("Contact: jean [at] example [dot] com", "jean [at] example [dot] com"),
    ("jean(at)example(dot)fr pour info", "jean(at)example(dot)fr"),
    ("jean {at} exemple {point} fr", "jean {at} exemple {point} fr"),
    ("jean [arobase] exemple [point] fr", "jean [arobase] exemple [point] fr"),
    ("jean [@] example.fr", "jean [@] example.fr"),
    ("jean.dupont [AT] example [DOT] org", "jean.dupont [AT] example [DOT] org"),
    ("write to jean at gmail dot com today", "jean at gmail dot com"),
    ("jean\u200b.dupont@example.fr", "jean\u200b.dupont@example.fr"),
    ("x" * 64 + "@example.com", "x" * 64 + "@example.com"),
    ("premier@a.fr, second@b.de", "second@b.de"),
    # a spelled "at" of prose before the address ("me at ...") does not hide it
    ("reach me at sara.ng[at]bluefin-design[dot]co[dot]uk tomorrow", "sara.ng[at]bluefin-design[dot]co[dot]uk"),
]


@pytest.mark.parametrize(("text", "value"), EMAILS)
def test_email_is_found_with_exact_offsets(text: str, value: str) -> None:
    expect(text, "email", value)


NOT_EMAILS = [
    "user@localhost",
    "foo@bar",
    "@handle on twitter",
    "a@b",
    "version@1.2.3",
    "x" * 65 + "@example.com",
    "meet me at home dot later",
    "write to jean at noon dot ok",
    "a@" * 200,
    "Le prix est de 3 [at] 4",
    "jean@-example.com",
    "name@example.c",
    "prix@1.50€",
    "email me at the office",
    "@@@.com",
    "postgres://app:Tilleul58rq@db.internal:5432/app",
]


@pytest.mark.parametrize("text", NOT_EMAILS)
def test_no_email_in_text_without_an_address(text: str) -> None:
    assert spans_of(text, "email") == []


def test_email_value_never_starts_with_a_dot() -> None:
    assert spans_of("...jean@example.fr", "email") == [("jean@example.fr", 3, 18)]


PHONES = [
    ("Tél : 06 12 34 56 78.", "06 12 34 56 78", 0.9),
    ("appelez le 01 23 45 67 89", "01 23 45 67 89", 0.9),
    ("0612345678", "0612345678", 0.9),
    ("06.12.34.56.78", "06.12.34.56.78", 0.9),
    ("06-12-34-56-78", "06-12-34-56-78", 0.9),
    ("+33 6 12 34 56 78", "+33 6 12 34 56 78", 1.0),
    ("+33 (0)6 12 34 56 78", "+33 (0)6 12 34 56 78", 1.0),
    ("0033 6 12 34 56 78", "0033 6 12 34 56 78", 1.0),
    ("+33612345678", "+33612345678", 1.0),
    ("London: 020 7946 0958", "020 7946 0958", 0.9),
    ("mobile 07911 123456", "07911 123456", 0.9),
    ("+44 20 7946 0958", "+44 20 7946 0958", 1.0),
    ("call (202) 555-0143", "(202) 555-0143", 0.8),
    ("office 202-555-0143", "202-555-0143", 0.7),
    ("+1 415 555 2671", "+1 415 555 2671", 1.0),
    ("1-202-555-0143", "1-202-555-0143", 0.7),
    ("Berlin 030 1234567", "030 1234567", 0.9),
    ("Büro 030/1234567", "030/1234567", 0.9),
    ("Handy 0171 1234567", "0171 1234567", 0.9),
    ("+49 (0)30 1234567", "+49 (0)30 1234567", 1.0),
    ("teléfono 912 345 678", "912 345 678", 0.8),
    ("móvil: 612 34 56 78", "612 34 56 78", 0.8),
    ("+34 612 34 56 78", "+34 612 34 56 78", 1.0),
    ("Roma 06 1234 5678", "06 1234 5678", 0.9),
    ("cellulare 333 123 4567", "333 123 4567", 0.8),
    ("+39 333 123 4567", "+39 333 123 4567", 1.0),
    ("Bruxelles 02 555 12 12", "02 555 12 12", 0.9),
    ("GSM 0470 12 34 56", "0470 12 34 56", 0.9),
    ("Zürich 044 668 18 00", "044 668 18 00", 0.9),
    ("+41 44 668 18 00", "+41 44 668 18 00", 1.0),
    ("06\u00a012\u00a034\u00a056\u00a078", "06\u00a012\u00a034\u00a056\u00a078", 0.9),
    ("06 12\u200b 34 56 78", "06 12\u200b 34 56 78", 0.9),
    ("06\u202f12\u202f34\u202f56\u202f78", "06\u202f12\u202f34\u202f56\u202f78", 0.9),
    # an area code set apart by a slash, the German way
    ("Telefon: 0209 / 41 77 302", "0209 / 41 77 302", 0.9),
    ("Tel. 089 / 123 456 78 bitte", "089 / 123 456 78", 0.9),
    # a Madrid landline as it is written, after a verb of calling with an accent or a contact word
    ("llámame al 91 730 22 84", "91 730 22 84", 0.8),
    ("Contacto: 91 730 22 84", "91 730 22 84", 0.8),
    # after a verb of calling, a number of a country the engine does not check is a phone all the same
    ("call arvind on 9812 044 617 before 5", "9812 044 617", 0.8),
    # an Indian mobile as Indians write it, after a phone word or not
    ("Her number is 98401 22736 if you need it", "98401 22736", 0.8),
    ("lakshmi 98401 22736", "98401 22736", 0.7),
    # the library rejects them (a digit missing, a plan it lacks, an old mobile prefix), but they are laid out
    # as phones and open with a calling code, or follow a phone word: the user's phone all the same
    ("mi tía: +52 1 81 1234 5678, solo whatsapp", "+52 1 81 1234 5678", 0.75),
    ("mi hermana: +58 412-555-123, revísalo", "+58 412-555-123", 0.75),
    ("el número del fontanero es 6 12 34 56 78, porfa", "6 12 34 56 78", 0.8),
    ("numéro wave de tonton : 77 645 12 09 (sénégal)", "77 645 12 09", 0.75),
    ("il numero dell'idraulico è 339/45.67.812, digli", "339/45.67.812", 0.75),
    # an area code set apart by a slash, the subscriber's digits grouped by dots or opening with one digit
    ("son gsm 0478/52.31.09. Lequel ?", "0478/52.31.09", 0.9),
    ("erreichst du unter 0203/4 55 12 78, ab 14 Uhr", "0203/4 55 12 78", 0.9),
    # a digit at a time, a trunk "(0)" after the country code
    ("rappelle-moi au 0 6 1 2 3 4 5 6 7 8 stp", "0 6 1 2 3 4 5 6 7 8", 0.9),
    ("Mobil: +49 (0)151 / 234 567 89", "+49 (0)151 / 234 567 89", 1.0),
]


@pytest.mark.parametrize(("text", "value", "score"), PHONES)
def test_valid_phone_is_found_with_its_confidence(text: str, value: str, score: float) -> None:
    start = text.index(value)
    found = [s for s in detect_contact(text) if s.kind == "phone"]
    assert [(s.value, s.start, s.end, s.score) for s in found] == [(value, start, start + len(value), score)]


def test_two_phones_in_one_run_are_split_at_the_wide_gap() -> None:
    text = "06 12 34 56 78 / 01 23 45 67 89"
    assert [v for v, _, _ in spans_of(text, "phone")] == ["06 12 34 56 78", "01 23 45 67 89"]


def test_phone_followed_by_extra_digits_keeps_its_valid_prefix() -> None:
    assert spans_of("06 12 34 56 78 9", "phone") == [("06 12 34 56 78", 0, 14)]


NOT_PHONES = [
    "le 12/03/2024 à 14h30",
    "the digits 1 2 3 4 5 6 7 8 9 0 in order",
    "le 12.03.2024",
    "2024-03-12T14:30:00",
    "de 14:30 à 16:45",
    "saison 2023-2024",
    "Prix : 1 250 000 €",
    "Montant : 612 345 678 €",
    "SIRET 732 829 320 00074",
    "SIREN : 732 829 320",
    "carte 4111 1111 1111 1111",
    "IBAN FR76 3000 6000 0112 3456 7890 189",
    "NIR 1 85 05 78 006 084 91",
    "0612345678abc",
    "ref A0612345678",
    "06 12 34 56",
    "+33 1 23",
    "commande 45871236",
    "ISBN 978-2-07-036822-8",
    "version 10.0.19041.1",
    "IP 192.168.100.200",
    "732 829 320",
    "2 000 000 habitants",
    "call me about order 12345678",
    "page 0209 / 2024",
    # laid out in groups, with no phone word and no calling code: amounts and counts stay
    "La population est passée de 1 234 567 à 1 345 678 habitants.",
    "Facture n° 2024 0012 345, montant 1 200 €.",
    "+12 345 678 points cette saison",
    # pieces after a phone word that are no phone: years, an order's number
    "call between 2019 - 2020 - 2021",
    "numéro de commande 123 - 456 - 789",
]


@pytest.mark.parametrize("text", NOT_PHONES)
def test_no_phone_in_dates_amounts_and_identifiers(text: str) -> None:
    assert spans_of(text, "phone") == []


@pytest.mark.parametrize(("text", "value"), [
    ("hazme bizum al 6 9 9 - 87 65 43 que el mío no va", "6 9 9 - 87 65 43"),
    ("call me on 0 7700 - 900 - 123 tonight", "0 7700 - 900 - 123"),
    ("ruf mich an: 0171 - 23 45 678", "0171 - 23 45 678"),
])
def test_a_number_typed_in_pieces_after_a_phone_word_is_one_phone(text: str, value: str) -> None:
    start = text.index(value)
    assert spans_of(text, "phone") == [(value, start, start + len(value))]


def test_a_long_run_of_digits_glued_to_a_letter_after_a_phone_word_finishes_and_is_no_phone() -> None:
    """The pieces pattern once split a run of digits every way it could before failing on the letter (30 digits:
    37 s); a run now splits one way only."""
    assert spans_of("tel " + "1" * 60 + "x", "phone") == []


def test_pieces_next_to_a_phone_already_found_are_not_read_again() -> None:
    text = "mon numéro : 06 12 34 56 78 - 15 min avant"
    assert [value for value, _, _ in spans_of(text, "phone")] == ["06 12 34 56 78"]


REGIONS = ["FR", "GB", "DE", "ES", "IT", "BE", "CH", "US"]
NUMBER_TYPES = [PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE, PhoneNumberType.TOLL_FREE]


def example_numbers() -> list[str]:
    """libphonenumber's own example numbers, written nationally and internationally."""
    written = []
    for region in REGIONS:
        for number_type in NUMBER_TYPES:
            number = phonenumbers.example_number_for_type(region, number_type)
            if number is not None:
                for layout in (PhoneNumberFormat.NATIONAL, PhoneNumberFormat.INTERNATIONAL, PhoneNumberFormat.E164):
                    written.append(phonenumbers.format_number(number, layout))
    return written


@pytest.mark.parametrize("number", example_numbers())
def test_example_number_after_a_phone_word_is_found(number: str) -> None:
    text = f"Tél : {number}, merci"
    assert spans_of(text, "phone") == [(number, 6, 6 + len(number))]
