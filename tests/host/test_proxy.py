"""The redacting proxy through real HTTP on loopback: the upstream (a scripted model) never
receives a real value, and the client receives the real values back, streamed or not, in text
and in tool-call arguments, in the OpenAI and Anthropic formats."""

from __future__ import annotations

import base64
import gc
import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_proxy_upstream import (
    SSE_HEADERS,
    Received,
    Reply,
    RunningProxy,
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

from openmasq.chat.codecs import TextDelta, ToolCallAccumulator, ToolCallDelta, anthropic, openai
from openmasq.proxy import app as app_module
from openmasq.proxy.app import INLINE_MAX_BYTES, warm_engine
from openmasq.redact import RedactOptions, Vault, pseudonymise

LEAD = "Écris à "
TEXT = (f"{LEAD}Marie Dupont (marie.dupont@karl-studio.fr, 06 12 34 56 78) chez Karl Studio SAS. "
        "IBAN FR76 3000 6000 0112 3456 7890 189.")
REALS = ("Marie Dupont", "Dupont", "marie.dupont@karl-studio.fr", "06 12 34 56 78", "Karl Studio",
         "FR76 3000 6000 0112 3456 7890 189")
EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}")


@pytest.fixture
def upstream() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream() as up:
        yield up


@pytest.fixture
def proxy(upstream: ScriptedUpstream) -> Iterator[RunningProxy]:
    with RunningProxy(upstream.base_url) as running:
        yield running


def assert_only_fakes_went_upstream(upstream: ScriptedUpstream, reals: tuple[str, ...] = REALS) -> None:
    """The wire audit: no real value, in any case or spacing, in anything the upstream received."""
    wire = upstream.wire_text()
    assert upstream.received, "nothing reached the upstream: the audit would be vacuous"
    squeezed = re.sub(r"\s+", "", wire).lower()
    for real in reals:
        assert real.lower() not in wire.lower(), f"{real!r} reached the upstream"
        assert re.sub(r"\s+", "", real).lower() not in squeezed, f"{real!r} reached the upstream (spacing changed)"


def chat(proxy: RunningProxy, body: dict[str, Any], path: str = "chat/completions", **headers: str) -> httpx.Response:
    return httpx.post(f"{proxy.base_url}/{path}", json=body, headers=headers, timeout=60)


def stream(proxy: RunningProxy, body: dict[str, Any], path: str = "chat/completions", **headers: str) -> list[Any]:
    """The client's view of a stream, decoded with the same codecs a real client would use."""
    decoder = openai.StreamDecoder() if path == "chat/completions" else anthropic.StreamDecoder()
    events: list[Any] = []
    with httpx.stream("POST", f"{proxy.base_url}/{path}", json={**body, "stream": True}, headers=headers,
                      timeout=60) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        for chunk in response.iter_bytes():
            events += decoder.feed(chunk)
    return events + decoder.close()


def text_of(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def arguments_of(events: list[Any]) -> list[str]:
    calls = ToolCallAccumulator()
    for event in events:
        if isinstance(event, ToolCallDelta):
            calls.add(event)
    return [c.arguments for c in calls.calls()]


def openai_body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "scripted", "messages": list(messages) or [{"role": "user", "content": TEXT}], **extra}


def anthropic_body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "scripted", "max_tokens": 100,
            "messages": list(messages) or [{"role": "user", "content": TEXT}], **extra}


def fake_name(received: Received) -> str:
    """Where the upstream's copy of TEXT has the fake of "Marie Dupont"."""
    text = last_user_text(received)
    return text[len(LEAD) : text.index(" (")]


def fake_email(received: Received) -> str:
    match = EMAIL.search(last_user_text(received))
    assert match is not None
    return match.group()


# --- text, whole and streamed ---------------------------------------------------------------------


def test_an_openai_reply_is_restored_and_the_upstream_saw_only_fakes(proxy, upstream):
    response = chat(proxy, openai_body())
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == f"Reçu : {TEXT}"
    assert response.json()["usage"]["total_tokens"] == 15  # the rest of the answer is untouched
    assert int(response.headers["x-openmasq-redactions"]) >= 5
    assert_only_fakes_went_upstream(upstream)


def test_an_openai_stream_is_restored_and_the_upstream_saw_only_fakes(proxy, upstream):
    events = stream(proxy, openai_body())
    assert text_of(events) == f"Reçu : {TEXT}"
    assert events[-1].finish_reason == "stop"
    assert_only_fakes_went_upstream(upstream)


@pytest.mark.parametrize("streamed", [False, True])
def test_an_anthropic_reply_is_restored_with_system_and_content_parts(proxy, upstream, streamed):
    body = anthropic_body({"role": "user", "content": [{"type": "text", "text": TEXT}]},
                          system=[{"type": "text", "text": "Tu assistes Marie Dupont de Karl Studio."}])
    if streamed:
        assert text_of(stream(proxy, body, "messages")) == f"Reçu : {TEXT}"
    else:
        response = chat(proxy, body, "messages")
        assert response.json()["content"][0]["text"] == f"Reçu : {TEXT}"
    assert_only_fakes_went_upstream(upstream)
    system = upstream.received[0].json()["system"][0]["text"]
    assert system.startswith("Tu assistes ") and fake_name(upstream.received[0]) in system


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_fake_split_across_two_sse_events_is_restored(proxy, upstream, api):
    def script(received: Received) -> Reply:
        fake = fake_name(received)
        pieces = ["Bonjour ", fake[:4], fake[4:] + ", à bientôt."]
        chunks = openai_stream(pieces) if api == "openai" else anthropic_stream(pieces)
        return Reply(chunks=chunks, headers=SSE_HEADERS)

    upstream.script = script
    events = stream(proxy, openai_body()) if api == "openai" else stream(proxy, anthropic_body(), "messages")
    assert text_of(events) == "Bonjour Marie Dupont, à bientôt."


def test_a_stream_split_at_arbitrary_bytes_is_restored(proxy, upstream):
    def script(received: Received) -> Reply:
        data = b"".join(openai_stream([f"{fake_name(received)} ({fake_email(received)}) é"]))
        return Reply(chunks=[data[i : i + 5] for i in range(0, len(data), 5)], headers=SSE_HEADERS)

    upstream.script = script
    assert text_of(stream(proxy, openai_body())) == "Marie Dupont (marie.dupont@karl-studio.fr) é"


# --- history, tool calls, tool results ------------------------------------------------------------


def test_every_turn_of_an_openai_history_is_redacted(proxy, upstream):
    history = [
        {"role": "system", "content": "Tu aides Marie Dupont."},
        {"role": "user", "content": [{"type": "text", "text": TEXT}]},
        {"role": "assistant", "content": "J'écris à marie.dupont@karl-studio.fr.", "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "send_mail", "arguments": json.dumps({"to": "marie.dupont@karl-studio.fr",
                                                                         "body": "Bonjour Marie Dupont"})}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Envoyé à marie.dupont@karl-studio.fr (Karl Studio)"},
        {"role": "user", "content": "Et rappelle le 06 12 34 56 78."},
    ]
    response = chat(proxy, openai_body(*history))
    assert response.status_code == 200
    assert_only_fakes_went_upstream(upstream)
    sent = upstream.received[0].json()["messages"]
    email = EMAIL.search(sent[1]["content"][0]["text"])
    assert email is not None
    assert json.loads(sent[2]["tool_calls"][0]["function"]["arguments"])["to"] == email.group()
    assert sent[3]["content"].startswith("Envoyé à ")


def test_every_turn_of_an_anthropic_history_is_redacted(proxy, upstream):
    history = [
        {"role": "user", "content": TEXT},
        {"role": "assistant", "content": [
            {"type": "text", "text": "J'écris à Marie Dupont."},
            {"type": "tool_use", "id": "tu_1", "name": "send_mail",
             "input": {"to": "marie.dupont@karl-studio.fr", "cc": ["06 12 34 56 78"]}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tu_1",
             "content": [{"type": "text", "text": "Envoyé à Karl Studio SAS"}]},
            {"type": "text", "text": "Merci, et l'IBAN FR76 3000 6000 0112 3456 7890 189 ?"}]},
    ]
    response = chat(proxy, anthropic_body(*history, system="Tu aides Marie Dupont."), "messages")
    assert response.status_code == 200
    assert_only_fakes_went_upstream(upstream)


@pytest.mark.parametrize("streamed", [False, True])
def test_openai_tool_call_arguments_are_restored(proxy, upstream, streamed):
    def script(received: Received) -> Reply:
        email = fake_email(received)
        arguments = json.dumps({"to": email, "subject": f"Pour {fake_name(received)}"}, ensure_ascii=False)
        if not streamed:
            return openai_completion("", [("call_1", "send_mail", arguments)])
        cut = arguments.index(email) + 5  # the fake e-mail is split across two fragments
        return Reply(chunks=openai_stream([], [("call_1", "send_mail", [arguments[:cut], arguments[cut:]])]),
                     headers=SSE_HEADERS)

    upstream.script = script
    if streamed:
        arguments = arguments_of(stream(proxy, openai_body()))[0]
    else:
        arguments = chat(proxy, openai_body()).json()["choices"][0]["message"]["tool_calls"][0]["function"][
            "arguments"]
    assert json.loads(arguments) == {"to": "marie.dupont@karl-studio.fr", "subject": "Pour Marie Dupont"}


@pytest.mark.parametrize("streamed", [False, True])
def test_anthropic_tool_use_input_is_restored(proxy, upstream, streamed):
    def script(received: Received) -> Reply:
        email = fake_email(received)
        if not streamed:
            return anthropic_message("Je l'envoie.", ("tu_1", "send_mail", {"to": email, "n": 2}))
        arguments = json.dumps({"to": email, "n": 2})
        cut = arguments.index(email) + 3
        return Reply(chunks=anthropic_stream(["Je l'envoie."], ("tu_1", "send_mail", [arguments[:cut],
                                                                                      arguments[cut:]])),
                     headers=SSE_HEADERS)

    upstream.script = script
    if streamed:
        arguments = json.loads(arguments_of(stream(proxy, anthropic_body(), "messages"))[0])
    else:
        arguments = chat(proxy, anthropic_body(), "messages").json()["content"][1]["input"]
    assert arguments == {"to": "marie.dupont@karl-studio.fr", "n": 2}


@pytest.mark.parametrize("streamed", [False, True])
def test_tool_call_arguments_that_are_invalid_json_are_still_restored(proxy, upstream, streamed):
    def script(received: Received) -> Reply:
        broken = '{"to": "' + fake_email(received) + '", "cc": '  # the model stopped mid-object
        if not streamed:
            return openai_completion("", [("call_1", "send_mail", broken)])
        return Reply(chunks=openai_stream([], [("call_1", "send_mail", [broken[:12], broken[12:]])]),
                     headers=SSE_HEADERS)

    upstream.script = script
    if streamed:
        arguments = arguments_of(stream(proxy, openai_body()))[0]
    else:
        arguments = chat(proxy, openai_body()).json()["choices"][0]["message"]["tool_calls"][0]["function"][
            "arguments"]
    assert arguments == '{"to": "marie.dupont@karl-studio.fr", "cc": '


def raw_events(proxy: RunningProxy, body: dict[str, Any], path: str) -> list[dict[str, Any]]:
    """Every event of a stream as the client receives it, whole (a decoder keeps only the text)."""
    with httpx.stream("POST", f"{proxy.base_url}/{path}", json={**body, "stream": True}, timeout=60) as response:
        assert response.status_code == 200, response.read()
        text = response.read().decode()
    data = [line[len("data: "):] for line in text.splitlines() if line.startswith("data: ")]
    return [json.loads(item) for item in data if item != "[DONE]"]


@pytest.mark.parametrize("streamed", [False, True])
def test_anthropic_citations_quote_the_clients_document_with_its_real_values(proxy, upstream, streamed):
    document = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": TEXT},
                "title": "Notes sur Marie Dupont", "citations": {"enabled": True}}
    body = anthropic_body({"role": "user", "content": [document, {"type": "text", "text": "Qui écrire ?"}]})

    def script(received: Received) -> Reply:
        sent = received.json()["messages"][0]["content"][0]
        data, title = sent["source"]["data"], sent["title"]
        quoted = data[len(LEAD) : data.index(" (")]  # the fake of "Marie Dupont", as the model read it
        citation = {"type": "char_location", "cited_text": quoted, "document_index": 0, "document_title": title,
                    "start_char_index": len(LEAD), "end_char_index": len(LEAD) + len(quoted)}
        if not streamed:
            return anthropic_reply([{"type": "text", "text": quoted, "citations": [citation]}])
        return Reply(chunks=[
            sse({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                                      "model": "scripted", "content": [], "usage": {}}},
                "message_start"),
            sse({"type": "content_block_start", "index": 0,
                 "content_block": {"type": "text", "text": "", "citations": []}}, "content_block_start"),
            sse({"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta",
                                                                      "citation": citation}}, "content_block_delta"),
            sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": quoted}},
                "content_block_delta"),
            sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
            sse({"type": "message_stop"}, "message_stop")], headers=SSE_HEADERS)

    upstream.script = script
    if streamed:
        events = raw_events(proxy, body, "messages")
        citations = [e["delta"]["citation"] for e in events if e.get("delta", {}).get("type") == "citations_delta"]
        text = "".join(e["delta"]["text"] for e in events if e.get("delta", {}).get("type") == "text_delta")
    else:
        block = chat(proxy, body, "messages").json()["content"][0]
        citations, text = block["citations"], block["text"]
    assert text == "Marie Dupont"
    assert citations == [{"type": "char_location", "cited_text": "Marie Dupont", "document_index": 0,
                          "document_title": "Notes sur Marie Dupont", "start_char_index": len(LEAD),
                          "end_char_index": citations[0]["end_char_index"]}]
    assert_only_fakes_went_upstream(upstream)


# --- what passes through as it is -----------------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True])
def test_openai_url_citations_still_mark_the_same_words_once_the_reply_is_restored(proxy, upstream, streamed):
    def script(received: Received) -> Reply:
        fake = fake_name(received)
        said = f"Selon {fake}, voir le site."
        on_name = {"start_index": 6, "end_index": 6 + len(fake), "title": f"Profil de {fake}",
                   "url": "https://example.org/p"}
        after = {"start_index": said.index("voir"), "end_index": len(said), "title": "Site", "url": "https://example.org/"}
        annotations = [{"type": "url_citation", "url_citation": c} for c in (on_name, after)]
        if not streamed:
            doc = json.loads(openai_completion(said).body)
            doc["choices"][0]["message"]["annotations"] = annotations
            return json_reply(doc)
        chunks = openai_stream([said[:9], said[9:]])
        annotated = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": {"annotations": annotations}, "finish_reason": None}]}
        return Reply(chunks=[*chunks[:3], sse(annotated), *chunks[3:]], headers=SSE_HEADERS)

    upstream.script = script
    if streamed:
        deltas = [c["delta"] for e in raw_events(proxy, openai_body(), "chat/completions") for c in e["choices"]]
        text = "".join(d.get("content") or "" for d in deltas)
        [annotations] = [d["annotations"] for d in deltas if "annotations" in d]
    else:
        message = chat(proxy, openai_body()).json()["choices"][0]["message"]
        text, annotations = message["content"], message["annotations"]
    on_name, after = (a["url_citation"] for a in annotations)
    assert text == "Selon Marie Dupont, voir le site."
    assert text[on_name["start_index"]:on_name["end_index"]] == "Marie Dupont"
    assert on_name["title"] == "Profil de Marie Dupont"
    assert text[after["start_index"]:after["end_index"]] == "voir le site."


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_real_values_that_are_keys_of_a_tool_calls_input_or_sit_under_a_structural_name_do_not_reach_the_upstream(
        proxy, upstream, api):
    grades = {"marie.dupont@karl-studio.fr": 17, "signature": "Marie Dupont, Karl Studio SAS"}
    if api == "openai":
        turn = {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "grade", "arguments": json.dumps(grades)}}]}
        body = openai_body({"role": "user", "content": TEXT}, turn, {"role": "tool", "tool_call_id": "call_1",
                                                                     "content": "ok"},
                           metadata={"type": "Dossier de Marie Dupont"})
        response = chat(proxy, body)
    else:
        turn = {"role": "assistant", "content": [
            {"type": "mcp_tool_use", "id": "mcptoolu_014Q35RayjACSWkSj4X2yov1", "name": "grade",
             "server_name": "crm", "input": grades}]}
        body = anthropic_body({"role": "user", "content": TEXT}, turn, {"role": "user", "content": "Et ensuite ?"},
                              metadata={"user_id": "u-1", "type": "Dossier de Marie Dupont"})
        response = chat(proxy, body, "messages")
    assert response.status_code == 200
    assert_only_fakes_went_upstream(upstream)


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_value_split_across_two_text_parts_of_a_message_does_not_reach_the_upstream(proxy, upstream, api):
    # A client's content parts are one text to the model: "Marie Du" + "pont" is Marie Dupont.
    cuts = ["Écris à Marie Du", "pont (marie.dupont@karl-", "studio.fr, 06 12 34 ", "56 78) chez Karl Studio SAS."]
    parts = [{"type": "text", "text": cut} for cut in cuts]
    if api == "openai":
        response = chat(proxy, openai_body({"role": "user", "content": parts}))
    else:
        response = chat(proxy, anthropic_body({"role": "user", "content": parts}, system=parts), "messages")
    assert response.status_code == 200
    sent = upstream.received[0].json()["messages"][0]["content"]
    assert len(sent) == len(cuts) and all(part["text"] for part in sent)
    read = "".join(part["text"] for part in sent)  # what the model reads
    for real in ("Marie", "Dupont", "marie.dupont@karl-studio.fr", "06 12 34 56 78", "Karl Studio"):
        assert real not in read, f"{real!r} reached the upstream across the parts: {read!r}"
    assert_only_fakes_went_upstream(upstream)


def test_a_server_tools_ids_and_encrypted_results_reach_the_upstream_as_they_came(proxy, upstream):
    blob = base64.b64encode(random.Random(7).randbytes(300)).decode()
    assert pseudonymise(blob, Vault.new(), RedactOptions()).text != blob  # the engine takes it for a secret
    tool_id = "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE"
    turn = {"role": "assistant", "content": [
        {"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {"query": "Marie Dupont"}},
        {"type": "web_search_tool_result", "tool_use_id": tool_id, "content": [
            {"type": "web_search_result", "url": "https://example.org/", "title": "Marie Dupont",
             "encrypted_content": blob}]}]}
    response = chat(proxy, anthropic_body({"role": "user", "content": TEXT}, turn,
                                          {"role": "user", "content": "Et ensuite ?"}), "messages")
    assert response.status_code == 200
    sent = upstream.received[0].json()["messages"][1]["content"]
    assert sent[0]["id"] == sent[1]["tool_use_id"] == tool_id
    assert sent[1]["content"][0]["encrypted_content"] == blob
    assert_only_fakes_went_upstream(upstream)



# Real values wherever a client may put text besides its messages.
ABOUT = "Marie Dupont de Karl Studio SAS (marie.dupont@karl-studio.fr)"
SCHEMA = {"type": "object", "required": ["to"], "properties": {
    "to": {"type": "string", "description": f"e.g. {ABOUT}", "enum": ["Marie Dupont", "Karl Studio SAS"]}}}
OPENAI_EXTRAS = {
    "tools": [{"type": "function", "function": {"name": "send", "description": f"Writes to {ABOUT}",
                                                "parameters": SCHEMA}}],
    "tool_choice": {"type": "function", "function": {"name": "send"}},
    "response_format": {"type": "json_schema", "json_schema": {"name": "card", "schema": SCHEMA}},
    "stop": ["Marie Dupont"], "metadata": {"client": ABOUT}, "prediction": {"type": "content", "content": ABOUT},
    "a_field_no_codec_knows": {"note": ABOUT},
}
ANTHROPIC_EXTRAS = {
    "tools": [{"name": "send", "description": f"Writes to {ABOUT}", "input_schema": SCHEMA}],
    "tool_choice": {"type": "tool", "name": "send"},
    "stop_sequences": ["Marie Dupont"], "metadata": {"user_id": "marie.dupont@karl-studio.fr"},
    "a_field_no_codec_knows": {"note": ABOUT},
}


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_texts_beside_the_messages_are_redacted_too_and_tool_names_are_not(proxy, upstream, api):
    if api == "openai":
        response = chat(proxy, openai_body(**OPENAI_EXTRAS))
    else:
        response = chat(proxy, anthropic_body(**ANTHROPIC_EXTRAS), "messages")
    assert response.status_code == 200
    assert_only_fakes_went_upstream(upstream)
    sent = upstream.received[0].json()
    tool = sent["tools"][0]
    assert (tool["function"]["name"] if api == "openai" else tool["name"]) == "send"
    assert sent["tool_choice"] == (OPENAI_EXTRAS if api == "openai" else ANTHROPIC_EXTRAS)["tool_choice"]
    # The stop sequence holds the very fake the message does: the model stops where it would have.
    stop = sent["stop"] if api == "openai" else sent["stop_sequences"]
    assert stop == [fake_name(upstream.received[0])]


def test_client_auth_headers_reach_the_upstream_unchanged_and_the_session_header_does_not(proxy, upstream):
    chat(proxy, openai_body(), **{"Authorization": "Bearer sk-client-key", "X-OpenMasq-Session": "s1",
                                  "OpenAI-Organization": "org-1"})
    chat(proxy, anthropic_body(), "messages", **{"x-api-key": "sk-ant-key", "anthropic-version": "2023-06-01",
                                                 "anthropic-beta": "tools-2024"})
    first, second = (r.headers for r in upstream.received)
    assert (first["authorization"], first["openai-organization"]) == ("Bearer sk-client-key", "org-1")
    assert "x-openmasq-session" not in first
    assert (second["x-api-key"], second["anthropic-version"], second["anthropic-beta"]) == (
        "sk-ant-key", "2023-06-01", "tools-2024")


@pytest.mark.parametrize("headers", [{"authorization": "Bearer k"}, {"x-api-key": "k", "anthropic-version": "1"}])
def test_the_model_list_passes_through(proxy, upstream, headers):
    response = httpx.get(f"{proxy.base_url}/models", headers=headers)
    assert response.status_code == 200
    assert [m.id for m in openai.parse_models(response.json()).models] == ["scripted-1"]
    assert upstream.received[0].path == "/v1/models"
    assert upstream.received[0].headers[next(iter(headers))] == next(iter(headers.values()))


def test_the_query_string_is_forwarded(proxy, upstream):
    chat(proxy, anthropic_body(), "messages?beta=true")
    assert upstream.received[0].path == "/v1/messages?beta=true"


def test_count_tokens_is_redacted_too(proxy, upstream):
    upstream.script = lambda received: Reply(body=b'{"input_tokens": 42}')
    response = chat(proxy, anthropic_body(), "messages/count_tokens")
    assert response.json() == {"input_tokens": 42}
    assert_only_fakes_went_upstream(upstream)


@pytest.mark.parametrize("path", ["embeddings", "completions", "responses"])
def test_an_endpoint_the_proxy_cannot_redact_is_refused_and_nothing_is_forwarded(proxy, upstream, path):
    response = chat(proxy, {"model": "m", "input": TEXT, "prompt": TEXT}, path)
    assert response.status_code == 404
    assert "does not forward" in response.json()["error"]["message"]
    assert upstream.received == []


def test_a_small_body_is_redacted_on_the_event_loop_and_a_large_one_in_a_worker_thread(proxy, upstream,
                                                                                      monkeypatch):
    in_threads: list[str] = []
    run = app_module.run_in_threadpool

    async def watched(fn, *args, **kwargs):
        in_threads.append(fn.__name__)
        return await run(fn, *args, **kwargs)

    monkeypatch.setattr(app_module, "run_in_threadpool", watched)
    assert chat(proxy, openai_body()).json()["choices"][0]["message"]["content"] == f"Reçu : {TEXT}"
    assert "redact_body" not in in_threads
    long_text = TEXT + " Suite du dossier." * (INLINE_MAX_BYTES // 16)
    answer = chat(proxy, openai_body({"role": "user", "content": long_text}))
    assert answer.json()["choices"][0]["message"]["content"] == f"Reçu : {long_text}"
    assert in_threads.count("redact_body") == 1
    assert_only_fakes_went_upstream(upstream)


def test_a_redaction_that_starts_while_another_runs_goes_to_a_thread():
    assert app_module._redacts_inline(2_000, others=0)
    assert not app_module._redacts_inline(2_000, others=1)  # the loop stays free for the one running
    assert not app_module._redacts_inline(INLINE_MAX_BYTES + 1, others=0)


def test_warming_the_engine_loads_it_and_puts_what_it_loaded_out_of_the_collectors_sight():
    try:
        warm_engine(RedactOptions())
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


_IMPORTS_OF_A_FIRST_REQUEST = """
import asyncio, json, sys
from openmasq.proxy.app import warm_http_client
import httpx
before = set(sys.modules)
asyncio.run(warm_http_client())
warmed = set(sys.modules)
async def first_request(port):
    async with httpx.AsyncHTTPTransport() as transport:
        response = await transport.handle_async_request(httpx.Request("GET", f"http://127.0.0.1:{port}/health"))
        await response.aread()
        await response.aclose()
asyncio.run(first_request(int(sys.argv[1])))
print(json.dumps({"by_warming": sorted(warmed - before), "left": sorted(set(sys.modules) - warmed)}))
"""


def test_warming_the_http_client_leaves_nothing_for_the_first_relayed_request_to_import():
    # In a fresh interpreter, against a server of this test: what the first request through the
    # client imports after warm_http_client (nothing), and that the warming did import something.
    with ScriptedUpstream(echo_script) as upstream:
        port = upstream.base_url.split(":")[-1].split("/")[0]
        root = Path(__file__).resolve().parents[2]
        run = subprocess.run([sys.executable, "-c", _IMPORTS_OF_A_FIRST_REQUEST, port], capture_output=True,
                             text=True, cwd=root / "py", timeout=120, check=True)
    imported = json.loads(run.stdout.splitlines()[-1])
    assert any(name.startswith("anyio._backends") for name in imported["by_warming"])
    assert imported["left"] == []


async def _lifespan_runs(app: Any) -> bool:
    async with app.router.lifespan_context(app):
        return app.state.proxy._transport is not None


def test_a_proxy_whose_http_client_cannot_be_warmed_starts_all_the_same(monkeypatch):
    from openmasq.testing import in_fresh_loop

    async def refused(*args: Any, **kwargs: Any) -> Any:
        raise OSError("no loopback socket")

    monkeypatch.setattr(app_module.asyncio, "start_server", refused)
    assert in_fresh_loop(_lifespan_runs(app_module.create_app(app_module.ProxyConfig("http://127.0.0.1:9/v1"))))


# Caches of the kept kind that grow by design after warming: one entry per character seen, or per
# locale tag (microseconds each); the data sets (keyed by a list file, a language, a country) must not.
_GROWING_BY_DESIGN = ("openmasq.redact.text._folded_char", "openmasq.redact.text._char_class",
                      "openmasq.redact.text._spellings", "openmasq.redact.fakes.names.language_of")
_LOADS_AFTER_WARMING = """
import json, sys
from openmasq.proxy import app as app_module
from openmasq.proxy.app import INLINE_MAX_BYTES, warm_engine
from openmasq.redact import RedactOptions, Restorer, Vault, pseudonymise
from openmasq.redact.caches import KEPT, memo_caches
warm_engine(RedactOptions())
def sizes():
    return {name: cache.cache_info().currsize for name, cache in memo_caches().items() if name in KEPT}
before = sizes()
for path in sys.argv[1:]:
    for line in open(path, encoding="utf-8").read().splitlines()[:60]:
        try:
            result = pseudonymise(json.loads(line)["text"], Vault.new(), RedactOptions())
        except Exception:
            continue
        Restorer(result.vault).restore(result.text)
after = sizes()
print(json.dumps({name: [before.get(name, 0), size] for name, size in after.items() if size != before.get(name, 0)}))
"""


def test_after_warming_no_request_loads_data_whatever_its_language():
    # In a fresh interpreter: this one has loaded everything already, so the test could not fail here.
    root = Path(__file__).resolve().parents[2]
    corpora = sorted(str(p) for p in (root / "tests" / "data" / "corpus").glob("*.jsonl"))
    assert len(corpora) >= 5
    run = subprocess.run([sys.executable, "-c", _LOADS_AFTER_WARMING, *corpora], capture_output=True, text=True,
                         cwd=root / "py", timeout=300, check=True)
    grew = json.loads(run.stdout.splitlines()[-1])
    loaded_late = {name: sizes for name, sizes in grew.items() if name not in _GROWING_BY_DESIGN}
    assert loaded_late == {}


def test_a_collision_in_a_later_message_redacts_the_whole_request_again() -> None:
    """A real name in the second message equal to the fake the first message's name got: the first message is
    redacted again with the re-faked value, so no substitute stands for two people and nothing real is sent."""
    from openmasq.proxy.masking import redact_body
    from openmasq.redact import restore

    key = "ab" * 32
    first = "Écris à Marie Dupont demain."
    replacements = pseudonymise(first, Vault.new(key)).replacements
    fake = next(rep.substitute for rep in replacements if rep.value == "Marie Dupont")
    second = f"Et préviens aussi {fake}, qui est une autre personne."
    body = {"model": "m", "messages": [{"role": "user", "content": first}, {"role": "user", "content": second}]}
    masked = redact_body("openai", body, Vault.new(key), RedactOptions())
    sent = [m["content"] for m in masked.body["messages"]]
    assert "Marie Dupont" not in sent[0] and fake not in sent[0] and fake not in sent[1]
    assert [restore(text, masked.vault) for text in sent] == [first, second]
