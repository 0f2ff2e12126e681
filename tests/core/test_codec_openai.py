"""The OpenAI Chat Completions codec: request bodies, responses, stream chunks (tool-call
arguments split across chunks), and the text fields a redacting proxy rewrites."""

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
    openai,
)
from openmasq.chat.codecs.rewrite import PassThrough
from openmasq.chat.codecs.sse import SSEComment, SSEEvent, SSEParser, SSEProblem
from openmasq.chat.codecs.walk import ShapeError

CALL = ToolCall("call_1", "memory_search", '{"query": "Ostrel"}')
REQUEST = ChatRequest(
    model="gpt-test",
    system="Tu es utile.",
    messages=(
        Message("user", "Cherche Ostrel."),
        Message("assistant", "", tool_calls=(CALL,)),
        Message("tool", "Ostrel: client depuis 2021", tool_call_id="call_1"),
        Message("assistant", "C'est un client."),
        Message("user", "Merci"),
    ),
    tools=(ToolSpec("memory_search", "Search memory",
                    {"type": "object", "properties": {"query": {"type": "string"}}}),),
    temperature=0.2,
    max_tokens=300,
    stream=True,
)


def test_a_request_body_carries_system_turns_tool_calls_and_results():
    body = openai.request_body(REQUEST)
    assert body["messages"] == [
        {"role": "system", "content": "Tu es utile."},
        {"role": "user", "content": "Cherche Ostrel."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "memory_search",
                                                              "arguments": '{"query": "Ostrel"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Ostrel: client depuis 2021"},
        {"role": "assistant", "content": "C'est un client."},
        {"role": "user", "content": "Merci"},
    ]
    assert body["tools"][0] == {"type": "function", "function": {
        "name": "memory_search", "description": "Search memory",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}
    assert (body["temperature"], body["max_tokens"], body["stream"]) == (0.2, 300, True)
    assert body["stream_options"] == {"include_usage": True}


def test_dialect_options_rename_max_tokens_and_drop_stream_usage():
    body = openai.request_body(REQUEST, max_tokens_field="max_completion_tokens", stream_usage=False)
    assert body["max_completion_tokens"] == 300
    assert "max_tokens" not in body and "stream_options" not in body


def test_a_minimal_request_sends_only_what_is_set():
    body = openai.request_body(ChatRequest("m", (Message("user", "hi"),)))
    assert body == {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def test_build_request_uses_a_bearer_key_and_the_base_url():
    request = openai.build_request(REQUEST, "http://127.0.0.1:11434/v1/", "sk-test")
    assert request.method == "POST"
    assert request.url == "http://127.0.0.1:11434/v1/chat/completions"
    assert request.header("Authorization") == "Bearer sk-test"
    assert request.header("accept") == "text/event-stream"
    assert json.loads(request.content()) == openai.request_body(REQUEST)


def test_a_keyless_local_server_gets_no_authorization_header():
    request = openai.build_request(ChatRequest("m", (Message("user", "hi"),)), "http://127.0.0.1:1234/v1")
    assert request.header("authorization") is None


def test_model_lists_parse():
    request = openai.build_models_request("https://api.openai.com/v1", "k")
    assert (request.method, request.url) == ("GET", "https://api.openai.com/v1/models")
    page = openai.parse_models({"object": "list", "data": [{"id": "gpt-x", "object": "model", "owned_by": "openai"},
                                                           {"id": "llama3.2:1b", "object": "model"}, {"oops": 1}]})
    assert [m.id for m in page.models] == ["gpt-x", "llama3.2:1b"]
    assert page.models[0].owned_by == "openai"
    assert page.next_after is None


def test_a_model_list_of_another_shape_is_a_shape_error():
    with pytest.raises(ShapeError):
        openai.parse_models({"models": []})


# --- complete responses ---------------------------------------------------------------------


COMPLETION = {
    "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-test",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "Je cherche.", "reasoning_content": "Il faut chercher.",
        "tool_calls": [{"id": "call_9", "type": "function",
                        "function": {"name": "memory_search", "arguments": '{"query": "x"}'}}]}}],
    "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19,
              "prompt_tokens_details": {"cached_tokens": 4}},
}


def test_a_completion_parses_to_text_tool_calls_usage_and_reason():
    response = openai.parse_response(COMPLETION)
    assert response.text == "Je cherche."
    assert response.reasoning == "Il faut chercher."
    assert response.tool_calls == (ToolCall("call_9", "memory_search", '{"query": "x"}'),)
    assert response.finish_reason == "tool_calls"
    assert response.usage == Usage(12, 7, 4)
    assert response.model == "gpt-test"


@pytest.mark.parametrize(("status", "headers", "body", "kind"), [
    (401, {"content-type": "application/json"}, b'{"error": {"message": "bad key", "type": "x"}}', "auth"),
    (200, {"content-type": "text/html"}, b"<html>portal</html>", "html"),
    (200, {"content-type": "application/json"}, b"not json", "malformed"),
    (200, {"content-type": "application/json"}, b'{"choices": "nope"}', "malformed"),
    (200, {"content-type": "application/json"}, b'{"error": {"message": "x", "type": "server_error"}}', "provider"),
])
def test_decode_response_turns_failures_into_error_events(status, headers, body, kind):
    result = openai.decode_response(status, headers, body)
    assert isinstance(result, ErrorEvent)
    assert result.kind == kind


def test_decode_response_returns_the_completion_when_all_is_well():
    result = openai.decode_response(200, {"content-type": "application/json"}, json.dumps(COMPLETION).encode())
    assert not isinstance(result, ErrorEvent)
    assert result.text == "Je cherche."


# --- streams --------------------------------------------------------------------------------


def chunk(delta: dict, finish: str | None = None, **extra: object) -> str:
    doc = {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta,
                                                                      "finish_reason": finish}], **extra}
    return f"data: {json.dumps(doc)}\n\n"


def decode(*pieces: str | bytes) -> list[object]:
    decoder = openai.StreamDecoder()
    events: list[object] = []
    for piece in pieces:
        events += decoder.feed(piece)
    return events + decoder.close()


TOOL_STREAM = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": "Je "}),
    chunk({"content": "cherche."}),
    chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                           "function": {"name": "memory_search", "arguments": ""}}]}),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"que'}}]}),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ry": "Ostrel"}'}}]}),
    chunk({"tool_calls": [{"index": 1, "id": "call_2", "function": {"name": "now", "arguments": "{}"}}]}),
    chunk({}, "tool_calls"),
    'data: {"id": "c", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 4}}\n\n',
    "data: [DONE]\n\n",
]


def test_a_stream_gives_text_tool_call_fragments_usage_and_done():
    events = decode(*TOOL_STREAM)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Je ", "cherche."]
    calls = ToolCallAccumulator()
    for event in events:
        if isinstance(event, ToolCallDelta):
            calls.add(event)
    assert calls.calls() == (ToolCall("call_1", "memory_search", '{"query": "Ostrel"}'),
                             ToolCall("call_2", "now", "{}"))
    assert Usage(9, 4) in events
    assert events[-1] == Done("tool_calls", "tool_calls")


def test_the_same_stream_in_byte_chunks_gives_the_same_events():
    data = "".join(TOOL_STREAM).encode()
    assert decode(*[data[i : i + 7] for i in range(0, len(data), 7)]) == decode(*TOOL_STREAM)


def test_reasoning_deltas_are_kept_apart_from_the_answer():
    events = decode(chunk({"reasoning_content": "Hmm"}), chunk({"reasoning": "…"}), chunk({"content": "Oui"}, "stop"),
                    "data: [DONE]\n\n")
    assert events[:3] == [ReasoningDelta("Hmm"), ReasoningDelta("…"), TextDelta("Oui")]


def test_a_stream_without_done_after_a_finish_reason_still_ends_cleanly():
    assert decode(chunk({"content": "Oui"}, "stop"))[-1] == Done("stop", "stop")


def test_a_stream_cut_before_the_finish_is_reported_truncated():
    events = decode(chunk({"content": "Oui"}), 'data: {"choices": [{"delta": {"content": "Ma')
    assert events[0] == TextDelta("Oui")
    assert isinstance(events[-1], ErrorEvent) and events[-1].kind == "truncated"


def test_a_malformed_event_is_reported_and_the_stream_goes_on():
    events = decode("data: {not json\n\n", "garbage line\n", chunk({"content": "Oui"}, "length"), "data: [DONE]\n\n")
    assert isinstance(events[0], ErrorEvent) and events[0].kind == "malformed"
    assert events[1:] == [TextDelta("Oui"), Done("length", "length")]


def test_an_error_sent_inside_the_stream_ends_it():
    events = decode(chunk({"content": "Oui"}), 'data: {"error": {"message": "overloaded", "type": "server_error"}}\n\n')
    assert isinstance(events[-1], ErrorEvent)
    assert events[-1].provider_message == "overloaded"
    assert len([e for e in events if isinstance(e, ErrorEvent)]) == 1


def test_tool_call_arguments_sent_as_an_object_are_kept_as_json_text():
    events = decode(chunk({"tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": {"a": 1}}}]}, "stop"))
    assert events[0] == ToolCallDelta(0, "c1", "f", '{"a":1}')


def test_tool_call_arguments_that_are_invalid_json_are_delivered_as_written():
    events = decode(chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a": '}}]},
                          "tool_calls"), "data: [DONE]\n\n")
    calls = ToolCallAccumulator()
    calls.add(events[0])
    assert calls.calls()[0].arguments == '{"a": '
    assert calls.calls()[0].parsed_arguments() is None


# --- what the proxy rewrites ------------------------------------------------------------------


def mark(text: str) -> str:
    return f"<{text}>"


CLIENT_BODY = {
    "model": "m", "user": "marie@example.fr", "temperature": 0,
    "messages": [
        {"role": "system", "content": "sys"},
        {"role": "developer", "content": [{"type": "text", "text": "dev"}]},
        {"role": "user", "name": "Marie", "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            {"type": "file", "file": {"file_data": "QUJD", "filename": "contrat.pdf"}},
            {"type": "future_part", "caption": "cap", "nested": {"deep": "d"}},
        ]},
        {"role": "assistant", "content": None, "refusal": "no", "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "send", "arguments": '{"to": "a", "n": [1, "b"]}'}},
            {"id": "call_2", "type": "function", "function": {"name": "send", "arguments": "{broken"}},
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": "result"},
        {"role": "assistant", "function_call": {"name": "old", "arguments": '{"x": "y"}'}, "content": "said"},
    ],
    "tools": [{"type": "function", "function": {"name": "send", "description": "Send", "parameters": {
        "type": "object", "required": ["to"],
        "properties": {"to": {"type": "string", "format": "email", "description": "who", "enum": ["x"]},
                       "type": {"type": "string", "description": "kind"}}}}},
              {"type": "custom", "custom": {"name": "grep", "description": "Search"}}],
    "functions": [{"name": "old", "description": "Old"}],
    "tool_choice": {"type": "function", "function": {"name": "send"}}, "reasoning_effort": "low",
    "response_format": {"type": "json_schema", "json_schema": {"name": "card", "schema": {"description": "c"}}},
    "stop": ["end"], "metadata": {"client": "acme"}, "prediction": {"type": "content", "content": "draft"},
    "future_field": {"deep": ["f"]},
}


def test_every_text_a_client_sends_is_rewritten_and_nothing_else():
    out = openai.map_request_texts(CLIENT_BODY, mark)
    messages = out["messages"]
    assert out["user"] == "<marie@example.fr>"
    assert messages[0]["content"] == "<sys>"
    assert messages[1]["content"] == [{"type": "text", "text": "<dev>"}]
    parts = messages[2]["content"]
    assert messages[2]["name"] == "_Marie_"
    assert parts[0] == {"type": "text", "text": "<look>"}
    assert parts[1] == CLIENT_BODY["messages"][2]["content"][1]  # the image's bytes are left alone
    assert parts[2] == {"type": "file", "file": {"file_data": "QUJD", "filename": "<contrat.pdf>"}}
    assert parts[3] == {"type": "future_part", "caption": "<cap>", "nested": {"deep": "<d>"}}
    assert messages[3]["refusal"] == "<no>"
    assert json.loads(messages[3]["tool_calls"][0]["function"]["arguments"]) == {"<to>": "<a>", "<n>": [1, "<b>"]}
    assert messages[3]["tool_calls"][1]["function"]["arguments"] == "<{broken>"
    assert messages[4]["content"] == "<result>"
    assert json.loads(messages[5]["function_call"]["arguments"]) == {"<x>": "<y>"}
    assert messages[5]["content"] == "<said>"
    assert (out["model"], out["temperature"], out["reasoning_effort"]) == ("m", 0, "low")
    assert out["tool_choice"] == CLIENT_BODY["tool_choice"]


def test_declarations_have_their_texts_rewritten_and_their_names_left_alone():
    out = openai.map_request_texts(CLIENT_BODY, mark)
    send, grep = out["tools"]
    assert (send["type"], send["function"]["name"], send["function"]["description"]) == ("function", "send", "<Send>")
    parameters = send["function"]["parameters"]
    assert (parameters["type"], parameters["required"]) == ("object", ["to"])
    assert parameters["properties"]["to"] == {"type": "string", "format": "email", "description": "<who>",
                                              "enum": ["<x>"]}
    # A property called "type" is a schema like any other: its description is text.
    assert parameters["properties"]["type"] == {"type": "string", "description": "<kind>"}
    assert grep == {"type": "custom", "custom": {"name": "grep", "description": "<Search>"}}
    assert out["functions"] == [{"name": "old", "description": "<Old>"}]
    assert out["response_format"] == {"type": "json_schema",
                                      "json_schema": {"name": "card", "schema": {"description": "<c>"}}}


def test_fields_the_codec_does_not_know_are_rewritten_as_content():
    out = openai.map_request_texts(CLIENT_BODY, mark)
    assert (out["stop"], out["metadata"]) == (["<end>"], {"client": "<acme>"})
    assert out["prediction"] == {"type": "content", "content": "<draft>"}
    assert out["future_field"] == {"deep": ["<f>"]}
    assert openai.map_request_texts({"messages": [], "response_format": "json"}, mark)["response_format"] == "<json>"
    body = {"messages": [{"role": "assistant", "content": "a", "annotations": [{"type": "url", "title": "t"}],
                          "tool_calls": [{"id": "c", "type": "function", "extra": "e",
                                          "function": {"name": "n", "arguments": "{}", "note": "x"}}]}]}
    message = openai.map_request_texts(body, mark)["messages"][0]
    assert message["annotations"] == [{"type": "url", "title": "<t>"}]
    call = message["tool_calls"][0]
    assert (call["id"], call["extra"], call["function"]["name"], call["function"]["note"]) == ("c", "<e>", "n", "<x>")


def test_rewriting_does_not_modify_the_client_body():
    before = json.dumps(CLIENT_BODY, sort_keys=True)
    openai.map_request_texts(CLIENT_BODY, mark)
    assert json.dumps(CLIENT_BODY, sort_keys=True) == before


ENCRYPTED = "gAAAAABobz1qX9eHq3Jx2cL0Jb8v6n2K1mN4pQ7rS0tU"


def test_what_the_provider_minted_in_an_assistant_turn_goes_back_as_it_came():
    turn = {"role": "assistant", "content": None, "audio": {"id": "audio_6744f6a1b2c48190a1d2e3f4"},
            "reasoning_details": [{"type": "reasoning.encrypted", "id": "rs_0a1b2c3d4e5f6a7b", "data": ENCRYPTED},
                                  {"type": "reasoning.text", "text": "Ostrel"}],
            "thinking_blocks": [{"type": "redacted_thinking", "data": ENCRYPTED}],
            "tool_calls": [{"id": "call_Ab3dE5gH7iJ9kL1mN3oP5qR7", "type": "custom",
                            "custom": {"name": "sql", "input": "SELECT * WHERE name = 'Ostrel'"}}]}
    [out] = openai.map_request_texts({"model": "m", "messages": [turn]}, mark)["messages"]
    assert out["audio"] == turn["audio"]
    assert out["reasoning_details"] == [turn["reasoning_details"][0], {"type": "reasoning.text", "text": "<Ostrel>"}]
    assert out["thinking_blocks"] == turn["thinking_blocks"]
    assert out["tool_calls"] == [{"id": "call_Ab3dE5gH7iJ9kL1mN3oP5qR7", "type": "custom",
                                  "custom": {"name": "sql", "input": "<SELECT * WHERE name = 'Ostrel'>"}}]


def test_a_custom_tool_calls_input_is_restored_as_text():
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "custom", "custom": {"name": "sql", "input": "WHERE name = 'Ostrel'"}}]}
    out = openai.map_response_texts({"choices": [{"index": 0, "message": message}]}, restore_ostrel, str.upper)
    assert out["choices"][0]["message"]["tool_calls"][0]["custom"] == {"name": "sql",
                                                                       "input": "WHERE name = 'Marie Dupont'"}


@pytest.mark.parametrize("body", [
    [], {"model": "m"}, {"messages": "hi"}, {"messages": ["hi"]}, {"messages": [{"role": "user", "content": 3}]},
    {"messages": [{"role": "user", "content": ["hi"]}]}, {"messages": [{"role": "user", "content": "x"}], "user": 1},
    {"messages": [{"role": "assistant", "tool_calls": [{"id": "x"}]}]},
])
def test_a_body_whose_text_cannot_be_accounted_for_is_refused(body):
    with pytest.raises(ShapeError):
        openai.map_request_texts(body, mark)


def test_a_response_has_its_text_and_arguments_rewritten_separately():
    out = openai.map_response_texts(COMPLETION, mark, lambda a: a.upper())
    message = out["choices"][0]["message"]
    assert (message["content"], message["reasoning_content"]) == ("<Je cherche.>", "<Il faut chercher.>")
    assert message["tool_calls"][0]["function"]["arguments"] == '{"QUERY": "X"}'
    assert out["usage"] == COMPLETION["usage"]


def restore_ostrel(text: str) -> str:
    return text.replace("Ostrel", "Marie Dupont")


def url_citation(start: int, end: int, title: str) -> dict[str, object]:
    return {"type": "url_citation", "url_citation": {"start_index": start, "end_index": end, "title": title,
                                                     "url": "https://ostrel.example/"}}


def test_a_url_citation_has_its_title_rewritten_and_still_marks_the_same_words():
    content = "Selon Ostrel, voir Ostrel ici."
    start = content.index("voir")
    message = {"role": "assistant", "content": content,
               "annotations": [url_citation(start, len(content), "Ostrel"), {"type": "other", "n": 1}]}
    out = openai.map_response_texts({"choices": [{"index": 0, "message": message}]}, restore_ostrel, str.upper)
    restored = out["choices"][0]["message"]
    cited = restored["annotations"][0]["url_citation"]
    assert restored["content"][cited["start_index"]:cited["end_index"]] == "voir Marie Dupont ici."
    assert (cited["title"], cited["url"]) == ("Marie Dupont", "https://ostrel.example/")
    assert restored["annotations"][1] == {"type": "other", "n": 1}


def test_a_reply_has_its_spoken_transcript_and_readable_reasoning_details_restored():
    message = {"role": "assistant", "content": None,
               "audio": {"id": "audio_6744f6a1b2c48190a1d2e3f4", "data": "UklGRg==", "transcript": "Ostrel"},
               "reasoning_details": [{"type": "reasoning.text", "text": "Ostrel"},
                                     {"type": "reasoning.summary", "summary": "Ostrel"},
                                     {"type": "reasoning.encrypted", "data": "Ostrel"}]}
    out = openai.map_response_texts({"choices": [{"index": 0, "message": message}]}, restore_ostrel, str.upper)
    restored = out["choices"][0]["message"]
    assert restored["audio"] == {**message["audio"], "transcript": "Marie Dupont"}
    assert restored["reasoning_details"] == [{"type": "reasoning.text", "text": "Marie Dupont"},
                                             {"type": "reasoning.summary", "summary": "Marie Dupont"},
                                             {"type": "reasoning.encrypted", "data": "Ostrel"}]


def test_the_end_of_the_reasoning_held_back_comes_before_the_answer_not_after_it():
    rewriter = openai.StreamRewriter(holding(restore_ostrel), holding(restore_ostrel))
    items = rewrite_all(rewriter, [chunk({"reasoning_content": "Pour Ostrel"}), chunk({"content": "Oui."}),
                                   chunk({}, "stop"), "data: [DONE]\n\n"])
    events = [i for i in items if isinstance(i, SSEEvent) and i.data != "[DONE]"]
    deltas = [json.loads(i.data)["choices"][0]["delta"] for i in events]
    said = [(key, d[key]) for d in deltas for key in ("reasoning_content", "content") if d.get(key)]
    assert said == [("reasoning_content", "Pour Marie Dupont"), ("content", "Oui.")]


def test_a_streamed_url_citation_counts_in_the_restored_text():
    said = "Selon Ostrel, voir Ostrel ici."
    start = said.index("voir")
    items = rewrite_all(openai.StreamRewriter(holding(restore_ostrel), holding(restore_ostrel)), [
        chunk({"content": said[:9]}), chunk({"content": said[9:]}),
        chunk({"annotations": [url_citation(start, len(said), "Ostrel")]}), chunk({}, "stop"), "data: [DONE]\n\n"])
    events = [i for i in items if isinstance(i, SSEEvent) and i.data != "[DONE]"]
    deltas = [json.loads(i.data)["choices"][0]["delta"] for i in events]
    text = "".join(d.get("content", "") for d in deltas)
    [cited] = [d["annotations"][0]["url_citation"] for d in deltas if "annotations" in d]
    assert text[cited["start_index"]:cited["end_index"]] == "voir Marie Dupont ici."
    assert cited["title"] == "Marie Dupont"


def rewrite_all(rewriter: openai.StreamRewriter, stream: list[str]) -> list[object]:
    parser = SSEParser(comments=True)
    out = [item for piece in stream for raw in parser.feed(piece) for item in rewriter.rewrite(raw)]
    out += [item for raw in parser.close() for item in rewriter.rewrite(raw)]
    return out + rewriter.finish()


def reassembled(items: list[object]) -> list[object]:
    return decode(*[f"data: {i.data}\n\n" for i in items if isinstance(i, SSEEvent)])


def test_a_stream_rewritten_without_change_decodes_the_same():
    items = rewrite_all(openai.StreamRewriter(PassThrough, PassThrough), TOOL_STREAM)
    assert reassembled(items) == decode(*TOOL_STREAM)


def test_held_back_text_and_arguments_are_released_in_the_finishing_chunk():
    rewriter = openai.StreamRewriter(Holding, Holding)
    items = rewrite_all(rewriter, TOOL_STREAM)
    events = reassembled(items)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Je cherche."
    calls = ToolCallAccumulator()
    for event in events:
        if isinstance(event, ToolCallDelta):
            calls.add(event)
    assert calls.calls() == decode_calls(TOOL_STREAM)
    finishing = json.loads(next(i.data for i in items if isinstance(i, SSEEvent) and '"tool_calls"}' in i.data))
    assert finishing["choices"][0]["delta"]["content"] == "Je cherche."
    assert rewriter.complete


def decode_calls(stream: list[str]) -> tuple[ToolCall, ...]:
    calls = ToolCallAccumulator()
    for event in decode(*stream):
        if isinstance(event, ToolCallDelta):
            calls.add(event)
    return calls.calls()


def test_a_cut_stream_releases_what_was_held_in_an_extra_chunk():
    rewriter = openai.StreamRewriter(Holding, Holding)
    items = rewrite_all(rewriter, [chunk({"content": "Bonjour "}), chunk({"content": "Marie"})])
    assert not rewriter.complete
    last = json.loads(items[-1].data)
    assert last["choices"] == [{"index": 0, "delta": {"content": "Bonjour Marie"}, "finish_reason": None}]


def test_comments_pass_malformed_events_are_dropped_and_noted():
    rewriter = openai.StreamRewriter(PassThrough, PassThrough)
    items = rewrite_all(rewriter, [": keep-alive\n\n", "data: {oops\n\n", "junk\n", chunk({"content": "a"}, "stop"),
                                   "data: [DONE]\n\n"])
    assert items[0] == SSEComment("keep-alive")
    assert [i.data for i in items if isinstance(i, SSEEvent)][-1] == "[DONE]"
    assert len(rewriter.problems) == 2
    assert not any(isinstance(i, SSEProblem) for i in items)


def test_a_client_facing_error_is_in_openai_shape():
    assert openai.error_body("redaction_error", "nothing sent") == {
        "error": {"message": "nothing sent", "type": "redaction_error", "code": "redaction_error"}}
    assert json.loads(openai.error_event("truncated", "cut").data)["error"]["type"] == "truncated"
