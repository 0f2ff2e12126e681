"""Rule detection of national and company identifiers: NIR, SIREN, SIRET, VAT, DNI, NIE,
NINO and SSN, with their check digits or context."""

from __future__ import annotations

import random

import pytest

from openmasq.redact import Vault, pseudonymise
from openmasq.redact.checksums import dni_letter, fr_vat_key, luhn_check_digit, nir_key, siret_valid
from openmasq.redact.rules import detect_ids, detect_rules


def spans_of(text: str, kind: str) -> list[tuple[str, int, int]]:
    return [(s.value, s.start, s.end) for s in detect_rules(text) if s.kind == kind]


def located(text: str, value: str) -> list[tuple[str, int, int]]:
    start = text.index(value)
    return [(value, start, start + len(value))]


NBSP_NIR = "1 85 05 78 006 084 91".replace(" ", "\u00a0")
MATCHES = [
    # NIR: spaced, compact, Corsica, with NBSP and zero-width characters inside
    ("NIR : 1 85 05 78 006 084 91", "nir", "1 85 05 78 006 084 91"),
    ("n° sécu 185057800608491", "nir", "185057800608491"),
    ("2 90 12 75 116 003 68", "nir", "2 90 12 75 116 003 68"),
    ("sécurité sociale 1 77 05 99 350 123 33.", "nir", "1 77 05 99 350 123 33"),
    ("NIR 2 84 06 2A 012 345 94", "nir", "2 84 06 2A 012 345 94"),
    ("1.85.05.78.006.084.91", "nir", "1.85.05.78.006.084.91"),
    (NBSP_NIR, "nir", NBSP_NIR),
    ("1 85 05 78 006\u200b 084 91", "nir", "1 85 05 78 006\u200b 084 91"),
    # SIREN only next to its keyword
    ("SIREN : 732 829 320", "siren", "732 829 320"),
    ("siren 732829320", "siren", "732829320"),
    ("RCS Paris B 732 829 320", "siren", "732 829 320"),
    ("immatriculée au RCS de Nanterre sous le numéro 542 051 180", "siren", "542 051 180"),
    ("732 829 320 R.C.S. Paris", "siren", "732 829 320"),
    ("n° SIREN 552.100.554", "siren", "552.100.554"),
    # licence plates in layouts only plates have (Spanish, French, British)
    ("me multaron con el coche 7302 JKT en Teruel", "record_id", "7302 JKT"),
    ("la voiture immatriculée AB-482-KD", "record_id", "AB-482-KD"),
    ("a silver Focus, BD51 SMR, parked outside", "record_id", "BD51 SMR"),
    # SIRET anywhere: 14 digits, both Luhn checks
    ("SIRET : 732 829 320 00074", "siret", "732 829 320 00074"),
    ("73282932000074", "siret", "73282932000074"),
    ("Établissement 542 051 180 00066.", "siret", "542 051 180 00066"),
    ("siret 552.100.554.00013", "siret", "552.100.554.00013"),
    ("732\u00a0829\u00a0320\u00a000074", "siret", "732\u00a0829\u00a0320\u00a000074"),
    # VAT: French key checked anywhere, other EU shapes after a keyword
    ("TVA intracommunautaire : FR44 732829320", "vat", "FR44 732829320"),
    ("FR44732829320", "vat", "FR44732829320"),
    ("FR 59 542 051 180", "vat", "FR 59 542 051 180"),
    ("USt-IdNr.: DE123456789", "vat", "DE123456789"),
    ("VAT number: GB 123 4567 89", "vat", "GB 123 4567 89"),
    ("P.IVA 12345678901", "vat", "12345678901"),
    ("Partita IVA: IT12345678901", "vat", "IT12345678901"),
    ("NIF-IVA ESB12345678", "vat", "ESB12345678"),
    ("BTW-nummer NL123456789B01", "vat", "NL123456789B01"),
    ("UID: ATU12345678", "vat", "ATU12345678"),
    ("n° TVA BE0123456789", "vat", "BE0123456789"),
    ("MWST CHE-123.456.789", "vat", "CHE-123.456.789"),
    # Spanish DNI and NIE: control letter
    ("DNI 12345678Z", "dni", "12345678Z"),
    ("dni: 87654321-X", "dni", "87654321-X"),
    ("00000000T", "dni", "00000000T"),
    ("12.345.678-Z", "dni", "12.345.678-Z"),
    ("NIE X1234567L", "nie", "X1234567L"),
    ("Y-1234567-X", "nie", "Y-1234567-X"),
    ("z1234567r", "nie", "z1234567r"),
    # UK National Insurance number
    ("NI number: AB 12 34 56 C", "nino", "AB 12 34 56 C"),
    ("JG103759A", "nino", "JG103759A"),
    ("ce 12 34 56 d", "nino", "ce 12 34 56 d"),
    # US SSN
    ("SSN: 123-45-6789", "ssn", "123-45-6789"),
    ("123-45-6789", "ssn", "123-45-6789"),
    ("social security number 078 05 1120", "ssn", "078 05 1120"),
    ("SSN 219099999", "ssn", "219099999"),
]


@pytest.mark.parametrize(("text", "kind", "value"), MATCHES)
def test_identifier_is_found_with_exact_offsets(text: str, kind: str, value: str) -> None:
    assert spans_of(text, kind) == located(text, value)


NOT_MATCHES = [
    ("1 85 05 78 006 084 92", "nir"),
    ("185057800608492", "nir"),
    ("1 85 05 78 006 084", "nir"),
    ("4 85 05 78 006 084 91", "nir"),
    ("x185057800608491", "nir"),
    ("732 829 320", "siren"),
    ("commande 732829320", "siren"),
    ("commande 732 829 321", "siren"),  # a bad Luhn after "SIREN" is found by label (test_rules_labelled.py)
    ("SIRET : 732 829 320 00074", "siren"),
    ("SIREN 732 829 3200", "siren"),
    ("732 829 320 00075", "siret"),
    ("12345678901234", "siret"),
    ("732 829 320 000 744", "siret"),
    ("FR45 732829320", "vat"),
    ("FR44 732829321", "vat"),
    ("DE123456789", "vat"),
    ("TVA : 20 %", "vat"),
    ("TVA DE12345", "vat"),
    ("12345678A", "dni"),
    ("123456789Z", "dni"),
    ("A12345678Z", "dni"),
    ("X1234567A", "nie"),
    ("W1234567L", "nie"),
    ("QQ 12 34 56 C", "nino"),
    ("GB123456A", "nino"),
    ("AB123456E", "nino"),
    ("Ab 12 34 56 C", "nino"),
    ("666-12-3456", "ssn"),
    ("000-12-3456", "ssn"),
    ("900-12-3456", "ssn"),
    ("123-00-6789", "ssn"),
    ("123456789", "ssn"),
    ("1234-56-7890", "ssn"),
    ("commande 7302 JKT livrée", "record_id"),
    ("in 2024 ABC opened", "record_id"),
]


@pytest.mark.parametrize(("text", "kind"), NOT_MATCHES)
def test_identifier_with_bad_check_or_no_context_is_not_found(text: str, kind: str) -> None:
    assert spans_of(text, kind) == []


def test_dashed_ssn_without_keyword_is_less_certain() -> None:
    assert [s.score for s in detect_ids("123-45-6789") if s.kind == "ssn"] == [0.85]
    assert [s.score for s in detect_ids("SSN: 123-45-6789") if s.kind == "ssn"] == [1.0]


def test_an_ssn_asked_for_as_a_social_wins_over_the_phone_it_could_be() -> None:
    """"my social is ..." is how an SSN is asked for: the SSN detector, not the phone one, fakes the number (a phone
    fake keeps its leading digits, an SSN's area number)."""
    result = pseudonymise("my social is 078-05-1120 for the credit check", Vault.new(bytes(32), mode="fake"))
    assert [(r.value, r.kind) for r in result.replacements] == [("078-05-1120", "ssn")]


def test_siret_and_its_siren_prefix_are_not_confused() -> None:
    text = "SIREN 732 829 320, SIRET 732 829 320 00074"
    assert spans_of(text, "siren") == [("732 829 320", 6, 17)]
    assert spans_of(text, "siret") == [("732 829 320 00074", 25, 42)]


def _nir_body(rng: random.Random) -> str:
    department = rng.choice([f"{rng.randint(1, 95):02d}", "2A", "2B"])
    return f"{rng.choice('12')}{rng.randint(0, 99):02d}{rng.randint(1, 12):02d}{department}" + (
        f"{rng.randint(1, 999):03d}{rng.randint(1, 999):03d}"
    )


def test_generated_nirs_are_found_compact_and_spaced() -> None:
    rng = random.Random(3)
    for _ in range(100):
        body = _nir_body(rng)
        nir = body + nir_key(body)
        spaced = f"{nir[0]} {nir[1:3]} {nir[3:5]} {nir[5:7]} {nir[7:10]} {nir[10:13]} {nir[13:]}"
        for value in (nir, spaced):
            text = f"NIR : {value}."
            assert spans_of(text, "nir") == located(text, value), text


def _siren(rng: random.Random) -> str:
    payload = f"{rng.randint(10_000_000, 99_999_999)}"
    return payload + luhn_check_digit(payload)


def test_generated_siren_siret_and_vat_numbers_are_found() -> None:
    rng = random.Random(4)
    for _ in range(100):
        siren = _siren(rng)
        nic = next(
            nic for nic in (f"{n:04d}" + luhn_check_digit(siren + f"{n:04d}") for n in range(1, 10_000))
            if siret_valid(siren + nic)
        )
        siret = f"{siren[:3]} {siren[3:6]} {siren[6:]} {nic}"
        vat = f"FR{fr_vat_key(siren)} {siren}"
        text = f"SIREN {siren[:3]} {siren[3:6]} {siren[6:]}, SIRET {siret}, TVA {vat}."
        assert spans_of(text, "siren") == located(text, f"{siren[:3]} {siren[3:6]} {siren[6:]}")
        assert spans_of(text, "siret") == located(text, siret)
        assert located(text, vat)[0] in spans_of(text, "vat")


def test_generated_dni_and_nie_are_found() -> None:
    rng = random.Random(5)
    for _ in range(100):
        number = f"{rng.randint(0, 99_999_999):08d}"
        dni = number + dni_letter(number)
        prefix = rng.choice("XYZ")
        digits = f"{rng.randint(0, 9_999_999):07d}"
        nie = prefix + digits + dni_letter(str("XYZ".index(prefix)) + digits)
        text = f"DNI {dni} / NIE {nie}"
        assert spans_of(text, "dni") == located(text, dni)
        assert spans_of(text, "nie") == located(text, nie)


def test_codice_fiscale_with_a_wrong_check_letter_is_still_found_by_its_layout() -> None:
    text = "cognome,nome,cf\nEsposito,Gennaro,SPSGNR71C12F839U"
    assert [s.value for s in detect_rules(text) if s.kind == "codice_fiscale"] == ["SPSGNR71C12F839U"]
