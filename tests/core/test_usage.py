"""Usage (issue 18, item 6): the tokens a provider reports for a reply, as the codecs read them (OpenAI's
`usage` with include_usage, Anthropic's message_start and message_delta, Ollama's counts), kept per reply,
added up per conversation, and the estimated cost at the user's prices."""

from __future__ import annotations

import json
import os

import pytest

from openmasq.chat.codecs import Done, StreamEvent, TextDelta, ToolCallDelta, Usage
from openmasq.chat.codecs.anthropic import StreamDecoder as AnthropicStream
from openmasq.chat.codecs.openai import StreamDecoder as OpenAIStream
from openmasq.chat.codecs.openai import decode_response
from openmasq.chat.conversation import Conversation, Message
from openmasq.chat.drive import ReferenceDriver
from openmasq.chat.send import SendInput, send_flow
from openmasq.chat.usage import (
    Price,
    Tokens,
    conversation_spent,
    estimated_cost,
    price_for,
    prices_from,
    prices_to_list,
    reply_tokens,
)
from openmasq.memory.model import MemoryStore
from openmasq.memory.ops import create_card
from openmasq.redact import Vault

NOW = 1_767_225_600_000


def sse(*docs: dict[str, object]) -> str:
    return "".join(f"data: {json.dumps(d)}\n\n" for d in docs)


def anthropic_events() -> list[StreamEvent]:
    chunks = [
        {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 25, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Bonjour."}},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 15}},
        {"type": "message_stop"},
    ]
    decoder = AnthropicStream()
    return [*decoder.feed(sse(*chunks)), *decoder.close()]


def drive(conv: Conversation, calls: list[list[StreamEvent]], store: MemoryStore | None = None) -> Message:
    counter = iter(range(1, 100))
    flow = send_flow(SendInput(conv, "Que sais-tu de Claire Fontaine ?", store or MemoryStore(), "m", NOW,
                               lambda: f"m{next(counter)}"))
    outcome = ReferenceDriver(lambda _call: calls.pop(0)).run(flow)
    assert outcome is not None and outcome.reply is not None
    return outcome.reply


def conversation() -> Conversation:
    return Conversation("c1", Vault.new(os.urandom(32)))


def test_anthropics_output_count_is_the_last_message_delta_not_a_sum_with_message_start() -> None:
    reply = drive(conversation(), [anthropic_events()])
    assert reply.usage == {"input_tokens": 25, "output_tokens": 15}


def test_openai_usage_sent_with_include_usage_is_the_replys() -> None:
    decoder = OpenAIStream()
    usage = {"prompt_tokens": 12, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 8}}
    stream = sse({"choices": [{"delta": {"content": "Ok."}}]}, {"choices": [{"delta": {}, "finish_reason": "stop"}]},
                 {"choices": [], "usage": usage})
    events = [*decoder.feed(stream + "data: [DONE]\n\n"), *decoder.close()]
    assert drive(conversation(), [events]).usage == {"input_tokens": 12, "output_tokens": 3, "cache_read_tokens": 8}


def test_ollamas_own_counts_are_read_where_a_server_sends_them() -> None:
    decoder = OpenAIStream()
    events = decoder.feed(sse({"choices": [{"delta": {"content": "Ok."}, "finish_reason": "stop"}],
                               "prompt_eval_count": 31, "eval_count": 9}) + "data: [DONE]\n\n")
    assert Usage(31, 9) in events
    body = json.dumps({"choices": [{"message": {"content": "Ok."}, "finish_reason": "stop"}],
                       "prompt_eval_count": 7, "eval_count": 2})
    response = decode_response(200, {}, body)
    assert not isinstance(response, list) and getattr(response, "usage", None) == Usage(7, 2)


def test_the_model_calls_of_one_send_add_up() -> None:
    store = MemoryStore()
    create_card(store, card_id="k1", entity="Claire Fontaine", now=NOW, category="personne", facts="Designer.")
    first: list[StreamEvent] = [ToolCallDelta(0, "t1", "memory_search", '{"query": "x"}'), Usage(100, 10),
                                Done("tool_calls")]
    second: list[StreamEvent] = [TextDelta("Designer."), Usage(140, 4), Usage(140, 6), Done("stop")]
    reply = drive(conversation(), [first, second], store)
    assert reply.usage == {"input_tokens": 240, "output_tokens": 16}


def test_a_conversation_adds_its_replies_every_version_and_prices_each_by_its_model() -> None:
    conv = conversation()
    conv.messages = [Message("u1", "user", "a"), Message("a1", "assistant", "b", model="gpt-x",
                                                         usage={"input_tokens": 1_000, "output_tokens": 500}),
                     Message("u2", "user", "c"), Message("a2", "assistant", "d", model="local")]
    conv.branches = [Message("a0", "assistant", "e", model="other", parent="u1",
                             usage={"input_tokens": 2_000, "output_tokens": 100})]
    spent = conversation_spent(conv, {("", "gpt-x"): Price(2.5, 10.0)})
    assert spent.tokens == Tokens(3_000, 600, 0, 0, 2)
    assert spent.cost == pytest.approx((1_000 * 2.5 + 500 * 10.0) / 1_000_000) and spent.unpriced == 1
    assert reply_tokens(conv.messages[3]) is None  # the provider reported nothing: nothing is shown
    assert conversation_spent(conv, {}).cost is None


def test_a_cost_is_input_and_output_at_their_price_per_million() -> None:
    assert estimated_cost(Tokens(2_000_000, 1_000_000), Price(3.0, 15.0)) == pytest.approx(21.0)
    assert estimated_cost(Tokens(1, 1), None) is None


@pytest.mark.parametrize("bad", [{"m": {"input": -1, "output": 1}}, {"m": {"input": "1", "output": 1}},
                                 {"m": {"input": 1}}, {"m": {"input": True, "output": 1}}, "m",
                                 {"m": {"input": 1e9, "output": 1}},
                                 [{"model": "m", "provider": 3, "input": 1, "output": 1}],
                                 [{"model": "m", "input": 1, "output": 1}, {"model": "m", "input": 2, "output": 2}]])
def test_prices_that_are_not_prices_are_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        prices_from(bad)


def test_prices_keep_their_model_ids_trimmed() -> None:
    assert prices_from({" gpt-x ": {"input": 1, "output": 2.5}, "  ": {"input": 1, "output": 1}}) == {
        ("", "gpt-x"): Price(1.0, 2.5)}


def test_one_model_id_is_priced_per_provider_and_a_price_for_any_provider_fills_the_others() -> None:
    prices = prices_from([{"provider": "direct", "model": "llama-3", "input": 0.2, "output": 0.6},
                          {"provider": "gateway", "model": "llama-3", "input": 0.9, "output": 0.9},
                          {"model": "llama-3", "input": 0.5, "output": 0.5}])
    assert price_for(prices, "direct", "llama-3") == Price(0.2, 0.6)
    assert price_for(prices, "gateway", "llama-3") == Price(0.9, 0.9)
    assert price_for(prices, "elsewhere", "llama-3") == price_for(prices, None, "llama-3") == Price(0.5, 0.5)
    assert price_for(prices, "direct", "other") is None and price_for(prices, "direct", None) is None
    assert prices_from(prices_to_list(prices)) == prices


def test_a_conversations_replies_are_each_priced_at_the_provider_that_wrote_them() -> None:
    conv = conversation()
    conv.provider = "direct"  # where it answers now; an older reply without its provider is counted there
    counts = {"input_tokens": 1_000_000, "output_tokens": 0}
    conv.messages = [Message("a1", "assistant", "x", model="m", provider="gateway", usage=counts),
                     Message("a2", "assistant", "y", model="m", provider="direct", usage=counts),
                     Message("a3", "assistant", "z", model="m", usage=counts)]
    spent = conversation_spent(conv, {("gateway", "m"): Price(9.0, 0), ("direct", "m"): Price(1.0, 0)})
    assert spent.cost == pytest.approx(9.0 + 1.0 + 1.0) and spent.unpriced == 0
