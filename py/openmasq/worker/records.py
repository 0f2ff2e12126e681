"""The state document split into per-account records (docs/web.md, "The worker protocol"): `settings` (with the spaces
and the app's own settings), `providers`, `memory`, and one `conv:<id>` per conversation.
Each record carries the document version; loading reassembles the document so one set of
migrations (store/migrations.py) serves both the whole document and its records."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..chat.conversation import Conversation, conversation_to_dict
from ..memory.serialise import store_to_dict
from ..store import DOCUMENT_VERSION, StateDocument, document_from_json
from ..store.document import document_to_dict

SETTINGS = "settings"
PROVIDERS = "providers"
MEMORY = "memory"
CONV_PREFIX = "conv:"


@dataclass
class AppSettings:
    """What only the app shell uses (the engine's settings live in the state document)."""

    theme: str = "auto"  # auto | light | dark
    autolock_minutes: int = 15  # 0: never
    onboarded: bool = False  # the first run's choice of a model was made (issue 18)

    def to_dict(self) -> dict[str, Any]:
        return {"theme": self.theme, "autolock_minutes": self.autolock_minutes, "onboarded": self.onboarded}


@dataclass
class Loaded:
    document: StateDocument
    app: AppSettings = field(default_factory=AppSettings)
    unreadable: list[str] = field(default_factory=list)  # record keys that failed to load (kept, not overwritten)


def conv_key(conversation_id: str) -> str:
    return CONV_PREFIX + conversation_id


def dump(doc: dict[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def settings_record(document: StateDocument, app: AppSettings) -> str:
    whole = document_to_dict(StateDocument(settings=document.settings, spaces=document.spaces,
                                           personas=document.personas))
    return dump({"version": DOCUMENT_VERSION, "settings": whole["settings"], "spaces": whole["spaces"],
                 "personas": whole["personas"], "app": app.to_dict()})


def providers_record(document: StateDocument) -> str:
    whole = document_to_dict(StateDocument(providers=document.providers))
    return dump({"version": DOCUMENT_VERSION, "providers": whole["providers"]})


def memory_record(document: StateDocument) -> str:
    return dump({"version": DOCUMENT_VERSION, "memory": store_to_dict(document.memory)})


def conversation_record(conv: Conversation) -> str:
    return dump({"version": DOCUMENT_VERSION, "conversation": conversation_to_dict(conv)})


def all_records(document: StateDocument, app: AppSettings) -> dict[str, str]:
    records = {SETTINGS: settings_record(document, app), PROVIDERS: providers_record(document),
               MEMORY: memory_record(document)}
    records.update({conv_key(c.id): conversation_record(c) for c in document.conversations})
    return records


def _version(doc: dict[str, Any]) -> int:
    version = doc.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else 0


def _part(text: str, key: str) -> dict[str, Any]:
    doc = json.loads(text)
    if not isinstance(doc, dict):
        raise ValueError(f"record {key!r} is not a JSON object")
    return doc


def load_records(texts: dict[str, str]) -> Loaded:
    """The document from its records. A record that does not load is reported, not dropped:
    the caller must not overwrite it (losing a user's data is the worst bug)."""
    unreadable: list[str] = []
    parts: dict[str, dict[str, Any]] = {}
    for key, text in texts.items():
        try:
            parts[key] = _part(text, key)
        except ValueError:
            unreadable.append(key)
    base = parts.get(SETTINGS, {})
    # Records written by different builds may differ in version: each is migrated on its own.
    assembled = _assemble_document(parts, unreadable)
    app_doc = base.get("app", {}) if isinstance(base.get("app"), dict) else {}
    app = AppSettings(theme=str(app_doc.get("theme", "auto")),
                      autolock_minutes=_int(app_doc.get("autolock_minutes"), 15),
                      onboarded=app_doc.get("onboarded") is True)
    return Loaded(assembled, app, unreadable)


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _single(part: dict[str, Any], field_name: str) -> StateDocument:
    version = _version(part) or DOCUMENT_VERSION
    return document_from_json(dump({"version": version, field_name: part.get(field_name)}))


def _assemble_document(parts: dict[str, dict[str, Any]], unreadable: list[str]) -> StateDocument:
    document = StateDocument()
    loaders = {
        SETTINGS: lambda p: _load_settings(document, p),
        PROVIDERS: lambda p: setattr(document, "providers", _single(p, "providers").providers),
        MEMORY: lambda p: setattr(document, "memory", _single(p, "memory").memory),
    }
    conversations: list[Conversation] = []
    for key, part in parts.items():
        try:
            if key in loaders:
                loaders[key](part)
            elif key.startswith(CONV_PREFIX):
                loaded = _single({"version": _version(part), "conversations": [part.get("conversation")]},
                                 "conversations")
                conversations.extend(loaded.conversations)
        except ValueError:
            unreadable.append(key)
    conversations.sort(key=lambda c: c.updated_at, reverse=True)
    document.conversations = conversations
    return document


def _load_settings(document: StateDocument, part: dict[str, Any]) -> None:
    version = _version(part) or DOCUMENT_VERSION
    loaded = document_from_json(dump({"version": version, "settings": part.get("settings", {}),
                                      "spaces": part.get("spaces", []), "personas": part.get("personas", [])}))
    document.settings = loaded.settings
    document.spaces = loaded.spaces
    document.personas = loaded.personas
