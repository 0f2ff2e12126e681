"""The scripted model server on loopback (openmasq.testing.upstream: OpenAI and Anthropic formats,
streaming included, every body recorded), re-exported for the proxy tests and bench/proxy.py, and
the proxy under test (RunningProxy). The tests below check that the server speaks both formats."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx

from openmasq.chat.codecs import Done, TextDelta, ToolCallAccumulator, ToolCallDelta, anthropic, openai
from openmasq.testing.upstream import (  # moved there so the browser tests (e2e/) use it too; re-exported
    SSE_HEADERS,
    Received,
    Reply,
    Script,
    ScriptedUpstream,
    anthropic_message,
    anthropic_reply,
    anthropic_stream,
    echo_script,
    json_reply,
    last_user_text,
    openai_completion,
    openai_stream,
    sse,
)

__all__ = [
    "SSE_HEADERS", "Received", "Reply", "RunningProxy", "Script", "ScriptedUpstream", "anthropic_message",
    "anthropic_reply", "anthropic_stream", "echo_script", "json_reply", "last_user_text", "openai_completion",
    "openai_stream", "sse",
]


# --- the scripted upstream itself ---------------------------------------------------------------


def test_it_records_bodies_and_echoes_in_the_openai_format():
    with ScriptedUpstream() as up:
        body = {"model": "m", "messages": [{"role": "user", "content": "bonjour"}]}
        response = httpx.post(f"{up.base_url}/chat/completions", json=body)
        assert openai.parse_response(response.json()).text == "Reçu : bonjour"
        assert up.received[0].json() == body


def _assert_bonjour_and_a_send_call(
    decoder: openai.StreamDecoder | anthropic.StreamDecoder, reply: list[bytes]
) -> list[Any]:
    """Decode a scripted stream: its text is "Bonjour" and its one tool call sends to a@b.fr."""
    events = [e for chunk in reply for e in decoder.feed(chunk)] + decoder.close()
    calls = ToolCallAccumulator()
    for event in events:
        if isinstance(event, ToolCallDelta):
            calls.add(event)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Bonjour"
    assert calls.calls()[0].parsed_arguments() == {"to": "a@b.fr"}
    return events


def test_its_openai_stream_decodes_to_text_and_tool_calls():
    reply = openai_stream(["Bon", "jour"], [("call_1", "send", ['{"to": ', '"a@b.fr"}'])])
    events = _assert_bonjour_and_a_send_call(openai.StreamDecoder(), reply)
    assert events[-1] == Done("tool_calls", "tool_calls")


def test_its_anthropic_stream_decodes_to_text_and_tool_calls():
    reply = anthropic_stream(["Bon", "jour"], ("toolu_1", "send", ['{"to": ', '"a@b.fr"}']))
    events = _assert_bonjour_and_a_send_call(anthropic.StreamDecoder(), reply)
    assert events[-1] == Done("tool_calls", "tool_use")


def test_a_cut_reply_ends_without_the_final_chunk():
    def script(received: Received) -> Reply:
        return Reply(chunks=[b"data: {\"a\""], cut=True, headers=SSE_HEADERS)

    with ScriptedUpstream(script) as up, httpx.stream("GET", f"{up.base_url}/x") as response:
        try:
            b"".join(response.iter_bytes())
            raise AssertionError("the cut body was read as complete")
        except httpx.RemoteProtocolError:
            pass


# --- the proxy under test, served by uvicorn on loopback -----------------------------------------


class RunningProxy:
    """`with RunningProxy(upstream_url) as proxy:` serves the proxy app on 127.0.0.1 (ephemeral
    port) in a thread; proxy.base_url is what an SDK takes, proxy.app.state.proxy the Proxy.
    `pool`: a DetectionPool lent to the app (the caller closes it)."""

    def __init__(self, upstream: str, *, clock: Callable[[], float] | None = None, pool: Any = None,
                 **config: Any) -> None:
        import socket

        import uvicorn

        from openmasq.proxy.app import ProxyConfig, create_app

        kwargs: dict[str, Any] = {"clock": clock} if clock is not None else {}
        if pool is not None:
            kwargs["pool"] = pool
        self.app = create_app(ProxyConfig(upstream, **config), **kwargs)
        # IPPROTO_TCP spelled out: asyncio sets TCP_NODELAY only on sockets that say so, and
        # without it every response pays a delayed-ACK stall.
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        # log_config=None: uvicorn leaves logging alone, so its records reach the test's capture.
        self._server = uvicorn.Server(uvicorn.Config(self.app, log_config=None, log_level="debug", access_log=True))
        self._ready = threading.Event()  # set once the server serves, or its thread ended without
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        server, ready = self._server, self._ready
        startup = server.startup

        async def startup_then_signal(sockets: Any = None) -> None:
            try:
                await startup(sockets)
            finally:
                ready.set()

        server.startup = startup_then_signal  # type: ignore[method-assign]
        try:
            server.run(sockets=[self._socket])
        finally:
            ready.set()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._socket.getsockname()[1]}/v1"

    @property
    def proxy(self) -> Any:
        return self.app.state.proxy

    def __enter__(self) -> RunningProxy:
        self._thread.start()
        # The server says when it serves (or ends); the timeout bounds a hang, it does not pace the test.
        if not self._ready.wait(timeout=20) or not self._server.started:
            raise RuntimeError("the proxy did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=20)
        self._socket.close()
