"""Where each card was used (reference 6.9): distinct conversations that injected it, the
latest injection, and the latest diagnostic when it is newer than that injection."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

PROFILE_SENTINEL = "profile"


class SkipLike(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def reason(self) -> str: ...


class MessageLike(Protocol):
    """What usage reads of a message: when it was sent and the memory it used or skipped."""

    @property
    def at(self) -> int | None: ...

    @property
    def memory_used(self) -> Sequence[str] | None: ...

    @property
    def memory_skipped(self) -> Sequence[SkipLike] | None: ...


class ConversationLike(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def updated_at(self) -> int: ...

    @property
    def messages(self) -> Sequence[MessageLike]: ...


@dataclass(frozen=True)
class LastSkip:
    reason: str
    at: int


@dataclass(frozen=True)
class CardUsage:
    conv_count: int  # distinct conversations that injected the card
    last_at: int  # latest injection (ms), 0 when never injected
    last_skip: LastSkip | None = None  # only when newer than the latest injection


def usage_index(conversations: Iterable[ConversationLike]) -> dict[str, CardUsage]:
    """card id -> its usage across conversations. A message without a time counts at its
    conversation's `updated_at`; the "profile" sentinel is not a card."""
    convs: dict[str, set[str]] = {}
    last_used: dict[str, int] = {}
    last_skip: dict[str, LastSkip] = {}
    for conversation in conversations:
        for message in conversation.messages:
            at = conversation.updated_at if message.at is None else message.at
            for card_id in message.memory_used or ():
                if card_id == PROFILE_SENTINEL:
                    continue
                convs.setdefault(card_id, set()).add(conversation.id)
                last_used[card_id] = max(at, last_used.get(card_id, at))
            for skip in message.memory_skipped or ():
                known = last_skip.get(skip.id)
                if known is None or at >= known.at:
                    last_skip[skip.id] = LastSkip(skip.reason, at)
    out = {card_id: CardUsage(len(ids), last_used[card_id]) for card_id, ids in convs.items()}
    for card_id, latest in last_skip.items():
        usage = out.get(card_id, CardUsage(0, 0))
        if latest.at > usage.last_at:
            out[card_id] = CardUsage(usage.conv_count, usage.last_at, latest)
    return out
