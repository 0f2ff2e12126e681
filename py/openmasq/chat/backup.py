"""Backups of conversations (issue 18, item 7), pure: a JSON file for re-import, Markdown for reading, and
the plan of an import that never overwrites (a conversation already there, by id or by content, is told
and skipped; one whose id is taken by a different conversation comes in under a new id). The files hold
REAL data (the texts as shown and each conversation's vault); the page may encrypt the JSON with the
Mémoire export's passphrase format (web/app/components/memory-api.js) before it leaves the worker."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from .conversation import Conversation, ConversationFormatError, conversation_from_dict, conversation_to_dict

FORMAT = "openmasq-conversations"
VERSION = 1
ROLE_LABELS = {"user": "You", "assistant": "Assistant"}


class BackupError(ValueError):
    """A file that is no conversation backup, or a damaged one: the message says which, nothing is imported."""


def export_json(conversations: Iterable[Conversation], now: int) -> str:
    """Every conversation given, whole (versions, vault, settings), as one JSON document."""
    doc = {"format": FORMAT, "version": VERSION, "exported_at": now,
           "conversations": [conversation_to_dict(c) for c in conversations]}
    return json.dumps(doc, ensure_ascii=False, indent=1)


def _when(ms: int | None) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC") if ms else ""


def export_markdown(conversations: Iterable[Conversation], labels: dict[str, str] | None = None,
                    untitled: str = "Untitled") -> str:
    """The conversations as the user reads them: a heading per conversation, each turn of the version
    shown under its author and time. For reading only: an import takes the JSON."""
    names = {**ROLE_LABELS, **(labels or {})}
    parts: list[str] = []
    for conv in conversations:
        lines = [f"# {conv.title or untitled}", ""]
        for message in conv.messages:
            if message.role not in ("user", "assistant") or not (message.content or "").strip():
                continue
            when = _when(message.at)
            lines += [f"**{names.get(message.role, message.role)}**" + (f" · {when}" if when else ""), "",
                      message.content.strip(), ""]
        parts.append("\n".join(lines).rstrip() + "\n")
    return "\n---\n\n".join(parts)


def parse_backup(text: str) -> list[Conversation]:
    """The conversations of a backup file, or BackupError saying why the file is refused."""
    try:
        doc = json.loads(text)
    except (ValueError, TypeError):
        raise BackupError("the file is not JSON: it is damaged or is no conversation backup") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise BackupError("the file is no OpenMasq conversation backup")
    version = doc.get("version")
    if not isinstance(version, int) or version < 1:
        raise BackupError("the backup has no valid version")
    if version > VERSION:
        raise BackupError(f"the backup was written by a newer OpenMasq (format {version}; this one reads {VERSION})")
    items = doc.get("conversations")
    if not isinstance(items, list):
        raise BackupError("the backup has no list of conversations")
    conversations: list[Conversation] = []
    for index, item in enumerate(items, 1):
        try:
            conversations.append(conversation_from_dict(item))
        except ConversationFormatError as error:
            raise BackupError(f"conversation {index} of the backup is damaged: {error}") from None
    ids = [c.id for c in conversations]
    if len(set(ids)) != len(ids):
        raise BackupError("the backup holds the same conversation id twice")
    return conversations


def fingerprint(conv: Conversation) -> str:
    """What makes two conversations the same for an import: their title and every turn's role and text."""
    turns: list[Any] = [[m.role, m.content] for m in [*conv.messages, *conv.branches]]
    return hashlib.sha256(json.dumps([conv.title, turns], ensure_ascii=False).encode()).hexdigest()


@dataclass(frozen=True)
class Skipped:
    """A conversation of the file left out: `why` is "same-id" (that very conversation is there) or
    "same-content" (another id, the same turns)."""

    id: str
    title: str
    why: str
    existing_id: str


@dataclass
class ImportPlan:
    """What an import does: `added` go in as they are (or under a new id: `renamed` old -> new);
    `skipped` are already there. Nothing existing is changed."""

    added: list[Conversation] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)


def plan_import(existing: Iterable[Conversation], incoming: Iterable[Conversation],
                new_id: Callable[[], str]) -> ImportPlan:
    """Decides, conversation by conversation, what an import adds; never overwrites one already there."""
    by_id = {c.id: c for c in existing}
    by_print = {fingerprint(c): c.id for c in by_id.values()}
    plan = ImportPlan()
    for conv in incoming:
        mark = fingerprint(conv)
        same = by_id.get(conv.id)
        if same is not None and fingerprint(same) == mark:
            plan.skipped.append(Skipped(conv.id, conv.title, "same-id", same.id))
            continue
        if mark in by_print:
            plan.skipped.append(Skipped(conv.id, conv.title, "same-content", by_print[mark]))
            continue
        if conv.id in by_id:  # the id is taken by a different conversation: this one comes in beside it
            fresh = new_id()
            while fresh in by_id:
                fresh = new_id()
            plan.renamed[conv.id] = fresh
            conv = replace(conv, id=fresh)
        plan.added.append(conv)
        by_id[conv.id] = conv
        by_print[mark] = conv.id
    return plan
