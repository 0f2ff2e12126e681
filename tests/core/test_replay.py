"""Replaying past turns: the same substitution as the send, including spelling variants and,
in token mode, a known person's surname alone (reference 9.13, bug 15a)."""

from __future__ import annotations

from openmasq.redact import RedactOptions, Vault, pseudonymise, replay_for_model, restore


def _conversation(mode: str = "fake") -> Vault:
    return pseudonymise("Contrat de Marie Dupont chez Karl Studio SAS.", Vault.new("aa" * 32),
                        RedactOptions(mode=mode)).vault


def test_replay_masks_exact_and_variant_spellings():
    vault = _conversation()
    wire = replay_for_model("MARIE DUPONT et marie dupont, de Karl Studio.", vault)
    assert "dupont" not in wire.lower() and "karl" not in wire.lower()


def test_replay_detects_nothing_new():
    vault = _conversation()
    assert replay_for_model("Jean Martin est nouveau.", vault) == "Jean Martin est nouveau."


def test_token_mode_replay_masks_a_capitalised_surname_alone_but_not_a_lowercase_word():
    vault = pseudonymise("Léa Morvan a signé.", Vault.new("bb" * 32), RedactOptions(mode="token")).vault
    wire = replay_for_model("Morvan a rappelé, MORVAN insiste, le morvan est une région.", vault)
    assert "Morvan" not in wire and "MORVAN" not in wire
    assert "le morvan est" in wire


def test_categories_switched_off_stay_in_clear_on_replay():
    vault = pseudonymise("Écris à marie.dupont@karl-studio.fr", Vault.new("cc" * 32)).vault
    wire = replay_for_model("marie.dupont@karl-studio.fr", vault, RedactOptions(categories=(("email", False),)))
    assert wire == "marie.dupont@karl-studio.fr"


def test_a_slug_spelling_of_an_organisation_gets_a_slug_fake():
    vault = pseudonymise("Réunion chez Norvik Group demain.", Vault.new("dd" * 32)).vault
    wire = replay_for_model("écrire à contact@norvik-group.fr", vault)
    assert "norvik" not in wire.lower()
    assert " " not in wire.split("à ", 1)[1]


def test_token_mode_surname_alone_restores_as_written():
    vault = pseudonymise("Léa Morvan et Marie Dupont ont signé.", Vault.new("bb" * 32),
                         RedactOptions(mode="token")).vault
    text = "Morvan a rappelé, MORVAN insiste, Dupont aussi."
    wire = replay_for_model(text, vault)
    assert "Morvan" not in wire and "MORVAN" not in wire and "Dupont" not in wire
    assert "[PERSON1b]" in wire  # still read as person 1 by the model
    assert restore(wire, vault) == text
