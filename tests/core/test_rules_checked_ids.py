"""Identifiers found without a label by their check digits (codice fiscale, SV-Nummer, Steuer-ID,
ABN, numéro fiscal, CIF, K/L/M NIF, Italian VAT), their near misses, fakes that pass the same
check, and round trips."""

from __future__ import annotations

import random

import pytest

from openmasq.redact import Vault, checksums, fakes, pseudonymise
from openmasq.redact.restore import Restorer
from openmasq.redact.rules import detect_rules

KEY = bytes(range(32))

FOUND = [
    ("Il mio codice fiscale è RSSMRA85T10A562S.", "RSSMRA85T10A562S", "codice_fiscale"),
    ("cf rssmra85t10a562s", "rssmra85t10a562s", "codice_fiscale"),
    ("Versicherung: 15 070649 C 103", "15 070649 C 103", "svnr"),
    ("meine Nummer 36 574 261 809 bitte", "36 574 261 809", "steuer_id"),
    ("Business 51 824 753 556 Pty Ltd", "51 824 753 556", "abn"),
    ("avis d'imposition 30 23 217 600 053", "30 23 217 600 053", "tax_id"),
    ("empresa A58818501, Madrid", "A58818501", "cif"),
    ("K1234567L", "K1234567L", "nif"),
    ("fornitore IT00743110157", "IT00743110157", "vat"),
]


@pytest.mark.parametrize(("text", "value", "kind"), FOUND)
def test_checksummed_identifier_is_found_without_a_label(text: str, value: str, kind: str) -> None:
    start = text.index(value)
    assert (value, start, kind) in {(s.value, s.start, s.kind) for s in detect_rules(text)}


NEAR_MISSES = [
    ("RSSMRA85T10A562", "codice_fiscale"),  # a letter short: no layout of a codice fiscale
    ("RssMRA85T10A562S", "codice_fiscale"),  # mixed case is prose or a code
    ("15 070649 C 104", "svnr"),
    ("36 574 261 808", "steuer_id"),
    ("36574261809", "steuer_id"),  # compact: only by label
    ("Bestellung 36 574 261 809", "steuer_id"),
    ("51 824 753 557", "abn"),
    ("30 23 217 600 054", "tax_id"),
    ("EAN 3023217600053", "tax_id"),
    ("A58818502", "cif"),
    ("commande A58818501", "cif"),
    ("K1234567A", "nif"),
    ("IT00743110158", "vat"),
    ("1 250 000 €", "steuer_id"),
    ("version 12.345.678.901", "steuer_id"),
]


@pytest.mark.parametrize(("text", "kind"), NEAR_MISSES)
def test_near_miss_is_not_taken_for_an_identifier(text: str, kind: str) -> None:
    assert not [s for s in detect_rules(text) if s.kind == kind]


FAKES_CHECKED = [
    ("codice_fiscale", "RSSMRA85T10A562S", checksums.codice_fiscale_valid),
    ("steuer_id", "36 574 261 809", checksums.steuer_id_valid),
    ("svnr", "15 070649 C 103", checksums.svnr_valid),
    ("abn", "51 824 753 556", checksums.abn_valid),
    ("tfn", "123 456 782", checksums.tfn_valid),
    ("tax_id", "30 23 217 600 053", checksums.fr_tax_id_valid),
    ("cif", "A58818501", checksums.cif_valid),
    ("nif", "K1234567L", checksums.nif_klm_valid),
    ("vat", "IT00743110157", checksums.it_vat_valid),
    ("id_card", "T220001293", lambda v: checksums.icao_check_digit(v[:9]) == v[9]),
    ("iban", "30006 00001 12345678901 89",
     lambda v: checksums.rib_key(*(lambda c: (c[:5], c[5:10], c[10:21]))(checksums.compact(v))) == v[-2:]),
]


@pytest.mark.parametrize(("kind", "real", "valid"), FAKES_CHECKED)
def test_fake_keeps_the_layout_and_passes_the_check(kind: str, real: str, valid) -> None:  # type: ignore[no-untyped-def]
    for seed in range(20):
        fake = fakes.fake_for(kind, real, random.Random(seed))
        assert fake != real and valid(fake), fake
        assert [ch.isalnum() for ch in fake] == [ch.isalnum() for ch in real]


@pytest.mark.parametrize("kind", ["passport", "record_id", "id_card", "codice_fiscale", "steuer_id", "cif"])
def test_a_labelled_value_of_odd_shape_keeps_its_shape(kind: str) -> None:
    fake = fakes.fake_for(kind, "AB-12x", random.Random(1))
    assert fake != "AB-12x" and len(fake) == 6 and fake[2] == "-"


@pytest.mark.parametrize(("text", "value", "_kind"), FOUND)
def test_checksummed_identifier_round_trips(text: str, value: str, _kind: str) -> None:
    result = pseudonymise(text, Vault.new(KEY))
    assert value not in result.text
    assert Restorer(result.vault).restore(result.text) == text


@pytest.mark.parametrize(("real", "prefix"), [("MORGA657054SM9IJ", ""), ("K7QX9P", "K"), ("POL-88234-77", "POL-"),
                                              ("MRN 0042317", "MRN "), ("12AB34567", "")])
def test_a_record_number_keeps_only_the_prefix_naming_its_kind(real: str, prefix: str) -> None:
    """A UK driving licence opens with the surname and holds the initials: its letters are redrawn as its
    digits are, and only a short head naming the kind ("MRN", "POL-") stays."""
    for seed in range(30):
        fake = fakes.fake_for("record_id", real, random.Random(seed))
        assert fake.startswith(prefix) and len(fake) == len(real)
        assert [ch.isalpha() for ch in fake] == [ch.isalpha() for ch in real]
        if real == "MORGA657054SM9IJ":
            assert "MORGA" not in fake
