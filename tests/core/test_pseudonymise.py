"""Pseudonymise: believable, consistent, reversible fakes, and nothing real left (fail closed)."""

from __future__ import annotations

import re
import sys

import pytest

from openmasq.redact import Forced, RedactionError, RedactOptions, Vault, pseudonymise, restore
from openmasq.redact import apply as apply_module
from openmasq.redact.checksums import card_valid, iban_valid
from openmasq.redact.text import fold

KEY = "33" * 32

MESSAGE = (
    "Bonjour, je prépare le contrat de Marie Dupont (marie.dupont@karl-studio.fr, 06 12 34 56 78) "
    "chez Karl Studio SAS. IBAN FR76 3000 6000 0112 3456 7890 189, carte 4111 1111 1111 1111. "
    "Mme Dupont habite 12 rue de la Paix, 75002 Paris."
)
REALS = ["Marie Dupont", "marie.dupont@karl-studio.fr", "06 12 34 56 78", "Karl Studio",
         "FR76 3000 6000 0112 3456 7890 189", "4111 1111 1111 1111", "12 rue de la Paix"]


def _redact(text: str, vault: Vault | None = None, **options: object):
    return pseudonymise(text, vault if vault is not None else Vault.new(KEY), RedactOptions(**options))  # type: ignore[arg-type]


def test_no_real_value_survives_and_the_reply_restores():
    result = _redact(MESSAGE)
    for real in REALS:
        assert real not in result.text, real
    assert "Dupont" not in result.text
    assert restore(result.text, result.vault) == MESSAGE


def test_structured_fakes_keep_their_validity_and_shape():
    result = _redact(MESSAGE)
    by_kind = {rep.kind: rep.substitute for rep in result.replacements}
    assert iban_valid(by_kind["iban"]) and by_kind["iban"].startswith("FR")
    assert card_valid(by_kind["card"]) and by_kind["card"].startswith("4")
    assert re.fullmatch(r"0[67] \d\d \d\d \d\d \d\d", by_kind["phone"])
    assert by_kind["email"].endswith(".fr")


def test_the_same_person_keeps_one_identity_across_spellings_and_turns():
    first = _redact("Marie Dupont a appelé. DUPONT rappellera.")
    fake = first.mapping
    full = next(sub for sub, real in fake.items() if real == "Marie Dupont")
    fake_surname = full.split()[-1]
    assert fake_surname.upper() in first.text
    second = _redact("Dites à Mme Dupont et à Marie que c'est d'accord.", first.vault)
    assert fake_surname in second.text
    assert full.split()[0] in second.text
    assert "Dupont" not in second.text and "Marie" not in second.text


def test_two_brothers_share_a_fake_surname_but_not_a_first_name():
    result = _redact("Paul Garnier et Louis Garnier sont frères.")
    paul = result.vault.reverse()["Paul Garnier"]
    louis = result.vault.reverse()["Louis Garnier"]
    assert paul.split()[-1] == louis.split()[-1]
    assert paul.split()[0] != louis.split()[0]


def test_a_fake_first_name_keeps_the_gender():
    from openmasq.redact import lexicon

    result = _redact("Réunion avec Marie Dupont et Jean Martin.")
    reverse = result.vault.reverse()
    assert lexicon.first_name_gender(reverse["Marie Dupont"].split()[0]) in ("f", "x")
    assert lexicon.first_name_gender(reverse["Jean Martin"].split()[0]) in ("m", "x")


def test_fakes_are_keyed_per_conversation():
    one = _redact("Marie Dupont", Vault.new("44" * 32)).text
    two = _redact("Marie Dupont", Vault.new("55" * 32)).text
    again = _redact("Marie Dupont", Vault.new("44" * 32)).text
    assert one == again
    assert one != two


def test_a_fake_never_equals_a_word_of_the_text_or_another_fake():
    text = " ".join(f"{first} {last}." for first, last in [
        ("Marie", "Dupont"), ("Jean", "Martin"), ("Claire", "Bernard"), ("Louis", "Petit"), ("Sophie", "Durand"),
        ("Paul", "Leroy"), ("Julie", "Moreau"), ("Pierre", "Simon"), ("Emma", "Laurent"), ("Hugo", "Michel"),
    ])
    result = _redact(text)
    subs = [rep.substitute for rep in result.replacements]
    assert len(set(subs)) == len(set(rep.value for rep in result.replacements))
    words = set(fold(text).split())
    for sub in subs:
        assert not (set(fold(sub).split()) & words), sub


def test_the_vault_is_not_touched_when_the_caller_keeps_the_old_one():
    vault = Vault.new(KEY)
    _redact("Marie Dupont", vault)
    assert vault.entries == {}


def test_the_mode_is_pinned_at_the_first_redaction():
    first = _redact("Marie Dupont", mode="token")
    assert first.vault.mode == "token"
    second = _redact("Jean Martin", first.vault, mode="fake")
    assert re.search(r"\[PERSON\d+\]", second.text)


@pytest.mark.parametrize(
    "variant",
    ["Camille Verlant", "CAMILLE VERLANT", "camille verlant", "Camille  Verlant", "Camille\nVerlant",
     "Camille-Verlant", "Camille_Verlant", "Cámille Verlánt", "Camille\u00a0Verlant"],
)
def test_a_forced_value_never_leaks_in_any_variant(variant):
    options = {"force": (Forced("Camille Verlant", "person"),)}
    result = _redact(f"Le dossier de {variant} est prêt, {variant}.", **options)
    assert fold("Camille Verlant") not in fold(result.text)
    assert "verlant" not in fold(result.text)


def test_keep_list_values_stay_in_clear():
    result = _redact("Marie Dupont travaille avec Jean Martin.", keep=("Jean Martin",))
    assert "Jean Martin" in result.text and "Marie Dupont" not in result.text


def test_standard_level_leaves_names_but_masks_structured_values():
    result = _redact(MESSAGE, level="standard")
    assert "Marie Dupont" in result.text
    assert "marie.dupont@karl-studio.fr" not in result.text
    assert "06 12 34 56 78" not in result.text


def test_secrets_are_masked_at_every_level():
    key = "sk-proj-Tq3ZbX9kLm2Vw8Rt5Yp1Hs4Jd7Fg0Qa6Ce"
    for level in ("standard", "renforce", "strict"):
        result = _redact(f"ma clé: {key}", level=level)
        assert key not in result.text


def test_famous_people_and_brands_are_spared_below_strict_but_not_in_strict():
    text = "J'ai partagé le fichier sur Google Drive avec Emmanuel Macron en copie."
    assert "Google Drive" in _redact(text).text
    assert "Emmanuel Macron" in _redact(text).text
    assert "Emmanuel Macron" not in _redact(text, level="strict").text


def test_the_postcondition_fails_closed_when_a_value_would_survive(monkeypatch):
    def sloppy_apply(text, planned, vault, **kwargs):
        return text, []

    module = sys.modules["openmasq.redact.pseudonymise"]
    monkeypatch.setattr(module, "apply", sloppy_apply)
    with pytest.raises(RedactionError, match="postcondition"):
        _redact("Écrire à marie.dupont@karl-studio.fr")
    assert apply_module.apply is not sloppy_apply


def test_token_mode_numbers_markers_per_kind_and_links_partial_spellings():
    result = _redact("Léa Morvan (lea.morvan@ostrel.fr) a écrit. Morvan rappelle demain.", mode="token")
    assert "[PERSON1]" in result.text
    assert re.search(r"\[EMAIL1\]", result.text)
    assert "Morvan" not in result.text
    assert restore(result.text, result.vault) == "Léa Morvan (lea.morvan@ostrel.fr) a écrit. Morvan rappelle demain."


def test_token_mode_counters_continue_across_turns():
    first = _redact("Appelez Marie Dupont.", mode="token")
    second = _redact("Et aussi Jean Martin.", first.vault)
    assert "[PERSON2]" in second.text


@pytest.mark.parametrize(
    "text",
    ["", "   ", "🙂🙃 مرحبا שלום 你好", "Bonjour [PERSON1] et n1", "Signé Claire Lefèvre"],
)
def test_odd_input_is_handled_and_restores(text):
    result = _redact(text)
    assert restore(result.text, result.vault) == text


def test_a_zero_width_character_inside_a_name_does_not_defeat_detection():
    result = _redact("Contrat de Marie Du\u200bpont, signé par Marie Du\u200bpont.")
    assert "Du\u200bpont" not in result.text and "Dupont" not in result.text


def test_a_fake_generator_that_cannot_shape_a_value_falls_back_to_a_marker(monkeypatch):
    module = sys.modules["openmasq.redact.allocate"]

    def broken(kind, value, rng, **hints):
        raise ValueError("unparseable")

    monkeypatch.setattr(module.fakes, "fake_for", broken)
    result = _redact("Écrire à marie.dupont@karl-studio.fr")
    assert "marie.dupont" not in result.text
    assert re.search(r"\[EMAIL\d+\]", result.text)
    assert restore(result.text, result.vault) == "Écrire à marie.dupont@karl-studio.fr"


def test_the_language_option_sets_the_locale_of_fakes_for_names_of_unknown_origin():
    from openmasq.redact import lexicon

    def locales(lang: str) -> list[str | None]:
        out = []
        for seed in range(6):
            vault = Vault.new(f"{seed:02d}" * 32)
            result = pseudonymise("Herr Xqorvath hat angerufen.", vault, RedactOptions(lang=lang))
            out.append(lexicon.locale_of_name(result.vault.reverse()["Xqorvath"]))
        return out

    assert locales("de").count("de") >= 5
    assert locales("fr").count("de") == 0


def test_hosts_of_one_network_keep_one_fake_network_across_passes():
    text = "Serveurs 10.0.0.5 et 10.0.0.6:8080, passerelle 10.0.1.1 ; DNS 8.8.8.8 et 8.8.4.4."
    for _ in range(20):  # a new key each time: a fake network drawn for each real one
        result = pseudonymise(text, Vault.new(), RedactOptions())
        fake = {r.value: r.substitute.split(":")[0] for r in result.replacements if r.kind == "ipv4"}
        subnet = {real: ip.rpartition(".")[0] for real, ip in fake.items()}
        assert subnet["10.0.0.5"] == subnet["10.0.0.6"] != "10.0.0"
        assert subnet["10.0.1.1"] != "10.0.1" and subnet["8.8.8.8"] != "8.8.8"
        assert fake["10.0.0.5"] != fake["10.0.0.6"]  # one fake per host, in the one fake network
        later = pseudonymise("Et 10.0.0.9 ?", result.vault, RedactOptions())
        assert later.text.startswith(f"Et {subnet['10.0.0.5']}.")
