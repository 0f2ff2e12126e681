"""Context window trimming: when a request nears the model's limit, the oldest history turns are
dropped, judged by a cheap token estimate (characters / 4) that needs no tokenizer."""

from __future__ import annotations

from collections.abc import Sequence

from .codecs import Message

CHARS_PER_TOKEN = 4  # the usual rule of thumb for Latin-script text with BPE tokenizers
MESSAGE_OVERHEAD_TOKENS = 4  # role markers and separators each message costs on the wire
DEFAULT_REPLY_RESERVE = 1024  # tokens left free for the answer when the caller gives no max_tokens


def estimate_tokens(text: str) -> int:
    """ceil(chars / 4): deliberately pessimistic for short texts."""
    return -(-len(text) // CHARS_PER_TOKEN)


def message_tokens(message: Message) -> int:
    calls = sum(estimate_tokens(c.name) + estimate_tokens(c.arguments) for c in message.tool_calls)
    return sum(estimate_tokens(text) for text in message.texts) + calls + MESSAGE_OVERHEAD_TOKENS


def trim_history(
    system: str,
    history: Sequence[Message],
    current: Sequence[Message],
    *,
    limit_tokens: int | None,
    reserve_tokens: int = DEFAULT_REPLY_RESERVE,
) -> tuple[list[Message], int]:
    """The history that fits with `system` and the `current` messages (never dropped) in
    `limit_tokens - reserve_tokens`, oldest turns dropped first; returns it and how many were
    dropped. A trimmed history that no longer starts with a user turn loses its leading replies
    too (a tool result or a reply without its question confuses the model, some providers reject it)."""
    kept = list(history)
    if limit_tokens is None:
        return kept, 0
    budget = limit_tokens - reserve_tokens - estimate_tokens(system) - sum(message_tokens(m) for m in current)
    total = sum(message_tokens(m) for m in kept)
    dropped = 0
    while kept and total > budget:
        total -= message_tokens(kept.pop(0))
        dropped += 1
    while dropped and kept and kept[0].role != "user":
        kept.pop(0)
        dropped += 1
    return kept, dropped
