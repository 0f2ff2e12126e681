"""The per-account state document: everything round-trips, malformed and unknown documents are
refused with a clear error."""

from __future__ import annotations

import json

import pytest

from openmasq.chat.conversation import Conversation, Message
from openmasq.memory.ops import create_card
from openmasq.redact import Vault
from openmasq.store import (
    DOCUMENT_VERSION,
    Provider,
    Settings,
    Space,
    StateDocument,
    StateFormatError,
    StateVersionError,
    document_from_json,
    document_to_json,
)


def full_document() -> StateDocument:
    doc = StateDocument(
        settings=Settings(level="strict", mode="token", categories={"url": False}, coffre=["Projet Hermès"],
                          keep=["Paris"], tz_offset_minutes=60, system_prompt="Sois bref.", default_provider="p1"),
        providers=[Provider("p1", "ollama", "http://127.0.0.1:11434/v1", model="qwen", context_tokens=8192)],
        spaces=[Space("s1", "Travail")],
    )
    vault = Vault.new("ef" * 32, "token")
    vault.record("[PERSON1]", "Claire Fontaine", "person")
    conv = Conversation("c1", vault, title="Claire", space="s1")
    conv.messages.append(Message("u1", "user", "Je suis Claire Fontaine", redactions=1, wire="Je suis [PERSON1]"))
    doc.conversations.append(conv)
    create_card(doc.memory, card_id="k1", entity="Claire Fontaine", now=5, category="personne", facts="Designer.")
    return doc


def test_the_whole_document_survives_its_json_form() -> None:
    doc = full_document()
    back = document_from_json(document_to_json(doc))
    assert back.settings == doc.settings and back.providers == doc.providers and back.spaces == doc.spaces
    assert back.conversations == doc.conversations
    assert back.memory.cards == doc.memory.cards
    assert json.loads(document_to_json(back))["version"] == DOCUMENT_VERSION


def test_an_empty_document_loads_with_defaults() -> None:
    doc = document_from_json(json.dumps({"version": DOCUMENT_VERSION}))
    assert doc.settings == Settings() and doc.conversations == [] and doc.memory.cards == []


def test_settings_give_the_redaction_options() -> None:
    options = full_document().settings.redact_options()
    assert options.level == "strict" and options.mode == "token" and options.keep == ("Paris",)
    assert [f.value for f in options.force] == ["Projet Hermès"]


@pytest.mark.parametrize("version", [0, DOCUMENT_VERSION + 1, "2", None, True])
def test_an_unknown_version_is_a_clear_error(version: object) -> None:
    with pytest.raises(StateVersionError, match="version"):
        document_from_json(json.dumps({"version": version}))


@pytest.mark.parametrize("text", [
    "not json",
    "[]",
    json.dumps({"version": DOCUMENT_VERSION, "conversations": "x"}),
    json.dumps({"version": DOCUMENT_VERSION, "conversations": [{"id": "c", "vault": {}}]}),
    json.dumps({"version": DOCUMENT_VERSION, "settings": {"level": 3}}),
    json.dumps({"version": DOCUMENT_VERSION, "memory": {"version": 99}}),
])
def test_a_malformed_document_is_refused(text: str) -> None:
    with pytest.raises(StateFormatError):
        document_from_json(text)
