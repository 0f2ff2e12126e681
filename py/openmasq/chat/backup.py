"""Backups of conversations (issue 18, item 7), pure: a JSON file for re-import, Markdown for reading, and
the plan of an import that never overwrites (a conversation already there, by id or by content, is told
and skipped; one whose id is taken by a different conversation comes in under a new id). The files hold
REAL data (the texts as shown and each conversation's vault); the page may encrypt the JSON with the
Mémoire export's passphrase format (web/app/components/memory-api.js) before it leaves the worker.

Format 2 (issue 18) carries what the conversations need besides their turns: the personas they speak with,
the providers they name (kind and address, never a key), and in a whole-account export the account's
system prompt and prices (chat/restore.py plans how those come in). It also says the state document
version its records are written in (`state_version`): they are migrated on import with the state
document's own migrations, and a file written by a newer build (either number) is refused, never read
with its unknown fields dropped. A format 1 file is read as format 2 with none of those parts."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from ..store.migrations import LATEST_VERSION, StateVersionError, migrate
from .conversation import Conversation, ConversationFormatError, conversation_from_dict, conversation_to_dict
from .instructions import Persona, persona_from_dict, persona_to_dict
from .usage import Price, PriceKey, prices_from, prices_to_list

FORMAT = "openmasq-conversations"
VERSION = 2
# A format 1 file was written by builds whose records were at state versions 3 to 5; the migrations from 3
# to 5 change nothing in a conversation, so its conversations are read as version 5 records.
FORMAT_1_STATE_VERSION = 5
ROLE_LABELS = {"user": "You", "assistant": "Assistant", "system": "Instructions"}


class BackupError(ValueError):
    """A file that is no conversation backup, or a damaged one: the message says which, nothing is imported."""


class NewerBackupError(BackupError):
    """A file written by a newer OpenMasq: reading it would drop what this build does not know."""


@dataclass(frozen=True)
class ProviderRef:
    """A provider a backup names (a conversation, a persona or a price uses it): enough to find the same
    provider in another account (its API and address), never its key."""

    id: str
    api: str
    base_url: str
    preset: str = ""
    label: str = ""


@dataclass(frozen=True)
class AccountPart:
    """What a whole-account export carries of the account itself (REAL: the prompt may name people)."""

    system_prompt: str = ""
    prices: dict[PriceKey, Price] = field(default_factory=dict)
    currency: str = "USD"


@dataclass
class Backup:
    conversations: list[Conversation]
    personas: list[Persona] = field(default_factory=list)
    providers: list[ProviderRef] = field(default_factory=list)
    account: AccountPart | None = None  # only in a whole-account export


def export_json(conversations: Iterable[Conversation], now: int, personas: Iterable[Persona] = (),
                providers: Iterable[ProviderRef] = (), account: AccountPart | None = None) -> str:
    """Every conversation given, whole (versions, vault, settings, instructions, usage), as one JSON document
    with the personas and providers they name and, for a whole account, the account's part."""
    doc: dict[str, Any] = {
        "format": FORMAT, "version": VERSION, "state_version": LATEST_VERSION, "exported_at": now,
        "conversations": [conversation_to_dict(c) for c in conversations],
        "personas": [persona_to_dict(p) for p in personas],
        "providers": [{"id": p.id, "api": p.api, "base_url": p.base_url, "preset": p.preset, "label": p.label}
                      for p in providers],
    }
    if account is not None:
        doc["account"] = {"system_prompt": account.system_prompt, "prices": prices_to_list(account.prices),
                          "currency": account.currency}
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
        if conv.system_prompt.strip():  # the conversation's own instructions, quoted before its turns
            quoted = "\n".join(f"> {line}" if line else ">" for line in conv.system_prompt.strip().splitlines())
            lines += [f"**{names['system']}**", "", quoted, ""]
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
    return read_backup(text).conversations


def _envelope(text: str) -> dict[str, Any]:
    try:
        doc = json.loads(text)
    except (ValueError, TypeError):
        raise BackupError("the file is not JSON: it is damaged or is no conversation backup") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise BackupError("the file is no OpenMasq conversation backup")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise BackupError("the backup has no valid version")
    if version > VERSION:
        raise NewerBackupError(f"the backup was written by a newer OpenMasq (backup format {version}; this one "
                               f"reads up to {VERSION}): update OpenMasq to import it, nothing was imported")
    return doc


def _state_version(doc: dict[str, Any]) -> int:
    if doc["version"] == 1:
        return FORMAT_1_STATE_VERSION
    state = doc.get("state_version")
    if isinstance(state, bool) or not isinstance(state, int) or state < 1:
        raise BackupError("the backup has no valid state_version")
    if state > LATEST_VERSION:
        raise NewerBackupError(f"the backup was written by a newer OpenMasq (records of version {state}; this one "
                               f"reads up to {LATEST_VERSION}): update OpenMasq to import it, nothing was imported")
    return state


def _migrated(doc: dict[str, Any]) -> dict[str, Any]:
    """The backup's records at this build's state version, by the state document's own migrations."""
    account = doc.get("account")
    wrapped = {"version": _state_version(doc), "conversations": doc.get("conversations"),
               "personas": doc.get("personas", []), "settings": account if isinstance(account, dict) else {}}
    if not isinstance(wrapped["conversations"], list):
        raise BackupError("the backup has no list of conversations")
    try:
        return migrate(wrapped)
    except (StateVersionError, AttributeError, TypeError) as error:
        raise BackupError(f"the backup's records cannot be read: {error}") from None


def _listed(doc: dict[str, Any], key: str) -> list[Any]:
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise BackupError(f"the backup's {key} are not a list")
    return value


def _provider_ref(value: object, index: int) -> ProviderRef:
    fields = {key: value.get(key, "") for key in ("id", "api", "base_url", "preset", "label")} if isinstance(
        value, dict) else {}
    if not fields or not all(isinstance(v, str) for v in fields.values()) or not fields["id"]:
        raise BackupError(f"provider {index} of the backup is damaged")
    return ProviderRef(**fields)


def _account(value: object) -> AccountPart | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BackupError("the backup's account part is damaged")
    prompt, currency = value.get("system_prompt", ""), value.get("currency", "USD")
    if not isinstance(prompt, str) or not isinstance(currency, str):
        raise BackupError("the backup's account part is damaged: system_prompt and currency are texts")
    try:
        prices = prices_from(value.get("prices", []))
    except ValueError as error:
        raise BackupError(f"the backup's prices are damaged: {error}") from None
    return AccountPart(prompt, prices, currency)


def read_backup(text: str) -> Backup:
    """Everything a backup file holds, at this build's versions, or BackupError (NewerBackupError for a file
    of a newer build) saying why the file is refused."""
    doc = _envelope(text)
    migrated = _migrated(doc)
    conversations: list[Conversation] = []
    for index, item in enumerate(migrated["conversations"], 1):
        try:
            conversations.append(conversation_from_dict(item))
        except ConversationFormatError as error:
            raise BackupError(f"conversation {index} of the backup is damaged: {error}") from None
    ids = [c.id for c in conversations]
    if len(set(ids)) != len(ids):
        raise BackupError("the backup holds the same conversation id twice")
    personas: list[Persona] = []
    for index, item in enumerate(_listed(migrated, "personas"), 1):
        try:
            personas.append(persona_from_dict(item))
        except ConversationFormatError as error:
            raise BackupError(f"persona {index} of the backup is damaged: {error}") from None
    providers = [_provider_ref(item, index) for index, item in enumerate(_listed(doc, "providers"), 1)]
    if doc.get("account") is not None and not isinstance(doc.get("account"), dict):
        raise BackupError("the backup's account part is damaged")
    account = _account(migrated["settings"]) if doc.get("account") is not None else None
    return Backup(conversations, personas, providers, account)


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
