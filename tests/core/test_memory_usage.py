"""The usage index: where and when each card was injected, and its latest newer diagnostic
(reference 6.9, 11.10)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from openmasq.memory.select import Skip
from openmasq.memory.usage import CardUsage, LastSkip, usage_index


@dataclass
class Message:
    at: int | None = None
    memory_used: Sequence[str] | None = None
    memory_skipped: Sequence[Skip] | None = None


@dataclass
class Conversation:
    id: str
    updated_at: int = 0
    messages: list[Message] = field(default_factory=list)


def test_distinct_conversations_are_counted_with_the_latest_injection():
    conversations = [
        Conversation("c1", 50, [Message(10, ["a"]), Message(30, ["a", "b"])]),
        Conversation("c2", 60, [Message(20, ["a"])]),
    ]
    usage = usage_index(conversations)
    assert usage["a"] == CardUsage(2, 30)
    assert usage["b"] == CardUsage(1, 30)


def test_the_profile_sentinel_is_never_counted():
    assert usage_index([Conversation("c1", 5, [Message(1, ["profile"])])]) == {}


def test_a_newer_skip_is_surfaced_and_an_older_one_is_superseded():
    conversations = [
        Conversation("c1", 0, [Message(10, memory_skipped=[Skip("a", "budget")]), Message(20, ["a"])]),
        Conversation("c2", 0, [Message(30, memory_skipped=[Skip("b", "budget")]), Message(40, ["b"])]),
        Conversation("c3", 0, [Message(50, memory_skipped=[Skip("b", "homograph")])]),
    ]
    usage = usage_index(conversations)
    assert usage["a"] == CardUsage(1, 20)  # the skip at 10 is older than the injection at 20
    assert usage["b"] == CardUsage(1, 40, LastSkip("homograph", 50))


def test_a_never_injected_card_with_a_skip_gets_an_entry():
    usage = usage_index([Conversation("c1", 0, [Message(7, memory_skipped=[Skip("x", "out-of-scope")])])])
    assert usage == {"x": CardUsage(0, 0, LastSkip("out-of-scope", 7))}


def test_a_message_without_a_time_counts_at_its_conversation_update():
    usage = usage_index([Conversation("c1", 99, [Message(None, ["a"])])])
    assert usage["a"] == CardUsage(1, 99)
