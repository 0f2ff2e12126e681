"""The send flow driven over real HTTP: a loopback server speaking the OpenAI or the Anthropic
format (streaming) answers with a memory_search call then a streamed reply; an httpx shell drives
the flow. Nothing real reaches the server and the user reads real values."""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterator
from typing import Any

import httpx
import pytest
from test_proxy_upstream import Received, Reply, ScriptedUpstream, anthropic_stream, openai_stream

from openmasq.chat.codecs import StreamEvent, anthropic, openai
from openmasq.chat.drive import ReferenceDriver
from openmasq.chat.send import SendInput, SendOutcome, send_flow
from openmasq.chat.steps import Answer, CallModel, PersistTurn, Step
from openmasq.testing import Workspace, appears_in


def http_events(client: httpx.Client, call: CallModel, base_url: str, api: str) -> Iterator[StreamEvent]:
    """The shell's I/O: POST the request, decode the SSE stream into neutral events."""
    codec: Any = openai if api == "openai" else anthropic
    http = codec.build_request(call.request, base_url)
    decoder = codec.StreamDecoder()
    with client.stream(http.method, http.url, headers=list(http.headers), content=http.content()) as response:
        assert response.status_code == 200
        for chunk in response.iter_bytes():
            yield from decoder.feed(chunk)
    yield from decoder.close()


def drive_over_http(flow: Generator[Step, Answer, SendOutcome], base_url: str, api: str
                    ) -> tuple[SendOutcome, str, int]:
    """The reference driver over httpx: returns the outcome, what was shown and how many times the
    turn was persisted before the first request left."""
    persisted: list[PersistTurn] = []
    at_first_request: list[int] = []
    with httpx.Client(timeout=10) as client:
        def model(call: CallModel) -> Iterator[StreamEvent]:
            at_first_request.append(len(persisted))
            return http_events(client, call, base_url, api)

        driver = ReferenceDriver(model, persist=persisted.append)
        outcome = driver.run(flow)
    assert outcome is not None
    return outcome, "".join(driver.shown), at_first_request[0] if at_first_request else -1


def _text(content: Any) -> str:
    """A message's text in either format: a string, or blocks (text / tool_result)."""
    if isinstance(content, str):
        return content
    return "".join(_text(b.get("content", "")) if b.get("type") == "tool_result" else b.get("text", "")
                   for b in content)


def openai_turns(received: Received) -> tuple[str, list[str]]:
    messages = received.json()["messages"]
    user = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    return user, [m["content"] for m in messages if m["role"] == "tool"]


def anthropic_turns(received: Received) -> tuple[str, list[str]]:
    messages = received.json()["messages"]
    results = [_text([b]) for m in messages if isinstance(m["content"], list)
               for b in m["content"] if b.get("type") == "tool_result"]
    user = next(_text(m["content"]) for m in messages if m["role"] == "user")
    return user, results


def model_script(api: str) -> Callable[[Received], Reply]:
    """First call: search memory for the name the user wrote (a fake). Second call: answer by
    quoting the tool result's first line, in small pieces so fakes straddle chunks."""
    turns = openai_turns if api == "openai" else anthropic_turns
    stream = openai_stream if api == "openai" else (
        lambda pieces, calls=(): anthropic_stream(pieces, calls[0] if calls else None))

    def script(received: Received) -> Reply:
        user, results = turns(received)
        headers = {"content-type": "text/event-stream"}
        if not results:
            name = user.removeprefix("Que sais-tu de ").removesuffix(" ?")
            arguments = json.dumps({"query": name}, ensure_ascii=False)
            return Reply(headers=headers, chunks=stream([], [("call_1", "memory_search",
                                                              [arguments[:7], arguments[7:]])]))
        answer = "Voici : " + results[-1].splitlines()[1]
        return Reply(headers=headers, chunks=stream([answer[i:i + 3] for i in range(0, len(answer), 3)]))

    return script


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_send_with_memory_search_over_a_loopback_server(api: str) -> None:
    ws = Workspace()
    ws.note("Claire Fontaine", "Directrice artistique chez Karl Studio SAS, aime le thé vert.",
            aliases=["Claire"])
    ws.note("Karl Studio SAS", "Agence de design à Évreux.", category="organisation")
    conv = ws.conversation("HTTP")
    with ScriptedUpstream(model_script(api)) as upstream:
        inp = SendInput(conv, "Que sais-tu de Claire Fontaine ?", ws.store, "gpt-test", ws.now, ws.new_id,
                        options=ws.settings.redact_options())
        outcome, shown, persisted_before = drive_over_http(send_flow(inp), upstream.base_url, api)

    assert outcome.status == "done" and persisted_before == 1
    assert outcome.reply is not None
    assert shown == outcome.reply.content
    assert shown.startswith("Voici : Claire Fontaine (personne") and "Karl Studio SAS" in shown
    assert json.loads(outcome.reply.tool_uses[0].arguments) == {"query": "Claire Fontaine"}
    assert len(upstream.received) == 2
    bodies = [r.text() for r in upstream.received]
    assert all(r.json()["stream"] is True for r in upstream.received)
    leaked = [v for v in ws.real_values() | {"Karl Studio"} for body in bodies if appears_in(v, body)]
    assert leaked == []
    assert "thé vert" in bodies[1]  # the memory did reach the model, as fakes
