"""The merge rules of multi-device sync (issue 21): pure, deterministic three-way merges of the
records two devices hold (cards, the memory's shared parts, conversations, settings), in their
JSON shapes. The same code runs on every device, so two devices merging the same versions in
either order write the same result.

A merge takes the common ancestor (`base`, the last version both devices had; None when the record
was made on both sides independently) and the two sides (`ours`, `theirs`; None: deleted there).
Every rule is symmetric: swapping `ours` and `theirs` gives the same result, which is what makes
two devices converge whichever pulls first."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..memory.journal import MAX_JOURNAL
from ..memory.model import MAX_HISTORY

Doc = dict[str, Any]
Merger = Callable[[Any, Any, Any, bool], Any]  # (base, ours, theirs, ours_wins) -> merged

_MISSING: Any = object()


def canonical(value: object) -> str:
    """One text per value whatever the key order: the deterministic tie-break compares these."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def ours_wins(ours: Mapping[str, Any], theirs: Mapping[str, Any], clock: str = "updated_at") -> bool:
    """Which side's value a field both sides changed takes: the later edit of the record, then
    (same instant) the larger canonical text, so the choice depends on the values only."""
    ours_at, theirs_at = _int(ours.get(clock)), _int(theirs.get(clock))
    if ours_at != theirs_at:
        return ours_at > theirs_at
    return canonical(ours) >= canonical(theirs)


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# --- the building blocks ------------------------------------------------------------------------


def merge_value(base: Any, ours: Any, theirs: Any, ours_first: bool) -> Any:
    """A field as one value: the side that changed it wins; both changed it: the winning side."""
    if canonical(ours) == canonical(theirs):
        return ours
    if base is not _MISSING and canonical(ours) == canonical(base):
        return theirs
    if base is not _MISSING and canonical(theirs) == canonical(base):
        return ours
    return ours if ours_first else theirs


def merge_keyed(
    base: Iterable[Any] | None,
    ours: Iterable[Any],
    theirs: Iterable[Any],
    ours_first: bool,
    key: Callable[[Any], str],
    item: Merger = merge_value,
) -> list[Any]:
    """A list of items with an identity, as a set: an item either side added is kept; one side
    removed an item the other left as it was: removed; one side removed it and the other changed
    it: kept (edit beats delete); both changed it: merged by `item`. Order: the winning side's,
    then the other side's additions in their order."""
    base_by = {key(x): x for x in base or ()}
    ours_by, theirs_by = {key(x): x for x in ours}, {key(x): x for x in theirs}
    first, second = (ours_by, theirs_by) if ours_first else (theirs_by, ours_by)
    merged: list[Any] = []
    for k in [*first, *(k for k in second if k not in first)]:
        value = _merge_item(base_by.get(k, _MISSING), ours_by.get(k, _MISSING), theirs_by.get(k, _MISSING),
                            ours_first, item)
        if value is not _MISSING:
            merged.append(value)
    return merged


def _merge_item(base: Any, ours: Any, theirs: Any, ours_first: bool, item: Merger) -> Any:
    if ours is _MISSING or theirs is _MISSING:
        kept = theirs if ours is _MISSING else ours
        if base is _MISSING:
            return kept  # added on one side
        return _MISSING if canonical(kept) == canonical(base) else kept  # removed, unless edited meanwhile
    return item(base, ours, theirs, ours_first)


def merge_map(base: Mapping[str, Any] | None, ours: Mapping[str, Any], theirs: Mapping[str, Any],
              ours_first: bool, item: Merger = merge_value) -> dict[str, Any]:
    """A JSON object whose keys are data (a vault's words, per-category overrides): as a keyed
    set of its entries, then sorted by key."""
    pairs = merge_keyed(
        list((base or {}).items()), list(ours.items()), list(theirs.items()), ours_first, key=lambda kv: kv[0],
        item=lambda b, o, t, w: (o[0], item(_MISSING if b is _MISSING else b[1], o[1], t[1], w)),
    )
    return dict(sorted(pairs))


def union(*sides: Iterable[Any], key: Callable[[Any], str] = canonical) -> list[Any]:
    """Every item of every side once (first by key), sorted by that key: for append-only records."""
    seen: dict[str, Any] = {}
    for side in sides:
        for value in side:
            seen.setdefault(key(value), value)
    return [seen[k] for k in sorted(seen)]


def merge_fields(
    base: Mapping[str, Any] | None, ours: Mapping[str, Any], theirs: Mapping[str, Any], ours_first: bool,
    rules: Mapping[str, Merger] | None = None,
) -> Doc:
    """A record merged field by field: each field by its rule (a whole value by default). A field
    absent on one side stays absent only if both sides agree."""
    rules = rules or {}
    keys = [*ours, *(k for k in theirs if k not in ours)]
    merged: Doc = {}
    for name in keys:
        b = (base or {}).get(name, _MISSING) if base is not None else _MISSING
        o, t = ours.get(name, _MISSING), theirs.get(name, _MISSING)
        if o is _MISSING or t is _MISSING:
            value = _merge_item(b, o, t, ours_first, merge_value)
        else:
            value = rules.get(name, merge_value)(b, o, t, ours_first)
        if value is not _MISSING:
            merged[name] = value
    return dict(sorted(merged.items()))


def merge_or_delete(base: Doc | None, ours: Doc | None, theirs: Doc | None,
                    merge: Callable[[Doc | None, Doc, Doc], Doc]) -> Doc | None:
    """A whole record that one side may have deleted (None): deleted on one side and left as it
    was on the other: deleted; deleted on one side and edited on the other: the edit is kept."""
    if ours is None and theirs is None:
        return None
    if ours is None or theirs is None:
        kept = theirs if ours is None else ours
        assert kept is not None
        if base is not None and canonical(kept) == canonical(base):
            return None
        return kept
    return merge(base, ours, theirs)


def _list_or_empty(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict_or_none(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


# --- cards --------------------------------------------------------------------------------------


def _sentence_key(sentence: Any) -> str:
    return str(sentence.get("text", "")) if isinstance(sentence, dict) else canonical(sentence)


def _history_key(entry: Any) -> str:
    return canonical(entry)


def _history_order(entry: Any) -> tuple[int, str]:
    at = entry.get("superseded_at") if isinstance(entry, dict) else 0
    return (-_int(at), canonical(entry))


def merge_history(base: Any, ours: Any, theirs: Any, ours_first: bool) -> list[Any]:
    """Superseded sentences from both sides (a restore on one side, which takes an entry out, is
    honoured), most recent first, at most MAX_HISTORY."""
    kept = merge_keyed(None if base is _MISSING else _list_or_empty(base), _list_or_empty(ours),
                       _list_or_empty(theirs), ours_first, key=_history_key)
    return sorted(kept, key=_history_order)[:MAX_HISTORY]


def _sentences(base: Any, ours: Any, theirs: Any, ours_first: bool) -> list[Any]:
    return merge_keyed(None if base is _MISSING else _list_or_empty(base), _list_or_empty(ours),
                       _list_or_empty(theirs), ours_first, key=_sentence_key, item=_whole)


def _aliases(base: Any, ours: Any, theirs: Any, ours_first: bool) -> list[Any]:
    return merge_keyed(None if base is _MISSING else _list_or_empty(base), _list_or_empty(ours),
                       _list_or_empty(theirs), ours_first, key=canonical)


def _whole(base: Any, ours: Any, theirs: Any, ours_first: bool) -> Any:
    return merge_value(base, ours, theirs, ours_first)


def _later(base: Any, ours: Any, theirs: Any, ours_first: bool) -> Any:
    """A clock: the later of the two (never moves back)."""
    return max(_int(ours), _int(theirs))


CARD_RULES: dict[str, Merger] = {
    "sentences": _sentences, "aliases": _aliases, "history": merge_history, "updated_at": _later,
}


def merge_card(base: Doc | None, ours: Doc | None, theirs: Doc | None) -> Doc | None:
    """A card (memory.serialise.card_to_dict): field by field (entity, category, status, scope,
    review date each as a value), its sentences and aliases as sets, its history from both sides,
    edit beats delete. The compaction mark is a cache of one side's sentences: dropped unless
    both sides had the same."""
    def both(b: Doc | None, o: Doc, t: Doc) -> Doc:
        merged = merge_fields(b, o, t, ours_wins(o, t), CARD_RULES)
        if o.get("compact_mark") != t.get("compact_mark") or merged.get("sentences") != o.get("sentences"):
            merged.pop("compact_mark", None)
        return merged
    return merge_or_delete(base, ours, theirs, both)


# --- the memory's shared parts ------------------------------------------------------------------


def _refusal_key(refusal: Any) -> str:
    if not isinstance(refusal, dict):
        return canonical(refusal)
    return canonical([refusal.get("entity_key"), refusal.get("fact_key")])


def merge_refusals(base: list[Any] | None, ours: list[Any], theirs: list[Any]) -> list[Any]:
    """A union: a refusal made on either device holds on both. A lift (taking one out) is honoured
    only when the other device did not refuse the same thing again meanwhile; the same refusal
    made on both keeps the earlier date."""
    def earlier(b: Any, o: Any, t: Any, w: bool) -> Any:
        return min(o, t, key=lambda r: (_int(r.get("created_at")), canonical(r)))
    kept = merge_keyed(base, ours, theirs, True, key=_refusal_key, item=earlier)
    return sorted(kept, key=_refusal_key)


def _journal_order(entry: Any) -> tuple[int, str]:
    return (_int(entry.get("at")) if isinstance(entry, dict) else 0, canonical(entry))


def merge_journal(ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> Doc:
    """The journal ({entries, compacted}) is append-only: every entry of both sides once, by date;
    beyond MAX_JOURNAL the oldest are folded into the per-action counts, which take the larger
    count of each side (each side folded its own oldest entries)."""
    entries = sorted(union(_list_or_empty(ours.get("entries")), _list_or_empty(theirs.get("entries"))),
                     key=_journal_order)
    compacted: dict[str, int] = {}
    for side in (ours.get("compacted"), theirs.get("compacted")):
        for action, count in (side or {}).items():
            compacted[action] = max(compacted.get(action, 0), _int(count))
    excess = len(entries) - MAX_JOURNAL
    for entry in entries[:max(excess, 0)]:
        action = str(entry.get("action", "")) if isinstance(entry, dict) else ""
        compacted[action] = compacted.get(action, 0) + 1
    return {"entries": entries[max(excess, 0):], "compacted": dict(sorted(compacted.items()))}


def _journal(base: Any, ours: Any, theirs: Any, ours_first: bool) -> Doc:
    return merge_journal(ours if isinstance(ours, dict) else {}, theirs if isinstance(theirs, dict) else {})


def _refusals(base: Any, ours: Any, theirs: Any, ours_first: bool) -> list[Any]:
    return merge_refusals(None if base is _MISSING else _list_or_empty(base), _list_or_empty(ours),
                          _list_or_empty(theirs))


def _sorted_set(base: Any, ours: Any, theirs: Any, ours_first: bool) -> list[Any]:
    kept = merge_keyed(None if base is _MISSING else _list_or_empty(base), _list_or_empty(ours),
                       _list_or_empty(theirs), ours_first, key=canonical)
    return sorted(kept, key=canonical)


def _fields(rules: Mapping[str, Merger] | None = None) -> Merger:
    def merge(base: Any, ours: Any, theirs: Any, ours_first: bool) -> Any:
        if not isinstance(ours, dict) or not isinstance(theirs, dict):
            return merge_value(base, ours, theirs, ours_first)
        return merge_fields(_dict_or_none(base), ours, theirs, ours_first, rules)
    return merge


MEMORY_RULES: dict[str, Merger] = {
    "refusals": _refusals, "journal": _journal, "dismissed_suggestions": _sorted_set, "settings": _fields(),
}


def merge_memory_meta(base: Doc | None, ours: Doc, theirs: Doc) -> Doc:
    """The memory without its cards (profile, refusals, journal, dismissed suggestions, memory
    settings): the profile and each setting as values, the rest as unions. The side with the
    newer journal wins a value both changed."""
    return merge_fields(base, ours, theirs, _journal_newer(ours, theirs), MEMORY_RULES)


def _journal_newer(ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> bool:
    def last(doc: Mapping[str, Any]) -> int:
        journal = doc.get("journal")
        entries = _list_or_empty(journal.get("entries")) if isinstance(journal, dict) else []
        return max((_int(e.get("at")) for e in entries if isinstance(e, dict)), default=0)
    if last(ours) != last(theirs):
        return last(ours) > last(theirs)
    return canonical(ours) >= canonical(theirs)


# --- conversations ------------------------------------------------------------------------------


def _message_key(message: Any) -> str:
    return str(message.get("id", "")) if isinstance(message, dict) else canonical(message)


def _message(base: Any, ours: Any, theirs: Any, ours_first: bool) -> Any:
    """The same turn on both sides: field by field; a reply finished on one side (not pending)
    wins the fields the streaming side had not finished."""
    if not isinstance(ours, dict) or not isinstance(theirs, dict):
        return merge_value(base, ours, theirs, ours_first)
    if bool(ours.get("pending")) != bool(theirs.get("pending")):
        ours_first = not ours.get("pending")
    return merge_fields(_dict_or_none(base), ours, theirs, ours_first)


def _timeline(messages: list[Any]) -> dict[str, int]:
    """Each turn's place in time: its own date, or the latest date before it (a turn without one)."""
    places: dict[str, int] = {}
    latest = 0
    for message in messages:
        at = message.get("at") if isinstance(message, dict) else None
        latest = max(latest, _int(at))
        places[_message_key(message)] = latest
    return places


def merge_turns(base: list[Any] | None, ours: list[Any], theirs: list[Any], ours_first: bool) -> list[Any]:
    """A conversation's turns merge by id (a turn deleted on one side and left alone on the other
    goes; one edited on the other stays), in time order, ties by id."""
    merged = merge_keyed(base, ours, theirs, ours_first, key=_message_key, item=_message)
    places = _timeline(ours)
    for key, at in _timeline(theirs).items():
        places[key] = max(places.get(key, 0), at)
    return sorted(merged, key=lambda m: (places.get(_message_key(m), 0), _message_key(m)))


def _turns(base: Any, ours: Any, theirs: Any, ours_first: bool) -> list[Any]:
    return merge_turns(None if base is _MISSING else _list_or_empty(base), _list_or_empty(ours),
                       _list_or_empty(theirs), ours_first)


def _vault_entry_key(entry: Any) -> str:
    return str(entry[0]) if isinstance(entry, list) and entry else canonical(entry)


def _vault_entries(base: Any, ours: Any, theirs: Any, ours_first: bool) -> list[Any]:
    kept = merge_keyed(None if base is _MISSING else _list_or_empty(base), _list_or_empty(ours),
                       _list_or_empty(theirs), ours_first, key=_vault_entry_key)
    return sorted(kept, key=_vault_entry_key)


def _map(base: Any, ours: Any, theirs: Any, ours_first: bool) -> Any:
    if not isinstance(ours, dict) or not isinstance(theirs, dict):
        return merge_value(base, ours, theirs, ours_first)
    return merge_map(_dict_or_none(base), ours, theirs, ours_first)


def _counters(base: Any, ours: Any, theirs: Any, ours_first: bool) -> dict[str, int]:
    """Token-mode counters only move up: the larger of each, so neither side reuses a number."""
    out: dict[str, int] = {}
    for side in (ours, theirs):
        for name, count in (side if isinstance(side, dict) else {}).items():
            out[name] = max(out.get(name, 0), _int(count))
    return dict(sorted(out.items()))


VAULT_RULES: dict[str, Merger] = {"entries": _vault_entries, "words": _map, "org_cores": _map, "counters": _counters}

CONVERSATION_RULES: dict[str, Merger] = {
    "messages": _turns, "branches": _turns, "vault": _fields(VAULT_RULES), "forks": _fields({}),
    "redact_categories": _map, "revealed_values": _aliases, "forced_redactions": _aliases,
    "updated_at": _later, "memory_watermark": _later,
}


def merge_conversation(base: Doc | None, ours: Doc | None, theirs: Doc | None) -> Doc | None:
    """A conversation (chat.conversation.conversation_to_dict): its turns by id, its vault's
    entries as a union (a substitute both sides made for different values: the later side's),
    its settings field by field; a conversation deleted on one side and continued on the other
    is kept."""
    return merge_or_delete(base, ours, theirs,
                           lambda b, o, t: merge_fields(b, o, t, ours_wins(o, t), CONVERSATION_RULES))


# --- settings, providers, spaces, personas ------------------------------------------------------


def _by_id(base: Any, ours: Any, theirs: Any, ours_first: bool) -> list[Any]:
    return merge_keyed(None if base is _MISSING else _list_or_empty(base), _list_or_empty(ours),
                       _list_or_empty(theirs), ours_first, key=_message_key, item=_fields())


ACCOUNT_RULES: dict[str, Merger] = {
    "settings": _fields({"categories": _map, "coffre": _aliases, "keep": _aliases, "prices": _aliases}),
    "providers": _by_id, "spaces": _by_id, "personas": _by_id, "updated_at": _later,
}


def merge_account(base: Doc | None, ours: Doc, theirs: Doc) -> Doc:
    """The account's shared record ({settings, providers, spaces, personas, updated_at}): each
    setting as a value, values always masked or kept as sets, providers, spaces and personas by id."""
    return merge_fields(base, ours, theirs, ours_wins(ours, theirs), ACCOUNT_RULES)
