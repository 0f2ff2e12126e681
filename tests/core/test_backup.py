"""Conversation backups (chat/backup.py): a JSON export comes back whole, Markdown reads as the chat did,
an import never overwrites (the same conversation twice is skipped and said, a taken id gets a new one),
and a foreign or damaged file is refused with a reason, importing nothing."""

from __future__ import annotations

import itertools
import json

import pytest

from openmasq.chat.backup import (
    FORMAT,
    BackupError,
    export_json,
    export_markdown,
    parse_backup,
    plan_import,
)
from openmasq.chat.conversation import Conversation, Message, conversation_to_dict
from openmasq.redact.vault import Vault

KEY = "ab" * 32


def conv(conv_id: str, title: str, *texts: str) -> Conversation:
    messages = [Message(f"{conv_id}-m{i}", "user" if i % 2 == 0 else "assistant", text, at=1_767_225_600_000 + i)
                for i, text in enumerate(texts)]
    c = Conversation(conv_id, Vault.new(KEY, "fake"), title=title, messages=messages)
    c.vault.entries["Lucie Bernard"] = "Claire Vasseur"
    return c


def ids() -> itertools.count[int]:
    return itertools.count(1)


def test_a_json_export_reads_back_whole_with_the_vault_and_every_turn() -> None:
    first = conv("c1", "Devis", "Écris à Claire Vasseur.", "Bonjour Claire Vasseur,")
    second = conv("c2", "", "Un calcul : $x^2$")
    back = parse_backup(export_json([first, second], now=5))
    assert [conversation_to_dict(c) for c in back] == [conversation_to_dict(first), conversation_to_dict(second)]


def test_markdown_shows_each_turn_under_its_author_and_time_and_skips_empty_turns() -> None:
    text = export_markdown([conv("c1", "Devis", "Écris à Claire.", "", "Merci")],
                           labels={"user": "Vous", "assistant": "Assistant"}, untitled="Sans titre")
    assert text.startswith("# Devis\n")
    assert "**Vous** · 2026-01-01 00:00 UTC\n\nÉcris à Claire." in text
    assert text.count("**Vous**") == 2 and "**Assistant**" not in text  # the empty reply is left out
    assert export_markdown([conv("c2", "", "x")], untitled="Sans titre").startswith("# Sans titre")


def test_importing_the_same_file_twice_adds_nothing_the_second_time_and_says_so() -> None:
    file = export_json([conv("c1", "Devis", "a", "b"), conv("c2", "Plan", "c")], now=1)
    first = plan_import([], parse_backup(file), new_id=lambda: "never")
    assert [c.id for c in first.added] == ["c1", "c2"] and first.skipped == []
    second = plan_import(first.added, parse_backup(file), new_id=lambda: "never")
    assert second.added == [] and [(s.id, s.why) for s in second.skipped] == [("c1", "same-id"), ("c2", "same-id")]


def test_the_same_turns_under_another_id_are_a_duplicate() -> None:
    plan = plan_import([conv("here", "Devis", "a", "b")], [conv("other", "Devis", "a", "b")], new_id=lambda: "x")
    assert plan.added == [] and [(s.why, s.existing_id) for s in plan.skipped] == [("same-content", "here")]


def test_a_different_conversation_with_a_taken_id_comes_in_under_a_new_id_and_overwrites_nothing() -> None:
    mine = conv("c1", "Mine", "a")
    counter = ids()
    plan = plan_import([mine], [conv("c1", "Theirs", "b")], new_id=lambda: f"c{next(counter)}")
    assert plan.renamed == {"c1": "c2"}  # c1 itself is taken, so the next one
    assert [(c.id, c.title) for c in plan.added] == [("c2", "Theirs")]
    assert mine.title == "Mine" and mine.messages[0].content == "a"


@pytest.mark.parametrize(("text", "reason"), [
    ("not json {", "not JSON"),
    (json.dumps({"cards": []}), "no OpenMasq conversation backup"),
    (json.dumps({"format": "openmasq-memory", "version": 1}), "no OpenMasq conversation backup"),
    (json.dumps({"format": FORMAT, "version": 99, "conversations": []}), "newer OpenMasq"),
    (json.dumps({"format": FORMAT, "version": 1}), "no list of conversations"),
    (json.dumps({"format": FORMAT, "version": 1, "conversations": [{"id": "c1", "messages": "x"}]}),
     "conversation 1 of the backup is damaged"),
    (json.dumps({"format": FORMAT, "version": 1, "conversations": [conversation_to_dict(conv("c1", "t", "a"))] * 2}),
     "same conversation id twice"),
])
def test_a_foreign_or_damaged_file_is_refused_with_its_reason(text: str, reason: str) -> None:
    with pytest.raises(BackupError, match=reason):
        parse_backup(text)
