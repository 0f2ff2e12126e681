"""Neutral records and provider presets: messages are validated, streamed tool calls assemble,
and each preset points at its server's OpenAI- or Anthropic-compatible base URL."""

from __future__ import annotations

import pytest

from openmasq.chat.codecs import (
    PRESETS,
    ChatRequest,
    Message,
    ToolCall,
    ToolCallAccumulator,
    ToolCallDelta,
    anthropic,
    openai,
    preset,
)
from openmasq.chat.codecs.models import HttpRequest, join_url


@pytest.mark.parametrize(("name", "base_url", "api"), [
    ("openai", "https://api.openai.com/v1", "openai"),
    ("anthropic", "https://api.anthropic.com/v1", "anthropic"),
    ("ollama", "http://127.0.0.1:11434/v1", "openai"),
    ("lmstudio", "http://127.0.0.1:1234/v1", "openai"),
    ("llamacpp", "http://127.0.0.1:8080/v1", "openai"),
    ("vllm", "http://127.0.0.1:8000/v1", "openai"),
    ("openrouter", "https://openrouter.ai/api/v1", "openai"),
    ("mistral", "https://api.mistral.ai/v1", "openai"),
    ("groq", "https://api.groq.com/openai/v1", "openai"),
])
def test_presets_name_their_base_url_and_api(name, base_url, api):
    assert (preset(name).base_url, preset(name).api) == (base_url, api)


def test_local_servers_need_no_key_and_clouds_do():
    assert {p.name for p in PRESETS.values() if not p.needs_key} == {"ollama", "lmstudio", "llamacpp", "vllm"}


def test_an_unknown_preset_lists_the_known_ones():
    with pytest.raises(KeyError, match="ollama"):
        preset("nope")


def test_preset_names_are_case_insensitive():
    assert preset("Ollama") is PRESETS["ollama"]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_builds_a_chat_request_at_its_path(name):
    p = preset(name)
    request = ChatRequest("m", (Message("user", "hi"),))
    if p.api == "openai":
        built = openai.build_request(request, p.base_url, "k", max_tokens_field=p.max_tokens_field,
                                     stream_usage=p.stream_usage)
        assert built.url == p.base_url + "/chat/completions"
    else:
        built = anthropic.build_request(request, p.base_url, "k")
        assert built.url == p.base_url + "/messages"


@pytest.mark.parametrize(("base", "path", "url"), [
    ("http://h/v1", "models", "http://h/v1/models"),
    ("http://h/v1/", "/models", "http://h/v1/models"),
    ("http://h/api/v1//", "chat/completions", "http://h/api/v1/chat/completions"),
])
def test_join_url_puts_exactly_one_slash(base, path, url):
    assert join_url(base, path) == url


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"role": "system", "content": "x"}, "system is separate"),
    ({"role": "tool", "content": "x"}, "tool_call_id"),
    ({"role": "user", "content": "x", "tool_calls": (ToolCall("1", "f", "{}"),)}, "only an assistant"),
])
def test_invalid_messages_are_refused(kwargs, error):
    with pytest.raises(ValueError, match=error):
        Message(**kwargs)


@pytest.mark.parametrize(("arguments", "parsed"), [
    ('{"a": 1}', {"a": 1}), ("", {}), ("  ", {}), ("[1]", None), ("{bad", None), ('"text"', None),
])
def test_tool_call_arguments_parse_only_to_objects(arguments, parsed):
    assert ToolCall("1", "f", arguments).parsed_arguments() == parsed


def test_tool_call_deltas_assemble_by_index_whatever_their_order():
    calls = ToolCallAccumulator()
    for delta in [ToolCallDelta(1, "b", "second", '{"x"'), ToolCallDelta(0, "a", "first", "{}"),
                  ToolCallDelta(1, arguments_fragment=": 2}"), ToolCallDelta(1, name="second")]:
        calls.add(delta)
    assert calls.calls() == (ToolCall("a", "first", "{}"), ToolCall("b", "second", '{"x": 2}'))


def test_a_tool_call_without_an_id_gets_one():
    calls = ToolCallAccumulator()
    calls.add(ToolCallDelta(0, name="f", arguments_fragment="{}"))
    assert calls.calls()[0].id == "call_0"


def test_an_http_request_serialises_its_body_as_utf8_json():
    request = HttpRequest("POST", "http://h", (("Content-Type", "application/json"),), {"text": "Lefèvre"})
    assert request.content() == '{"text":"Lefèvre"}'.encode()
    assert request.header("content-type") == "application/json"
    assert HttpRequest("GET", "http://h", ()).content() == b""
