"""What the page sees of conversations and messages (docs/web.md, "The worker protocol"): real text, the
redacted spans located in it, the exact wire text, and the memory caption; never a vault or a key."""

from __future__ import annotations

from typing import Any

from ..attach import RedactedAttachment
from ..chat import branches
from ..chat.codecs import ChatRequest
from ..chat.conversation import Conversation, Message
from ..chat.plain import plain_text
from ..redact import Redaction

DRAFT_ERRORS = frozenset({"offline"})  # a user turn kept unsent: retry sends it


def is_draft(message: Message) -> bool:
    return message.role == "user" and message.error in DRAFT_ERRORS


def utf16_offset(text: str, index: int) -> int:
    """A code-point index as JavaScript counts string positions (UTF-16 code units)."""
    return len(text[:index].encode("utf-16-le")) // 2


def spans_of(message: Message) -> list[dict[str, Any]]:
    """Every place a redacted value occurs in the real text (the page highlights them by kind), in
    UTF-16 offsets; longer values first so a name inside a longer name is not highlighted twice."""
    taken: list[tuple[int, int]] = []
    out: list[dict[str, Any]] = []
    for value, kind in sorted(set(message.redacted_spans), key=lambda p: -len(p[0])):
        if not value:
            continue
        start = message.content.find(value)
        while start >= 0:
            end = start + len(value)
            if all(end <= a or start >= b for a, b in taken):
                taken.append((start, end))
                out.append({"start": start, "end": end, "kind": kind})
            start = message.content.find(value, end)
    text = message.content
    return [{**span, "start": utf16_offset(text, span["start"]), "end": utf16_offset(text, span["end"])}
            for span in sorted(out, key=lambda s: s["start"])]


def caption_of(message: Message) -> dict[str, Any] | None:
    if message.role != "assistant":
        return None
    caption: dict[str, Any] = {
        "memory_used": list(message.memory_used or []),
        "skipped": [{"id": s.id, "reason": s.reason} for s in message.memory_skipped or []],
        "noted": list(message.memory_noted_ids),
        "updated": list(message.memory_updated_ids),
        "noted_count": message.memory_noted,
        "pending": message.memory_noted_pending,
    }
    if message.memory_noted_failed:
        caption["failed"] = True
    return caption


def message_view(message: Message) -> dict[str, Any]:
    wire = message.wire
    if message.role == "user" and message.wire_memory:
        wire = f"{message.wire_memory}\n\n---\n\n{wire or ''}"
    return {
        "id": message.id, "role": message.role, "text": message.content, "created": message.at,
        "pending": message.pending, "interrupted": message.interrupted, "error": message.error,
        "draft": is_draft(message), "spans": spans_of(message) if message.role == "user" else [],
        "wire": wire, "caption": caption_of(message), "model": message.model,
        "tools": [{"name": t.name, "arguments": t.arguments, "wire_arguments": t.wire_arguments,
                   "wire_result": t.wire_result} for t in message.tool_uses],
        "attachments": [{"name": a.name, "format": a.format, "size": a.size, "kind": a.kind,
                         "wire_name": a.wire_name or None, "wire": a.wire or None, "warnings": list(a.warnings),
                         "image": a.image or None}  # an image sent as one: the masked PNG as sent (base64)
                        for a in message.attachments],
    }


def conversation_summary(conv: Conversation) -> dict[str, Any]:
    last = next((m for m in reversed(conv.messages) if m.content.strip()), None)
    return {
        "id": conv.id, "title": conv.title, "space": conv.space, "created": conv.created_at,
        "updated": conv.updated_at, "messages": len(conv.messages), "mode": conv.vault.mode,
        "provider_id": conv.provider, "model": conv.model, "memory_off": conv.memory_off,
        "preview": plain_text(last.content) if last else "",
    }


def conversation_view(conv: Conversation) -> dict[str, Any]:
    versions = branches.versions(conv)
    return {
        **conversation_summary(conv),
        "keep": list(conv.revealed_values),
        "always_mask": [value for value, _ in conv.forced_redactions],
        "pinned": any(m.role == "user" and m.redactions is not None for m in conv.messages),
        "system_prompt": conv.system_prompt, "persona": conv.persona,  # issue 18: its instructions
        "message_list": [_with_version(message_view(m), versions.get(m.id)) for m in conv.messages],
    }


def _with_version(view: dict[str, Any], version: branches.Version | None) -> dict[str, Any]:
    """A message of the active path with where it stands among the versions made at its place."""
    if version is not None:
        view["version"] = {"number": version.number, "count": version.count,
                           "previous": version.previous, "next": version.next}
    return view


def is_empty_untitled(conv: Conversation, space: str | None) -> bool:
    """A conversation never written in nor named, in `space`: a new one there reuses it."""
    return not conv.messages and not conv.branches and not conv.title and conv.space == space


def matches(conv: Conversation, text: str) -> bool:
    """Search by title and by message text, case-insensitively (all local, on real text)."""
    needle = text.strip().casefold()
    if not needle:
        return True
    return needle in conv.title.casefold() or any(
        needle in m.content.casefold() for m in (*conv.messages, *conv.branches))


def request_view(request: ChatRequest) -> dict[str, Any]:
    """A whole provider request as the page shows it in "what the model saw": the system text (with
    the memory block), every message (history, the new turn, tool calls and results) and the tool
    definitions, exactly as they left (fakes only)."""
    return {
        "model": request.model,
        "system": request.system,
        "messages": [{"role": m.role, "content": m.content, "parts": list(m.parts),
                      "tool_calls": [{"name": c.name, "arguments": c.arguments} for c in m.tool_calls]}
                     for m in request.messages],
        "tools": [{"name": t.name, "description": t.description, "parameters": dict(t.parameters)}
                  for t in request.tools],
    }


def preview_view(text: str, redaction: Redaction, keep: list[str], signature: list[list[Any]]) -> dict[str, Any]:
    """The composer's preview: each masked span (UTF-16 offsets, its kind, the fake it becomes) and
    each place a value this conversation keeps in clear occurs, so a click can unmask or mask it."""
    spans = [{"start": utf16_offset(text, r.start), "end": utf16_offset(text, r.end), "kind": r.kind,
              "value": r.value, "fake": r.substitute, "source": r.source} for r in redaction.replacements]
    taken = [(r.start, r.end) for r in redaction.replacements]
    kept: list[dict[str, Any]] = []
    for value in sorted(set(v for v in keep if v), key=len, reverse=True):
        start = text.find(value)
        while start >= 0:
            end = start + len(value)
            if all(end <= a or start >= b for a, b in taken):
                taken.append((start, end))
                kept.append({"start": utf16_offset(text, start), "end": utf16_offset(text, end), "value": value})
            start = text.find(value, end)
    return {"text": text, "spans": sorted(spans, key=lambda s: s["start"]),
            "kept": sorted(kept, key=lambda s: s["start"]), "signature": signature}


def attachment_preview(key: str, redacted: RedactedAttachment) -> dict[str, Any]:
    """What the composer's preview says of one file: the name it will go under and each value masked
    in it (with its kind, its fake and how many times it occurs), most frequent first."""
    masked: dict[str, dict[str, Any]] = {}
    for rep in redacted.text.replacements:
        item = masked.setdefault(rep.value, {"value": rep.value, "kind": rep.kind, "fake": rep.substitute, "count": 0})
        item["count"] += 1
    return {"key": key, "name_changed": redacted.name_changed, "wire_name": redacted.name,
            "masked": sorted(masked.values(), key=lambda m: (-m["count"], m["value"]))}
