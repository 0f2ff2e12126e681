"""The zero-cost gate (reference 3.2, 11.1 cases 1-4) with the kinds our rule and lexicon
engine produces (reference 12 item 12)."""

from __future__ import annotations

import pytest

from openmasq.memory.extract.gate import GATE_MIN_CHARS, names_an_entity, worth_extracting
from openmasq.redact import Vault, pseudonymise

LONG = "Nous avons discuté du planning de livraison et des prochaines étapes du chantier. " * 7


def test_small_chatter_without_an_entity_is_not_worth_a_call():
    assert not worth_extracting(["quelle heure est-il ?"], [])


def test_an_explicit_ask_passes_despite_the_length_floor():
    assert worth_extracting(["retiens que je préfère le train"], [])


@pytest.mark.parametrize("kind", ["org", "person", "company", "name"])
def test_long_text_with_a_person_or_organisation_is_worth_a_call(kind: str):
    assert len(LONG) >= 500
    assert worth_extracting([LONG], [kind])


@pytest.mark.parametrize("kinds", [[], ["email"], ["phone", "iban", "location", "date"]])
def test_long_text_without_a_person_or_organisation_is_not(kinds: list[str]):
    assert not worth_extracting([LONG], kinds)


def test_empty_or_blank_texts_are_never_worth_a_call():
    assert not worth_extracting([], ["org"])
    assert not worth_extracting(["  ", "\n"], ["org"])


def test_the_floor_is_four_hundred_characters_of_joined_text():
    below = "x" * (GATE_MIN_CHARS - 1)
    assert not worth_extracting([below], ["org"])
    assert worth_extracting([below[:200], below[:199]], ["org"])  # joined with a newline: 400


def test_a_bare_preference_marker_does_not_bypass_the_floor():
    assert not worth_extracting(["désormais je préfère le thé"], [])


def test_kinds_from_the_rule_and_lexicon_engine_open_the_gate():
    text = "Contrat de Marie Dupont chez Karl Studio SAS. " + LONG
    kinds = [rep.kind for rep in pseudonymise(text, Vault.new("ab" * 32)).replacements]
    assert "person" in kinds and "org" in kinds
    assert worth_extracting([text], kinds)


@pytest.mark.parametrize(("kind", "expected"), [("person", True), ("org", True), ("username", False),
                                                 ("email", False), ("unknown-kind", False)])
def test_names_an_entity_reads_the_fine_kinds_category(kind: str, expected: bool):
    assert names_an_entity(kind) is expected
