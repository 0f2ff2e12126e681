"""Multi-device sync (issue 21), its pure part: the merge rules every device applies the same
way, and the records a state document is replicated as (docs/sync.md)."""

from __future__ import annotations

from .merge import (
    canonical,
    merge_account,
    merge_card,
    merge_conversation,
    merge_journal,
    merge_memory_meta,
    merge_refusals,
    merge_turns,
)
from .records import SyncRecordError, join_records, merge_record, split_document

__all__ = [
    "SyncRecordError",
    "canonical",
    "join_records",
    "merge_account",
    "merge_card",
    "merge_conversation",
    "merge_journal",
    "merge_memory_meta",
    "merge_record",
    "merge_refusals",
    "merge_turns",
    "split_document",
]
