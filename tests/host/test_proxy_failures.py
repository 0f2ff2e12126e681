"""The proxy when something goes wrong: a redaction that fails sends nothing, upstream errors
pass through, broken streams and web pages become clear errors, bodies have a size limit,
and no log line ever holds a real value."""

from __future__ import annotations

import base64
import logging
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from test_proxy import (
    REALS,
    TEXT,
    anthropic_body,
    assert_only_fakes_went_upstream,
    chat,
    fake_name,
    openai_body,
    stream,
    text_of,
)
from test_proxy_upstream import (
    SSE_HEADERS,
    Received,
    Reply,
    RunningProxy,
    ScriptedUpstream,
    anthropic_stream,
    json_reply,
    openai_stream,
    sse,
)

from openmasq.chat.codecs import Done, ErrorEvent
from openmasq.proxy import masking
from openmasq.proxy.app import MAX_BODY_BYTES
from openmasq.redact import RedactionError


@pytest.fixture
def upstream() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream() as up:
        yield up


@pytest.fixture
def proxy(upstream: ScriptedUpstream) -> Iterator[RunningProxy]:
    with RunningProxy(upstream.base_url) as running:
        yield running


# --- nothing leaves when redaction cannot vouch for the text ---------------------------------------


@pytest.mark.parametrize("path", ["chat/completions", "messages"])
def test_a_redaction_failure_answers_422_and_sends_nothing(proxy, upstream, monkeypatch, path):
    def failing(*args: Any, **kwargs: Any) -> Any:
        raise RedactionError("redaction postcondition failed: a real value is still present at offset 8")

    monkeypatch.setattr(masking, "pseudonymise", failing)
    response = chat(proxy, openai_body() if path == "chat/completions" else anthropic_body(), path)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["type"] == "redaction_error"
    assert "nothing was sent" in error["message"]
    assert upstream.received == []


def test_an_unexpected_exception_in_redaction_also_sends_nothing(proxy, upstream, monkeypatch):
    def failing(*args: Any, **kwargs: Any) -> Any:
        raise ValueError(f"something about {TEXT}")

    monkeypatch.setattr(masking, "pseudonymise", failing)
    response = chat(proxy, openai_body())
    assert response.status_code == 422
    assert "Marie" not in response.text  # the error never echoes the text
    assert upstream.received == []


@pytest.mark.parametrize(("path", "body"), [
    ("chat/completions", {"model": "m", "messages": [{"role": "user", "content": {"text": TEXT}}]}),
    ("chat/completions", {"model": "m", "messages": TEXT}),
    ("messages", {"model": "m", "messages": [{"role": "user", "content": [TEXT]}]}),
    ("messages", [TEXT]),
])
def test_a_body_of_unknown_shape_is_refused_and_nothing_is_sent(proxy, upstream, path, body):
    response = chat(proxy, body, path)
    assert response.status_code == 400
    assert "nothing was sent" in response.text
    assert "Marie" not in response.text
    assert upstream.received == []


def test_a_body_that_is_not_json_is_refused(proxy, upstream):
    response = httpx.post(f"{proxy.base_url}/chat/completions", content=TEXT.encode())
    assert response.status_code == 400
    assert upstream.received == []


# --- sizes ------------------------------------------------------------------------------------------


def test_a_5_mb_body_goes_through_redacted(upstream):
    image = "data:image/png;base64," + base64.b64encode(b"\x89PNG" * 987_500).decode()  # 5.02 MiB once encoded
    body = openai_body({"role": "user", "content": [{"type": "text", "text": TEXT},
                                                    {"type": "image_url", "image_url": {"url": image}}]})
    assert len(httpx.Request("POST", "http://x", json=body).content) > 5 * 1024 * 1024
    with RunningProxy(upstream.base_url, allow_media=True) as proxy:  # an image is refused without it
        response = chat(proxy, body)
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == f"Reçu : {TEXT}"
    assert upstream.received[0].json()["messages"][0]["content"][1]["image_url"]["url"] == image
    assert_only_fakes_went_upstream(upstream)


def test_a_body_over_the_limit_answers_413_and_sends_nothing(proxy, upstream):
    body = openai_body({"role": "user", "content": TEXT + " x" * (MAX_BODY_BYTES // 2)})
    response = chat(proxy, body)
    assert response.status_code == 413
    assert response.json()["error"]["type"] == "request_too_large"
    assert upstream.received == []


# --- upstream errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True])
def test_an_upstream_429_passes_through_with_its_retry_after(proxy, upstream, streamed):
    body = b'{"error": {"message": "Rate limit reached, try again in 7s", "type": "requests", "code": "rate_limit"}}'
    upstream.script = lambda r: Reply(429, {"content-type": "application/json", "retry-after": "7",
                                            "x-ratelimit-remaining-requests": "0"}, body)
    response = chat(proxy, openai_body(stream=streamed))
    assert response.status_code == 429
    assert response.headers["retry-after"] == "7"
    assert response.headers["x-ratelimit-remaining-requests"] == "0"
    assert response.content == body


@pytest.mark.parametrize(("status", "path"), [(401, "chat/completions"), (400, "messages"), (529, "messages")])
def test_upstream_errors_pass_through_with_status_and_body(proxy, upstream, status, path):
    doc = {"type": "error", "error": {"type": "x_error", "message": "said by the provider"}}
    upstream.script = lambda r: json_reply(doc, status)
    response = chat(proxy, openai_body() if path == "chat/completions" else anthropic_body(), path)
    assert (response.status_code, response.json()) == (status, doc)


@pytest.mark.parametrize(("status", "streamed"), [(200, False), (200, True), (404, True), (502, False)])
def test_a_provider_answering_html_is_a_clear_error(proxy, upstream, status, streamed):
    page = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>Portal</body></html>"
    upstream.script = lambda r: Reply(status, {"content-type": "text/html; charset=utf-8"}, page)
    response = chat(proxy, openai_body(stream=streamed))
    assert response.status_code == (502 if status == 200 else status)
    error = response.json()["error"]
    assert error["type"] == "html"
    assert "base URL" in error["message"]


def test_an_unreachable_upstream_is_a_network_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with RunningProxy(f"http://127.0.0.1:{port}/v1", connect_timeout=5) as proxy:
        response = chat(proxy, openai_body())
        assert response.status_code == 502
        assert response.json()["error"]["type"] == "network"
        models = httpx.get(f"{proxy.base_url}/models")
        assert models.status_code == 502


def test_a_silent_upstream_is_a_timeout(upstream):
    gate = __import__("threading").Event()

    def script(received: Received) -> Reply:
        gate.wait(10)  # answers only after the proxy gave up
        return json_reply({})

    upstream.script = script
    with RunningProxy(upstream.base_url, timeout=0.3) as proxy:
        response = chat(proxy, openai_body())
        gate.set()
    assert response.status_code == 504
    assert response.json()["error"]["type"] == "timeout"


# --- broken streams -------------------------------------------------------------------------------


def test_malformed_sse_lines_are_skipped_and_the_answer_still_restored(proxy, upstream):
    def script(received: Received) -> Reply:
        good = openai_stream(["Bonjour ", fake_name(received), "."])
        garbage = [b"this is not sse\n", b"data: {not json\n\n", b": keep-alive\n\n", b"\xff\xfe\n\n",
                   b"event: weird\nretry: x\n\n"]
        return Reply(chunks=[good[0], *garbage, *good[1:]], headers=SSE_HEADERS)

    upstream.script = script
    events = stream(proxy, openai_body())
    assert text_of(events) == "Bonjour Marie Dupont."
    assert events[-1] == Done("stop", "stop")


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_stream_cut_mid_event_releases_what_was_held_and_reports_it(proxy, upstream, api):
    def script(received: Received) -> Reply:
        fake = fake_name(received)
        whole = (openai_stream(["Bonjour ", fake]) if api == "openai" else anthropic_stream(["Bonjour ", fake]))
        keep = 3 if api == "openai" else 5  # up to the fake's delta, then half an event
        return Reply(chunks=[*whole[:keep], whole[keep][:25]], headers=SSE_HEADERS, close_delimited=True)

    upstream.script = script
    events = (stream(proxy, openai_body()) if api == "openai" else stream(proxy, anthropic_body(), "messages"))
    assert text_of(events) == "Bonjour Marie Dupont"
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert errors and "ended before" in errors[0].message


def test_a_connection_broken_mid_stream_is_reported(proxy, upstream):
    def script(received: Received) -> Reply:
        return Reply(chunks=openai_stream(["Bonjour ", fake_name(received)])[:3], headers=SSE_HEADERS, cut=True)

    upstream.script = script
    events = stream(proxy, openai_body())
    assert text_of(events) == "Bonjour Marie Dupont"
    assert isinstance(events[-1], ErrorEvent)
    assert "connection" in events[-1].message


def test_an_error_event_from_the_provider_mid_stream_passes_through(proxy, upstream):
    def script(received: Received) -> Reply:
        chunks = anthropic_stream(["Bonjour ", fake_name(received)])[:5]
        chunks.append(sse({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, "error"))
        return Reply(chunks=chunks, headers=SSE_HEADERS)

    upstream.script = script
    events = stream(proxy, anthropic_body(), "messages")
    assert text_of(events) == "Bonjour Marie Dupont"
    assert isinstance(events[-1], ErrorEvent) and events[-1].kind == "overloaded"


# --- logs --------------------------------------------------------------------------------------------


def test_no_log_record_holds_a_real_value(upstream, caplog, monkeypatch):
    caplog.set_level(logging.DEBUG)
    with RunningProxy(upstream.base_url) as proxy:
        chat(proxy, openai_body())
        stream(proxy, openai_body())
        stream(proxy, anthropic_body(), "messages")
        chat(proxy, anthropic_body(), "messages", **{"X-OpenMasq-Session": "s"})
        upstream.script = lambda r: Reply(chunks=[b"garbage\n", b"data: {oops\n\n", b"data: [DO"],
                                          headers=SSE_HEADERS, close_delimited=True)
        stream(proxy, openai_body())
        upstream.script = lambda r: Reply(200, {"content-type": "text/html"}, b"<html>x</html>")
        chat(proxy, openai_body())
        chat(proxy, {"model": "m", "messages": [{"role": "user", "content": {"t": TEXT}}]})
        monkeypatch.setattr(masking, "pseudonymise", lambda *a, **k: (_ for _ in ()).throw(ValueError(TEXT)))
        chat(proxy, openai_body())
    logged = "\n".join(f"{r.name} {r.getMessage()} {r.exc_text or ''}" for r in caplog.records)
    assert "openmasq.proxy" in logged and "replaced" in logged  # the capture did see the proxy's lines
    for real in REALS:
        assert real not in logged
