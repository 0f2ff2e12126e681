"""The OpenAI Chat Completions wire format, also spoken by Ollama, LM Studio, llama.cpp, vLLM,
OpenRouter, Mistral and Groq: request bodies, responses, stream chunks, model lists, and the
text fields that a redacting proxy rewrites on the way out and back."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

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
    map_json_text,
    map_optional,
    map_rest,
    map_text_blocks,
)

CHAT_PATH = "chat/completions"
MODELS_PATH = "models"
DONE_SENTINEL = "[DONE]"
# Assistant text fields: the answer, a refusal, and the reasoning some servers expose
# (reasoning_content: vLLM, DeepSeek, llama.cpp; reasoning: Ollama, OpenRouter).
TEXT_FIELDS = ("content", "refusal", "reasoning_content", "reasoning")
_REASONING_FIELDS = ("reasoning_content", "reasoning")
_FINISH = {"stop": "stop", "length": "length", "tool_calls": "tool_calls", "function_call": "tool_calls",
           "content_filter": "content_filter"}
# Content parts that carry no text to rewrite (the bytes of an image or a sound).
_OPAQUE_PARTS = frozenset({"image_url", "input_audio", "image"})
_NAME_CHARS = 64  # OpenAI's limit on a participant name
# What a proxy passes as it is in a client's body: settings that choose a model, a mode or a
# tool, never content (OpenAI's, and those of the compatible servers: OpenRouter's routing,
# Ollama's keep_alive). Every other field is rewritten, known or not.
_SETTINGS = frozenset({
    "model", "stream", "stream_options", "temperature", "top_p", "top_k", "min_p", "n", "max_tokens",
    "max_completion_tokens", "presence_penalty", "frequency_penalty", "repetition_penalty", "logit_bias",
    "logprobs", "top_logprobs", "seed", "tool_choice", "function_call", "parallel_tool_calls", "service_tier",
    "reasoning_effort", "verbosity", "modalities", "audio", "store", "provider", "models", "route", "transforms",
    "keep_alive",
})
# Lists of declarations (tools and the legacy functions): their names are identifiers.
_DECLARATIONS = ("tools", "functions")
# A message's fields that _map_message handles or that are identifiers (role, call ids).
_MESSAGE_FIELDS = frozenset({"role", "name", "tool_calls", "function_call", "tool_call_id", *TEXT_FIELDS})


# --- requests -------------------------------------------------------------------------------


def request_body(request: ChatRequest, *, max_tokens_field: str = "max_tokens", stream_usage: bool = True
                 ) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    messages.extend(_wire_message(m) for m in request.messages)
    body: dict[str, Any] = {"model": request.model, "messages": messages}
    if request.tools:
        body["tools"] = [
            {"type": "function",
             "function": {"name": t.name, "description": t.description, "parameters": dict(t.parameters)}}
            for t in request.tools
        ]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.max_tokens is not None:
        body[max_tokens_field] = request.max_tokens
    if request.stream:
        body["stream"] = True
        if stream_usage:
            body["stream_options"] = {"include_usage": True}
    return body


def _wire_message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.parts or message.images:  # attached files: the images, a text part each, then the typed text
        wire["content"] = [*({"type": "image_url", "image_url": {"url": image.data_url()}} for image in message.images),
                           *({"type": "text", "text": text} for text in message.texts if text)]
    if message.tool_calls:
        wire["content"] = message.content or None
        wire["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments or "{}"}}
            for c in message.tool_calls
        ]
    return wire


def auth_headers(api_key: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {api_key}")] if api_key else []


def build_request(
    request: ChatRequest, base_url: str, api_key: str = "", *, max_tokens_field: str = "max_tokens",
    stream_usage: bool = True,
) -> HttpRequest:
    headers = [("content-type", "application/json"),
               ("accept", "text/event-stream" if request.stream else "application/json"), *auth_headers(api_key)]
    body = request_body(request, max_tokens_field=max_tokens_field, stream_usage=stream_usage)
    return HttpRequest("POST", join_url(base_url, CHAT_PATH), tuple(headers), body)


def build_models_request(base_url: str, api_key: str = "") -> HttpRequest:
    return HttpRequest("GET", join_url(base_url, MODELS_PATH), (("accept", "application/json"), *auth_headers(api_key)))


def parse_models(doc: object) -> ModelPage:
    """GET /models: {"data": [{"id", "owned_by"}]} (Ollama, LM Studio and the others alike)."""
    data = expect_list(expect_dict(doc, "the model list").get("data"), "the model list's data")
    models = tuple(
        ModelInfo(as_str(item.get("id")), as_str(item.get("name")), as_str(item.get("owned_by")))
        for item in data if isinstance(item, dict) and as_str(item.get("id"))
    )
    return ModelPage(models)


# --- complete responses ---------------------------------------------------------------------


def parse_response(doc: object) -> ChatResponse:
    """A non-streamed completion; raises ShapeError when it is not one."""
    body = expect_dict(doc, "the response")
    choices = expect_list(body.get("choices"), "the response's choices")
    if not choices:
        raise ShapeError("the response has no choices")
    choice = expect_dict(choices[0], "a choice")
    message = expect_dict(choice.get("message"), "the choice's message")
    calls = tuple(_tool_call(expect_dict(c, "a tool call"), i)
                  for i, c in enumerate(expect_list(message.get("tool_calls") or [], "tool_calls")))
    reason = as_str(choice.get("finish_reason"))
    return ChatResponse(
        text=_content_text(message.get("content")),
        tool_calls=calls,
        finish_reason=_finish(reason, bool(calls)),
        usage=_usage_of(body),
        model=as_str(body.get("model")),
        reasoning=next((as_str(message.get(k)) for k in _REASONING_FIELDS if as_str(message.get(k))), ""),
    )


def decode_response(status: int, headers: Mapping[str, str], body: bytes | str, *, now: float | None = None
                    ) -> ChatResponse | ErrorEvent:
    """Everything a non-streamed answer can be: the completion, or the error it means."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    if not 200 <= status < 300 or looks_like_html({k.lower(): v for k, v in headers.items()}, text):
        return classify_http_error(status, headers, text, now=now)
    doc = load_object(text)
    if doc is None:
        return ErrorEvent("malformed", "The provider's answer is not a JSON object.", status)
    if "error" in doc and "choices" not in doc:
        return classify_error_payload(doc)
    try:
        return parse_response(doc)
    except ShapeError as error:
        return ErrorEvent("malformed", f"The provider's answer is not a chat completion: {error}.", status)


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # some servers answer with text parts
        return "".join(as_str(p.get("text")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def _tool_call(call: dict[str, Any], position: int) -> ToolCall:
    function = call.get("function")
    function = function if isinstance(function, dict) else {}
    arguments = function.get("arguments")
    text = arguments if isinstance(arguments, str) else dump(arguments) if arguments is not None else ""
    return ToolCall(as_str(call.get("id")) or f"call_{position}", as_str(function.get("name")), text)


def _finish(reason: str, called: bool) -> str:
    if not reason:
        return "tool_calls" if called else "stop"
    return _FINISH.get(reason, "other")


def _usage_of(doc: dict[str, Any]) -> Usage:
    """The token counts a response or a chunk carries: OpenAI's `usage`, or the counts Ollama's own
    responses give (`prompt_eval_count`, `eval_count`) where a server sends those instead."""
    if isinstance(doc.get("usage"), dict):
        return _usage(doc["usage"])
    return Usage(as_int(doc.get("prompt_eval_count")), as_int(doc.get("eval_count")))


def _usage(usage: object) -> Usage:
    if not isinstance(usage, dict):
        return Usage()
    details = usage.get("prompt_tokens_details")
    cached = as_int(details.get("cached_tokens")) if isinstance(details, dict) else None
    return Usage(as_int(usage.get("prompt_tokens")), as_int(usage.get("completion_tokens")), cached)


# --- streams --------------------------------------------------------------------------------


class StreamDecoder:
    """SSE bytes of a streamed completion in, neutral events out. Never raises: garbage gives
    an ErrorEvent("malformed"), a stream cut before the end an ErrorEvent("truncated")."""

    def __init__(self) -> None:
        self._sse = SSEParser()
        self._reason = ""
        self._called = False
        self._finished = False  # a terminal event (Done or a provider error) was emitted

    def feed(self, chunk: bytes | str) -> list[StreamEvent]:
        return [e for item in self._sse.feed(chunk) for e in self.feed_item(item)]

    def close(self) -> list[StreamEvent]:
        events = [e for item in self._sse.close() for e in self.feed_item(item)]
        if not self._finished:
            self._finished = True
            if self._reason:  # the server forgot [DONE]: the model had finished
                events.append(Done(_finish(self._reason, self._called), self._reason))
            else:
                events.append(ErrorEvent("truncated", "The stream ended before the model finished."))
        return events

    def feed_item(self, item: SSEItem) -> list[StreamEvent]:
        if isinstance(item, SSEProblem):
            if item.kind in ("line_too_long", "event_too_large"):
                return [ErrorEvent("malformed", f"The provider's stream is malformed: {item.detail}.")]
            return []
        if isinstance(item, SSEComment) or self._finished:
            return []
        if item.data.strip() == DONE_SENTINEL:
            self._finished = True
            return [Done(_finish(self._reason, self._called), self._reason)]
        doc = load_object(item.data)
        if doc is None:
            return [ErrorEvent("malformed", "The provider sent a stream event that is not a JSON object.")]
        if "error" in doc and not doc.get("choices"):
            self._finished = True
            return [classify_error_payload(doc)]
        return self._chunk(doc)

    def _chunk(self, doc: dict[str, Any]) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        choices = doc.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        delta = choice.get("delta")
        if isinstance(delta, dict):
            events.extend(_delta_events(delta))
            self._called = self._called or bool(delta.get("tool_calls"))
        if as_str(choice.get("finish_reason")):
            self._reason = as_str(choice.get("finish_reason"))
        usage = _usage_of(doc)
        if usage != Usage():
            events.append(usage)
        return events


def _delta_events(delta: dict[str, Any]) -> list[StreamEvent]:
    events: list[StreamEvent] = []
    for key in _REASONING_FIELDS:
        if as_str(delta.get(key)):
            events.append(ReasoningDelta(delta[key]))
    if as_str(delta.get("content")):
        events.append(TextDelta(delta["content"]))
    calls = delta.get("tool_calls")
    for position, call in enumerate(calls if isinstance(calls, list) else []):
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        if not isinstance(function, dict):
            function = {}
        arguments = function.get("arguments")
        fragment = arguments if isinstance(arguments, str) else dump(arguments) if arguments is not None else ""
        index = as_int(call.get("index"))
        events.append(ToolCallDelta(position if index is None else index, as_str(call.get("id")),
                                    as_str(function.get("name")), fragment))
    return events


# --- the text a proxy rewrites ----------------------------------------------------------------


def map_request_texts(body: object, text: TextMap) -> dict[str, Any]:
    """A copy of a client's request body with every text it sends rewritten: system, user,
    assistant (and its tool-call arguments), tool results, participant names, the end-user id,
    tool and response-format declarations (their names left alone), stop sequences, metadata,
    predicted output, and any field this codec does not know. Only the settings of _SETTINGS
    go as they are. Raises ShapeError on a shape whose text cannot be accounted for."""
    out = dict(expect_dict(body, "the request body"))
    out["messages"] = [_map_message(m, text) for m in expect_list(out.get("messages"), "messages")]
    map_optional(out, "user", text)
    for key in _DECLARATIONS:
        if out.get(key) is not None:
            out[key] = [map_declaration(d, f"a declaration in {key}", text) for d in expect_list(out[key], key)]
    declared = set(_DECLARATIONS)
    if isinstance(out.get("response_format"), dict):  # else a server's own spelling: rewritten below
        out["response_format"] = map_declaration(out["response_format"], "response_format", text)
        declared.add("response_format")
    return map_rest(out, text, done=_SETTINGS | declared | {"messages", "user"})


def _map_message(message: object, text: TextMap) -> dict[str, Any]:
    out = dict(expect_dict(message, "a message"))
    content = out.get("content")
    if isinstance(content, str):
        out["content"] = text(content)
    elif isinstance(content, list):
        out["content"] = map_text_blocks(content, text, lambda part: _map_part(part, text))
    elif content is not None:
        raise ShapeError(f"a message's content is a {type(content).__name__}")
    for key in TEXT_FIELDS[1:]:
        map_optional(out, key, text)
    if isinstance(out.get("name"), str):
        out["name"] = _participant_name(text(out["name"]))
    if out.get("tool_calls") is not None:
        out["tool_calls"] = [_map_call(c, text) for c in expect_list(out["tool_calls"], "tool_calls")]
    if out.get("function_call") is not None:
        out["function_call"] = _map_call({"function": out["function_call"]}, text)["function"]
    return map_rest(out, text, done=_MESSAGE_FIELDS)


def _map_part(part: object, text: TextMap) -> dict[str, Any]:
    out = dict(expect_dict(part, "a content part"))
    kind = out.get("type")
    if kind in _OPAQUE_PARTS:
        return out
    if kind == "file":  # the file's bytes are opaque, its name is not
        file = dict(expect_dict(out.get("file"), "a file part"))
        map_optional(file, "filename", text)
        out["file"] = file
        return out
    # A part type this codec does not know: every string in it is rewritten (fail closed).
    return map_rest(out, text, done=())


def _map_call(call: object, text: TextMap) -> dict[str, Any]:
    out = dict(expect_dict(call, "a tool call"))
    if _is_custom(out):
        return _map_custom_input(out, text)
    function = dict(expect_dict(out.get("function"), "a tool call's function"))
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        function["arguments"] = map_json_text(arguments, text)
    elif arguments is not None:
        function["arguments"] = map_data(arguments, text)
    out["function"] = map_rest(function, text, done={"name", "arguments"})
    return map_rest(out, text, done={"id", "function"})


def _is_custom(call: dict[str, Any]) -> bool:
    """A call of a custom tool: its input is free text, not JSON arguments."""
    return call.get("type") == "custom" or ("custom" in call and "function" not in call)


def _map_custom_input(call: dict[str, Any], text: TextMap) -> dict[str, Any]:
    custom = dict(expect_dict(call.get("custom"), "a custom tool call"))
    map_optional(custom, "input", text)
    call["custom"] = map_rest(custom, text, done={"name", "input"})
    return map_rest(call, text, done={"id", "custom"})


def _participant_name(name: str) -> str:
    """OpenAI accepts [A-Za-z0-9_-]{1,64} as a name: a fake with spaces or accents is folded to it."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    safe = "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in ascii_name)[:_NAME_CHARS]
    return safe or "user"


def map_response_texts(doc: object, text: TextMap, args: TextMap) -> dict[str, Any]:
    """A copy of a non-streamed completion with the assistant's text rewritten by `text` and
    its tool-call arguments by `args`."""
    out = dict(expect_dict(doc, "the response"))
    choices = []
    for choice in expect_list(out.get("choices"), "choices"):
        choice = dict(expect_dict(choice, "a choice"))
        if choice.get("message") is not None:
            choice["message"] = _map_reply_message(choice["message"], text, args)
        choices.append(choice)
    out["choices"] = choices
    return out


def _map_reply_message(message: object, text: TextMap, args: TextMap) -> dict[str, Any]:
    out = dict(expect_dict(message, "a message"))
    content = out.get("content")
    if isinstance(content, list):
        out["content"] = map_text_blocks(content, text, lambda part: _map_part(part, text))
    else:
        map_optional(out, "content", text)
        if isinstance(out.get("annotations"), list):
            out["annotations"] = _map_annotations(out["annotations"], content if isinstance(content, str) else "",
                                                  text)
    for key in TEXT_FIELDS[1:]:
        map_optional(out, key, text)
    _map_reply_extras(out, text)
    if out.get("tool_calls") is not None:
        out["tool_calls"] = [_map_custom_input(dict(c), text) if isinstance(c, dict) and _is_custom(c)
                             else _map_call_arguments(c, args) for c in expect_list(out["tool_calls"], "tool_calls")]
    if out.get("function_call") is not None:
        out["function_call"] = _map_call_arguments({"function": out["function_call"]}, args)["function"]
    return out


def _map_call_arguments(call: object, args: TextMap) -> dict[str, Any]:
    out = dict(expect_dict(call, "a tool call"))
    function = dict(expect_dict(out.get("function"), "a tool call's function"))
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        function["arguments"] = args(arguments)
    elif arguments is not None:
        function["arguments"] = map_data(arguments, args)
    out["function"] = function
    return out


def _map_reply_extras(holder: dict[str, Any], text: TextMap) -> None:
    """What else a reply (or a delta of one) says in words: a spoken answer's transcript, and
    the readable steps of OpenRouter's reasoning details (not the encrypted ones)."""
    audio = holder.get("audio")
    if isinstance(audio, dict) and isinstance(audio.get("transcript"), str):
        holder["audio"] = {**audio, "transcript": text(audio["transcript"])}
    details = holder.get("reasoning_details")
    if isinstance(details, list):
        holder["reasoning_details"] = [_map_reasoning_detail(d, text) for d in details]


def _map_reasoning_detail(detail: object, text: TextMap) -> object:
    if not isinstance(detail, dict) or detail.get("type") == "reasoning.encrypted":
        return detail
    return {**detail, **{key: text(detail[key]) for key in ("text", "summary") if isinstance(detail.get(key), str)}}


def _map_annotations(annotations: list[Any], before: str, text: TextMap) -> list[Any]:
    """A reply's URL citations (a web search's): each one's title rewritten, and its span moved
    to where the text it marks is once `before`, the reply's text it counts in, is rewritten."""
    out = []
    for annotation in annotations:
        cited = annotation.get("url_citation") if isinstance(annotation, dict) else None
        if isinstance(cited, dict):
            cited = dict(cited)
            map_optional(cited, "title", text)
            for key in ("start_index", "end_index"):
                at = as_int(cited.get(key))
                if at is not None and 0 <= at <= len(before):
                    cited[key] = len(text(before[:at]))
            annotation = {**annotation, "url_citation": cited}
        out.append(annotation)
    return out


class StreamRewriter:
    """Rewrites a streamed completion event by event: each choice's text and each tool call's
    arguments go through their own feeder; what a feeder holds back is released at the
    choice's finish_reason, before [DONE], or by finish() when the stream ends."""

    def __init__(self, text: FeederFactory, args: FeederFactory) -> None:
        self._new_text = text
        self._new_args = args
        self._feeders: dict[tuple[int, str], Feeder] = {}
        self._meta: dict[str, Any] = {}
        self._said: dict[int, list[str]] = {}  # each choice's content as it came: annotations count in it
        self.complete = False  # [DONE] or a provider error was seen
        self.problems: list[str] = []

    def rewrite(self, item: SSEItem) -> list[SSEItem]:
        if isinstance(item, SSEProblem):
            self.problems.append(f"{item.kind}: {item.detail}")
            return []
        if isinstance(item, SSEComment):
            return [item]
        if item.data.strip() == DONE_SENTINEL:
            self.complete = True
            return [*self.finish(), item]
        doc = load_object(item.data)
        if doc is None:
            self.problems.append("malformed: dropped a stream event that is not a JSON object")
            return []
        if "error" in doc and not doc.get("choices"):
            self.complete = True
            return [*self.finish(), item]
        for key in ("id", "object", "created", "model", "system_fingerprint"):
            if key in doc:
                self._meta[key] = doc[key]
        choices = doc.get("choices")
        for choice in choices if isinstance(choices, list) else []:
            if isinstance(choice, dict):
                self._choice(choice)
        return [replace(item, data=dump(doc))]

    def finish(self) -> list[SSEItem]:
        """Release everything held back, as one extra chunk (nothing when nothing is held)."""
        pending = sorted({choice for choice, _ in self._feeders})
        deltas = [(choice, self._flush_choice(choice, {})) for choice in pending]
        choices = [{"index": c, "delta": d, "finish_reason": None} for c, d in deltas if d]
        if not choices:
            return []
        chunk = {"id": self._meta.get("id", "chatcmpl-openmasq"), "object": "chat.completion.chunk",
                 "created": self._meta.get("created", 0), "model": self._meta.get("model", ""), "choices": choices}
        return [SSEEvent(dump(chunk))]

    def _choice(self, choice: dict[str, Any]) -> None:
        index = as_int(choice.get("index")) or 0
        delta = choice.get("delta")
        if isinstance(delta, dict):
            answering = bool(delta.get("content"))
            if isinstance(delta.get("content"), str):
                self._said.setdefault(index, []).append(delta["content"])
            if isinstance(delta.get("annotations"), list):
                said = "".join(self._said.get(index, ()))
                delta["annotations"] = _map_annotations(delta["annotations"], said,
                                                        lambda part: whole(self._new_text, part))
            _map_reply_extras(delta, lambda part: whole(self._new_text, part))
            for key in TEXT_FIELDS:
                if isinstance(delta.get(key), str):
                    delta[key] = self._feeder(index, key, self._new_text).feed(delta[key])
            if answering:  # the reasoning ends where the answer starts: what it held goes first
                self._release(index, _REASONING_FIELDS, delta)
            calls = delta.get("tool_calls")
            for position, call in enumerate(calls if isinstance(calls, list) else []):
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict) and isinstance(function.get("arguments"), str):
                    call_index = as_int(call.get("index"))
                    slot = f"tool:{position if call_index is None else call_index}"
                    function["arguments"] = self._feeder(index, slot, self._new_args).feed(function["arguments"])
        if choice.get("finish_reason") is not None:
            if not isinstance(delta, dict):
                delta = choice["delta"] = {}
            self._flush_choice(index, delta)

    def _feeder(self, choice: int, slot: str, factory: FeederFactory) -> Feeder:
        feeder = self._feeders.get((choice, slot))
        if feeder is None:
            feeder = self._feeders[(choice, slot)] = factory()
        return feeder

    def _flush_choice(self, choice: int, delta: dict[str, Any]) -> dict[str, Any]:
        """Append what the choice's feeders held back to `delta` (and forget those feeders)."""
        return self._release(choice, [slot for owner, slot in self._feeders if owner == choice], delta)

    def _release(self, choice: int, slots: Iterable[str], delta: dict[str, Any]) -> dict[str, Any]:
        for slot in [slot for slot in slots if (choice, slot) in self._feeders]:
            rest = self._feeders.pop((choice, slot)).flush()
            if not rest:
                continue
            if slot.startswith("tool:"):
                _append_arguments(delta, int(slot[5:]), rest)
            else:
                delta[slot] = (delta.get(slot) or "") + rest
        return delta


def _append_arguments(delta: dict[str, Any], index: int, rest: str) -> None:
    calls = delta.get("tool_calls")
    if not isinstance(calls, list):
        calls = delta["tool_calls"] = []
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and as_int(call.get("index")) == index:
            function["arguments"] = as_str(function.get("arguments")) + rest
            return
    calls.append({"index": index, "function": {"arguments": rest}})


# --- errors the proxy itself answers ----------------------------------------------------------


def error_body(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": kind}}


def error_event(kind: str, message: str) -> SSEEvent:
    """An error inside a stream, as OpenAI sends one (the SDKs raise it)."""
    return SSEEvent(dump(error_body(kind, message)))
