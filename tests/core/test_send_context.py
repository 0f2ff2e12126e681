"""Context window trimming by a chars/4 token estimate: oldest turns go first, never the current."""

from __future__ import annotations

import pytest

from openmasq.chat.codecs import Message
from openmasq.chat.context import MESSAGE_OVERHEAD_TOKENS, estimate_tokens, trim_history


@pytest.mark.parametrize("text, tokens", [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("x" * 400, 100)])
def test_tokens_are_estimated_as_characters_over_four_rounded_up(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def turns(n: int) -> list[Message]:
    return [Message("user" if i % 2 == 0 else "assistant", f"{i}:" + "x" * 98) for i in range(n)]


def test_without_a_limit_nothing_is_dropped() -> None:
    assert trim_history("", turns(6), [Message("user", "now")], limit_tokens=None) == (turns(6), 0)


def test_the_oldest_turns_go_first_until_it_fits() -> None:
    per = estimate_tokens("0:" + "x" * 98) + MESSAGE_OVERHEAD_TOKENS  # 29
    kept, dropped = trim_history("", turns(6), [], limit_tokens=4 * per + 10, reserve_tokens=10)
    assert dropped == 2 and kept == turns(6)[2:]


def test_a_trimmed_history_starts_with_a_user_turn() -> None:
    per = estimate_tokens("0:" + "x" * 98) + MESSAGE_OVERHEAD_TOKENS
    kept, dropped = trim_history("", turns(6), [], limit_tokens=3 * per, reserve_tokens=0)
    assert dropped == 4 and kept[0].role == "user" and kept == turns(6)[4:]


def test_an_untrimmed_history_may_open_with_a_reply() -> None:
    history = [Message("assistant", "Bonjour !"), Message("user", "Salut")]
    assert trim_history("", history, [], limit_tokens=10_000) == (history, 0)


def test_the_system_text_and_the_current_message_count_against_the_limit() -> None:
    kept, dropped = trim_history("s" * 400, turns(2), [Message("user", "c" * 400)], limit_tokens=230,
                                 reserve_tokens=0)
    assert dropped == 2 and kept == []
