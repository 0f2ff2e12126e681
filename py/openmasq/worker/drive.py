"""Drives the sans-I/O flows over the async egress bridge: a provider request becomes a stream of
codec events (HTTP errors classified, port failures mapped to error kinds), a send_flow or an
extraction run is stepped with them by chat/drive.py's Driver, the one that answers every step.
One code path for remote providers and the local model."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..chat.codecs import ChatRequest, Done, ErrorEvent, HttpRequest, ModelInfo, StreamEvent, TextDelta
from ..chat.codecs import ollama as ollama_codec
from ..chat.codecs.errors import classify_http_error, network_error, timeout_error
from ..chat.drive import Driver, Flow
from ..chat.send import SendOutcome
from ..chat.steps import CallModel, FindNeighbours, PersistTurn, ReplyDelta
from ..memory.extract import ExtractionOutcome
from ..memory.semantic import Neighbour
from .bridge import Chunk, Egress, EgressStream, End, Failure, Head, Route
from .providers import CHAT_IDLE_TIMEOUT_MS, Target, spec_of

ERROR_BODY_LIMIT = 64 * 1024  # an error answer is read this far to classify it


def failure_event(failure: Failure) -> ErrorEvent:
    """A port failure in the codecs' words. `blocked` (the connection policy refused the origin)
    and `aborted` (the user stopped) are kinds of the app, not of a provider."""
    if failure.kind == "timeout":
        return timeout_error()
    if failure.kind == "blocked":
        return ErrorEvent("blocked", "The app's connection policy does not allow this provider's address: the "
                          "service worker allows it once the provider is saved (save it again, then retry).")
    if failure.kind == "aborted":
        return ErrorEvent("aborted", "Stopped.")
    return network_error(failure.message)


async def _read_rest(stream: EgressStream, limit: int) -> tuple[bytes, Failure | None]:
    parts: list[bytes] = []
    size = 0
    while size < limit:
        message = await stream.next()
        if isinstance(message, Chunk):
            parts.append(message.data)
            size += len(message.data)
        elif isinstance(message, Failure):
            return b"".join(parts), message
        else:
            break
    return b"".join(parts), None


def _is_html(head: Head) -> bool:
    return "text/html" in {k.lower(): v for k, v in head.headers.items()}.get("content-type", "").lower()


class ClockedEgress:
    """The egress with a stopwatch: when the first request of a send was handed to its port
    (what bench/boot.py reports as the time the worker adds to a send)."""

    def __init__(self, egress: Egress) -> None:
        self.egress = egress
        self.started = time.perf_counter()
        self.first_open: float | None = None
        self.saving_s = 0.0  # spent persisting the user's turn before the request left

    def open(self, route: Route, spec: dict[str, Any]) -> EgressStream:
        if self.first_open is None:
            self.first_open = time.perf_counter()
        return self.egress.open(route, spec)

    def online(self) -> bool:
        return self.egress.online()

    def timings(self) -> dict[str, float]:
        """Milliseconds from the send's start to the hand-over, and the part of it spent saving."""
        if self.first_open is None:
            return {}
        return {"prepare_ms": round((self.first_open - self.started) * 1000, 2),
                "save_ms": round(self.saving_s * 1000, 2)}


@dataclass
class Call:
    """One request in flight: its stream (to abort) and whether any byte of the answer came."""

    stream: EgressStream
    received: bool = False


async def stream_events(egress: Egress, target: Target, request: ChatRequest, call: list[Call],
                        timeout_ms: int = CHAT_IDLE_TIMEOUT_MS) -> AsyncIterator[StreamEvent]:
    """The codec events of one streamed chat request; always ends with Done or an ErrorEvent."""
    stream = egress.open(target.route, spec_of(target.chat_request(request), timeout_ms))
    current = Call(stream)
    call.append(current)
    first = await stream.next()
    if isinstance(first, Failure):
        yield failure_event(first)
        return
    if not isinstance(first, Head):
        yield ErrorEvent("malformed", "The egress answered without a status.")
        return
    current.received = True
    if not 200 <= first.status < 300 or _is_html(first):
        body, _ = await _read_rest(stream, ERROR_BODY_LIMIT)
        stream.abort()
        yield classify_http_error(first.status, first.headers, body)
        return
    decoder = target.decoder()
    while True:
        message = await stream.next()
        if isinstance(message, Chunk):
            for event in decoder.feed(message.data):
                yield event
                if isinstance(event, Done | ErrorEvent):
                    stream.abort()  # the rest of the stream carries nothing we read
                    return
        elif isinstance(message, End):
            for event in decoder.close():
                yield event
            return
        elif isinstance(message, Failure):
            yield failure_event(message)
            return


async def fetch_json(egress: Egress, target: Target, timeout_ms: int,
                     http: HttpRequest | None = None) -> tuple[object, ErrorEvent | None]:
    """A non-streamed GET (the model list, by default): the decoded JSON, or the error it means."""
    import json

    http = http or target.models_request()
    stream = egress.open(target.route, spec_of(http, timeout_ms))
    head = await stream.next()
    if isinstance(head, Failure):
        return None, failure_event(head)
    if not isinstance(head, Head):
        return None, ErrorEvent("malformed", "The egress answered without a status.")
    body, failure = await _read_rest(stream, 8 * 1024 * 1024)
    if failure is not None:
        return None, failure_event(failure)
    if not 200 <= head.status < 300 or _is_html(head):
        return None, classify_http_error(head.status, head.headers, body)
    try:
        return json.loads(body.decode("utf-8", "replace")), None
    except ValueError:
        return None, ErrorEvent("malformed", "The provider's answer is not JSON.", head.status)


# Anthropic pages its list 100 models at a time; no provider has anywhere near this many pages.
MAX_MODEL_PAGES = 20


async def list_models(egress: Egress, target: Target, timeout_ms: int) -> tuple[list[ModelInfo], ErrorEvent | None]:
    """Every model the provider lists: each page of Anthropic's list; for an OpenAI-compatible server
    whose /models is missing (404), Ollama's own /api/tags. A page that is not a model list is an
    error of kind "malformed"."""
    models: list[ModelInfo] = []
    after: str | None = None
    for _ in range(MAX_MODEL_PAGES):
        doc, error = await fetch_json(egress, target, timeout_ms, target.models_request(after))
        if error is not None:
            if not models and target.may_be_ollama and error.status == 404:
                return await _ollama_tags(egress, target, timeout_ms, error)
            return models, error
        try:
            page = target.parse_models(doc)
        except ValueError as problem:
            return models, ErrorEvent("malformed", str(problem))
        models.extend(page.models)
        if not page.next_after or page.next_after == after:
            break
        after = page.next_after
    return models, None


async def _ollama_tags(egress: Egress, target: Target, timeout_ms: int,
                       first: ErrorEvent) -> tuple[list[ModelInfo], ErrorEvent | None]:
    doc, error = await fetch_json(egress, target, timeout_ms, target.ollama_tags_request())
    if error is not None:
        return [], first  # not Ollama either: the error of the list asked first is the one to show
    try:
        return list(ollama_codec.parse_tags(doc).models), None
    except ValueError:
        return [], first


# --- the flows ---------------------------------------------------------------------------------


async def _nothing_to_save(_stage: str) -> None:
    return None


@dataclass
class Hooks:
    """What the shell does at each step: persist (awaited before any request leaves), show a
    restored delta, and whether the user asked to stop. An extraction run needs none of them but
    `request`."""

    persist: Callable[[str], Awaitable[None]] = _nothing_to_save  # "turn" | "partial" | "final"
    delta: Callable[[str], None] = lambda _text: None
    stopped: Callable[[], bool] = lambda: False
    calls: list[Call] = field(default_factory=list)
    errors: list[ErrorEvent] = field(default_factory=list)  # the stream errors met, with their words
    # The embedding index's nearest cards to a real query (None: it cannot answer; lexical search only).
    neighbours: Callable[[str, int], Awaitable[list[Neighbour] | None]] | None = None
    # What the model is sent and writes, for the page's "what the model saw" (fakes only): each
    # request as it leaves, each text delta as the model wrote it (before restore).
    request: Callable[[CallModel], None] | None = None
    raw: Callable[[str], None] | None = None


class WorkerDriver(Driver):
    """The worker's shell of the one driver: each call over the egress bridge, the hooks for the rest."""

    def __init__(self, egress: Egress, target: Target, hooks: Hooks) -> None:
        self.egress = egress
        self.target = target
        self.hooks = hooks

    def stream(self, step: CallModel) -> AsyncIterator[StreamEvent]:
        timeout_ms = CHAT_IDLE_TIMEOUT_MS if step.timeout_s is None else int(step.timeout_s * 1000)
        return stream_events(self.egress, self.target, step.request, self.hooks.calls, timeout_ms)

    async def calling(self, step: CallModel) -> None:
        if self.hooks.request is not None:
            self.hooks.request(step)
        if step.purpose != "message":
            await asyncio.sleep(0)  # let the page's calls in between extraction passes

    async def persist(self, step: PersistTurn) -> None:
        await self.hooks.persist("turn")

    async def neighbours(self, step: FindNeighbours) -> list[Neighbour] | None:
        return await self.hooks.neighbours(step.query, step.k) if self.hooks.neighbours is not None else None

    async def show(self, step: ReplyDelta) -> None:
        self.hooks.delta(step.text)
        await self.hooks.persist("partial")

    def seen(self, event: StreamEvent) -> None:
        """An answer of the stream: errors kept with their words, text deltas shown raw."""
        if isinstance(event, ErrorEvent):
            self.hooks.errors.append(event)
        elif isinstance(event, TextDelta) and self.hooks.raw is not None:
            self.hooks.raw(event.text)

    def stopped(self) -> bool:
        return self.hooks.stopped()


async def drive_send(flow: Flow[SendOutcome], egress: Egress, target: Target, hooks: Hooks) -> SendOutcome | None:
    """Steps `flow` to its end. Returns None when the user stopped it (the flow was closed: its
    partial reply is marked interrupted)."""
    return await WorkerDriver(egress, target, hooks).drive(flow)


async def drive_extraction(flow: Flow[ExtractionOutcome], egress: Egress, target: Target,
                           on_call: Callable[[CallModel], None] | None = None) -> ExtractionOutcome:
    """Steps an extraction run to its end (it cannot be stopped: its calls are bounded by their timeout)."""
    outcome = await WorkerDriver(egress, target, Hooks(request=on_call)).drive(flow)
    assert outcome is not None  # only a stopped flow gives none
    return outcome
