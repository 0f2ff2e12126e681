"""The journal: every mutation appended with its time, origin and texts; bounded by folding the
oldest entries into exact per-action counts; exportable."""

from __future__ import annotations

from openmasq.memory.journal import (
    MAX_JOURNAL,
    MAX_JOURNAL_TEXT,
    action_counts,
    entries_for_card,
    journal_to_records,
    record,
)
from openmasq.memory.model import Card, JournalEntry, MemoryStore


def test_an_entry_copies_the_card_identity_and_texts():
    data = MemoryStore()
    card = Card("k", "Karl Studio", "organisation")
    entry = record(data, at=5, action="replace", origin="auto-silent", card=card, before="A.", after="B.",
                   detail="conversation c1")
    assert data.journal == [entry]
    assert entry == JournalEntry(5, "replace", "auto-silent", "k", "Karl Studio", "A.", "B.", "conversation c1")
    card.entity = "Renamed"
    assert data.journal[0].entity == "Karl Studio"


def test_the_journal_is_bounded_and_the_oldest_entries_become_exact_counts():
    data = MemoryStore()
    for i in range(MAX_JOURNAL + 50):
        record(data, at=i, action="create" if i < 30 else "add", origin="user")
    assert len(data.journal) == MAX_JOURNAL
    assert data.journal[0].at == 50
    assert data.journal_compacted == {"create": 30, "add": 20}
    assert action_counts(data) == {"add": MAX_JOURNAL + 20, "create": 30}


def test_huge_texts_are_bounded():
    data = MemoryStore()
    entry = record(data, at=1, action="profile", origin="user", before="x" * 1_000_000)
    assert entry.before is not None and len(entry.before) == MAX_JOURNAL_TEXT + 1


def test_entries_of_one_card_and_the_export_shape():
    data = MemoryStore()
    record(data, at=1, action="create", origin="user", card=Card("a", "A", "autre"), after="x")
    record(data, at=2, action="dismiss", origin="user", detail="a+b")
    assert [e.at for e in entries_for_card(data, "a")] == [1]
    data.journal_compacted = {"merge": 3}
    assert journal_to_records(data) == {
        "entries": [{"at": 1, "action": "create", "origin": "user", "card_id": "a", "entity": "A", "after": "x"},
                    {"at": 2, "action": "dismiss", "origin": "user", "detail": "a+b"}],
        "compacted": {"merge": 3},
    }
