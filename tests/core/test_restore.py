"""Restoring replies: tolerant to case, accents, separators, line breaks, possessives,
URL encoding and JSON; unknown fake-looking text is left alone."""

from __future__ import annotations

import importlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openmasq.redact import Restorer, Vault, restore, restore_args

KEY = "11" * 32


@pytest.fixture
def vault() -> Vault:
    v = Vault.new(KEY, "fake")
    v.record("Claire Lefèvre", "Marie Dupont", "person")
    v.record("Lefèvre", "Dupont", "person", alias=True)
    v.record("Claire", "Marie", "person", alias=True)
    v.record("Ostrel Conseil", "Karl Studio", "org")
    v.record("claire.lefevre@verlac.fr", "marie.dupont@karl-studio.fr", "email")
    v.record("+33 6 48 21 90 17", "+33 6 12 34 56 78", "phone")
    v.record("n1", "1 250", "number")
    v.record("[PERSON1]", "Jean Martin", "person")
    return v


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Bonjour Claire Lefèvre.", "Bonjour Marie Dupont."),
        ("CLAIRE LEFÈVRE a signé.", "MARIE DUPONT a signé."),
        ("claire lefevre a signé.", "Marie Dupont a signé."),
        ("Claire\nLefèvre", "Marie Dupont"),
        ("Claire_Lefèvre", "Marie Dupont"),
        ("Claire-Lefevre", "Marie Dupont"),
        ("Mme Lefèvre's file", "Mme Dupont's file"),
        ("Écrire à claire.lefevre@verlac.fr", "Écrire à marie.dupont@karl-studio.fr"),
        ("Appelez le +33 6 48 21 90 17", "Appelez le +33 6 12 34 56 78"),
        ("Total n1 €", "Total 1 250 €"),
        ("N1 is not a token here", "N1 is not a token here"),
        ("Claireville is a town", "Claireville is a town"),
        ("de l'eau claire", "de l'eau claire"),
        ("CLAIRE a signé", "MARIE a signé"),
        ("[PERSON1] a appelé", "Jean Martin a appelé"),
        ("PERSON1 a appelé", "PERSON1 a appelé"),  # only the exact marker restores (issue 17)
        ("\\[PERSON1\\] a appelé", "Jean Martin a appelé"),
        ("[PERSON12] inconnu", "[PERSON12] inconnu"),
        ("Claire%20Lef%C3%A8vre", "Marie%20Dupont"),
        ("Claire+Lef%C3%A8vre", "Marie+Dupont"),
        ("le dossier d'Ostrel Conseil", "le dossier de Karl Studio"),
        ("Un inconnu, Paul Verlac, écrit.", "Un inconnu, Paul Verlac, écrit."),
    ],
)
def test_restore_puts_real_values_back(vault, reply, expected):
    assert restore(reply, vault) == expected


def test_restore_is_a_single_pass_so_restored_text_is_not_rescanned():
    v = Vault.new(KEY)
    v.record("Alpha Corp", "Beta Corp", "org")
    v.record("Beta Corp", "Gamma Corp", "org")
    assert restore("Alpha Corp et Beta Corp", v) == "Beta Corp et Gamma Corp"


def test_ambiguous_case_insensitive_keys_are_left_alone():
    v = Vault.new(KEY)
    v.record("Rose", "Anne", "person")
    v.record("ROSE", "BERTRAND", "person")
    assert restore("rose", v) == "rose"
    assert restore("Rose", v) == "Anne"


def test_tool_arguments_are_restored_inside_json_strings(vault):
    args = json.dumps({"to": "claire.lefevre@verlac.fr", "body": "Bonjour Claire Lefèvre", "n": 3})
    assert json.loads(restore_args(args, vault)) == {
        "to": "marie.dupont@karl-studio.fr", "body": "Bonjour Marie Dupont", "n": 3,
    }


def test_tool_arguments_that_are_not_json_get_json_escaped_values():
    v = Vault.new(KEY)
    v.record("Verlac", 'Karl "K" Studio', "org")
    assert restore_args('{"q": "Verlac', v) == '{"q": "Karl \\"K\\" Studio'


def test_an_empty_vault_changes_nothing():
    assert restore("Claire Lefèvre", Vault.new(KEY)) == "Claire Lefèvre"


# --- the two ways of finding matches --------------------------------------------------------------

restore_module = importlib.import_module("openmasq.redact.restore")

# Substitutes that overlap, nest, begin with an elision's letters or a vowel, or hold separators.
SUBSTITUTES = ["Ana Bel", "Ana", "Bel", "Anabel", "Élo", "Élo Ana", "d'Ana", "Quel", "el", "b.el@an.fr", "n1",
               "[AN1]", "Ana-Bel", "Bel Ana Bel", "Ostrel", "Ostrel Élo"]
SPELLINGS = [*SUBSTITUTES, "ana bel", "ANA BEL", "ana\nbel", "elo", "ELO", "Bela", "n12", "[AN1", "b.el", "é"]
BEFORE = ["", "", "d'", "d’", "qu'", "qu’", "D'", "x", "."]
AFTER = [" ", " ", "\n", ", ", ".", "@", "-", "_", "'s ", "x", ""]
# A text is a run of spellings, each maybe after an elision and before a separator.
TEXTS = st.lists(st.tuples(st.sampled_from(BEFORE), st.sampled_from(SPELLINGS), st.sampled_from(AFTER)),
                 max_size=12).map(lambda parts: "".join(a + b + c for a, b, c in parts))


def _random_vault(subs: list[str]) -> Vault:
    v = Vault.new(KEY, "fake")
    for i, sub in enumerate(subs):
        v.record(sub, f"Réel{i} Nom{i}", "person" if i % 3 else "org", alias=i % 2 == 1)
    return v


def _release_both_ways(restorer, text: str, pos: int, final: bool):
    """(by str.find per key, by the scan at word starts), whatever the text's length."""
    chars_per_key = restore_module.FIND_CHARS_PER_KEY
    try:
        restore_module.FIND_CHARS_PER_KEY = 0
        found = restorer.release(text, pos, final=final)
        restore_module.FIND_CHARS_PER_KEY = 10**9
        scanned = restorer.release(text, pos, final=final)
    finally:
        restore_module.FIND_CHARS_PER_KEY = chars_per_key
    return found, scanned


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(SUBSTITUTES), min_size=1, max_size=10, unique=True), TEXTS, st.data())
def test_matches_listed_by_find_are_those_the_scan_finds(subs, text, data):
    pos = data.draw(st.integers(min_value=0, max_value=len(text)))
    final = data.draw(st.booleans())
    for args in (False, True):
        restorer = Restorer(_random_vault(subs), args=args)
        found, scanned = _release_both_ways(restorer, text, pos, final)
        assert found == scanned


def test_a_long_text_is_searched_key_by_key_and_a_short_piece_scanned(monkeypatch):
    restorer = Restorer(_random_vault(SUBSTITUTES))
    listed: list[str] = []
    all_matches = restorer._all_matches
    monkeypatch.setattr(restorer, "_all_matches",
                        lambda folded, fpos: listed.append(folded) or all_matches(folded, fpos))
    long_text = "Voir d'Ana Bel. " * len(restorer._keys)
    assert restorer.restore(long_text) == "Voir de Réel0 Nom0. " * len(restorer._keys)
    assert restorer.restore("Voir d'Ana Bel.") == "Voir de Réel0 Nom0."
    assert len(listed) == 1 and len(listed[0]) > 100  # the long one only


def test_both_ways_restore_a_sample_alike():
    restorer = Restorer(_random_vault(SUBSTITUTES))
    text = "Voir d'Ana Bel et ANA BEL, b.el@an.fr."
    found, scanned = _release_both_ways(restorer, text, 0, True)
    # "ANA BEL" stays: it folds like "Ana-Bel" too, another real value.
    assert found == scanned and found[0] == "Voir de Réel0 Nom0 et ANA BEL, Réel9 Nom9."
