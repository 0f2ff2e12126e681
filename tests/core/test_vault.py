"""The vault: a versioned JSON document, one real value per substitute, copied per pass."""

from __future__ import annotations

import json

import pytest

from openmasq.redact import Vault, VaultError

KEY = "00" * 32


def test_a_vault_survives_a_json_round_trip():
    vault = Vault.new(KEY, "fake")
    vault.record("Claire Lefèvre", "Marie Dupont", "person")
    vault.record("Lefèvre", "Dupont", "person", alias=True)
    vault.words["marie"] = "Claire"
    vault.counters["n"] = 3
    loaded = Vault.from_json(json.loads(json.dumps(vault.to_json())))
    assert loaded == vault
    assert loaded.reverse() == {"Marie Dupont": "Claire Lefèvre"}


def test_a_substitute_cannot_stand_for_two_real_values():
    vault = Vault.new(KEY)
    vault.record("Claire", "Marie", "person")
    with pytest.raises(VaultError):
        vault.record("Claire", "Julie", "person")


@pytest.mark.parametrize(
    "doc, message",
    [
        ({"version": 99, "key": KEY}, "unsupported vault version"),
        ({"version": 1, "key": "short"}, "at least 16 bytes"),
        ({"version": 1, "key": KEY, "entries": "nope"}, "must be a list"),
        ({"version": 1, "key": KEY, "entries": [["a"]]}, "malformed"),
        ({"version": 1, "key": KEY, "counters": {"n": "x"}}, "counters"),
        ([], "JSON object"),
    ],
)
def test_a_malformed_vault_is_refused_with_a_clear_error(doc, message):
    with pytest.raises(VaultError, match=message):
        Vault.from_json(doc)


def test_copy_is_independent_of_the_original():
    vault = Vault.new(KEY)
    clone = vault.copy()
    clone.record("X", "Y", "person")
    assert len(vault.entries) == 0 and len(clone.entries) == 1


def test_a_new_vault_without_key_draws_a_random_one():
    assert Vault.new().key != Vault.new().key
