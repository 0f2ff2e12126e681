"""Neutral chat records shared by the provider codecs: the request, the streamed events, the
complete response, model listings, and the table of provider presets."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ROLES = ("user", "assistant", "tool")
# Neutral finish reasons; a provider's own word is kept in Done.raw_reason.
FINISH_REASONS = ("stop", "length", "tool_calls", "content_filter", "other")


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model made; `arguments` is the JSON text as the model wrote it."""

    id: str
    name: str
    arguments: str

    def parsed_arguments(self) -> dict[str, Any] | None:
        """The arguments as an object, or None when the model wrote invalid JSON or a non-object."""
        try:
            value = json.loads(self.arguments) if self.arguments.strip() else {}
        except ValueError:
            return None
        return value if isinstance(value, dict) else None


@dataclass(frozen=True)
class WireImage:
    """An image a user turn sends (issue 20): the PNG the page masked and the user saw, as its bytes."""

    media_type: str
    data: bytes

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.base64()}"


@dataclass(frozen=True)
class Message:
    """One turn: a user text, an assistant text (maybe calling tools), or a tool's result."""

    role: str
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""  # tool results: the call they answer
    is_error: bool = False  # tool results: the tool failed
    # user turns: text parts sent before `content`, one per attached file ("[Attachment: name]" and its
    # redacted text, chat/attachments.py); never a file's bytes
    parts: tuple[str, ...] = ()
    # user turns: images sent before the text parts (masked on the device and seen by the user: attach/ocr.py)
    images: tuple[WireImage, ...] = ()

    @property
    def texts(self) -> tuple[str, ...]:
        """Every text of the turn as it goes: its parts, then its content."""
        return (*self.parts, self.content) if self.parts else (self.content,)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown role {self.role!r} (expected one of {', '.join(ROLES)}; system is separate)")
        if self.role == "tool" and not self.tool_call_id:
            raise ValueError("a tool result names the tool call it answers (tool_call_id)")
        if self.tool_calls and self.role != "assistant":
            raise ValueError("only an assistant turn calls tools")
        if (self.parts or self.images) and self.role != "user":
            raise ValueError("only a user turn carries attached parts")


def _empty_object_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model may call; `parameters` is its JSON Schema."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=_empty_object_schema)


@dataclass(frozen=True)
class ChatRequest:
    model: str
    messages: tuple[Message, ...]
    system: str = ""
    tools: tuple[ToolSpec, ...] = ()
    temperature: float | None = None
    max_tokens: int | None = None
    stream: bool = False

    def texts(self) -> list[str]:
        """Every text the request carries to the model: the system prompt, each turn's texts, the
        arguments of the tool calls it replays."""
        texts = [self.system]
        for message in self.messages:
            texts.extend(message.texts)
            texts.extend(call.arguments for call in message.tool_calls)
        return texts


@dataclass(frozen=True)
class HttpRequest:
    """What the shell must send: it performs the I/O, the codec only describes it."""

    method: str
    url: str
    headers: tuple[tuple[str, str], ...]
    body: Mapping[str, Any] | None = None

    def content(self) -> bytes:
        """The body as UTF-8 JSON (empty for a GET)."""
        if self.body is None:
            return b""
        return json.dumps(self.body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)


# --- streamed events ------------------------------------------------------------------------


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    """Visible reasoning ("thinking") text, kept apart from the answer."""

    text: str


@dataclass(frozen=True)
class ToolCallDelta:
    """A piece of the index-th tool call: id and name come first, arguments in fragments."""

    index: int
    id: str = ""
    name: str = ""
    arguments_fragment: str = ""


@dataclass(frozen=True)
class Usage:
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None


@dataclass(frozen=True)
class Done:
    finish_reason: str
    raw_reason: str = ""


@dataclass(frozen=True)
class ErrorEvent:
    """A failure in words a user can act on; `kind` is one of errors.ERROR_KINDS."""

    kind: str
    message: str
    status: int | None = None
    retry_after: float | None = None  # seconds, when the provider said
    provider_message: str = ""  # the provider's own words, if any


StreamEvent = TextDelta | ReasoningDelta | ToolCallDelta | Usage | Done | ErrorEvent


@dataclass(frozen=True)
class ChatResponse:
    text: str
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    reasoning: str = ""


class ToolCallAccumulator:
    """Assembles streamed ToolCallDeltas into complete tool calls, in index order."""

    def __init__(self) -> None:
        self._ids: dict[int, str] = {}
        self._names: dict[int, str] = {}
        self._args: dict[int, list[str]] = {}

    def add(self, delta: ToolCallDelta) -> None:
        if delta.id:
            self._ids[delta.index] = delta.id
        if delta.name:
            # Some servers repeat the name on every chunk, others split it: keep the longest story.
            known = self._names.get(delta.index, "")
            self._names[delta.index] = delta.name if delta.name.startswith(known) else known + delta.name
        self._args.setdefault(delta.index, []).append(delta.arguments_fragment)

    def calls(self) -> tuple[ToolCall, ...]:
        indexes = sorted(set(self._ids) | set(self._names) | set(self._args))
        return tuple(
            ToolCall(self._ids.get(i, f"call_{i}"), self._names.get(i, ""), "".join(self._args.get(i, [])))
            for i in indexes
        )


# --- model listings -------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelInfo:
    id: str
    name: str = ""  # a display name, when the provider gives one
    owned_by: str = ""


@dataclass(frozen=True)
class ModelPage:
    models: tuple[ModelInfo, ...]
    next_after: str | None = None  # pass back to list the next page (Anthropic paginates)


# --- provider presets -----------------------------------------------------------------------


@dataclass(frozen=True)
class Preset:
    name: str
    label: str
    base_url: str  # what an SDK calls base_url: request paths are appended to it
    api: str  # "openai" (Chat Completions) or "anthropic" (Messages)
    needs_key: bool = True
    # Options of the OpenAI-compatible dialect this server speaks.
    max_tokens_field: str = "max_tokens"
    stream_usage: bool = True  # accepts stream_options.include_usage


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("openai", "OpenAI", "https://api.openai.com/v1", "openai", max_tokens_field="max_completion_tokens"),
        Preset("anthropic", "Anthropic", "https://api.anthropic.com/v1", "anthropic"),
        Preset("ollama", "Ollama", "http://127.0.0.1:11434/v1", "openai", needs_key=False),
        Preset("lmstudio", "LM Studio", "http://127.0.0.1:1234/v1", "openai", needs_key=False),
        Preset("llamacpp", "llama.cpp server", "http://127.0.0.1:8080/v1", "openai", needs_key=False),
        Preset("vllm", "vLLM", "http://127.0.0.1:8000/v1", "openai", needs_key=False),
        Preset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", "openai"),
        Preset("mistral", "Mistral", "https://api.mistral.ai/v1", "openai", stream_usage=False),
        Preset("groq", "Groq", "https://api.groq.com/openai/v1", "openai", stream_usage=False),
    )
}


def preset(name: str) -> Preset:
    try:
        return PRESETS[name.lower()]
    except KeyError:
        raise KeyError(f"unknown provider preset {name!r} (known: {', '.join(PRESETS)})") from None


def join_url(base_url: str, path: str) -> str:
    """base_url + path with exactly one slash between them."""
    return base_url.rstrip("/") + "/" + path.lstrip("/")
