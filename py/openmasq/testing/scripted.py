"""A scripted model for tests: chat turns that say, call a tool, fail, or are computed from the
request, and extractor replies; scripts use real values, the model "speaks" them as fakes."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..chat.codecs import ChatRequest, Done, ErrorEvent, StreamEvent, TextDelta, ToolCallDelta, Usage
from ..chat.context import estimate_tokens
from ..chat.steps import CallModel, ModelReply

Speak = Callable[[str], str]  # real text -> the same text as the model would write it (fakes)


@dataclass(frozen=True)
class Say:
    """A plain answer; written with real values, streamed in `chunk`-character deltas."""

    text: str
    chunk: int = 5


@dataclass(frozen=True)
class CallTool:
    """A tool call; `arguments` is an object, or computed from the request the model received."""

    name: str
    arguments: Mapping[str, Any] | Callable[[ChatRequest], Mapping[str, Any]]
    text: str = ""  # said before calling


@dataclass(frozen=True)
class Fail:
    """The stream breaks after `partial` was said: an error event of `kind`."""

    partial: str = ""
    kind: str = "network"


Action = Say | CallTool | Fail
Turn = Action | str | Callable[[ChatRequest], "Action | str"]
ExtractorReply = str | Mapping[str, Any] | ModelReply | Callable[[CallModel], "str | Mapping[str, Any] | ModelReply"]

DEFAULT_ANSWER = "D'accord."
EMPTY_EXTRACTION = '{"profil": null, "faits": []}'


def facts(*rows: tuple[str, str, str] | tuple[str, str, str, str], profile: str | None = None) -> dict[str, Any]:
    """An extractor reply: (entity, fact, category[, alias]) rows, in REAL values."""
    return {"profil": profile, "faits": [
        {"entite": r[0], "fait": r[1], "cat": r[2], "alias": r[3] if len(r) > 3 else None} for r in rows]}


def last_user_text(request: ChatRequest) -> str:
    """The last user message of a request, as the model read it (fakes)."""
    return next((m.content for m in reversed(request.messages) if m.role == "user"), "")


def tool_results(request: ChatRequest) -> list[str]:
    return [m.content for m in request.messages if m.role == "tool"]


class ScriptedModel:
    """Answers chat requests from a queue of turns and extraction calls from a queue of replies;
    keeps every request it received. An exhausted queue answers "D'accord." / no facts."""

    def __init__(self, *turns: Turn) -> None:
        self.turns: deque[Turn] = deque(turns)
        self.extractions: deque[ExtractorReply] = deque()
        self.requests: list[ChatRequest] = []
        self.extraction_calls: list[CallModel] = []

    def then(self, *turns: Turn) -> ScriptedModel:
        self.turns.extend(turns)
        return self

    def extractor(self, *replies: ExtractorReply) -> ScriptedModel:
        self.extractions.extend(replies)
        return self

    # --- answering -------------------------------------------------------------------------------

    def respond(self, request: ChatRequest, speak: Speak = str) -> list[StreamEvent]:
        """The stream events answering `request`."""
        self.requests.append(request)
        turn: Turn = self.turns.popleft() if self.turns else DEFAULT_ANSWER
        action = turn(request) if callable(turn) else turn
        if isinstance(action, str):
            action = Say(action)
        usage = Usage(input_tokens=sum(estimate_tokens(m.content) for m in request.messages))
        if isinstance(action, Say):
            return [*_deltas(speak(action.text), action.chunk), usage, Done("stop")]
        if isinstance(action, Fail):
            return [*_deltas(speak(action.partial), 5), ErrorEvent(action.kind, "scripted failure")]
        arguments = action.arguments(request) if callable(action.arguments) else action.arguments
        wire_args = json.dumps({k: speak(v) if isinstance(v, str) else v for k, v in arguments.items()},
                               ensure_ascii=False)
        half = len(wire_args) // 2
        return [
            *_deltas(speak(action.text), 5),
            ToolCallDelta(0, id=f"call_{len(self.requests)}", name=action.name, arguments_fragment=wire_args[:half]),
            ToolCallDelta(0, arguments_fragment=wire_args[half:]),
            usage,
            Done("tool_calls"),
        ]

    def answer(self, call: CallModel, speak: Speak = str) -> list[StreamEvent]:
        """The stream answering a model call: a chat turn for a message, an extractor reply (whole,
        streamed in one delta) for an extraction call."""
        return self.respond(call.request, speak) if call.purpose == "message" else reply_events(
            self.extract(call, speak))

    def extract(self, call: CallModel, speak: Speak = str) -> ModelReply:
        """The next extractor reply."""
        self.extraction_calls.append(call)
        reply: ExtractorReply = self.extractions.popleft() if self.extractions else EMPTY_EXTRACTION
        value = reply(call) if callable(reply) else reply
        if isinstance(value, ModelReply):
            return value
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return ModelReply.ok(speak(text))


def reply_events(reply: ModelReply) -> list[StreamEvent]:
    """A whole reply as the stream that carries it: its text and Done, or the error of its kind."""
    if reply.failed or reply.text is None:
        return [ErrorEvent(reply.error or "unreachable", "scripted failure")]
    return [TextDelta(reply.text), Done("stop")]


def _deltas(text: str, size: int) -> list[StreamEvent]:
    size = max(1, size)
    return [TextDelta(text[i:i + size]) for i in range(0, len(text), size)]
