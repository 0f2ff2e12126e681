"""Conversation backups, format 2 (chat/backup.py, chat/restore.py; issue 18, item 7): the file holds what
issue 18 added (a conversation's system prompt and persona, each reply's usage, model and provider, the
personas, the providers named without their keys, the account's prompt and prices) and reads back whole; a
format 1 file and older records come in migrated; a file of a newer build is refused with a reason, never
read with fields dropped; an import finds the providers again by address and adds personas, the prompt and
prices only where nothing is there."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openmasq.chat.backup import (
    FORMAT,
    VERSION,
    AccountPart,
    BackupError,
    NewerBackupError,
    ProviderRef,
    export_json,
    export_markdown,
    read_backup,
)
from openmasq.chat.conversation import (
    AttachedFile,
    Conversation,
    Fork,
    Message,
    conversation_from_dict,
    conversation_to_dict,
)
from openmasq.chat.instructions import Persona
from openmasq.chat.restore import match_providers, plan_account, plan_personas, providers_used, remap_conversation
from openmasq.chat.usage import Price
from openmasq.redact.vault import Vault
from openmasq.store.migrations import LATEST_VERSION

KEY = "cd" * 32
PROMPT = "Tu écris pour Maître Odile Ferrand (o.ferrand@ferrand-avocats.fr). Réponds en français."
PERSONA = Persona("p1", "Juriste", "Cite les articles du Code civil.", "prov-a", "law-1")
GATEWAY = ProviderRef("prov-a", "openai", "http://127.0.0.1:4000/v1", "compatible", "Passerelle")


def full_conversation() -> Conversation:
    """A conversation with every part issue 18 and 20 added to a conversation."""
    conv = Conversation("c1", Vault.new(KEY, "fake"), title="Succession", provider="prov-a", model="law-1",
                        system_prompt=PROMPT, persona="p1", created_at=1, updated_at=2)
    conv.vault.entries["Hugo Marchand"] = "Odile Ferrand"
    report = AttachedFile("acte.pdf", "pdf", 1234, "Acte de Odile Ferrand", "acte.pdf", "[Attachment: acte.pdf]")
    conv.messages = [
        Message("u1", "user", "Résume l'acte.", at=10, redactions=1, wire="Résume l'acte.", attachments=[report]),
        Message("a1", "assistant", "Voici le résumé.", at=11, model="law-1", provider="prov-a",
                usage={"input_tokens": 1_200, "output_tokens": 300}),
    ]
    conv.branches = [Message("a0", "assistant", "Première version.", model="law-1", provider="prov-a",
                             parent="u1", usage={"input_tokens": 1_100, "output_tokens": 250})]
    conv.forks = {"u1": Fork(["a0", "a1"], "a1")}
    return conv


def account() -> AccountPart:
    return AccountPart("Sois bref. Signe Odile Ferrand.", {("prov-a", "law-1"): Price(3.0, 15.0),
                                                           ("", "law-1"): Price(1.0, 1.0)}, "EUR")


def whole_file() -> str:
    return export_json([full_conversation()], now=99, personas=[PERSONA], providers=[GATEWAY], account=account())


def test_the_file_holds_the_instructions_usage_personas_providers_and_the_accounts_part() -> None:
    doc: dict[str, Any] = json.loads(whole_file())
    assert (doc["format"], doc["version"], doc["state_version"]) == (FORMAT, VERSION, LATEST_VERSION)
    conv = doc["conversations"][0]
    assert (conv["system_prompt"], conv["persona"], conv["provider"], conv["model"]) == (
        PROMPT, "p1", "prov-a", "law-1")
    reply = conv["messages"][1]
    assert reply["usage"] == {"input_tokens": 1_200, "output_tokens": 300} and reply["provider"] == "prov-a"
    assert conv["branches"][0]["usage"]["output_tokens"] == 250
    assert conv["messages"][0]["attachments"][0]["text"] == "Acte de Odile Ferrand"
    assert doc["personas"] == [{"id": "p1", "name": "Juriste", "instructions": "Cite les articles du Code civil.",
                                "provider": "prov-a", "model": "law-1"}]
    assert doc["providers"] == [{"id": "prov-a", "api": "openai", "base_url": "http://127.0.0.1:4000/v1",
                                 "preset": "compatible", "label": "Passerelle"}]  # no key field at all
    assert doc["account"]["system_prompt"] == "Sois bref. Signe Odile Ferrand."
    assert {(p["provider"], p["model"], p["input"]) for p in doc["account"]["prices"]} == {
        ("prov-a", "law-1", 3.0), ("", "law-1", 1.0)}
    assert doc["account"]["currency"] == "EUR"


def test_a_format_2_file_reads_back_whole() -> None:
    back = read_backup(whole_file())
    assert [conversation_to_dict(c) for c in back.conversations] == [conversation_to_dict(full_conversation())]
    assert back.personas == [PERSONA] and back.providers == [GATEWAY] and back.account == account()


def test_a_format_1_file_is_read_with_its_conversations_whole_and_no_other_part() -> None:
    old = {"format": FORMAT, "version": 1, "exported_at": 5,
           "conversations": [conversation_to_dict(full_conversation())]}
    back = read_backup(json.dumps(old))
    assert conversation_to_dict(back.conversations[0]) == conversation_to_dict(full_conversation())
    assert (back.personas, back.providers, back.account) == ([], [], None)


def test_older_records_in_a_file_are_migrated_by_the_state_documents_migrations() -> None:
    doc = json.loads(whole_file())
    doc["state_version"] = 5  # prices were an object of model id -> price then
    doc["account"]["prices"] = {"law-1": {"input": 2.0, "output": 4.0}}
    back = read_backup(json.dumps(doc))
    assert back.account is not None and back.account.prices == {("", "law-1"): Price(2.0, 4.0)}


@pytest.mark.parametrize("change", [{"version": VERSION + 1}, {"state_version": LATEST_VERSION + 1}])
def test_a_file_of_a_newer_build_is_refused_saying_so_and_nothing_is_read(change: dict[str, int]) -> None:
    doc = json.loads(whole_file()) | change
    with pytest.raises(NewerBackupError, match=r"newer OpenMasq.*nothing was imported"):
        read_backup(json.dumps(doc))


def test_a_format_1_reader_refuses_this_file_because_it_says_format_2() -> None:
    # A format 1 build refuses any version above 1 (its check: version > VERSION); what this build writes
    # therefore never reaches a reader that would drop the instructions, the personas or the prices.
    assert json.loads(whole_file())["version"] == VERSION == 2


@pytest.mark.parametrize(("change", "reason"), [
    ({"personas": [{"id": "", "name": 3}]}, "persona 1"),
    ({"providers": [{"id": 7}]}, "provider 1"),
    ({"account": ["x"]}, "account part"),
    ({"account": {"prices": [{"model": "m", "input": -1, "output": 0}]}}, "prices"),
    ({"state_version": "6"}, "state_version"),
    ({"conversations": {"c1": {}}}, "list of conversations"),
])
def test_a_damaged_part_refuses_the_file_with_its_reason(change: dict[str, Any], reason: str) -> None:
    doc = json.loads(whole_file()) | change
    with pytest.raises(BackupError, match=reason):
        read_backup(json.dumps(doc))


# --- restoring the other parts -------------------------------------------------------------------


def test_providers_are_found_again_by_api_and_address_and_a_missing_one_maps_to_none() -> None:
    here = [ProviderRef("x9", "openai", "http://127.0.0.1:4000/v1/", "compatible", "Mine"),
            ProviderRef("local", "local", "")]
    other = ProviderRef("prov-b", "anthropic", "https://api.anthropic.com", "anthropic")
    found = match_providers([GATEWAY, other], here, referenced={"prov-a", "prov-b", "local", "gone"})
    assert found == {"prov-a": "x9", "prov-b": None, "local": "local", "gone": None}


def test_personas_come_in_once_under_a_free_id_with_their_provider_found_again() -> None:
    providers = {"prov-a": "x9"}
    first = plan_personas([], [PERSONA], providers, new_id=lambda: "never")
    assert [(p.id, p.provider, p.model) for p in first.added] == [("p1", "x9", "law-1")]
    again = plan_personas(first.added, [PERSONA], providers, new_id=lambda: "never")
    assert again.added == [] and again.same == 1 and again.ids == {"p1": "p1"}
    mine = Persona("p1", "Autre", "Autre chose.")
    taken = plan_personas([mine], [PERSONA], providers, new_id=lambda: "p2")
    assert [p.id for p in taken.added] == ["p2"] and taken.ids == {"p1": "p2"}
    lost = plan_personas([], [PERSONA], {"prov-a": None}, new_id=lambda: "never")
    assert (lost.added[0].provider, lost.added[0].model, lost.unmatched) == (None, None, 1)


def test_a_conversation_answers_at_the_provider_found_again_or_at_the_default_one() -> None:
    conv = full_conversation()
    remap_conversation(conv, {"prov-a": "x9"}, {"p1": "p2"})
    assert (conv.provider, conv.model, conv.persona) == ("x9", "law-1", "p2")
    assert conv.messages[1].provider == "x9" and conv.branches[0].provider == "x9"
    lost = full_conversation()
    remap_conversation(lost, {"prov-a": None}, {})
    assert (lost.provider, lost.model, lost.persona) == (None, None, None)
    assert lost.messages[1].provider == "prov-a"  # who wrote it is history: kept as recorded
    assert conversation_from_dict(conversation_to_dict(lost)).provider is None


def test_the_accounts_prompt_and_prices_fill_what_is_empty_and_never_replace_what_is_there() -> None:
    part = account()
    fresh = plan_account("", {}, "USD", part, {"prov-a": "x9"})
    assert (fresh.prompt, fresh.system_prompt, fresh.currency, fresh.prices_added) == (
        "set", part.system_prompt, "EUR", 2)
    assert fresh.prices == {("x9", "law-1"): Price(3.0, 15.0), ("", "law-1"): Price(1.0, 1.0)}
    same = plan_account(part.system_prompt, fresh.prices, "EUR", part, {"prov-a": "x9"})
    assert (same.prompt, same.system_prompt, same.prices_added, same.prices_kept) == ("same", None, 0, 0)
    mine = {("", "law-1"): Price(9.0, 9.0)}
    kept = plan_account("Mon prompt.", mine, "EUR", part, {"prov-a": None})
    assert (kept.prompt, kept.system_prompt) == ("kept", None)
    assert kept.prices == mine and (kept.prices_kept, kept.prices_unmatched) == (1, 1)
    other_currency = plan_account("", mine, "USD", part, {"prov-a": "x9"})
    assert other_currency.prices == mine and other_currency.prices_kept == 2 and other_currency.currency is None
    assert plan_account("x", {}, "USD", None, {}).prompt == "none"


def test_the_providers_a_backup_must_name_are_those_its_parts_use() -> None:
    conv = full_conversation()
    conv.provider = "prov-c"
    used = providers_used([conv], [PERSONA], account().prices)
    assert used == {"prov-a", "prov-c"}


def test_markdown_quotes_the_conversations_own_system_prompt_before_its_turns() -> None:
    text = export_markdown([full_conversation()], labels={"system": "Instructions", "user": "Vous"})
    assert text.index(f"> {PROMPT}") < text.index("**Vous**") and "**Instructions**" in text
    plain = full_conversation()
    plain.system_prompt = ""
    assert "**Instructions**" not in export_markdown([plain])
