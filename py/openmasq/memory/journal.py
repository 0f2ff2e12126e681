"""The memory journal: an append-only record of every mutation (who, when, before and after),
bounded by folding the oldest entries into per-action counts."""

from __future__ import annotations

from typing import Literal

from .model import Card, JournalEntry, MemoryStore

MAX_JOURNAL = 2000
MAX_JOURNAL_TEXT = 2000  # before/after texts are facts (600) or a profile (1200): longer is bad input

Action = Literal[
    "create", "add", "replace", "remove", "restore", "merge", "confirm", "reject", "delete", "undo",
    "refuse", "lift", "cleanup", "edit", "profile", "dismiss", "import",
]
JournalOrigin = Literal["user", "auto-silent", "auto-explicit", "cleanup", "import"]


def _bounded(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_JOURNAL_TEXT:
        return text
    return text[:MAX_JOURNAL_TEXT] + "…"


def record(
    store: MemoryStore,
    *,
    at: int,
    action: Action,
    origin: JournalOrigin | str,
    card: Card | None = None,
    before: str | None = None,
    after: str | None = None,
    detail: str | None = None,
) -> JournalEntry:
    """Append one entry (the card's id and entity are copied: the card may be deleted later)."""
    entry = JournalEntry(
        at=at,
        action=action,
        origin=origin,
        card_id=card.id if card is not None else None,
        entity=card.entity if card is not None else None,
        before=_bounded(before),
        after=_bounded(after),
        detail=_bounded(detail),
    )
    append(store, entry)
    return entry


def append(store: MemoryStore, entry: JournalEntry) -> None:
    """Every mutation of the memory is journaled, so this is where the store's revision moves."""
    store.journal.append(entry)
    store.touch()
    compact(store)


def compact(store: MemoryStore, limit: int = MAX_JOURNAL) -> int:
    """Fold the oldest entries beyond `limit` into `journal_compacted` (action -> count), so the
    journal never grows without bound and the counts stay exact. Returns how many were folded."""
    excess = len(store.journal) - limit
    if excess <= 0:
        return 0
    for entry in store.journal[:excess]:
        store.journal_compacted[entry.action] = store.journal_compacted.get(entry.action, 0) + 1
    del store.journal[:excess]
    return excess


def action_counts(store: MemoryStore) -> dict[str, int]:
    """Every mutation ever journaled, per action: live entries plus the compacted ones."""
    counts = dict(store.journal_compacted)
    for entry in store.journal:
        counts[entry.action] = counts.get(entry.action, 0) + 1
    return dict(sorted(counts.items()))


def entries_for_card(store: MemoryStore, card_id: str) -> list[JournalEntry]:
    return [entry for entry in store.journal if entry.card_id == card_id]


def entry_to_dict(entry: JournalEntry) -> dict[str, object]:
    """The exported shape of one entry (absent fields are left out)."""
    out: dict[str, object] = {"at": entry.at, "action": entry.action, "origin": entry.origin}
    for name in ("card_id", "entity", "before", "after", "detail"):
        value = getattr(entry, name)
        if value is not None:
            out[name] = value
    return out


def journal_to_records(store: MemoryStore) -> dict[str, object]:
    """The journal as plain data (for the JSON export and the shell's "export the journal")."""
    return {
        "entries": [entry_to_dict(entry) for entry in store.journal],
        "compacted": dict(sorted(store.journal_compacted.items())),
    }
