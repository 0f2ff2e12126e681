"""A state document as the records sync replicates, one per card and per conversation (so two
devices editing different cards never conflict), and back; and the merge of one record by its kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .merge import Doc, merge_account, merge_card, merge_conversation, merge_memory_meta

ACCOUNT = "account"
MEMORY = "memory"
CARD_PREFIX = "card:"
CONVERSATION_PREFIX = "conversation:"
ACCOUNT_KEYS = ("settings", "providers", "spaces", "personas")


class SyncRecordError(ValueError):
    """A record name or shape sync does not know."""


def split_document(doc: Mapping[str, Any], *, with_api_keys: bool) -> dict[str, Doc]:
    """A state document (store.document_to_dict) as records: name -> JSON object. API keys go
    only when the user opted in (`with_api_keys`); otherwise providers travel without them."""
    account: Doc = {key: doc.get(key, [] if key != "settings" else {}) for key in ACCOUNT_KEYS}
    if not with_api_keys:
        account["providers"] = [{k: v for k, v in p.items() if k != "api_key"} for p in account["providers"]]
    memory = dict(doc.get("memory") or {})
    cards = memory.pop("cards", [])
    records: dict[str, Doc] = {ACCOUNT: account, MEMORY: memory}
    for card in cards:
        records[CARD_PREFIX + str(card["id"])] = card
    for conversation in doc.get("conversations", []):
        records[CONVERSATION_PREFIX + str(conversation["id"])] = conversation
    return records


def join_records(records: Mapping[str, Doc], *, version: int, local_api_keys: Mapping[str, str]) -> Doc:
    """Records back into a state document of `version`, cards newest created first and
    conversations newest updated first; a provider without a synced key keeps this device's."""
    account = dict(records.get(ACCOUNT) or {})
    providers = [dict(p) for p in account.get("providers", [])]
    for provider in providers:
        if not provider.get("api_key"):
            provider["api_key"] = local_api_keys.get(str(provider.get("id")), "")
    cards = [r for name, r in records.items() if name.startswith(CARD_PREFIX)]
    conversations = [r for name, r in records.items() if name.startswith(CONVERSATION_PREFIX)]
    memory = dict(records.get(MEMORY) or {"version": 1})
    memory["cards"] = sorted(cards, key=lambda c: (-int(c.get("created_at") or 0), str(c.get("id"))))
    return {
        "version": version, "settings": account.get("settings", {}), "providers": providers,
        "spaces": account.get("spaces", []), "personas": account.get("personas", []),
        "conversations": sorted(conversations, key=lambda c: (-int(c.get("updated_at") or 0), str(c.get("id")))),
        "memory": memory,
    }


def merge_record(name: str, base: Doc | None, ours: Doc | None, theirs: Doc | None) -> Doc | None:
    """The merge rule of a record by its name (None: deleted on that side)."""
    if name.startswith(CARD_PREFIX):
        return merge_card(base, ours, theirs)
    if name.startswith(CONVERSATION_PREFIX):
        return merge_conversation(base, ours, theirs)
    if name not in (ACCOUNT, MEMORY):
        raise SyncRecordError(f"unknown sync record {name!r}")
    if ours is None or theirs is None:  # the account and the memory are never deleted, only emptied
        kept = ours if theirs is None else theirs
        return kept
    return merge_account(base, ours, theirs) if name == ACCOUNT else merge_memory_meta(base, ours, theirs)
