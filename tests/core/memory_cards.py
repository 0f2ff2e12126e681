"""Small builders of memory cards and stores shared by the memory tests."""

from __future__ import annotations

from openmasq.memory.model import Card, Category, MemorySettings, MemoryStore, ProposedInjection, Sentence, Status

T0 = 1_750_000_000_000  # 2025-06-15 15:06:40 UTC


def card(
    card_id: str,
    entity: str,
    category: Category = "organisation",
    facts: str = "",
    *,
    aliases: tuple[str, ...] = (),
    status: Status = "confirmed",
    scope: str | None = None,
    at: int = T0,
) -> Card:
    """A card with at most one sentence, noted at `at`."""
    sentences = [Sentence(facts, at)] if facts else []
    return Card(
        id=card_id, entity=entity, category=category, sentences=sentences, aliases=list(aliases),
        status=status, scope=scope, created_at=at, updated_at=at,
    )


def store(*cards: Card, profile: str = "", policy: ProposedInjection = "mention") -> MemoryStore:
    return MemoryStore(profile=profile, cards=list(cards), settings=MemorySettings(proposed_injection=policy))
