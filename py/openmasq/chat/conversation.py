"""Conversations and their messages (reference 1.3, 1.4): REAL text as displayed, the vault that
restores the model's fakes, what each turn sent over the wire, and their JSON form."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..redact import Vault

Role = Literal["system", "user", "assistant"]
ROLES: tuple[Role, ...] = ("system", "user", "assistant")
PROFILE_SENTINEL = "profile"  # in memory_used: the profile was injected


class ConversationFormatError(ValueError):
    """A conversation or message document that cannot be loaded."""


@dataclass(frozen=True)
class MemorySkip:
    """A card not injected in a send, and why (budget, homograph, ...)."""

    id: str
    reason: str


@dataclass(frozen=True)
class ToolUse:
    """One tool call of a turn: the arguments restored (real) and as the model wrote them, and
    the result exactly as the model received it."""

    name: str
    arguments: str
    wire_arguments: str
    wire_result: str


@dataclass(frozen=True)
class AttachedFile:
    """A file sent with a user turn (issue 20): its REAL name and extracted text (stored encrypted with
    the conversation, replayed through the vault on later turns), and what the model received for it."""

    name: str  # as the user gave it
    format: str  # attach.FORMATS ("pdf", "docx", ...)
    size: int  # bytes of the file as given
    text: str  # REAL: the text read from it (attach.Extracted.text)
    wire_name: str  # the name it went under: faked where it held personal data
    wire: str = ""  # the text part exactly as sent ("[Attachment: <wire_name>]" and the redacted text)
    kind: str = "document"  # "document" or "image" (chat/attachments.py)
    warnings: tuple[str, ...] = ()  # what the reader said (pages without a text layer, ...)
    image: str = ""  # an image sent as one: the masked PNG exactly as sent, base64 ("" otherwise)


@dataclass
class Message:
    id: str
    role: Role
    content: str  # REAL text, as displayed
    at: int | None = None
    pending: bool = False  # an assistant reply still streaming
    # Count of redacted items: its presence is what makes a user turn replayable (reference 6.8).
    redactions: int | None = None
    redacted_spans: list[tuple[str, str]] = field(default_factory=list)  # (real value, fine kind)
    wire: str | None = None  # user: the text the model was sent; assistant: the reply as the model wrote it
    reasoning: str = ""  # assistant: the model's visible reasoning ("thinking"), restored, apart from content
    wire_memory: str | None = None  # user: the memory block exactly as it was injected with this turn
    # user: how many of the oldest history messages were left out of this turn's request to fit
    # the model's context window (they stay here, they were not sent)
    context_dropped: int = 0
    memory_used: list[str] | None = None  # card ids, "profile" first when injected
    memory_skipped: list[MemorySkip] | None = None
    tool_uses: list[ToolUse] = field(default_factory=list)
    interrupted: bool = False  # the stream stopped before the model finished: partial reply kept
    error: str | None = None  # why the turn failed or stopped (an error kind)
    usage: dict[str, int] = field(default_factory=dict)
    model: str | None = None  # assistant: the model that wrote the reply, as the provider was asked for it
    provider: str | None = None  # assistant: the id of the provider that wrote it (its price is that provider's)
    # Explicit-ask feedback on the assistant reply (reference 1.4).
    memory_noted: int | None = None
    memory_noted_ids: list[str] = field(default_factory=list)
    memory_updated_ids: list[str] = field(default_factory=list)
    memory_noted_pending: bool = False
    memory_noted_failed: bool = False
    # Only for a turn of another version (Conversation.branches): the id of the message it follows,
    # "" for a first turn (chat/branches.py). None on the active path, where the order says it.
    parent: str | None = None
    attachments: list[AttachedFile] = field(default_factory=list)  # user: files sent with the turn

    @property
    def replayable(self) -> bool:
        """Assistant turns always replay; a user turn only when its redaction completed."""
        return self.role != "user" or self.redactions is not None


@dataclass
class Fork:
    """The versions made after one message (chat/branches.py): their ids in the order they were made,
    and the one on the active path (None while a new one is being made)."""

    children: list[str]
    selected: str | None


@dataclass
class Conversation:
    id: str
    vault: Vault  # substitute -> real; its mode is pinned at the first redaction
    title: str = ""
    space: str | None = None  # the id of the space the conversation belongs to; None: global
    created_at: int = 0
    updated_at: int = 0
    messages: list[Message] = field(default_factory=list)
    memory_watermark: int = 0  # leading messages already read by the extractor
    memory_off: bool = False  # no injection, no memory_search, no silent extraction
    redact_categories: dict[str, bool] = field(default_factory=dict)  # sparse per-conversation override
    revealed_values: list[str] = field(default_factory=list)  # kept in clear here
    forced_redactions: list[tuple[str, str]] = field(default_factory=list)  # (value, kind) always masked
    model: str | None = None
    provider: str | None = None
    branches: list[Message] = field(default_factory=list)  # turns of the versions not shown (branches.py)
    forks: dict[str, Fork] = field(default_factory=dict)  # parent id ("" first turn) -> its versions
    # Issue 18: the conversation's own instructions (REAL, redacted at each send) and the persona it
    # speaks with (an id of the account's personas, chat/instructions.py)
    system_prompt: str = ""
    persona: str | None = None

    def message(self, message_id: str) -> Message | None:
        return next((m for m in self.messages if m.id == message_id), None)

    @property
    def redaction_kinds(self) -> dict[str, str]:
        """real value -> fine kind (reference 1.3 `redactionKinds`), derived from the vault."""
        return {real: self.vault.kinds.get(sub, "") for sub, real in self.vault.entries.items()
                if sub not in self.vault.aliases}

    def known_real_values(self) -> list[str]:
        """The conversation's known real values (vault values), for memory selection's tier 2."""
        return sorted(set(self.vault.entries.values()) | set(self.redaction_kinds))


# --- JSON ---------------------------------------------------------------------------------------


def message_to_dict(message: Message) -> dict[str, Any]:
    doc: dict[str, Any] = {"id": message.id, "role": message.role, "content": message.content}
    optional: dict[str, Any] = {
        "at": message.at, "redactions": message.redactions, "wire": message.wire,
        "wire_memory": message.wire_memory, "memory_used": message.memory_used,
        "error": message.error, "memory_noted": message.memory_noted,
        "reasoning": message.reasoning or None, "context_dropped": message.context_dropped or None,
        "model": message.model, "provider": message.provider,
    }
    doc.update({key: value for key, value in optional.items() if value is not None})
    flags = {"pending": message.pending, "interrupted": message.interrupted,
             "memory_noted_pending": message.memory_noted_pending,
             "memory_noted_failed": message.memory_noted_failed}
    doc.update({key: True for key, value in flags.items() if value})
    if message.redacted_spans:
        doc["redacted_spans"] = [[value, kind] for value, kind in message.redacted_spans]
    if message.memory_skipped is not None:
        doc["memory_skipped"] = [{"id": s.id, "reason": s.reason} for s in message.memory_skipped]
    if message.tool_uses:
        doc["tool_uses"] = [{"name": t.name, "arguments": t.arguments, "wire_arguments": t.wire_arguments,
                             "wire_result": t.wire_result} for t in message.tool_uses]
    if message.usage:
        doc["usage"] = dict(message.usage)
    for key in ("memory_noted_ids", "memory_updated_ids"):
        if getattr(message, key):
            doc[key] = list(getattr(message, key))
    if message.parent is not None:
        doc["parent"] = message.parent
    if message.attachments:
        doc["attachments"] = [attached_to_dict(a) for a in message.attachments]
    return doc


def attached_to_dict(attached: AttachedFile) -> dict[str, Any]:
    doc: dict[str, Any] = {"name": attached.name, "format": attached.format, "size": attached.size,
                           "text": attached.text, "wire_name": attached.wire_name, "wire": attached.wire,
                           "kind": attached.kind}
    if attached.warnings:
        doc["warnings"] = list(attached.warnings)
    if attached.image:
        doc["image"] = attached.image
    return doc


def attached_from_dict(value: object, what: str) -> AttachedFile:
    doc = _obj(value, f"{what}: an attachment")
    size = _opt_int(doc, "size", what)
    return AttachedFile(_str(doc, "name", what), _str(doc, "format", what), size or 0, _str(doc, "text", what),
                        _str(doc, "wire_name", what), _str(doc, "wire", what, ""), _str(doc, "kind", what, "document"),
                        tuple(_str_list(doc, "warnings", what)), _str(doc, "image", what, ""))


def _obj(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ConversationFormatError(f"{what} must be a JSON object")
    return value


def _str(doc: Mapping[str, Any], key: str, what: str, default: str | None = None) -> str:
    value = doc.get(key, default)
    if not isinstance(value, str):
        raise ConversationFormatError(f"{what}: {key!r} must be a string")
    return value


def _opt_str(doc: Mapping[str, Any], key: str, what: str) -> str | None:
    value = doc.get(key)
    if value is not None and not isinstance(value, str):
        raise ConversationFormatError(f"{what}: {key!r} must be a string")
    return value


def _opt_int(doc: Mapping[str, Any], key: str, what: str) -> int | None:
    value = doc.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise ConversationFormatError(f"{what}: {key!r} must be an integer")
    return value


def _str_list(doc: Mapping[str, Any], key: str, what: str) -> list[str]:
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConversationFormatError(f"{what}: {key!r} must be a list of strings")
    return list(value)


def _pairs(doc: Mapping[str, Any], key: str, what: str) -> list[tuple[str, str]]:
    value = doc.get(key, [])
    ok = isinstance(value, list) and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in value)
    if not ok:
        raise ConversationFormatError(f"{what}: {key!r} must be a list of [text, text] pairs")
    return [(p[0], p[1]) for p in value]


def _role(value: object) -> Role:
    for role in ROLES:
        if value == role:
            return role
    raise ConversationFormatError(f"unknown message role {value!r}")


def message_from_dict(value: object) -> Message:
    doc = _obj(value, "a message")
    what = f"message {doc.get('id')!r}"
    skipped = doc.get("memory_skipped")
    usage = doc.get("usage", {})
    if not isinstance(usage, dict) or not all(isinstance(v, int) for v in usage.values()):
        raise ConversationFormatError(f"{what}: usage must map names to integers")
    memory_used = doc.get("memory_used")
    return Message(
        id=_str(doc, "id", what), role=_role(doc.get("role")), content=_str(doc, "content", what, ""),
        at=_opt_int(doc, "at", what), pending=bool(doc.get("pending", False)),
        redactions=_opt_int(doc, "redactions", what), redacted_spans=_pairs(doc, "redacted_spans", what),
        wire=_opt_str(doc, "wire", what), wire_memory=_opt_str(doc, "wire_memory", what),
        reasoning=_opt_str(doc, "reasoning", what) or "", context_dropped=_opt_int(doc, "context_dropped", what) or 0,
        memory_used=None if memory_used is None else _str_list(doc, "memory_used", what),
        memory_skipped=None if skipped is None else [
            MemorySkip(_str(s, "id", what), _str(s, "reason", what))
            for s in (_obj(item, "a memory skip") for item in _list(skipped, what))],
        tool_uses=[ToolUse(_str(t, "name", what), _str(t, "arguments", what), _str(t, "wire_arguments", what),
                           _str(t, "wire_result", what))
                   for t in (_obj(item, "a tool use") for item in _list(doc.get("tool_uses", []), what))],
        interrupted=bool(doc.get("interrupted", False)), error=_opt_str(doc, "error", what),
        usage={str(k): int(v) for k, v in usage.items()}, model=_opt_str(doc, "model", what),
        provider=_opt_str(doc, "provider", what),
        memory_noted=_opt_int(doc, "memory_noted", what),
        memory_noted_ids=_str_list(doc, "memory_noted_ids", what),
        memory_updated_ids=_str_list(doc, "memory_updated_ids", what),
        memory_noted_pending=bool(doc.get("memory_noted_pending", False)),
        memory_noted_failed=bool(doc.get("memory_noted_failed", False)),
        parent=_opt_str(doc, "parent", what),
        attachments=[attached_from_dict(a, what) for a in _list(doc.get("attachments", []), what)],
    )


def _list(value: object, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise ConversationFormatError(f"{what}: expected a list")
    return value


def conversation_to_dict(conv: Conversation) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": conv.id, "title": conv.title, "space": conv.space, "created_at": conv.created_at,
        "updated_at": conv.updated_at, "vault": conv.vault.to_json(),
        "messages": [message_to_dict(m) for m in conv.messages], "memory_watermark": conv.memory_watermark,
        "memory_off": conv.memory_off, "redact_categories": dict(conv.redact_categories),
        "revealed_values": list(conv.revealed_values),
        "forced_redactions": [[value, kind] for value, kind in conv.forced_redactions],
    }
    if conv.branches:
        doc["branches"] = [message_to_dict(m) for m in conv.branches]
    if conv.forks:
        doc["forks"] = {parent: {"children": list(f.children), "selected": f.selected}
                        for parent, f in conv.forks.items()}
    if conv.system_prompt:
        doc["system_prompt"] = conv.system_prompt
    for key in ("model", "provider", "persona"):
        if getattr(conv, key) is not None:
            doc[key] = getattr(conv, key)
    return doc


def conversation_from_dict(value: object) -> Conversation:
    doc = _obj(value, "a conversation")
    what = f"conversation {doc.get('id')!r}"
    categories = doc.get("redact_categories", {})
    if not isinstance(categories, dict) or not all(isinstance(v, bool) for v in categories.values()):
        raise ConversationFormatError(f"{what}: redact_categories must map categories to booleans")
    try:
        vault = Vault.from_json(doc.get("vault"))
    except ValueError as error:
        raise ConversationFormatError(f"{what}: {error}") from None
    return Conversation(
        id=_str(doc, "id", what), vault=vault, title=_str(doc, "title", what, ""),
        space=_opt_str(doc, "space", what), created_at=_opt_int(doc, "created_at", what) or 0,
        updated_at=_opt_int(doc, "updated_at", what) or 0,
        messages=[message_from_dict(m) for m in _list(doc.get("messages", []), what)],
        memory_watermark=_opt_int(doc, "memory_watermark", what) or 0,
        memory_off=bool(doc.get("memory_off", False)),
        redact_categories={str(k): bool(v) for k, v in categories.items()},
        revealed_values=_str_list(doc, "revealed_values", what),
        forced_redactions=_pairs(doc, "forced_redactions", what),
        model=_opt_str(doc, "model", what), provider=_opt_str(doc, "provider", what),
        branches=[_branch_turn(m, what) for m in _list(doc.get("branches", []), what)],
        forks=_forks(doc.get("forks", {}), what),
        system_prompt=_str(doc, "system_prompt", what, ""), persona=_opt_str(doc, "persona", what),
    )


def _branch_turn(value: object, what: str) -> Message:
    message = message_from_dict(value)
    if message.parent is None:
        raise ConversationFormatError(f"{what}: a turn of another version needs its 'parent'")
    return message


def _forks(value: object, what: str) -> dict[str, Fork]:
    forks: dict[str, Fork] = {}
    for parent, item in _obj(value, f"{what}: forks").items():
        fork = _obj(item, f"{what}: a fork")
        forks[str(parent)] = Fork(_str_list(fork, "children", what), _opt_str(fork, "selected", what))
    return forks
