"""Restoring replies: tolerant to case, accents, separators, line breaks, possessives,
URL encoding and JSON; unknown fake-looking text is left alone."""

from __future__ import annotations

import json

import pytest

from openmasq.redact import Vault, restore, restore_args

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
        ("PERSON1 a appelé", "Jean Martin a appelé"),
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
