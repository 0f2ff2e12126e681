"""Regressions found by an adversarial probe of the proxy: a large body under uvloop kept every
detection helper in service, JSON nested thousands deep answers in the client's error format, a
silent upstream is cut by --upstream-timeout, SIGTERM stops a proxy held by a silent upstream
within its shutdown bound, and an OpenAI message `name` that is a person's name never goes out."""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator

import httpx
import pytest
from test_proxy_cli import _wait_ready, free_port
from test_proxy_upstream import Received, Reply, RunningProxy, ScriptedUpstream, json_reply

from openmasq.chat.codecs import openai

LONG_TEXT = ("Marie Dupont (marie.dupont@karl-studio.fr) écrit au sujet du contrat de maintenance. " * 3000)[:240_000]


def start_cli_proxy(upstream: str, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "openmasq", "proxy", "--upstream", upstream, "--port",
                                str(port), "--rules-only", *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        _wait_ready(process)
    except BaseException:
        process.kill()
        process.wait(timeout=20)
        raise
    return process, f"http://127.0.0.1:{port}"


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


@pytest.fixture
def upstream() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream() as up:
        yield up


def test_bodies_of_a_few_hundred_kilobytes_keep_the_detection_helper_in_service_under_uvloop(upstream):
    process, base = start_cli_proxy(upstream.base_url, "--detect-workers", "1")
    try:
        with httpx.Client(timeout=120) as client:
            assert client.get(f"{base}/health").json()["detect_workers"] == 1
            for n in range(3):
                body = {"model": "m", "messages": [{"role": "user", "content": f"{n} {LONG_TEXT}"}]}
                response = client.post(f"{base}/v1/chat/completions", json=body)
                assert response.status_code == 200, response.text
                assert "marie.dupont@karl-studio.fr" in response.json()["choices"][0]["message"]["content"]
            assert client.get(f"{base}/health").json()["detect_workers"] == 1
    finally:
        stop(process)
    assert "marie.dupont" not in upstream.wire_text()
    assert importlib.util.find_spec("uvloop") is not None  # what uvicorn runs the proxy on when installed


@pytest.mark.parametrize(("path", "api"), [("chat/completions", "openai"), ("messages", "anthropic")])
def test_json_nested_thousands_deep_answers_in_the_clients_error_format(upstream, path, api):
    deep_body = b'{"messages": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    nested_content = ('{"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": '
                      + '{"a": ' * 900 + '"Marie Dupont"' + "}" * 900 + "}]}").encode()
    with RunningProxy(upstream.base_url) as proxy:
        for raw in (deep_body, nested_content):
            response = httpx.post(f"{proxy.base_url}/{path}", content=raw, timeout=60,
                                  headers={"content-type": "application/json", "anthropic-version": "2023-06-01"})
            assert 400 <= response.status_code < 500, response.text
            error = response.json()
            assert error["error"]["message"]
            if api == "anthropic":
                assert error["type"] == "error"
    assert upstream.received == []


def test_a_silent_upstream_is_cut_by_the_upstream_timeout_option(upstream):
    released = threading.Event()

    def silent(received: Received) -> Reply:
        released.wait(60)
        return json_reply({})

    upstream.script = silent
    process, base = start_cli_proxy(upstream.base_url, "--upstream-timeout", "0.5")
    try:
        response = httpx.post(f"{base}/v1/chat/completions", timeout=60,
                              json={"model": "m", "messages": [{"role": "user", "content": "Bonjour"}]})
    finally:
        released.set()
        stop(process)
    assert response.status_code == 504
    assert response.json()["error"]["type"] == "timeout"


def test_sigterm_stops_a_proxy_held_by_a_silent_upstream_within_its_shutdown_bound(upstream):
    arrived, released = threading.Event(), threading.Event()

    def silent(received: Received) -> Reply:
        arrived.set()
        released.wait(120)
        return json_reply({})

    upstream.script = silent
    process, base = start_cli_proxy(upstream.base_url, "--shutdown-timeout", "1")
    outcome: list[object] = []

    def client() -> None:
        try:
            outcome.append(httpx.post(f"{base}/v1/chat/completions", timeout=120,
                                      json={"model": "m", "messages": [{"role": "user", "content": "Bonjour"}]}))
        except httpx.HTTPError as error:
            outcome.append(error)

    thread = threading.Thread(target=client, daemon=True)
    thread.start()
    try:
        assert arrived.wait(60), "the request never reached the upstream"
        process.send_signal(signal.SIGTERM)
        # The upstream stays silent: only the proxy's own bound (1 s, then a cancel) lets it exit.
        code = process.wait(timeout=60)
    finally:
        released.set()
        stop(process)
    thread.join(timeout=60)
    assert code in (0, -signal.SIGTERM)  # uvicorn re-raises the signal once it has shut down
    assert outcome and not (isinstance(outcome[0], httpx.Response) and outcome[0].status_code == 200)


def test_an_openai_message_name_that_is_a_persons_name_is_masked_and_restored(upstream):
    body = {"model": "m", "messages": [
        {"role": "system", "content": "Réponds brièvement.", "name": "example_assistant"},
        {"role": "user", "name": "Marie_Dupont", "content": "Bonjour, voici ma question sur le contrat."},
        {"role": "user", "name": "jdupont", "content": "Et une autre."},
    ]}
    with RunningProxy(upstream.base_url) as proxy:
        response = httpx.post(f"{proxy.base_url}/chat/completions", json=body, timeout=60)
    assert response.status_code == 200, response.text
    sent = upstream.received[0].json()["messages"]
    assert "Dupont" not in sent[1]["name"] and "Marie" not in sent[1]["name"]
    assert sent[1]["name"] and all(ch.isalnum() or ch in "_-" for ch in sent[1]["name"])
    assert "dupont" not in sent[2]["name"].lower()
    assert sent[0]["name"] == "example_assistant"  # a role label of everyday words stays as it is
    assert "dupont" not in upstream.wire_text().lower()
    assert openai.parse_response(response.json()).text.startswith("Reçu")
