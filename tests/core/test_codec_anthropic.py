"""The Anthropic Messages codec: request bodies and headers, responses, the stream's named
events (tool_use with input_json_delta), model pages, and the text a redacting proxy rewrites."""

from __future__ import annotations

import json

import pytest
from feeders import Holding, holding

from openmasq.chat.codecs import (
    ChatRequest,
    Done,
    ErrorEvent,
    Message,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallAccumulator,
    ToolCallDelta,
    ToolSpec,
    Usage,
    anthropic,
)
from openmasq.chat.codecs.rewrite import PassThrough
from openmasq.chat.codecs.sse import SSEEvent, SSEParser
from openmasq.chat.codecs.walk import ShapeError

REQUEST = ChatRequest(
    model="claude-test",
    system="Tu es utile.",
    messages=(
        Message("user", "Cherche Ostrel et Verlac."),
        Message("assistant", "Je cherche.", tool_calls=(ToolCall("tu_1", "memory_search", '{"query": "Ostrel"}'),
                                                        ToolCall("tu_2", "memory_search", "{bad"))),
        Message("tool", "Ostrel: client", tool_call_id="tu_1"),
        Message("tool", "échec", tool_call_id="tu_2", is_error=True),
        Message("user", "Merci"),
        Message("assistant", ""),
    ),
    tools=(ToolSpec("memory_search", "Search memory"),),
    temperature=0.5,
    stream=True,
)


def test_a_request_body_puts_tool_results_in_one_user_turn():
    body = anthropic.request_body(REQUEST)
    assert body["system"] == "Tu es utile."
    assert body["max_tokens"] == anthropic.DEFAULT_MAX_TOKENS
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Cherche Ostrel et Verlac."}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Je cherche."},
            {"type": "tool_use", "id": "tu_1", "name": "memory_search", "input": {"query": "Ostrel"}},
            {"type": "tool_use", "id": "tu_2", "name": "memory_search", "input": {}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tu_1", "content": "Ostrel: client"},
            {"type": "tool_result", "tool_use_id": "tu_2", "content": "échec", "is_error": True},
            {"type": "text", "text": "Merci"},
        ]},
    ]
    assert body["tools"] == [{"name": "memory_search", "description": "Search memory",
                              "input_schema": {"type": "object", "properties": {}}}]
    assert (body["temperature"], body["stream"]) == (0.5, True)


def test_build_request_uses_x_api_key_and_the_api_version():
    request = anthropic.build_request(REQUEST, "https://api.anthropic.com/v1", "sk-ant")
    assert request.url == "https://api.anthropic.com/v1/messages"
    assert request.header("x-api-key") == "sk-ant"
    assert request.header("anthropic-version") == anthropic.API_VERSION
    assert request.header("authorization") is None
    assert request.header("anthropic-dangerous-direct-browser-access") is None


def test_a_browser_request_says_so():
    request = anthropic.build_request(REQUEST, "https://api.anthropic.com/v1", "k", browser=True)
    assert request.header("anthropic-dangerous-direct-browser-access") == "true"


def test_model_pages_parse_and_paginate():
    request = anthropic.build_models_request("https://api.anthropic.com/v1", "k", after="claude-a")
    assert request.url == "https://api.anthropic.com/v1/models?limit=100&after_id=claude-a"
    page = anthropic.parse_models({"data": [{"id": "claude-a", "display_name": "Claude A", "type": "model"}],
                                   "has_more": True, "last_id": "claude-a"})
    assert page.models[0].name == "Claude A"
    assert page.next_after == "claude-a"
    assert anthropic.parse_models({"data": [], "has_more": False, "last_id": None}).next_after is None


MESSAGE = {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "stop_reason": "tool_use",
    "content": [{"type": "thinking", "thinking": "Voyons.", "signature": "sig"},
                {"type": "text", "text": "Je cherche."},
                {"type": "tool_use", "id": "tu_1", "name": "memory_search", "input": {"query": "Ostrel"}}],
    "usage": {"input_tokens": 20, "output_tokens": 8, "cache_read_input_tokens": 5},
}


def test_a_message_parses_to_text_reasoning_tool_calls_and_usage():
    response = anthropic.parse_response(MESSAGE)
    assert (response.text, response.reasoning) == ("Je cherche.", "Voyons.")
    assert response.tool_calls == (ToolCall("tu_1", "memory_search", '{"query":"Ostrel"}'),)
    assert response.finish_reason == "tool_calls"
    assert response.usage == Usage(20, 8, 5, None)


@pytest.mark.parametrize(("status", "body", "kind"), [
    (529, b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}', "overloaded"),
    (200, b'{"type": "error", "error": {"type": "api_error", "message": "x"}}', "server"),
    (200, b"<!doctype html><html></html>", "html"),
    (200, b'{"content": 5}', "malformed"),
])
def test_decode_response_turns_failures_into_error_events(status, body, kind):
    result = anthropic.decode_response(status, {"content-type": "application/json"}, body)
    assert isinstance(result, ErrorEvent) and result.kind == kind


def event(kind: str, **fields: object) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n"


STREAM = [
    event("message_start", message={"id": "msg_1", "content": [], "usage": {"input_tokens": 25, "output_tokens": 1}}),
    event("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
    event("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "Voyons."}),
    event("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "sig"}),
    event("content_block_stop", index=0),
    event("content_block_start", index=1, content_block={"type": "text", "text": ""}),
    "event: ping\ndata: {\"type\": \"ping\"}\n\n",
    event("content_block_delta", index=1, delta={"type": "text_delta", "text": "Je "}),
    event("content_block_delta", index=1, delta={"type": "text_delta", "text": "cherche."}),
    event("content_block_stop", index=1),
    event("content_block_start", index=2, content_block={"type": "tool_use", "id": "tu_1", "name": "memory_search",
                                                         "input": {}}),
    event("content_block_delta", index=2, delta={"type": "input_json_delta", "partial_json": ""}),
    event("content_block_delta", index=2, delta={"type": "input_json_delta", "partial_json": '{"query": "Os'}),
    event("content_block_delta", index=2, delta={"type": "input_json_delta", "partial_json": 'trel"}'}),
    event("content_block_stop", index=2),
    event("message_delta", delta={"stop_reason": "tool_use", "stop_sequence": None}, usage={"output_tokens": 30}),
    event("message_stop"),
]


def decode(*pieces: str | bytes) -> list[object]:
    decoder = anthropic.StreamDecoder()
    events: list[object] = []
    for piece in pieces:
        events += decoder.feed(piece)
    return events + decoder.close()


def calls_of(events: list[object]) -> tuple[ToolCall, ...]:
    calls = ToolCallAccumulator()
    for e in events:
        if isinstance(e, ToolCallDelta):
            calls.add(e)
    return calls.calls()


def test_a_stream_gives_reasoning_text_tool_calls_usage_and_done():
    events = decode(*STREAM)
    assert events[0] == Usage(25, 1)
    assert ReasoningDelta("Voyons.") in events
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Je cherche."
    assert calls_of(events) == (ToolCall("tu_1", "memory_search", '{"query": "Ostrel"}'),)
    assert Usage(None, 30) in events
    assert events[-1] == Done("tool_calls", "tool_use")


def test_tool_calls_are_numbered_in_block_order_from_zero():
    events = decode(*STREAM)
    assert {e.index for e in events if isinstance(e, ToolCallDelta)} == {0}


def test_the_same_stream_in_byte_chunks_with_crlf_gives_the_same_events():
    data = "".join(STREAM).replace("\n", "\r\n").encode()
    assert decode(*[data[i : i + 5] for i in range(0, len(data), 5)]) == decode(*STREAM)


def test_an_error_event_ends_the_stream():
    events = decode(STREAM[0], event("error", error={"type": "overloaded_error", "message": "Overloaded"}))
    assert isinstance(events[-1], ErrorEvent) and events[-1].kind == "overloaded"
    assert len(events) == 2


def test_a_stream_cut_mid_event_is_reported_truncated():
    events = decode(*STREAM[:8], 'event: content_block_delta\ndata: {"type": "content_block_delta", "ind')
    assert isinstance(events[-1], ErrorEvent) and events[-1].kind == "truncated"
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Je "


def test_garbage_events_are_reported_and_skipped():
    events = decode(STREAM[0], "data: <html>\n\n", event("unknown_future_event", x=1), *STREAM[5:])
    assert isinstance(events[1], ErrorEvent) and events[1].kind == "malformed"
    assert events[-1] == Done("tool_calls", "tool_use")


# --- what the proxy rewrites ------------------------------------------------------------------


def mark(text: str) -> str:
    return f"<{text}>"


SIGNATURE = "EqQBCkgIBhABGAIiQLSli3kd9q8dgwPm"  # a provider's token: base64, long
TOOL_ID = "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE"
CLIENT_BODY = {
    "model": "m", "max_tokens": 10, "metadata": {"user_id": "u-42"},
    "tools": [{"name": "send", "description": "Send", "input_schema": {"type": "object", "required": ["to"],
                                                                      "properties": {"to": {"description": "who"}}}},
              {"type": "web_search_20250305", "name": "web_search", "allowed_domains": ["example.fr"]}],
    "tool_choice": {"type": "tool", "name": "send"}, "thinking": {"type": "enabled", "budget_tokens": 1024},
    "mcp_servers": [{"type": "url", "url": "https://mcp.example.fr/sse", "name": "crm", "authorization_token": "t"}],
    "stop_sequences": ["end"], "future_field": {"deep": ["f"]},
    "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
    "messages": [
        {"role": "user", "content": "plain"},
        {"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
            {"type": "document", "title": "Contrat", "source": {"type": "text", "media_type": "text/plain",
                                                                "data": "doc"}},
            {"type": "document", "source": {"type": "content", "content": [{"type": "text", "text": "part"}]}},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}},
        ]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "think", "signature": SIGNATURE},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": "said", "citations": [{"type": "char_location", "cited_text": "quoted",
                                                            "document_title": "Contrat", "start_char_index": 0}]},
            {"type": "tool_use", "id": "tu_1", "name": "send", "input": {"to": "a", "list": ["b", 1]}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tu_1", "content": "r1"},
            {"type": "tool_result", "tool_use_id": "tu_2", "content": [{"type": "text", "text": "r2"}]},
            {"type": "search_result", "source": "s", "title": "t", "content": [{"type": "text", "text": "c"}]},
        ]},
    ],
}


def test_every_text_a_client_sends_is_rewritten_and_nothing_else():
    out = anthropic.map_request_texts(CLIENT_BODY, mark)
    assert out["system"] == [{"type": "text", "text": "<sys>", "cache_control": {"type": "ephemeral"}}]
    assert out["metadata"] == {"user_id": "<u-42>"}
    first, second, assistant, results = out["messages"]
    assert first["content"] == "<plain>"
    assert second["content"][0]["text"] == "<look>"
    assert second["content"][1] == CLIENT_BODY["messages"][1]["content"][1]
    assert (second["content"][2]["title"], second["content"][2]["source"]["data"]) == ("<Contrat>", "<doc>")
    assert second["content"][3]["source"]["content"] == [{"type": "text", "text": "<part>"}]
    assert second["content"][4]["source"]["data"] == "JVBE"
    assert assistant["content"][0] == {"type": "thinking", "thinking": "<think>", "signature": SIGNATURE}
    assert assistant["content"][1] == {"type": "redacted_thinking", "data": "opaque"}
    assert assistant["content"][2]["text"] == "<said>"
    assert assistant["content"][2]["citations"] == [{"type": "char_location", "cited_text": "<quoted>",
                                                     "document_title": "<Contrat>", "start_char_index": 0}]
    assert assistant["content"][3]["input"] == {"<to>": "<a>", "<list>": ["<b>", 1]}
    assert results["content"][0]["content"] == "<r1>"
    assert results["content"][1]["content"] == [{"type": "text", "text": "<r2>"}]
    assert results["content"][2] == {"type": "search_result", "source": "<s>", "title": "<t>",
                                      "content": [{"type": "text", "text": "<c>"}]}


SERVER_TOOL_TURN = {"role": "assistant", "content": [
    {"type": "server_tool_use", "id": TOOL_ID, "name": "web_search", "input": {"query": "Ostrel"}},
    {"type": "web_search_tool_result", "tool_use_id": TOOL_ID, "content": [
        {"type": "web_search_result", "url": "https://ostrel.example/", "title": "Ostrel",
         "encrypted_content": SIGNATURE, "page_age": "2025"}]},
    {"type": "text", "text": "Vu.", "citations": [
        {"type": "web_search_result_location", "url": "https://o.example/", "title": "Ostrel",
         "encrypted_index": SIGNATURE, "cited_text": "Ostrel"}]},
    {"type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"},
    {"type": "future_block", "id": {"not": "an id"}},
]}


def test_what_the_provider_minted_goes_back_as_it_came_and_the_rest_of_a_server_tool_turn_is_rewritten():
    out = anthropic.map_request_texts({"messages": [SERVER_TOOL_TURN]}, mark)["messages"][0]["content"]
    assert out[0] == {"type": "server_tool_use", "id": TOOL_ID, "name": "<web_search>",
                      "input": {"<query>": "<Ostrel>"}}
    assert out[1] == {"type": "web_search_tool_result", "tool_use_id": TOOL_ID, "content": [
        {"type": "web_search_result", "url": "<https://ostrel.example/>", "title": "<Ostrel>",
         "encrypted_content": SIGNATURE, "page_age": "<2025>"}]}
    assert out[2]["citations"] == [{"type": "web_search_result_location", "url": "<https://o.example/>",
                                    "title": "<Ostrel>", "encrypted_index": SIGNATURE, "cited_text": "<Ostrel>"}]
    assert out[3] == {"type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}
    assert out[4] == {"type": "future_block", "id": {"not": "<an id>"}}  # an id is a string, or content


def test_in_content_of_unknown_shape_only_what_reads_as_a_name_or_a_provider_token_is_kept():
    pdf = "JVBERi0xLjcKJeLjz9MKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoK"
    body = {"metadata": {"type": "Dossier de Ostrel"},
            "tools": [{"type": "mcp_toolset", "mcp_server_name": "ostrel-crm"}],
            "messages": [{"role": "assistant", "content": [
                {"type": "mcp_tool_use", "id": "mcptoolu_014Q35RayjACSWkSj4X2yov1", "name": "send",
                 "server_name": "ostrel-crm", "input": {"signature": "Ostrel, CFO", "type": "Rendez-vous"}},
                {"type": "code_execution_tool_result", "tool_use_id": TOOL_ID,
                 "content": {"type": "encrypted_code_execution_result", "encrypted_stdout": SIGNATURE,
                             "caller": {"tool_id": TOOL_ID}, "stdout": "Ostrel",
                             "file_id": "Notes de Ostrel"}},
                {"type": "web_fetch_tool_result", "tool_use_id": TOOL_ID, "content": {
                    "type": "web_fetch_result", "url": "https://o.example/a.pdf", "content": {
                        "type": "document",
                        "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}}}},
                {"type": "future_block", "image": f"data:image/png;base64,{pdf}", "id": "Ostrel",
                 "said": f"data:image/png;base64,{pdf} Ostrel"},
            ]}]}
    out = anthropic.map_request_texts(body, mark)
    assert out["metadata"] == {"type": "<Dossier de Ostrel>"}  # a sentence is content, whatever its field
    assert out["tools"] == body["tools"]
    mcp, code, fetched, future = out["messages"][0]["content"]
    assert (mcp["id"], mcp["server_name"]) == ("mcptoolu_014Q35RayjACSWkSj4X2yov1", "ostrel-crm")
    assert mcp["input"] == {"<signature>": "<Ostrel, CFO>", "<type>": "<Rendez-vous>"}  # a payload: all data
    assert code["content"] == {"type": "encrypted_code_execution_result", "encrypted_stdout": SIGNATURE,
                               "caller": {"tool_id": TOOL_ID}, "stdout": "<Ostrel>",
                               "file_id": "<Notes de Ostrel>"}
    assert fetched["content"]["content"]["source"]["data"] == pdf
    assert fetched["content"]["url"] == "<https://o.example/a.pdf>"
    assert future == {"type": "future_block", "image": f"data:image/png;base64,{pdf}", "id": "<Ostrel>",
                      "said": f"<data:image/png;base64,{pdf} Ostrel>"}  # media, whole, or text


@pytest.mark.parametrize("body", [
    "x", {"messages": {}}, {"messages": [{"role": "user", "content": 1}]}, {"messages": [], "system": 3},
    {"messages": [{"role": "user", "content": [{"type": "text", "text": 3}]}]},
    {"messages": [{"role": "user", "content": [{"type": "document", "source": "x"}]}]},
])
def test_a_body_whose_text_cannot_be_accounted_for_is_refused(body):
    with pytest.raises(ShapeError):
        anthropic.map_request_texts(body, mark)


def test_tools_have_their_texts_rewritten_and_their_names_left_alone():
    send, search = anthropic.map_request_texts(CLIENT_BODY, mark)["tools"]
    assert send == {"name": "send", "description": "<Send>", "input_schema": {
        "type": "object", "required": ["to"], "properties": {"to": {"description": "<who>"}}}}
    assert search == {"type": "web_search_20250305", "name": "web_search", "allowed_domains": ["<example.fr>"]}


def test_settings_go_as_they_are_and_every_other_field_is_rewritten_as_content():
    out = anthropic.map_request_texts(CLIENT_BODY, mark)
    for setting in ("model", "max_tokens", "tool_choice", "thinking", "mcp_servers"):
        assert out[setting] == CLIENT_BODY[setting]
    assert (out["stop_sequences"], out["future_field"]) == (["<end>"], {"deep": ["<f>"]})


def test_a_response_has_text_thinking_and_tool_inputs_rewritten():
    out = anthropic.map_response_texts(MESSAGE, mark, str.upper)
    assert [b.get("thinking") or b.get("text") or b.get("input") for b in out["content"]] == [
        "<Voyons.>", "<Je cherche.>", {"QUERY": "OSTREL"}]  # a tool input's keys are data too
    assert MESSAGE["content"][1]["text"] == "Je cherche."


CITATION = {"type": "char_location", "cited_text": "Ostrel", "document_index": 0, "document_title": "Notes",
            "start_char_index": 4, "end_char_index": 10}
MARKED_CITATION = {**CITATION, "cited_text": "<Ostrel>", "document_title": "<Notes>"}


def test_a_citation_has_its_quoted_text_and_title_rewritten_and_its_indices_kept():
    message = {**MESSAGE, "content": [{"type": "text", "text": "Ostrel", "citations": [CITATION]},
                                      {"type": "text", "text": "sans", "citations": None}]}
    out = anthropic.map_response_texts(message, mark, str.upper)
    assert out["content"] == [{"type": "text", "text": "<Ostrel>", "citations": [MARKED_CITATION]},
                              {"type": "text", "text": "<sans>", "citations": None}]
    assert message["content"][0]["citations"] == [CITATION]


def test_a_streamed_citation_is_rewritten_whole_in_its_own_event():
    stream = [
        event("content_block_start", index=0, content_block={"type": "text", "text": "", "citations": [CITATION]}),
        event("content_block_delta", index=0, delta={"type": "citations_delta", "citation": CITATION}),
        event("content_block_delta", index=0, delta={"type": "text_delta", "text": "Ostrel"}),
        event("content_block_stop", index=0),
    ]
    items = [json.loads(i.data) for i in rewrite_all(anthropic.StreamRewriter(holding(mark), holding(mark)), stream)]
    assert items[0]["content_block"]["citations"] == [MARKED_CITATION]
    assert items[1]["delta"] == {"type": "citations_delta", "citation": MARKED_CITATION}
    # The block's own text is held by its feeder until the block stops; the citation was not.
    assert [i["delta"] for i in items[2:4]] == [{"type": "text_delta", "text": ""},
                                                {"type": "text_delta", "text": "<Ostrel>"}]


def test_a_response_has_what_the_model_wrote_in_server_tool_blocks_and_its_stop_sequence_restored():
    message = {**MESSAGE, "stop_reason": "stop_sequence", "stop_sequence": "Ostrel:", "content": [
        {"type": "server_tool_use", "id": TOOL_ID, "name": "code_execution",
         "input": {"code": "print('Ostrel')"}},
        {"type": "code_execution_tool_result", "tool_use_id": TOOL_ID,
         "content": {"type": "code_execution_result", "stdout": "Ostrel", "return_code": 0}},
        {"type": "redacted_thinking", "data": "Ostrel"}]}
    out = anthropic.map_response_texts(message, mark, str.upper)
    call, result, opaque = out["content"]
    assert call["input"] == {"CODE": "PRINT('OSTREL')"}
    assert result["content"] == {"type": "code_execution_result", "stdout": "<Ostrel>", "return_code": 0}
    assert result["tool_use_id"] == TOOL_ID
    assert opaque == {"type": "redacted_thinking", "data": "Ostrel"}
    assert out["stop_sequence"] == "<Ostrel:>"


def test_a_stream_restores_server_tool_inputs_and_the_stop_sequence_and_ends_thinking_before_its_signature():
    stream = [
        event("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
        event("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "Voyons."}),
        event("content_block_delta", index=0, delta={"type": "signature_delta", "signature": SIGNATURE}),
        event("content_block_stop", index=0),
        event("content_block_start", index=1, content_block={"type": "server_tool_use", "id": "srvtoolu_0",
                                                             "name": "web_search", "input": {}}),
        event("content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": '{"query": "Ost'}),
        event("content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": 'rel"}'}),
        event("content_block_stop", index=1),
        event("content_block_start", index=2, content_block={
            "type": "web_search_tool_result", "tool_use_id": "srvtoolu_0",
            "content": [{"type": "web_search_result", "title": "Ostrel", "encrypted_content": SIGNATURE}]}),
        event("content_block_stop", index=2),
        event("message_delta", delta={"stop_reason": "stop_sequence", "stop_sequence": "Ostrel:"}),
    ]
    items = [json.loads(i.data) for i in rewrite_all(anthropic.StreamRewriter(holding(mark), holding(mark)), stream)]
    deltas = [(i.get("index"), i["delta"]) for i in items if i["type"] == "content_block_delta"]
    assert [d for i, d in deltas if i == 0 and d.get("thinking") != ""] == [
        {"type": "thinking_delta", "thinking": "<Voyons.>"}, {"type": "signature_delta", "signature": SIGNATURE}]
    assert "".join(d["partial_json"] for i, d in deltas if i == 1) == '<{"query": "Ostrel"}>'
    [result] = [i["content_block"] for i in items if i["type"] == "content_block_start" and i["index"] == 2]
    assert result["content"] == [{"type": "web_search_result", "title": "<Ostrel>", "encrypted_content": SIGNATURE}]
    assert items[-1]["delta"]["stop_sequence"] == "<Ostrel:>"


def rewrite_all(rewriter: anthropic.StreamRewriter, stream: list[str]) -> list[SSEEvent]:
    parser = SSEParser()
    out = [item for piece in stream for raw in parser.feed(piece) for item in rewriter.rewrite(raw)]
    out += [item for raw in parser.close() for item in rewriter.rewrite(raw)]
    return [i for i in out + rewriter.finish() if isinstance(i, SSEEvent)]


def reencode(items: list[SSEEvent]) -> list[str]:
    return [f"event: {i.event}\ndata: {i.data}\n\n" for i in items]


def test_a_stream_rewritten_without_change_decodes_the_same():
    items = rewrite_all(anthropic.StreamRewriter(PassThrough, PassThrough), STREAM)
    assert decode(*reencode(items)) == decode(*STREAM)


def test_held_back_text_is_released_just_before_its_block_stops():
    rewriter = anthropic.StreamRewriter(Holding, Holding)
    items = rewrite_all(rewriter, STREAM)
    events = decode(*reencode(items))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Je cherche."
    assert calls_of(events) == (ToolCall("tu_1", "memory_search", '{"query": "Ostrel"}'),)
    kinds = [(json.loads(i.data)["type"], json.loads(i.data).get("index")) for i in items]
    stop = kinds.index(("content_block_stop", 1))
    assert kinds[stop - 1] == ("content_block_delta", 1)
    assert json.loads(items[stop - 1].data)["delta"] == {"type": "text_delta", "text": "Je cherche."}
    assert rewriter.complete


def test_a_cut_stream_releases_held_text_at_finish():
    rewriter = anthropic.StreamRewriter(Holding, Holding)
    items = rewrite_all(rewriter, STREAM[:9])
    assert not rewriter.complete
    assert json.loads(items[-1].data) == {"type": "content_block_delta", "index": 1,
                                          "delta": {"type": "text_delta", "text": "Je cherche."}}


def test_a_client_facing_error_is_in_anthropic_shape():
    assert anthropic.error_body("redaction_error", "nothing sent") == {
        "type": "error", "error": {"type": "redaction_error", "message": "nothing sent"}}
    assert anthropic.error_event("truncated", "cut").event == "error"
