"""Duplicates (reference 5): merge suggestions for the user, the card merge, and the self-healing
cleanup run on every memory change. Cards are indexed by key and token: no quadratic scans."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from .compaction import append_clamped, explode, facts_text, normalise_fast, push_history, recompact
from .journal import record
from .keys import card_tokens
from .model import MAX_ALIASES, MAX_HISTORY, MAX_PROFILE_CHARS, Card, MemoryStore, Sentence, Superseded
from .normalise import is_cjk_text
from .profile import append_to_profile, clamp_profile, dedupe_profile, is_self_preference

# Two cards whose embeddings are this close are the same thing said twice: two `autre` notes
# measured 0.945 when distinct and >= 0.96 when duplicates (reference 5.1, `DUPLICATE_MIN_SIM`).
DUPLICATE_MIN_SIM = 0.95
MAX_CLEAN_ROUNDS = 4  # merge, fold the survivors, merge again: a fixpoint comes in one or two

Edge = tuple[str, str, float]


def pair_key(a_id: str, b_id: str) -> str:
    """One key per unordered pair: the two ids sorted, joined by "+"."""
    return "+".join(sorted((a_id, b_id)))


def surface_keys(card: Card) -> list[str]:
    """`keys.card_keys` (normalised entity and aliases, in order, no empties or repeats), fast."""
    out: list[str] = []
    for surface in [card.entity, *card.aliases]:
        key = normalise_fast(surface)
        if key and key not in out:
            out.append(key)
    return out


def is_blank(card: Card) -> bool:
    return not card.facts.strip()


def contains_text(haystack_norm: str, needle_norm: str) -> bool:
    """A normalised text inside another, as whole words (a CJK text as a plain substring)."""
    if not needle_norm:
        return True
    if is_cjk_text(needle_norm):
        return needle_norm in haystack_norm
    return f" {needle_norm} " in f" {haystack_norm} "


def distinct_identities(a: Card, b: Card) -> bool:
    """Both cards name someone by distinctive tokens and share none ("François Rebsamen" vs "Marc
    Ferracci"): never the same entity, however similar their facts. A card without a distinctive
    token is an unknown identity, not a different one."""
    tokens_a, tokens_b = set(card_tokens(a)), set(card_tokens(b))
    return bool(tokens_a) and bool(tokens_b) and not (tokens_a & tokens_b)


def keep_and_drop(a: Card, b: Card) -> tuple[Card, Card]:
    """The card with the longer facts is kept; on a tie, the older one (then the first given)."""
    if len(b.facts) > len(a.facts) or (len(b.facts) == len(a.facts) and b.created_at < a.created_at):
        return b, a
    return a, b


# --- suggestions -------------------------------------------------------------------------------

@dataclass(frozen=True)
class MergeSuggestion:
    keep_id: str
    drop_id: str
    reason: Literal["surface", "semantic"]
    similarity: float | None = None

    @property
    def key(self) -> str:
        return pair_key(self.keep_id, self.drop_id)


Group = tuple[str | None, str]


def _suggestable(card: Card) -> bool:
    return card.status != "rejected" and not is_blank(card)


def _group(card: Card) -> Group:
    """Pairs only form within one scope and one category."""
    return card.scope, card.category


def _surface_pairs(cards: Sequence[Card]) -> list[tuple[Card, Card]]:
    """Pairs sharing a normalised key, or whose distinctive tokens are a subset of the other's
    ("Ninon" in "Ninon Verdolini"), found through key and token indexes (a card is compared
    only with the cards holding its rarest token), each pair once, in store order."""
    position = {card.id: i for i, card in enumerate(cards)}
    pairs: dict[str, tuple[Card, Card]] = {}

    def add(a: Card, b: Card) -> None:
        first, second = (a, b) if position[a.id] <= position[b.id] else (b, a)
        pairs.setdefault(pair_key(a.id, b.id), (first, second))

    by_key: dict[tuple[Group, str], list[Card]] = {}
    by_token: dict[tuple[Group, str], list[Card]] = {}
    tokens: dict[str, frozenset[str]] = {}
    for card in cards:
        group = _group(card)
        for key in surface_keys(card):
            for other in by_key.get((group, key), []):
                add(other, card)
            by_key.setdefault((group, key), []).append(card)
        tokens[card.id] = frozenset(card_tokens(card))
        for token in tokens[card.id]:
            by_token.setdefault((group, token), []).append(card)
    for card in cards:
        own = tokens[card.id]
        if not own:
            continue
        group = _group(card)
        rarest = min((by_token[(group, t)] for t in own), key=len)
        for other in rarest:
            if other is not card and own <= tokens[other.id]:
                add(card, other)
    return sorted(pairs.values(), key=lambda pair: (position[pair[0].id], position[pair[1].id]))


def merge_suggestions(store: MemoryStore, edges: Iterable[Edge] = (), *,
                      min_similarity: float = DUPLICATE_MIN_SIM,
                      distinct: Callable[[Card, Card], bool] = distinct_identities) -> list[MergeSuggestion]:
    """Pairs the user may merge (reference 5.1): same scope and category, neither blank nor
    rejected, not dismissed; surface pairs first (store order), then embedding pairs (cosine >=
    0.95 and not `distinct`) by similarity descending. One suggestion per pair. The semantic
    tier (memory/semantic.py) passes its own bar and identity rule, calibrated for its model."""
    cards = [c for c in store.cards if _suggestable(c)]
    out: list[MergeSuggestion] = []
    seen: set[str] = set(store.dismissed_suggestions)
    for first, second in _surface_pairs(cards):
        key = pair_key(first.id, second.id)
        if key not in seen:
            seen.add(key)
            keep, drop = keep_and_drop(first, second)
            out.append(MergeSuggestion(keep.id, drop.id, "surface"))
    by_id = {c.id: c for c in cards}
    semantic: dict[str, tuple[float, Card, Card]] = {}
    for a_id, b_id, similarity in edges:
        a, b = by_id.get(a_id), by_id.get(b_id)
        if a is None or b is None or a is b or similarity < min_similarity or _group(a) != _group(b):
            continue
        key = pair_key(a.id, b.id)
        if key in seen or distinct(a, b):
            continue
        if key not in semantic or semantic[key][0] < similarity:
            semantic[key] = (similarity, a, b)
    for similarity, a, b in sorted(semantic.values(), key=lambda item: -item[0]):
        keep, drop = keep_and_drop(a, b)
        out.append(MergeSuggestion(keep.id, drop.id, "semantic", similarity))
    return out


# --- the card merge ----------------------------------------------------------------------------

def merge_cards(keep: Card, drop: Card, *, now: int) -> list[Superseded]:
    """Fold `drop` into `keep` in place (reference 5.2): drop's sentences not already said are
    added (all in the order they were noted) and the card clamped, oldest first (what falls out
    goes to the history as "merged"); histories united, most recent first; drop's surfaces become
    aliases (up to 6). The merged card is confirmed if either was, and user-authored if either
    was (never auto-rewritten then)."""
    keep_norm = normalise_fast(keep.facts)
    evicted: list[Sentence] = []
    if not contains_text(keep_norm, normalise_fast(drop.facts)):
        added = [s for s in explode(drop.sentences) if not contains_text(keep_norm, normalise_fast(s.text))]
        # In the order they were noted: a later fold must see the older deadline first.
        combined = sorted([*explode(keep.sentences), *added], key=lambda s: s.noted_at)
        keep.sentences, evicted = append_clamped(combined, [])
    union = sorted([*keep.history, *drop.history], key=lambda h: -h.superseded_at)[:MAX_HISTORY]
    merged_out = [Superseded(s, now, "merged") for s in evicted]
    keep.history = push_history(union, merged_out)
    _absorb_surfaces(keep, drop)
    if drop.status == "confirmed" and keep.status != "rejected":
        keep.status = "confirmed"
    if drop.source == "user":
        keep.source = "user"
    keep.updated_at = now
    return merged_out


def _absorb_surfaces(keep: Card, drop: Card) -> None:
    """Drop's entity and aliases whose key is new become keep's aliases, up to MAX_ALIASES."""
    keys = set(surface_keys(keep))
    for surface in [drop.entity, *drop.aliases]:
        key = normalise_fast(surface)
        if not key or key in keys or len(keep.aliases) >= MAX_ALIASES:
            continue
        keep.aliases.append(surface.strip())
        keys.add(key)


# --- self-healing cleanup ----------------------------------------------------------------------

@dataclass
class CleanResult:
    store: MemoryStore
    changed: bool
    merged: int
    migrated: int
    recompacted: int = 0


def _clean_profile(store: MemoryStore, now: int) -> bool:
    cleaned = dedupe_profile(store.profile)
    if len(cleaned) > MAX_PROFILE_CHARS:
        cleaned = clamp_profile(cleaned)
    if cleaned == store.profile:
        return False
    record(store, at=now, action="profile", origin="cleanup", before=store.profile, after=cleaned,
           detail="profil dédoublonné")
    store.profile = cleaned
    return True


def _is_misfiled_preference(card: Card) -> bool:
    """An older extractor filed the user's own preferences as `autre` notes: they belong to the
    profile. Only machine cards, only global ones (the profile is global: a space's note stays)."""
    return (card.source == "auto" and card.category == "autre" and card.scope is None
            and card.status != "rejected" and not is_blank(card) and is_self_preference(card.facts))


def _migrate_preferences(store: MemoryStore, now: int) -> int:
    migrating = [card for card in store.cards if _is_misfiled_preference(card)]
    if not migrating:
        return 0
    gone = {card.id for card in migrating}
    before = store.profile
    store.profile = append_to_profile(store.profile, [card.facts for card in migrating])
    store.cards = [card for card in store.cards if card.id not in gone]
    for card in migrating:
        record(store, at=now, action="cleanup", origin="cleanup", card=card, before=card.facts,
               after=None, detail="préférence déplacée vers le profil")
    if store.profile != before:
        record(store, at=now, action="profile", origin="cleanup", before=before, after=store.profile,
               detail="préférences migrées")
    return len(migrating)


def _recompact_machine_cards(store: MemoryStore, now: int, only: set[str] | None = None) -> int:
    """Fold the sentences of machine-written cards (user-authored cards are never rewritten);
    a card whose compaction mark still matches is not read again."""
    count = 0
    for card in store.cards:
        if only is not None and card.id not in only:
            continue
        if card.source != "auto" or card.status == "rejected" or len(card.sentences) < 2:
            continue
        before = card.sentences  # replaced, never mutated, by a fold
        if recompact(card, now=now):
            card.updated_at = now
            count += 1
            record(store, at=now, action="cleanup", origin="cleanup", card=card, before=facts_text(before),
                   after=card.facts, detail="faits recompactés")
    return count


class _Merger:
    """Certain merges to a fixpoint through indexes: two cards of one scope and category sharing
    a normalised key, or two `autre` notes with the same facts. The survivor of a merge is checked
    again (its new aliases may join it to a third card), so chains close in one pass."""

    def __init__(self, store: MemoryStore, now: int, keys: dict[str, tuple[str, ...]] | None = None,
                 notes: dict[str, tuple[str | None, str] | None] | None = None) -> None:
        self.store = store
        self.now = now
        self.alive: set[str] = set()
        self.by_key: dict[Group, dict[str, Card]] = {}  # group -> normalised key -> card
        self.by_facts: dict[tuple[str | None, str], Card] = {}
        self.merged = 0
        self.survivors: set[str] = set()
        # card id -> its keys (a merge changes the survivor's); shared by the rounds of one cleanup,
        # since only a merge changes a card's surfaces (folding rewrites facts, never aliases)
        self.keys: dict[str, tuple[str, ...]] = {} if keys is None else keys
        # card id -> its note key, likewise shared: the caller forgets the cards it refolds
        self.notes: dict[str, tuple[str | None, str] | None] = {} if notes is None else notes

    def _keys(self, card: Card) -> tuple[str, ...]:
        keys = self.keys.get(card.id)
        if keys is None:  # a tuple of strings: the garbage collector stops tracking it (a list it walks)
            keys = self.keys[card.id] = tuple(surface_keys(card))
        return keys

    def _live(self, card: Card | None, other: Card) -> Card | None:
        return card if card is not None and card is not other and card.id in self.alive else None

    def _note_key(self, card: Card) -> tuple[str | None, str] | None:
        if card.category != "autre":
            return None  # two people with the same fact sentence are two people
        if card.id not in self.notes:
            facts = normalise_fast(card.facts)
            self.notes[card.id] = (card.scope, facts) if facts else None
        return self.notes[card.id]

    def _note_holder(self, note_key: tuple[str | None, str], card: Card) -> Card | None:
        """The live note indexed under these facts, if its facts are still these (a note whose
        facts grew in a merge no longer holds the slot)."""
        found = self._live(self.by_facts.get(note_key), card)
        return found if found is not None and self._note_key(found) == note_key else None

    def partner(self, card: Card) -> Card | None:
        slots = self.by_key.get(_group(card))
        if slots is not None:
            for key in self._keys(card):
                found = self._live(slots.get(key), card)
                if found is not None:
                    return found
        note_key = self._note_key(card)
        return self._note_holder(note_key, card) if note_key is not None else None

    def register(self, card: Card) -> None:
        slots = self.by_key.get(_group(card))
        if slots is None:
            slots = self.by_key[_group(card)] = {}
        for key in self._keys(card):
            if self._live(slots.get(key), card) is None:
                slots[key] = card
        note_key = self._note_key(card)
        if note_key is not None and self._note_holder(note_key, card) is None:
            self.by_facts[note_key] = card

    def notes_collide(self) -> bool:
        """Whether two live notes of one scope have the same facts. After a round, the only thing
        a new round could merge (keys met are merged, folding changes no surface)."""
        seen: set[tuple[str | None, str]] = set()
        for card in self.store.cards:
            note_key = self._note_key(card) if card.status != "rejected" else None
            if note_key is not None:
                if note_key in seen:
                    return True
                seen.add(note_key)
        return False

    def run(self) -> int:
        cards = [card for card in self.store.cards if card.status != "rejected"]
        self.alive = {card.id for card in cards}
        queue = deque(cards)
        while queue:
            card = queue.popleft()
            if card.id not in self.alive:
                continue
            other = self.partner(card)
            if other is None:
                self.register(card)
                continue
            keep, drop = keep_and_drop(other, card)
            before = keep.facts
            merge_cards(keep, drop, now=self.now)
            self.keys.pop(keep.id, None)
            self.notes.pop(keep.id, None)
            self.alive.discard(drop.id)
            self.merged += 1
            record(self.store, at=self.now, action="merge", origin="cleanup", card=keep, before=before,
                   after=keep.facts, detail=f"fusion automatique de {drop.id} ({drop.entity})")
            self.survivors.add(keep.id)
            queue.appendleft(keep)
        if self.merged:
            dead = {card.id for card in cards} - self.alive
            self.store.cards = [card for card in self.store.cards if card.id not in dead]
        return self.merged


def auto_clean(store: MemoryStore, now: int) -> CleanResult:
    """The self-healing cleanup run on every memory change (reference 5.3), in place: profile
    dedupe and clamp; misfiled preference notes moved to the profile; machine cards recompacted;
    certain merges (never across scopes or categories), their survivors recompacted. Deterministic
    and idempotent: a second run reports `changed=False`. Rejected cards are left alone."""
    profile_changed = _clean_profile(store, now)
    migrated = _migrate_preferences(store, now)
    recompacted = _recompact_machine_cards(store, now)
    merged = 0
    keys: dict[str, tuple[str, ...]] = {}
    notes: dict[str, tuple[str | None, str] | None] = {}
    for round_number in range(MAX_CLEAN_ROUNDS):
        merger = _Merger(store, now, keys, notes)
        # A later round only runs when folding the survivors made two notes equal: at the end of
        # a round no two live cards share a key or a note, so without such a pair it would scan
        # every card to merge nothing.
        if round_number and not merger.notes_collide():
            break
        round_merged = merger.run()
        merged += round_merged
        if not round_merged:
            break
        # A merge appends sentences: fold the survivors now, or the next run would (and a fold
        # may make two notes identical, hence another round).
        for card_id in merger.survivors:
            notes.pop(card_id, None)
        round_folded = _recompact_machine_cards(store, now, merger.survivors)
        recompacted += round_folded
        if not round_folded:
            break
    changed = profile_changed or bool(migrated or recompacted or merged)
    return CleanResult(store, changed, merged, migrated, recompacted)
