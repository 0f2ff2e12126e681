"""The per-account state document: one JSON text holding the settings, the providers, the spaces,
every conversation with its vault, and the memory store (REAL values: the shell encrypts it)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..chat.conversation import (
    Conversation,
    ConversationFormatError,
    conversation_from_dict,
    conversation_to_dict,
)
from ..chat.instructions import Persona, persona_from_dict, persona_to_dict
from ..chat.usage import Price, PriceKey, prices_from, prices_to_list
from ..memory.model import MemoryStore
from ..memory.serialise import StoreFormatError, store_from_json, store_to_dict
from ..redact import Forced, RedactOptions
from .migrations import LATEST_VERSION, migrate

DOCUMENT_VERSION = LATEST_VERSION


class StateFormatError(ValueError):
    """A state document that is not valid JSON of the expected shape."""


@dataclass
class Settings:
    level: str = "renforce"
    mode: str = "fake"  # for NEW conversations; an existing one keeps the mode pinned in its vault
    lang: str = "auto"  # detection language
    ui_lang: str = "fr"
    categories: dict[str, bool] = field(default_factory=dict)  # per-category overrides of the level
    coffre: list[str] = field(default_factory=list)  # values always masked ("Coffre")
    keep: list[str] = field(default_factory=list)  # values always left in clear
    tz_offset_minutes: int = 0
    system_prompt: str = ""
    default_provider: str | None = None
    prices: dict[PriceKey, Price] = field(default_factory=dict)  # (provider, model) -> its price (issue 18)
    currency: str = "USD"  # of those prices (ISO 4217, for display only)

    def redact_options(self) -> RedactOptions:
        return RedactOptions(level=self.level, mode=self.mode, lang=self.lang,
                             categories=tuple(self.categories.items()), keep=tuple(self.keep),
                             force=tuple(Forced(value) for value in self.coffre))


@dataclass
class Provider:
    id: str
    preset: str  # a codecs preset name (openai, anthropic, ollama, ...)
    base_url: str
    api: str = "openai"  # "openai" or "anthropic"
    label: str = ""
    api_key: str = ""  # stored with the rest of the document, which the shell encrypts
    model: str = ""
    context_tokens: int | None = None


@dataclass
class Space:
    id: str
    name: str


@dataclass
class StateDocument:
    settings: Settings = field(default_factory=Settings)
    providers: list[Provider] = field(default_factory=list)
    spaces: list[Space] = field(default_factory=list)
    conversations: list[Conversation] = field(default_factory=list)
    memory: MemoryStore = field(default_factory=MemoryStore)
    personas: list[Persona] = field(default_factory=list)  # issue 18: reusable instructions

    def conversation(self, conversation_id: str) -> Conversation | None:
        return next((c for c in self.conversations if c.id == conversation_id), None)


# --- JSON ---------------------------------------------------------------------------------------


def document_to_dict(doc: StateDocument) -> dict[str, Any]:
    s = doc.settings
    return {
        "version": DOCUMENT_VERSION,
        "settings": {"level": s.level, "mode": s.mode, "lang": s.lang, "ui_lang": s.ui_lang,
                     "categories": dict(s.categories), "coffre": list(s.coffre), "keep": list(s.keep),
                     "tz_offset_minutes": s.tz_offset_minutes, "system_prompt": s.system_prompt,
                     "default_provider": s.default_provider, "prices": prices_to_list(s.prices),
                     "currency": s.currency},
        "providers": [{"id": p.id, "preset": p.preset, "base_url": p.base_url, "api": p.api, "label": p.label,
                       "api_key": p.api_key, "model": p.model, "context_tokens": p.context_tokens}
                      for p in doc.providers],
        "spaces": [{"id": sp.id, "name": sp.name} for sp in doc.spaces],
        "conversations": [conversation_to_dict(c) for c in doc.conversations],
        "memory": store_to_dict(doc.memory),
        "personas": [persona_to_dict(p) for p in doc.personas],
    }


def document_to_json(doc: StateDocument) -> str:
    return json.dumps(document_to_dict(doc), ensure_ascii=False, separators=(",", ":"))


def _obj(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise StateFormatError(f"{what} must be a JSON object")
    return value


def _typed(doc: Mapping[str, Any], key: str, kind: type, default: Any, what: str) -> Any:
    value = doc.get(key, default)
    if value is None and default is None:
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise StateFormatError(f"{what}: {key!r} must be {kind.__name__}")
    return value


def _settings_from(value: object) -> Settings:
    doc = _obj(value, "settings")
    categories = _typed(doc, "categories", dict, {}, "settings")
    if not all(isinstance(v, bool) for v in categories.values()):
        raise StateFormatError("settings: categories must map categories to booleans")
    return Settings(
        level=_typed(doc, "level", str, "renforce", "settings"), mode=_typed(doc, "mode", str, "fake", "settings"),
        lang=_typed(doc, "lang", str, "auto", "settings"), ui_lang=_typed(doc, "ui_lang", str, "fr", "settings"),
        categories={str(k): v for k, v in categories.items()},
        coffre=[str(v) for v in _typed(doc, "coffre", list, [], "settings")],
        keep=[str(v) for v in _typed(doc, "keep", list, [], "settings")],
        tz_offset_minutes=_typed(doc, "tz_offset_minutes", int, 0, "settings"),
        system_prompt=_typed(doc, "system_prompt", str, "", "settings"),
        default_provider=_typed(doc, "default_provider", str, None, "settings"),
        prices=_prices(doc.get("prices", [])), currency=_typed(doc, "currency", str, "USD", "settings"),
    )


def _prices(value: object) -> dict[PriceKey, Price]:
    try:
        return prices_from(value)
    except ValueError as error:
        raise StateFormatError(f"settings: {error}") from None


def _provider_from(value: object) -> Provider:
    doc = _obj(value, "a provider")
    what = f"provider {doc.get('id')!r}"
    return Provider(
        id=_typed(doc, "id", str, None, what) or "", preset=_typed(doc, "preset", str, "", what),
        base_url=_typed(doc, "base_url", str, "", what), api=_typed(doc, "api", str, "openai", what),
        label=_typed(doc, "label", str, "", what), api_key=_typed(doc, "api_key", str, "", what),
        model=_typed(doc, "model", str, "", what), context_tokens=_typed(doc, "context_tokens", int, None, what),
    )


def document_from_json(text: str) -> StateDocument:
    """Load (and migrate) a state document. Raises StateVersionError for a version this build
    does not know and StateFormatError for anything malformed; nothing is half-loaded."""
    try:
        raw = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise StateFormatError(f"state document: not JSON ({error})") from None
    doc = migrate(dict(_obj(raw, "the state document")))
    try:
        memory = store_from_json(json.dumps(doc.get("memory", {"version": 1}), ensure_ascii=False))
        conversations = [conversation_from_dict(c) for c in _typed(doc, "conversations", list, [], "document")]
        personas = [persona_from_dict(p) for p in _typed(doc, "personas", list, [], "document")]
    except (StoreFormatError, ConversationFormatError) as error:
        raise StateFormatError(str(error)) from None
    return StateDocument(
        settings=_settings_from(doc.get("settings", {})),
        providers=[_provider_from(p) for p in _typed(doc, "providers", list, [], "document")],
        spaces=[Space(_typed(s, "id", str, "", "a space"), _typed(s, "name", str, "", "a space"))
                for s in (_obj(v, "a space") for v in _typed(doc, "spaces", list, [], "document"))],
        conversations=conversations,
        memory=memory,
        personas=personas,
    )
