"""What the user does to the memory, each operation journaled and taking `now`: create, edit,
confirm, reject, delete with undo, restore, merge, refusals, suggestions, profile; and the
review inbox and page search that read the result."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass

from .compaction import apply_fact, clamp, normalise_fast, push_history, restore_sentence, sentences_from_text
from .dedupe import keep_and_drop, merge_cards, pair_key, surface_keys
from .journal import record
from .model import (
    MAX_ALIASES,
    MAX_NAME_CHARS,
    Card,
    MemoryStore,
    Refusal,
    Sentence,
    Superseded,
    category_of,
)
from .profile import clamp_profile
from .refusals import add_refusal, card_refusal, fact_refusal, fact_refusals, lift_for_card, remove_refusals

UNDO_WINDOW_MS = 6000
NEW_CARD_NAME = "Nouvelle fiche"
MAX_NEW_CARD_NUMBER = 10_000
NOTE_TITLE_WORDS = 5
NOTE_TITLE_CHARS = 60


class UnknownCard(LookupError):
    """No card has this id (it was deleted or merged meanwhile)."""


def _card(store: MemoryStore, card_id: str) -> Card:
    card = store.card(card_id)
    if card is None:
        raise UnknownCard(card_id)
    return card


def _treat(card: Card, now: int) -> None:
    """A user action on a card is a review: it is confirmed (unless rejected) and leaves the inbox."""
    if card.status == "proposed":
        card.status = "confirmed"
    card.updated_at = now
    card.reviewed_at = now


def _name(value: str) -> str:
    return " ".join(value.split())[:MAX_NAME_CHARS].strip()


def _aliases(entity: str, aliases: Iterable[str]) -> list[str]:
    """Trimmed, empties and repeats (by key, the entity's included) dropped, at most 6."""
    keys = {normalise_fast(entity)}
    out: list[str] = []
    for alias in aliases:
        value = _name(alias)
        key = normalise_fast(value)
        if key and key not in keys and len(out) < MAX_ALIASES:
            out.append(value)
            keys.add(key)
    return out


# --- naming ------------------------------------------------------------------------------------

def note_title(text: str) -> str:
    """A note's title from a selected text: its first 5 words, at most 60 characters, "…" when
    anything was dropped; whitespace collapsed."""
    words = text[:10_000].split()
    title = " ".join(words[:NOTE_TITLE_WORDS])
    cut = title[:NOTE_TITLE_CHARS].rstrip()
    return cut + "…" if len(words) > NOTE_TITLE_WORDS or len(cut) < len(title) else cut


def new_card_entity(store: MemoryStore) -> str:
    """"Nouvelle fiche", or "Nouvelle fiche 2", "… 3"… when the name is taken as a key."""
    taken = {key for card in store.cards for key in surface_keys(card)}
    for number in range(1, MAX_NEW_CARD_NUMBER):
        name = NEW_CARD_NAME if number == 1 else f"{NEW_CARD_NAME} {number}"
        if normalise_fast(name) not in taken:
            return name
    return f"{NEW_CARD_NAME} {len(store.cards) + 1}"


# --- creation ----------------------------------------------------------------------------------

def create_card(store: MemoryStore, *, card_id: str, entity: str, now: int, category: str = "autre",
                facts: str = "", aliases: Iterable[str] = (), scope: str | None = None) -> Card | None:
    """A user-written card (confirmed, source user), prepended; None when the entity is empty.
    Writing an entity by hand lifts its refusal: the user wants it remembered."""
    name = _name(entity)
    if not normalise_fast(name):
        return None
    card = Card(
        id=card_id, entity=name, category=category_of(category),
        sentences=sentences_from_text(facts, noted_at=now, origin="user"),
        aliases=_aliases(name, aliases), status="confirmed", scope=scope, source="user",
        created_at=now, updated_at=now, reviewed_at=now,
    )
    store.cards.insert(0, card)
    record(store, at=now, action="create", origin="user", card=card, after=card.facts or None)
    lift_for_card(store, card, now=now, origin="user")
    return card


def create_blank_card(store: MemoryStore, *, card_id: str, now: int, category: str = "autre",
                      scope: str | None = None) -> Card:
    card = create_card(store, card_id=card_id, entity=new_card_entity(store), now=now, category=category,
                       scope=scope)
    assert card is not None  # the generated name is never empty
    return card


def create_note(store: MemoryStore, *, card_id: str, text: str, now: int, scope: str | None = None) -> Card | None:
    """The "Retenir" gesture: a note titled by the selection's first words."""
    return create_card(store, card_id=card_id, entity=note_title(text), now=now, category="autre",
                       facts=text, scope=scope)


# --- editing -----------------------------------------------------------------------------------

def rename_card(store: MemoryStore, card_id: str, entity: str, *, now: int) -> Card:
    """A new entity name; an empty one is refused (the card keeps its name)."""
    card = _card(store, card_id)
    name = _name(entity)
    if not normalise_fast(name) or name == card.entity:
        return card
    before = card.entity
    card.entity = name
    card.aliases = _aliases(name, card.aliases)
    _treat(card, now)
    record(store, at=now, action="edit", origin="user", card=card, before=before, after=name, detail="entité")
    return card


def set_aliases(store: MemoryStore, card_id: str, aliases: Iterable[str], *, now: int) -> Card:
    card = _card(store, card_id)
    before = " · ".join(card.aliases)
    card.aliases = _aliases(card.entity, aliases)
    _treat(card, now)
    record(store, at=now, action="edit", origin="user", card=card, before=before,
           after=" · ".join(card.aliases), detail="alias")
    return card


def set_category(store: MemoryStore, card_id: str, category: str, *, now: int) -> Card:
    card = _card(store, card_id)
    before = card.category
    card.category = category_of(category)
    _treat(card, now)
    record(store, at=now, action="edit", origin="user", card=card, before=before, after=card.category,
           detail="catégorie")
    return card


def set_scope(store: MemoryStore, card_id: str, scope: str | None, *, now: int) -> Card:
    """Move a card to a space (or to global memory: None)."""
    card = _card(store, card_id)
    before = card.scope
    card.scope = scope
    _treat(card, now)
    record(store, at=now, action="edit", origin="user", card=card, before=before or "global",
           after=scope or "global", detail="espace")
    return card


def add_sentence(store: MemoryStore, card_id: str, text: str, *, now: int) -> Card:
    """A sentence the user writes: merged like any fact, the user's wording winning a restatement
    (what it displaces moves to the history); it lifts a refusal of that same fact."""
    card = _card(store, card_id)
    if not text.strip():
        return card
    before = card.facts
    merged = apply_fact(card, Sentence(text.strip(), now, "user"), now=now, prefer_new=True)
    remove_refusals(store, fact_refusals(store, surface_keys(card), text), now=now, origin="user")
    _treat(card, now)
    record(store, at=now, action="replace" if merged.superseded else "add", origin="user", card=card,
           before=before, after=card.facts)
    return card


def _sentence_at(card: Card, index: int) -> Sentence:
    if not 0 <= index < len(card.sentences):
        raise IndexError(f"card {card.id} has no sentence {index}")
    return card.sentences[index]


def edit_sentence(store: MemoryStore, card_id: str, index: int, text: str, *, now: int) -> Card:
    """Rewrite one sentence in place; the old wording moves to the history ("replaced"). An
    empty text removes the sentence."""
    card = _card(store, card_id)
    old = _sentence_at(card, index)
    if not text.strip():
        return remove_sentence(store, card_id, index, now=now)
    if text.strip() == old.text:
        return card
    before = card.facts
    pieces = sentences_from_text(text, noted_at=now, origin="user")
    live = [*card.sentences[:index], *pieces, *card.sentences[index + 1:]]
    kept, evicted = clamp(live, pieces)
    card.sentences = kept
    card.history = push_history(card.history, [
        Superseded(old, now, "replaced"), *(Superseded(s, now, "evicted") for s in evicted)
    ])
    _treat(card, now)
    record(store, at=now, action="replace", origin="user", card=card, before=before, after=card.facts)
    return card


def remove_sentence(store: MemoryStore, card_id: str, index: int, *, now: int) -> Card:
    """The user deletes a sentence: it is refused (silent extraction will not write it back)."""
    card = _card(store, card_id)
    old = _sentence_at(card, index)
    before = card.facts
    refusal = fact_refusal(card, old.text, now=now)
    card.sentences = [s for i, s in enumerate(card.sentences) if i != index]
    _treat(card, now)
    record(store, at=now, action="remove", origin="user", card=card, before=before, after=card.facts)
    if refusal is not None:
        add_refusal(store, refusal, now=now, origin="user")
    return card


def restore(store: MemoryStore, card_id: str, history_index: int, *, now: int) -> Card:
    """Bring a superseded sentence back; what it displaces becomes restorable in turn."""
    card = _card(store, card_id)
    before = card.facts
    if restore_sentence(card, history_index, now=now) is None:
        raise IndexError(f"card {card.id} has no history entry {history_index}")
    _treat(card, now)
    record(store, at=now, action="restore", origin="user", card=card, before=before, after=card.facts)
    return card


# --- review ------------------------------------------------------------------------------------

def confirm_card(store: MemoryStore, card_id: str, *, now: int) -> Card:
    """Reviewed and kept: confirmed, reviewed_at = updated_at = now. Confirming a rejected card
    takes the rejection back (its refusal is lifted)."""
    card = _card(store, card_id)
    was = card.status
    card.status = "confirmed"
    _treat(card, now)
    record(store, at=now, action="confirm", origin="user", card=card, before=was, after="confirmed")
    if was == "rejected":
        lift_for_card(store, card, now=now, origin="user")
    return card


def reject_card(store: MemoryStore, card_id: str, *, now: int) -> Card:
    """Reviewed and refused: the card stays, rejected (never selected), and its entity is refused."""
    card = _card(store, card_id)
    was = card.status
    card.status = "rejected"
    _treat(card, now)
    record(store, at=now, action="reject", origin="user", card=card, before=was, after="rejected")
    refusal = card_refusal(card, now=now, reason="rejected")
    if refusal is not None:
        add_refusal(store, refusal, now=now, origin="user")
    return card


def in_review_inbox(card: Card) -> bool:
    """To review: machine-written cards not yet reviewed (proposed), and reviewed cards the
    machine changed since (every user action sets reviewed_at = updated_at). Rejected: never."""
    if card.status == "rejected":
        return False
    return card.status == "proposed" or card.reviewed_at is None or card.reviewed_at < card.updated_at


def review_inbox_ids(store: MemoryStore) -> list[str]:
    return [card.id for card in store.cards if in_review_inbox(card)]


def matching_card_ids(store: MemoryStore, query: str) -> list[str] | None:
    """The page's search box: cards whose normalised entity, aliases and facts contain the
    normalised query; None (no filter) for an empty query."""
    needle = normalise_fast(query[:1000])
    if not needle:
        return None
    return [
        card.id for card in store.cards
        if needle in normalise_fast(" ".join([card.entity, *card.aliases, card.facts]))
    ]


# --- deletion with undo ------------------------------------------------------------------------

@dataclass(frozen=True)
class DeleteUndo:
    """What puts a deleted card back. The refusal is recorded at deletion (a silent extraction
    in the next 6 seconds cannot recreate the card) and lifted by the undo."""

    card: Card
    position: int
    refusal: Refusal | None
    deleted_at: int
    expires_at: int


def delete_card(store: MemoryStore, card_id: str, *, now: int) -> DeleteUndo:
    card = _card(store, card_id)
    position = store.cards.index(card)
    store.cards.pop(position)
    refusal = card_refusal(card, now=now, reason="deleted")
    record(store, at=now, action="delete", origin="user", card=card, before=card.facts or None)
    if refusal is not None:
        add_refusal(store, refusal, now=now, origin="user")
    return DeleteUndo(copy.deepcopy(card), position, refusal, now, now + UNDO_WINDOW_MS)


def undo_delete(store: MemoryStore, undo: DeleteUndo, *, now: int) -> bool:
    """Put the card back verbatim where it was and lift its refusal; False once the 6-second
    window has passed or when a card with that id exists again."""
    if now > undo.expires_at or store.card(undo.card.id) is not None:
        return False
    card = copy.deepcopy(undo.card)
    store.cards.insert(min(undo.position, len(store.cards)), card)
    record(store, at=now, action="undo", origin="user", card=card, after=card.facts or None,
           detail="suppression annulée")
    if undo.refusal is not None:
        remove_refusals(store, [undo.refusal], now=now, origin="user", detail="suppression annulée")
    return True


# --- merge, refusals, suggestions, profile -----------------------------------------------------

def merge_two_cards(store: MemoryStore, a_id: str, b_id: str, *, now: int) -> Card:
    """The user merges two cards: the one with the longer facts is kept (then the older), the
    other folded into it and removed. Returns the kept card."""
    a, b = _card(store, a_id), _card(store, b_id)
    if a is b:
        return a
    keep, drop = keep_and_drop(a, b)
    before = keep.facts
    merge_cards(keep, drop, now=now)
    store.cards = [card for card in store.cards if card is not drop]
    store.dismissed_suggestions.discard(pair_key(a_id, b_id))
    keep.status = "confirmed"
    _treat(keep, now)
    record(store, at=now, action="merge", origin="user", card=keep, before=before, after=keep.facts,
           detail=f"fusion de {drop.id} ({drop.entity})")
    return keep


def lift_refusal(store: MemoryStore, refusal: Refusal, *, now: int) -> bool:
    return bool(remove_refusals(store, [refusal], now=now, origin="user"))


def dismiss_suggestion(store: MemoryStore, a_id: str, b_id: str, *, now: int) -> None:
    """"These two are different": the pair is never suggested again."""
    key = pair_key(a_id, b_id)
    if key in store.dismissed_suggestions:
        return
    store.dismissed_suggestions.add(key)
    record(store, at=now, action="dismiss", origin="user", detail=key)


def set_profile(store: MemoryStore, text: str, *, now: int) -> str:
    """The user's own profile text: trimmed and cut to 1,200 characters."""
    profile = clamp_profile(text)
    if profile != store.profile:
        record(store, at=now, action="profile", origin="user", before=store.profile, after=profile)
        store.profile = profile
    return profile
