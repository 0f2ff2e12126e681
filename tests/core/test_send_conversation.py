"""Conversations and messages (reference 1.3, 1.4): JSON round trip, the replay rule, bad input."""

from __future__ import annotations

import pytest

from openmasq.chat.conversation import (
    Conversation,
    ConversationFormatError,
    MemorySkip,
    Message,
    ToolUse,
    conversation_from_dict,
    conversation_to_dict,
    message_from_dict,
    message_to_dict,
)
from openmasq.redact import Vault


def full_conversation() -> Conversation:
    vault = Vault.new("cd" * 32, "fake")
    vault.record("Paul Remy", "Claire Fontaine", "person")
    conv = Conversation("c1", vault, title="Claire", space="s1", created_at=1, updated_at=2,
                        memory_watermark=2, memory_off=True, redact_categories={"url": True},
                        revealed_values=["Paris"], forced_redactions=[("Projet X", "org")],
                        model="gpt", provider="p1")
    conv.messages = [
        Message("u1", "user", "Je suis Claire Fontaine", at=5, redactions=1,
                redacted_spans=[("Claire Fontaine", "person")], wire="Je suis Paul Remy", wire_memory="Mémoire…",
                context_dropped=4),
        Message("a1", "assistant", "Bonjour Claire", at=6, memory_used=["profile", "k1"],
                memory_skipped=[MemorySkip("k2", "budget")], interrupted=True, error="network",
                tool_uses=[ToolUse("memory_search", '{"query":"Claire"}', '{"query":"Paul"}', "Souvenirs…")],
                usage={"input_tokens": 3}, memory_noted=0, memory_noted_ids=["k3"], memory_updated_ids=["k1"],
                reasoning="Claire cherche un rendez-vous."),
    ]
    return conv


def test_a_conversation_survives_its_json_form() -> None:
    conv = full_conversation()
    back = conversation_from_dict(conversation_to_dict(conv))
    assert back == conv


def test_a_minimal_message_is_written_without_empty_fields() -> None:
    assert message_to_dict(Message("m", "assistant", "ok")) == {"id": "m", "role": "assistant", "content": "ok"}


@pytest.mark.parametrize("role, redactions, replayable", [
    ("user", None, False), ("user", 0, True), ("assistant", None, True)])
def test_a_user_turn_replays_only_when_its_redaction_count_is_present(
        role: str, redactions: int | None, replayable: bool) -> None:
    message = message_from_dict({"id": "m", "role": role, "content": "x", "redactions": redactions})
    assert message.replayable is replayable


@pytest.mark.parametrize("doc", [
    {"id": "m", "role": "robot", "content": "x"},
    {"id": "m", "role": "user", "content": 3},
    {"id": "m", "role": "user", "content": "x", "redactions": "1"},
    {"id": "m", "role": "user", "content": "x", "redacted_spans": [["a"]]},
    "not an object",
])
def test_a_malformed_message_is_refused(doc: object) -> None:
    with pytest.raises(ConversationFormatError):
        message_from_dict(doc)


def test_a_conversation_with_a_bad_vault_is_refused() -> None:
    doc = conversation_to_dict(full_conversation())
    doc["vault"] = {"version": 99}
    with pytest.raises(ConversationFormatError, match="vault"):
        conversation_from_dict(doc)


def test_known_real_values_are_the_vault_values() -> None:
    assert full_conversation().known_real_values() == ["Claire Fontaine"]


def test_the_usage_index_reads_conversations_as_they_are() -> None:
    from openmasq.memory.usage import usage_index

    usage = usage_index([full_conversation()])
    assert usage["k1"].conv_count == 1 and "profile" not in usage
