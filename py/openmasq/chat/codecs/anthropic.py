"""The Anthropic Messages wire format: request bodies and headers, responses, the stream's
named events (content blocks, input_json_delta), model lists, and the text fields a
redacting proxy rewrites on the way out and back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

from .errors import classify_error_payload, classify_http_error, looks_like_html
from .models import (
    ChatRequest,
    ChatResponse,
    Done,
    ErrorEvent,
    HttpRequest,
    Message,
    ModelInfo,
    ModelPage,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    Usage,
    join_url,
)
from .rewrite import Feeder, FeederFactory, dump, load_object, whole
from .sse import SSEComment, SSEEvent, SSEItem, SSEParser, SSEProblem
from .walk import (
    ShapeError,
    TextMap,
    as_int,
    as_str,
    expect_dict,
    expect_list,
    map_data,
    map_declaration,
    map_optional,
    map_rest,
    map_text_blocks,
)

MESSAGES_PATH = "messages"
MODELS_PATH = "models"
API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096  # the API requires max_tokens; this fits every current model
_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls",
           "refusal": "content_filter"}
# Blocks that carry no text to rewrite: bytes of an image, an opaque signed summary.
_OPAQUE_BLOCKS = frozenset({"image", "redacted_thinking"})
_DELTA_FIELDS = {"text_delta": "text", "input_json_delta": "partial_json", "thinking_delta": "thinking"}
_BLOCK_FIELDS = {"text": "text", "thinking": "thinking"}
# What a proxy passes as it is in a client's body: settings, never content. `mcp_servers` and
# `container` address servers the provider itself connects to (their URLs and tokens must
# reach it unchanged, like the API key). Every other field is rewritten, known or not.
_SETTINGS = frozenset({
    "model", "max_tokens", "stream", "temperature", "top_p", "top_k", "tool_choice", "thinking", "service_tier",
    "mcp_servers", "container", "context_management",
})
_DELTA_OF_BLOCK = {"text": "text_delta", "tool_use": "input_json_delta", "thinking": "thinking_delta",
                   "server_tool_use": "input_json_delta", "mcp_tool_use": "input_json_delta"}
_CALL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})  # their input streams as JSON
# A citation's quoted text and its source's title: the document the client sent was redacted, so
# they quote fakes. Its other fields (indices, URLs, an encrypted index) are the provider's.
_CITATION_TEXTS = ("cited_text", "document_title", "title")


# --- requests -------------------------------------------------------------------------------


def request_body(request: ChatRequest, *, default_max_tokens: int = DEFAULT_MAX_TOKENS) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens if request.max_tokens is not None else default_max_tokens,
        "messages": _wire_messages(request.messages),
    }
    if request.system:
        body["system"] = request.system
    if request.tools:
        body["tools"] = [{"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
                         for t in request.tools]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.stream:
        body["stream"] = True
    return body


def _wire_messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """Tool results travel in user turns, and consecutive turns of one role are merged: the API
    wants every tool_result of a parallel call in the one user turn that follows it."""
    wire: list[dict[str, Any]] = []
    for message in messages:
        role = "user" if message.role == "tool" else message.role
        blocks = _blocks(message)
        if not blocks:
            continue  # an empty text block is refused by the API
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": role, "content": blocks})
    return wire


def _blocks(message: Message) -> list[dict[str, Any]]:
    if message.role == "tool":
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id,
                                  "content": message.content}
        if message.is_error:
            result["is_error"] = True
        return [result]
    blocks: list[dict[str, Any]] = [
        {"type": "image", "source": {"type": "base64", "media_type": image.media_type, "data": image.base64()}}
        for image in message.images]  # attached images first: the API reads them before the text about them
    blocks += [{"type": "text", "text": text} for text in message.texts if text]
    for call in message.tool_calls:
        # The API wants an object; arguments the model wrote as invalid JSON replay as {}.
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.parsed_arguments() or {}})
    return blocks


def auth_headers(api_key: str, *, version: str = API_VERSION, browser: bool = False) -> list[tuple[str, str]]:
    headers = [("anthropic-version", version)]
    if api_key:
        headers.append(("x-api-key", api_key))
    if browser:  # the API answers CORS requests only when told the key is the user's own
        headers.append(("anthropic-dangerous-direct-browser-access", "true"))
    return headers


def build_request(
    request: ChatRequest, base_url: str, api_key: str = "", *, version: str = API_VERSION, browser: bool = False,
    default_max_tokens: int = DEFAULT_MAX_TOKENS,
) -> HttpRequest:
    headers = [("content-type", "application/json"),
               ("accept", "text/event-stream" if request.stream else "application/json"),
               *auth_headers(api_key, version=version, browser=browser)]
    body = request_body(request, default_max_tokens=default_max_tokens)
    return HttpRequest("POST", join_url(base_url, MESSAGES_PATH), tuple(headers), body)


def build_models_request(base_url: str, api_key: str = "", *, after: str | None = None, limit: int = 100,
                         version: str = API_VERSION, browser: bool = False) -> HttpRequest:
    query: dict[str, str | int] = {"limit": limit}
    if after:
        query["after_id"] = after
    url = join_url(base_url, MODELS_PATH) + "?" + urlencode(query)
    return HttpRequest("GET", url, (("accept", "application/json"),
                                    *auth_headers(api_key, version=version, browser=browser)))


def parse_models(doc: object) -> ModelPage:
    """GET /v1/models: {"data": [{"id", "display_name"}], "has_more", "last_id"}."""
    body = expect_dict(doc, "the model list")
    data = expect_list(body.get("data"), "the model list's data")
    models = tuple(ModelInfo(as_str(item.get("id")), as_str(item.get("display_name")))
                   for item in data if isinstance(item, dict) and as_str(item.get("id")))
    more = body.get("has_more") is True and as_str(body.get("last_id"))
    return ModelPage(models, more or None)


# --- complete responses ---------------------------------------------------------------------


def parse_response(doc: object) -> ChatResponse:
    """A non-streamed message; raises ShapeError when it is not one."""
    body = expect_dict(doc, "the response")
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[ToolCall] = []
    for block in expect_list(body.get("content"), "the response's content"):
        block = expect_dict(block, "a content block")
        kind = block.get("type")
        if kind == "text":
            texts.append(as_str(block.get("text")))
        elif kind == "thinking":
            thoughts.append(as_str(block.get("thinking")))
        elif kind == "tool_use":
            calls.append(ToolCall(as_str(block.get("id")), as_str(block.get("name")), dump(block.get("input") or {})))
    reason = as_str(body.get("stop_reason"))
    return ChatResponse("".join(texts), tuple(calls), _FINISH.get(reason, "other" if reason else "stop"),
                        _usage(body.get("usage")), as_str(body.get("model")), "".join(thoughts))


def decode_response(status: int, headers: Mapping[str, str], body: bytes | str, *, now: float | None = None
                    ) -> ChatResponse | ErrorEvent:
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    if not 200 <= status < 300 or looks_like_html({k.lower(): v for k, v in headers.items()}, text):
        return classify_http_error(status, headers, text, now=now)
    doc = load_object(text)
    if doc is None:
        return ErrorEvent("malformed", "The provider's answer is not a JSON object.", status)
    if doc.get("type") == "error":
        return classify_error_payload(doc)
    try:
        return parse_response(doc)
    except ShapeError as error:
        return ErrorEvent("malformed", f"The provider's answer is not a message: {error}.", status)


def _usage(usage: object) -> Usage:
    if not isinstance(usage, dict):
        return Usage()
    return Usage(as_int(usage.get("input_tokens")), as_int(usage.get("output_tokens")),
                 as_int(usage.get("cache_read_input_tokens")), as_int(usage.get("cache_creation_input_tokens")))


# --- streams --------------------------------------------------------------------------------


class StreamDecoder:
    """SSE bytes of a streamed message in, neutral events out. Tool calls are numbered 0, 1, …
    in the order their blocks start (as OpenAI numbers them). Never raises."""

    def __init__(self) -> None:
        self._sse = SSEParser()
        self._tools: dict[int, int] = {}  # content block index -> tool call number
        self._reason = ""
        self._finished = False

    def feed(self, chunk: bytes | str) -> list[StreamEvent]:
        return [e for item in self._sse.feed(chunk) for e in self.feed_item(item)]

    def close(self) -> list[StreamEvent]:
        events = [e for item in self._sse.close() for e in self.feed_item(item)]
        if not self._finished:
            self._finished = True
            events.append(ErrorEvent("truncated", "The stream ended before the model finished."))
        return events

    def feed_item(self, item: SSEItem) -> list[StreamEvent]:
        if isinstance(item, SSEProblem):
            if item.kind in ("line_too_long", "event_too_large"):
                return [ErrorEvent("malformed", f"The provider's stream is malformed: {item.detail}.")]
            return []
        if isinstance(item, SSEComment) or self._finished:
            return []
        doc = load_object(item.data)
        if doc is None:
            return [ErrorEvent("malformed", "The provider sent a stream event that is not a JSON object.")]
        kind = as_str(doc.get("type")) or item.event
        handler = _HANDLERS.get(kind)
        return handler(self, doc) if handler is not None else []

    def _message_start(self, doc: dict[str, Any]) -> list[StreamEvent]:
        message = doc.get("message")
        usage = _usage(message.get("usage")) if isinstance(message, dict) else Usage()
        return [usage] if usage != Usage() else []

    def _block_start(self, doc: dict[str, Any]) -> list[StreamEvent]:
        block = doc.get("content_block")
        index = as_int(doc.get("index"))
        if not isinstance(block, dict) or index is None:
            return []
        kind = block.get("type")
        if kind == "tool_use":
            number = self._tools.setdefault(index, len(self._tools))
            return [ToolCallDelta(number, as_str(block.get("id")), as_str(block.get("name")))]
        if kind == "text" and as_str(block.get("text")):
            return [TextDelta(block["text"])]
        if kind == "thinking" and as_str(block.get("thinking")):
            return [ReasoningDelta(block["thinking"])]
        return []

    def _block_delta(self, doc: dict[str, Any]) -> list[StreamEvent]:
        delta = doc.get("delta")
        if not isinstance(delta, dict):
            return []
        kind = delta.get("type")
        if kind == "text_delta" and as_str(delta.get("text")):
            return [TextDelta(delta["text"])]
        if kind == "thinking_delta" and as_str(delta.get("thinking")):
            return [ReasoningDelta(delta["thinking"])]
        index = as_int(doc.get("index"))
        if kind == "input_json_delta" and index is not None:
            number = self._tools.setdefault(index, len(self._tools))
            return [ToolCallDelta(number, arguments_fragment=as_str(delta.get("partial_json")))]
        return []

    def _message_delta(self, doc: dict[str, Any]) -> list[StreamEvent]:
        delta = doc.get("delta")
        if isinstance(delta, dict) and as_str(delta.get("stop_reason")):
            self._reason = delta["stop_reason"]
        usage = _usage(doc.get("usage"))
        return [usage] if usage != Usage() else []

    def _message_stop(self, doc: dict[str, Any]) -> list[StreamEvent]:
        self._finished = True
        return [Done(_FINISH.get(self._reason, "other" if self._reason else "stop"), self._reason)]

    def _error(self, doc: dict[str, Any]) -> list[StreamEvent]:
        self._finished = True
        return [classify_error_payload(doc)]


_HANDLERS = {
    "message_start": StreamDecoder._message_start,
    "content_block_start": StreamDecoder._block_start,
    "content_block_delta": StreamDecoder._block_delta,
    "message_delta": StreamDecoder._message_delta,
    "message_stop": StreamDecoder._message_stop,
    "error": StreamDecoder._error,
}


# --- the text a proxy rewrites ----------------------------------------------------------------


def map_request_texts(body: object, text: TextMap) -> dict[str, Any]:
    """A copy of a client's request body with every text it sends rewritten: system, text and
    thinking blocks, tool_use inputs, tool results, text documents, metadata, tool declarations
    (their names left alone), stop sequences, and any field this codec does not know. Only the
    settings of _SETTINGS go as they are. Raises ShapeError on a shape whose text cannot be
    accounted for."""
    out = dict(expect_dict(body, "the request body"))
    system = out.get("system")
    if isinstance(system, str):
        out["system"] = text(system)
    elif isinstance(system, list):
        out["system"] = map_text_blocks(system, text, lambda block: _map_block(block, text))
    elif system is not None:
        raise ShapeError(f"system is a {type(system).__name__}")
    out["messages"] = [_map_message(m, text) for m in expect_list(out.get("messages"), "messages")]
    if out.get("metadata") is not None:
        out["metadata"] = map_rest(dict(expect_dict(out["metadata"], "metadata")), text, done=())
    if out.get("tools") is not None:
        out["tools"] = [map_declaration(t, "a tool", text) for t in expect_list(out["tools"], "tools")]
    return map_rest(out, text, done=_SETTINGS | {"system", "messages", "metadata", "tools"})


def _map_message(message: object, text: TextMap) -> dict[str, Any]:
    out = dict(expect_dict(message, "a message"))
    out["content"] = _map_content(out.get("content"), text)
    return map_rest(out, text, done={"role", "content"})


def _map_content(content: object, text: TextMap) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return text(content)
    return map_text_blocks(expect_list(content, "a message's content"), text, lambda block: _map_block(block, text))


def _map_block(block: object, text: TextMap) -> dict[str, Any]:
    out = dict(expect_dict(block, "a content block"))
    kind = out.get("type")
    if kind in _OPAQUE_BLOCKS:
        return out
    if kind in _BLOCK_FIELDS:
        map_optional(out, _BLOCK_FIELDS[kind], text)
        # Citations are quoted text (their encrypted index and a thinking block's signature are
        # the provider's: walk.PROVIDER_TOKENS).
        return map_rest(out, text, done={_BLOCK_FIELDS[kind]})
    if kind == "tool_use":
        out["input"] = map_data(out.get("input"), text)
        return map_rest(out, text, done={"id", "name", "input"})
    if kind == "tool_result":
        if out.get("content") is not None:
            out["content"] = _map_content(out["content"], text)
        return map_rest(out, text, done={"tool_use_id", "content", "is_error"})
    if kind == "document":
        return _map_document(out, text)
    # A block type this codec does not know (a server tool's call or result, one to come): every
    # string in it is rewritten (fail closed), bar what walk.map_content leaves (the ids the
    # provider gave its tool calls, which pair a call with its result, among them).
    return map_rest(out, text, done=())


def _map_document(block: dict[str, Any], text: TextMap) -> dict[str, Any]:
    source = dict(expect_dict(block.get("source"), "a document's source"))
    if source.get("type") == "text":
        map_optional(source, "data", text)
    elif source.get("type") == "content":
        source["content"] = _map_content(source.get("content"), text)
    block["source"] = source
    for key in ("title", "context"):
        map_optional(block, key, text)
    return map_rest(block, text, done={"source", "title", "context"})


def map_response_texts(doc: object, text: TextMap, args: TextMap) -> dict[str, Any]:
    """A copy of a non-streamed message with its text and thinking rewritten by `text` and each
    string of its tool_use inputs by `args`."""
    out = dict(expect_dict(doc, "the response"))
    blocks = []
    for block in expect_list(out.get("content"), "the response's content"):
        block = dict(expect_dict(block, "a content block"))
        kind = block.get("type")
        if kind in _BLOCK_FIELDS:
            map_optional(block, _BLOCK_FIELDS[kind], text)
            _map_citations(block, text)
        elif kind in _CALL_BLOCKS:
            block["input"] = map_data(block.get("input"), args)
        elif kind not in _OPAQUE_BLOCKS:
            map_rest(block, text, done=())  # a server tool's result, a block to come: what the model saw
        blocks.append(block)
    out["content"] = blocks
    map_optional(out, "stop_sequence", text)  # the client's own stop string, which the model saw as a fake
    return out


def _delta_type(doc: dict[str, Any]) -> str:
    delta = doc.get("delta")
    return as_str(delta.get("type")) if isinstance(delta, dict) else ""


def _map_citations(block: dict[str, Any], text: TextMap) -> None:
    """A text block's citations, each with its quoted text restored (absent is fine)."""
    citations = block.get("citations")
    if citations is not None:
        block["citations"] = [_map_citation(c, text) for c in expect_list(citations, "a block's citations")]


def _map_citation(citation: object, text: TextMap) -> dict[str, Any]:
    out = dict(expect_dict(citation, "a citation"))
    for key in _CITATION_TEXTS:
        map_optional(out, key, text)
    return out


class StreamRewriter:
    """Rewrites a streamed message event by event: each content block (text, thinking, a
    tool_use's input JSON) has its own feeder, flushed into an extra delta just before the
    block's content_block_stop (or by finish() when the stream ends early)."""

    def __init__(self, text: FeederFactory, args: FeederFactory) -> None:
        self._new_text = text
        self._new_args = args
        self._blocks: dict[int, tuple[str, Feeder]] = {}  # block index -> (its delta type, feeder)
        self.complete = False  # message_stop or an error event was seen
        self.problems: list[str] = []

    def rewrite(self, item: SSEItem) -> list[SSEItem]:
        if isinstance(item, SSEProblem):
            self.problems.append(f"{item.kind}: {item.detail}")
            return []
        if isinstance(item, SSEComment):
            return [item]
        doc = load_object(item.data)
        if doc is None:
            self.problems.append("malformed: dropped a stream event that is not a JSON object")
            return []
        kind = as_str(doc.get("type")) or item.event
        index = as_int(doc.get("index"))
        if kind == "content_block_start" and index is not None:
            self._start(index, doc)
        elif kind == "content_block_delta" and index is not None:
            if _delta_type(doc) == "signature_delta":  # the thinking it signs comes first, whole
                return [*self._flush(index), item]
            self._delta(index, doc)
        elif kind == "content_block_stop" and index is not None:
            return [*self._flush(index), item]
        elif kind in ("message_delta", "message_stop", "error"):
            self.complete = self.complete or kind != "message_delta"
            delta = doc.get("delta")
            if isinstance(delta, dict) and isinstance(delta.get("stop_sequence"), str):
                delta["stop_sequence"] = whole(self._new_text, delta["stop_sequence"])
            return [*self.finish(), replace(item, data=dump(doc))]
        return [replace(item, data=dump(doc))]

    def finish(self) -> list[SSEItem]:
        """Release every block's held-back text, each as an extra delta."""
        return [event for index in sorted(self._blocks) for event in self._flush(index)]

    def _start(self, index: int, doc: dict[str, Any]) -> None:
        block = doc.get("content_block")
        kind = block.get("type") if isinstance(block, dict) else None
        if not isinstance(block, dict) or not isinstance(kind, str) or kind in _OPAQUE_BLOCKS:
            return
        if kind not in _DELTA_OF_BLOCK:  # a server tool's result arrives whole
            map_rest(block, lambda s: whole(self._new_text, s), done=())
            return
        feeder = (self._new_args if kind in _CALL_BLOCKS else self._new_text)()
        self._blocks[index] = (_DELTA_OF_BLOCK[kind], feeder)
        if kind in _CALL_BLOCKS and block.get("input"):
            block["input"] = map_data(block["input"], lambda s: whole(self._new_args, s))
        elif kind in _BLOCK_FIELDS and isinstance(block.get(_BLOCK_FIELDS[kind]), str):
            block[_BLOCK_FIELDS[kind]] = feeder.feed(block[_BLOCK_FIELDS[kind]])
        if isinstance(block.get("citations"), list):
            block["citations"] = [self._citation(c) for c in block["citations"]]

    def _delta(self, index: int, doc: dict[str, Any]) -> None:
        delta = doc.get("delta")
        entry = self._blocks.get(index)
        if not isinstance(delta, dict) or entry is None:
            return
        field = _DELTA_FIELDS.get(as_str(delta.get("type")))
        if field is not None and isinstance(delta.get(field), str):
            delta[field] = entry[1].feed(delta[field])
        elif delta.get("type") == "citations_delta":
            delta["citation"] = self._citation(delta.get("citation"))

    def _citation(self, citation: object) -> object:
        """A citation arrives whole, in one event: restored at once, apart from the block's text."""
        if not isinstance(citation, dict):
            return citation
        return _map_citation(citation, lambda s: whole(self._new_text, s))

    def _flush(self, index: int) -> list[SSEItem]:
        entry = self._blocks.pop(index, None)
        if entry is None:
            return []
        delta_type, feeder = entry
        rest = feeder.flush()
        if not rest:
            return []
        delta = {"type": delta_type, _DELTA_FIELDS[delta_type]: rest}
        doc = {"type": "content_block_delta", "index": index, "delta": delta}
        return [SSEEvent(dump(doc), "content_block_delta")]


# --- errors the proxy itself answers ----------------------------------------------------------


def error_body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def error_event(kind: str, message: str) -> SSEEvent:
    return SSEEvent(dump(error_body(kind, message)), "error")
