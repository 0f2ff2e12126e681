"""A scripted model server on loopback, speaking the OpenAI and Anthropic wire formats (streaming
included), that records every request body it receives: the proxy tests, bench/proxy.py and the
browser tests (e2e/) use it. With cors=True it answers CORS preflights, so a page can call it."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def text(self) -> str:
        """The body as the model reads it: JSON escapes decoded."""
        return json.dumps(self.json(), ensure_ascii=False) if self.body else ""


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "application/json"})
    body: bytes = b""
    chunks: list[bytes] | None = None  # streamed: each piece written and flushed on its own
    cut: bool = False  # stop after the chunks without ending the body (a stream cut mid-way)
    close_delimited: bool = False  # no chunked encoding: the body ends when the connection closes


Script = Callable[[Received], Reply]


class ScriptedUpstream:
    """`with ScriptedUpstream(script) as up:` serves on 127.0.0.1 (ephemeral port) at up.base_url."""

    def __init__(self, script: Script | None = None, *, cors: bool = False) -> None:
        self.script: Script = script or echo_script
        self.cors = cors  # answer preflights and allow any origin: a browser page is the client
        self.received: list[Received] = []
        self.preflights: list[Received] = []  # CORS OPTIONS requests (no body), kept apart
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def record(self, received: Received) -> None:
        with self._lock:
            (self.preflights if received.method == "OPTIONS" else self.received).append(received)

    def wire_text(self) -> str:
        """Everything the upstream received, as one text (headers excluded)."""
        with self._lock:
            return "\n".join(r.text() for r in self.received)

    def __enter__(self) -> ScriptedUpstream:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default backlog (5) refuses a burst of concurrent connections


def _handler_for(upstream: ScriptedUpstream) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body are separate writes: with Nagle on, the body waits for a delayed ACK
        # (40 ms), which no real server makes its clients pay.
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            self._serve(b"")

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            self._serve(self.rfile.read(length))

        def do_OPTIONS(self) -> None:
            upstream.record(self._received(b""))
            if not upstream.cors:
                self.send_response(405)
                self.send_header("content-length", "0")
                self.end_headers()
                return
            self.send_response(204)
            self._cors_headers()
            self.send_header("access-control-allow-methods", "GET, POST, OPTIONS")
            self.send_header("access-control-allow-headers", self.headers.get("access-control-request-headers", ""))
            self.send_header("access-control-max-age", "600")
            self.send_header("content-length", "0")
            self.end_headers()

        def _received(self, body: bytes) -> Received:
            return Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)

        def _cors_headers(self) -> None:
            if upstream.cors:
                self.send_header("access-control-allow-origin", self.headers.get("origin") or "*")
                self.send_header("access-control-expose-headers", "*")
                self.send_header("vary", "origin")

        def _serve(self, body: bytes) -> None:
            received = self._received(body)
            upstream.record(received)
            reply = upstream.script(received)
            self.send_response(reply.status)
            self._cors_headers()
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if reply.chunks is None:
                self.send_header("content-length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
                return
            self._stream(reply)

        def _stream(self, reply: Reply) -> None:
            chunked = not reply.close_delimited
            if chunked:
                self.send_header("transfer-encoding", "chunked")
            else:
                self.send_header("connection", "close")
            self.end_headers()
            for piece in reply.chunks or []:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                self.wfile.flush()
            if chunked and not reply.cut:
                self.wfile.write(b"0\r\n\r\n")
            self.close_connection = reply.cut or not chunked

        def log_message(self, format: str, *args: object) -> None:  # quiet: tests read their own output
            pass

    return Handler


# --- replies in both formats ------------------------------------------------------------------


def sse(doc: Any, event: str | None = None) -> bytes:
    data = doc if isinstance(doc, str) else json.dumps(doc, ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {data}\n\n".encode()


def json_reply(doc: Any, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status, {"content-type": "application/json", **(headers or {})},
                 json.dumps(doc, ensure_ascii=False).encode())


def openai_completion(text: str, calls: Sequence[tuple[str, str, str]] = ()) -> Reply:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                                 for i, n, a in calls]
    return json_reply({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "scripted",
                       "choices": [{"index": 0, "message": message,
                                    "finish_reason": "tool_calls" if calls else "stop"}],
                       "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})


def openai_stream(pieces: Iterable[str], calls: Sequence[tuple[str, str, Sequence[str]]] = ()) -> list[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return sse({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "scripted",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": piece}) for piece in pieces]
    for index, (call_id, name, fragments) in enumerate(calls):
        out.append(chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                          "function": {"name": name, "arguments": ""}}]}))
        out += [chunk({"tool_calls": [{"index": index, "function": {"arguments": f}}]}) for f in fragments]
    out.append(chunk({}, "tool_calls" if calls else "stop"))
    out.append(sse({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "scripted",
                    "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}))
    out.append(sse("[DONE]"))
    return out


def anthropic_message(text: str, tool: tuple[str, str, dict[str, Any]] | None = None) -> Reply:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if tool:
        content.append({"type": "tool_use", "id": tool[0], "name": tool[1], "input": tool[2]})
    return anthropic_reply(content, "tool_use" if tool else "end_turn")


def anthropic_reply(content: list[dict[str, Any]], stop_reason: str = "end_turn") -> Reply:
    """A whole message made of the content blocks given."""
    return json_reply({"id": "msg_1", "type": "message", "role": "assistant", "model": "scripted",
                       "content": content, "stop_reason": stop_reason,
                       "usage": {"input_tokens": 10, "output_tokens": 5}})


def anthropic_stream(pieces: Iterable[str], tool: tuple[str, str, Sequence[str]] | None = None) -> list[bytes]:
    out = [sse({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                                      "model": "scripted", "content": [],
                                                      "usage": {"input_tokens": 10, "output_tokens": 1}}},
               "message_start"),
           sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
               "content_block_start"),
           sse({"type": "ping"}, "ping")]
    out += [sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}},
                "content_block_delta") for p in pieces]
    out.append(sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
    if tool:
        out.append(sse({"type": "content_block_start", "index": 1,
                        "content_block": {"type": "tool_use", "id": tool[0], "name": tool[1], "input": {}}},
                       "content_block_start"))
        out += [sse({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta",
                                                                          "partial_json": f}}, "content_block_delta")
                for f in tool[2]]
        out.append(sse({"type": "content_block_stop", "index": 1}, "content_block_stop"))
    out.append(sse({"type": "message_delta", "delta": {"stop_reason": "tool_use" if tool else "end_turn"},
                    "usage": {"output_tokens": 5}}, "message_delta"))
    out.append(sse({"type": "message_stop"}, "message_stop"))
    return out


SSE_HEADERS = {"content-type": "text/event-stream", "cache-control": "no-cache"}


def last_user_text(received: Received) -> str:
    """The text of the last user turn, whatever its shape (string or parts)."""
    doc = received.json()
    for message in reversed(doc.get("messages", [])):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def echo_script(received: Received) -> Reply:
    """Answers "Reçu : <last user text>", streamed word by word when asked to stream."""
    if received.method == "GET":
        return json_reply({"object": "list", "data": [{"id": "scripted-1", "object": "model", "owned_by": "tests"}]})
    text = "Reçu : " + last_user_text(received)
    streaming = received.json().get("stream") is True
    if received.path.endswith("/messages"):
        if streaming:
            return Reply(chunks=anthropic_stream(_words(text)), headers=SSE_HEADERS)
        return anthropic_message(text)
    if streaming:
        return Reply(chunks=openai_stream(_words(text)), headers=SSE_HEADERS)
    return openai_completion(text)


def _words(text: str) -> list[str]:
    """Pieces of 1 to 3 characters: fakes are always split across several stream events."""
    return [text[i : i + 3] for i in range(0, len(text), 3)]
