"""Reasoning through the proxy: OpenAI-compatible `reasoning_content` / `reasoning` fields and
Anthropic `thinking` blocks come back restored, streamed (a fake split across events included)
or whole, and stay apart from the answer text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_proxy import anthropic_body, assert_only_fakes_went_upstream, chat, fake_name, openai_body, stream, text_of
from test_proxy_upstream import SSE_HEADERS, Received, Reply, RunningProxy, ScriptedUpstream, json_reply, sse

from openmasq.chat.codecs import ReasoningDelta

ANSWER = "C'est noté."


def thought(fake: str) -> str:
    return f"L'utilisateur veut écrire à {fake} ; je réponds court."


RESTORED_THOUGHT = thought("Marie Dupont")


@pytest.fixture
def upstream() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream() as up:
        yield up


@pytest.fixture
def proxy(upstream: ScriptedUpstream) -> Iterator[RunningProxy]:
    with RunningProxy(upstream.base_url) as running:
        yield running


def split(text: str, size: int = 4) -> list[str]:
    """Pieces of `size` characters: the fake always straddles several events."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def reasoning_of(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, ReasoningDelta))


# --- OpenAI-compatible servers (vLLM, DeepSeek, llama.cpp: reasoning_content; Ollama, OpenRouter: reasoning) ---


def openai_chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    return sse({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "scripted",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def openai_reasoning_stream(field: str, reasoning: str, answer: str) -> list[bytes]:
    return [openai_chunk({"role": "assistant", "content": ""}),
            *(openai_chunk({field: piece}) for piece in split(reasoning)),
            *(openai_chunk({"content": piece}) for piece in split(answer)),
            openai_chunk({}, "stop"), sse("[DONE]")]


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_an_openai_reasoning_stream_comes_back_restored_and_apart_from_the_answer(proxy, upstream, field):
    upstream.script = lambda r: Reply(chunks=openai_reasoning_stream(field, thought(fake_name(r)), ANSWER),
                                      headers=SSE_HEADERS)
    events = stream(proxy, openai_body())
    assert reasoning_of(events) == RESTORED_THOUGHT
    assert text_of(events) == ANSWER
    assert_only_fakes_went_upstream(upstream)


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_an_openai_reasoning_field_of_a_whole_answer_comes_back_restored(proxy, upstream, field):
    def script(received: Received) -> Reply:
        message = {"role": "assistant", "content": ANSWER, field: thought(fake_name(received))}
        return json_reply({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "scripted",
                           "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})

    upstream.script = script
    message = chat(proxy, openai_body()).json()["choices"][0]["message"]
    assert (message[field], message["content"]) == (RESTORED_THOUGHT, ANSWER)


def test_openai_reasoning_sent_back_in_the_history_is_redacted(proxy, upstream):
    history = {"role": "assistant", "content": ANSWER, "reasoning_content": RESTORED_THOUGHT}
    chat(proxy, openai_body({"role": "user", "content": "Écris à Marie Dupont (marie.dupont@karl-studio.fr)."},
                            history, {"role": "user", "content": "Merci."}))
    assert_only_fakes_went_upstream(upstream, ("Marie Dupont", "marie.dupont@karl-studio.fr"))


# --- Anthropic thinking blocks ----------------------------------------------------------------------


def anthropic_event(kind: str, **fields: Any) -> bytes:
    return sse({"type": kind, **fields}, kind)


def anthropic_thinking_stream(reasoning: str, answer: str) -> list[bytes]:
    start = {"id": "msg_1", "type": "message", "role": "assistant", "model": "scripted", "content": [],
             "usage": {"input_tokens": 10, "output_tokens": 1}}
    return [
        anthropic_event("message_start", message=start),
        anthropic_event("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
        *(anthropic_event("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": piece})
          for piece in split(reasoning)),
        anthropic_event("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "c2ln"}),
        anthropic_event("content_block_stop", index=0),
        anthropic_event("content_block_start", index=1, content_block={"type": "text", "text": ""}),
        *(anthropic_event("content_block_delta", index=1, delta={"type": "text_delta", "text": piece})
          for piece in split(answer)),
        anthropic_event("content_block_stop", index=1),
        anthropic_event("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 9}),
        anthropic_event("message_stop"),
    ]


def test_an_anthropic_thinking_stream_comes_back_restored_and_apart_from_the_answer(proxy, upstream):
    upstream.script = lambda r: Reply(chunks=anthropic_thinking_stream(thought(fake_name(r)), ANSWER),
                                      headers=SSE_HEADERS)
    events = stream(proxy, anthropic_body(), "messages")
    assert reasoning_of(events) == RESTORED_THOUGHT
    assert text_of(events) == ANSWER
    assert_only_fakes_went_upstream(upstream)


def test_an_anthropic_thinking_block_of_a_whole_answer_comes_back_restored_with_its_signature(proxy, upstream):
    def script(received: Received) -> Reply:
        content = [{"type": "thinking", "thinking": thought(fake_name(received)), "signature": "c2ln"},
                   {"type": "redacted_thinking", "data": "b3BhcXVl"},
                   {"type": "text", "text": ANSWER}]
        return json_reply({"id": "msg_1", "type": "message", "role": "assistant", "model": "scripted",
                           "content": content, "stop_reason": "end_turn",
                           "usage": {"input_tokens": 10, "output_tokens": 5}})

    upstream.script = script
    content = chat(proxy, anthropic_body(), "messages").json()["content"]
    assert content[0] == {"type": "thinking", "thinking": RESTORED_THOUGHT, "signature": "c2ln"}
    assert content[1] == {"type": "redacted_thinking", "data": "b3BhcXVl"}  # opaque: passed through as is
    assert content[2]["text"] == ANSWER
