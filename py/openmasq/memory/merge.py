"""Merging a resolved extraction into the store (reference 3.9, fixed): exact key within the
category, then organisation core; restatements are no update; refusals hold against silent
extraction; a space's extraction stays in that space."""

from __future__ import annotations

from dataclasses import dataclass, field

from .compaction import FactMerge, apply_fact, facts_text, normalise_fast, sentences_from_text
from .dedupe import contains_text, surface_keys
from .journal import Action, record
from .model import (
    MAX_ALIASES,
    MAX_NAME_CHARS,
    Card,
    Category,
    Evidence,
    MemoryStore,
    Origin,
    ResolvedExtraction,
    ResolvedFact,
    Sentence,
)
from .profile import append_to_profile
from .refusals import entity_refusals, fact_refusals, org_core, remove_refusals


@dataclass
class MergeOutcome:
    created_ids: list[str] = field(default_factory=list)
    updated_ids: list[str] = field(default_factory=list)
    profile_changed: bool = False
    refused: list[str] = field(default_factory=list)  # entities (or "entity: fact") skipped by a refusal
    lifted: list[str] = field(default_factory=list)  # refusals an explicit ask lifted


def visible_in(card: Card, scope: str | None) -> bool:
    """Extraction in a space reads and writes that space's cards and the global ones; global
    extraction only global cards. Another space's cards are invisible."""
    return card.scope is None or card.scope == scope


class _Index:
    """The cards an extraction may merge into, by (category, key) and (category, org core), the
    space's own cards before global ones; kept current as cards are created."""

    def __init__(self, cards: list[Card], scope: str | None) -> None:
        self.by_key: dict[tuple[Category, str], Card] = {}
        self.by_core: dict[tuple[Category, str], Card] = {}
        visible = [c for c in cards if visible_in(c, scope)]
        own = [c for c in visible if c.scope is not None]
        for card in [*own, *[c for c in visible if c.scope is None]]:
            self.add(card)

    def add(self, card: Card) -> None:
        for key in surface_keys(card):
            self.by_key.setdefault((card.category, key), card)
            core = org_core(key)
            if core:
                self.by_core.setdefault((card.category, core), card)

    def find(self, entity: str, category: Category) -> Card | None:
        """Exact key within the category (reference 12 item 13: the reference ignored the
        category here), else the same organisation core within the category."""
        key = normalise_fast(entity)
        found = self.by_key.get((category, key))
        if found is not None:
            return found
        core = org_core(key)
        return self.by_core.get((category, core)) if core else None


def _add_alias(card: Card, surface: str | None) -> bool:
    """A new surface joins the aliases unless it is already a key or the card has 6."""
    value = (surface or "").strip()[:MAX_NAME_CHARS]
    key = normalise_fast(value)
    if not key or key in surface_keys(card) or len(card.aliases) >= MAX_ALIASES:
        return False
    card.aliases.append(value)
    return True


def _note_already_known(store: MemoryStore, visible: list[Card], fact: str) -> bool:
    """An invented note title differs every run: a note whose fact is already said anywhere (the
    profile or any visible card) is a repeat."""
    norm = normalise_fast(fact)
    return any(contains_text(normalise_fast(text), norm) for text in [store.profile, *(c.facts for c in visible)])


class _Run:
    def __init__(self, store: MemoryStore, *, now: int, origin: Origin, evidence: Evidence | None,
                 scope: str | None) -> None:
        self.store = store
        self.now = now
        self.origin = origin
        self.evidence = evidence
        self.scope = scope
        self.index = _Index(store.cards, scope)
        self.outcome = MergeOutcome()

    @property
    def silent(self) -> bool:
        return self.origin == "auto-silent"

    def sentence(self, text: str) -> Sentence:
        return Sentence(text, self.now, self.origin, self.evidence)

    def refused(self, fact: ResolvedFact, card: Card | None) -> bool:
        """Silent extraction skips a refused entity or fact; an explicit ask lifts the refusal
        (journaled) and goes on."""
        keys = [normalise_fast(fact.entity), *(surface_keys(card) if card is not None else [])]
        hits = entity_refusals(self.store, keys) + fact_refusals(self.store, keys, fact.fact)
        if not hits:
            return False
        if self.silent:
            self.outcome.refused.append(fact.entity)
            return True
        for refusal in remove_refusals(self.store, hits, now=self.now, origin=self.origin,
                                       detail="demande explicite de retenir"):
            self.outcome.lifted.append(refusal.label or refusal.entity_key)
        return False

    def merge(self, fact: ResolvedFact) -> None:
        entity = fact.entity.strip()[:MAX_NAME_CHARS]
        text = fact.fact.strip()
        if not normalise_fast(entity) or not text:
            return
        card = self.index.find(entity, fact.category)
        if self.refused(fact, card):
            return
        if card is None:
            self.create(fact, entity, text)
        else:
            self.update(card, fact, entity, text)

    def create(self, fact: ResolvedFact, entity: str, text: str) -> None:
        visible = [c for c in self.store.cards if visible_in(c, self.scope)]
        if fact.note and _note_already_known(self.store, visible, text):
            return
        card_id = fact.id
        taken = {c.id for c in self.store.cards}
        while card_id in taken:  # a pre-minted id reused by a replayed run: keep ids unique
            card_id += "-bis"
        card = Card(
            id=card_id, entity=entity, category=fact.category,
            sentences=sentences_from_text(text, noted_at=self.now, origin=self.origin, evidence=self.evidence),
            status="proposed", scope=self.scope, source="auto", created_at=self.now, updated_at=self.now,
        )
        _add_alias(card, fact.alias)
        self.store.cards.insert(0, card)
        self.index.add(card)
        self.outcome.created_ids.append(card.id)
        record(self.store, at=self.now, action="create", origin=self.origin, card=card, before=None,
               after=card.facts, detail=self._evidence_detail())

    def update(self, card: Card, fact: ResolvedFact, entity: str, text: str) -> None:
        before = card.facts
        merged: FactMerge | None = None
        if not contains_text(normalise_fast(before), normalise_fast(text)):
            merged = apply_fact(card, self.sentence(text), now=self.now)
        aliased = _add_alias(card, fact.alias)
        aliased = _add_alias(card, entity) or aliased
        reopened = card.status == "rejected"  # only an explicit ask gets here: the user wants it back
        if not (merged is not None and merged.changed) and not aliased and not reopened:
            return  # a known fact or a restatement keeping the richer wording: no update
        if reopened:
            card.status = "proposed"
        card.updated_at = self.now
        self.index.add(card)
        if card.id not in self.outcome.updated_ids and card.id not in self.outcome.created_ids:
            self.outcome.updated_ids.append(card.id)
        action: Action = "edit"  # only a new alias
        if merged is not None and merged.changed:
            action = "replace" if any(s.reason == "replaced" for s in merged.superseded) else "add"
        record(self.store, at=self.now, action=action, origin=self.origin, card=card, before=before,
               after=facts_text(card.sentences), detail=self._evidence_detail())

    def _evidence_detail(self) -> str | None:
        if self.evidence is None:
            return None
        messages = ",".join(self.evidence.message_ids)
        return f"conversation {self.evidence.conversation_id}" + (f" · messages {messages}" if messages else "")

    def profile(self, addition: str | None) -> None:
        if not addition or not addition.strip():
            return
        before = self.store.profile
        after = append_to_profile(before, [addition])
        if after != before:
            self.store.profile = after
            self.outcome.profile_changed = True
            record(self.store, at=self.now, action="profile", origin=self.origin, before=before, after=after,
                   detail=self._evidence_detail())


def merge_extraction(store: MemoryStore, resolved: ResolvedExtraction, *, now: int, origin: Origin,
                     evidence: Evidence | None = None, scope: str | None = None) -> MergeOutcome:
    """Merge extracted facts into the store in place (reference 3.9 with section 12 items 4, 13
    and 13a fixed). New cards are `proposed`, machine-written, in the conversation's `scope`; a
    fact joins a card of that scope (preferred) or a global one, never another space's. Silent
    extraction (`origin="auto-silent"`) skips refused entities and facts; an explicit ask lifts
    the refusal. The profile grows append-only, clamped to 1,200 characters."""
    run = _Run(store, now=now, origin=origin, evidence=evidence, scope=scope)
    for fact in resolved.facts:
        run.merge(fact)
    run.profile(resolved.profile)
    return run.outcome
