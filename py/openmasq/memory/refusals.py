"""Refusals (tombstones): what the user deleted or rejected, keyed by value, so silent extraction
never writes it back; an explicit ask, or the user, lifts them."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from ..redact import lexicon
from .compaction import TEXT_CACHE, normalise_fast, restates
from .dedupe import surface_keys
from .journal import JournalOrigin, record
from .model import Card, MemoryStore, Refusal


@lru_cache(maxsize=TEXT_CACHE)
def org_core(key: str) -> str:
    """A normalised name without legal forms and company descriptors ("atelier torbel sarl" ->
    "atelier torbel"); "" when too short to identify anything."""
    core = normalise_fast(lexicon.strip_org_affixes(key))
    return core if len(core) >= 3 else ""


def card_refusal(card: Card, *, now: int, reason: str) -> Refusal | None:
    """The entity-level refusal of a deleted or rejected card (all its keys)."""
    keys = surface_keys(card)
    if not keys:
        return None
    return Refusal(entity_key=keys[0], fact_key=None, created_at=now, reason=reason,
                   surfaces=tuple(keys[1:]), label=card.entity)


def fact_refusal(card: Card, sentence_text: str, *, now: int) -> Refusal | None:
    """The refusal of one sentence the user removed from a card."""
    keys = surface_keys(card)
    fact_key = normalise_fast(sentence_text)
    if not keys or not fact_key:
        return None
    return Refusal(entity_key=keys[0], fact_key=fact_key, created_at=now, reason="deleted",
                   surfaces=tuple(keys[1:]), label=sentence_text.strip())


def _refusal_keys(refusal: Refusal) -> tuple[str, ...]:
    return (refusal.entity_key, *refusal.surfaces)


def _names_match(refusal: Refusal, keys: Iterable[str]) -> bool:
    """A refused entity is named again by the same key, or by the same organisation core
    ("Karl Studio SARL" is "Karl Studio")."""
    refused = _refusal_keys(refusal)
    wanted = [key for key in keys if key]
    if any(key in refused for key in wanted):
        return True
    refused_cores = {org_core(key) for key in refused} - {""}
    return any(org_core(key) in refused_cores for key in wanted)


def _fact_matches(refusal: Refusal, fact: str) -> bool:
    """Same sentence, or a restatement of it (extraction rephrases what it re-reads)."""
    assert refusal.fact_key is not None
    norm = normalise_fast(fact)
    return norm == refusal.fact_key or restates(refusal.fact_key, norm)


def entity_refusals(store: MemoryStore, keys: Iterable[str]) -> list[Refusal]:
    """The entity-level refusals that name any of these normalised keys."""
    wanted = list(keys)
    return [r for r in store.refusals if r.fact_key is None and _names_match(r, wanted)]


def fact_refusals(store: MemoryStore, keys: Iterable[str], fact: str) -> list[Refusal]:
    """The single-fact refusals of this entity (any of its keys) that this fact repeats."""
    wanted = list(keys)
    return [
        r for r in store.refusals
        if r.fact_key is not None and _names_match(r, wanted) and _fact_matches(r, fact)
    ]


def is_entity_refused(store: MemoryStore, entity: str) -> bool:
    return bool(entity_refusals(store, [normalise_fast(entity)]))


def _same_refusal(a: Refusal, b: Refusal) -> bool:
    return a.entity_key == b.entity_key and a.fact_key == b.fact_key


def add_refusal(store: MemoryStore, refusal: Refusal, *, now: int, origin: JournalOrigin) -> bool:
    """Record a refusal (one per entity or per entity and fact: a repeat refreshes it)."""
    existing = [r for r in store.refusals if _same_refusal(r, refusal)]
    store.refusals = [r for r in store.refusals if not _same_refusal(r, refusal)]
    store.refusals.insert(0, refusal)
    if not existing:
        record(store, at=now, action="refuse", origin=origin, before=None,
               after=refusal.label or refusal.entity_key, detail=_describe(refusal))
    return not existing


def remove_refusals(store: MemoryStore, refusals: Iterable[Refusal], *, now: int, origin: JournalOrigin,
                    detail: str | None = None) -> list[Refusal]:
    """Lift these refusals (journaled one by one). Returns those that were present."""
    targets = list(refusals)
    lifted = [r for r in store.refusals if any(_same_refusal(r, t) for t in targets)]
    if not lifted:
        return []
    store.refusals = [r for r in store.refusals if not any(_same_refusal(r, t) for t in lifted)]
    for refusal in lifted:
        record(store, at=now, action="lift", origin=origin, before=refusal.label or refusal.entity_key,
               after=None, detail=detail or _describe(refusal))
    return lifted


def lift_for_card(store: MemoryStore, card: Card, *, now: int, origin: JournalOrigin) -> list[Refusal]:
    """Lift the entity-level refusals naming this card (it is wanted again)."""
    return remove_refusals(store, entity_refusals(store, surface_keys(card)), now=now, origin=origin)


def list_refusals(store: MemoryStore) -> list[Refusal]:
    """Most recent first."""
    return sorted(store.refusals, key=lambda r: -r.created_at)


def _describe(refusal: Refusal) -> str:
    kind = "fait" if refusal.fact_key is not None else "entité"
    return f"{kind} · {refusal.reason} · {refusal.entity_key}"
