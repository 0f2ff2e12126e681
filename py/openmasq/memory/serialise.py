"""The memory as a versioned JSON document: export, strict load with migrations (one function per
version step), and an import that merges into an existing store, cleans up and reports."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from .compaction import clamp, normalise_fast, split_sentences
from .dedupe import CleanResult, auto_clean, merge_cards, surface_keys
from .journal import MAX_JOURNAL, compact, entry_to_dict, record
from .model import (
    MAX_ALIASES,
    MAX_FACTS_CHARS,
    MAX_HISTORY,
    MAX_NAME_CHARS,
    STORE_VERSION,
    Card,
    Evidence,
    JournalEntry,
    MemorySettings,
    MemoryStore,
    Origin,
    ProposedInjection,
    Refusal,
    Sentence,
    Status,
    Superseded,
    SupersededReason,
    category_of,
)
from .profile import append_to_profile, clamp_profile
from .refusals import entity_refusals

Doc = dict[str, Any]
ORIGINS: tuple[Origin, ...] = ("user", "auto-silent", "auto-explicit")
STATUSES: tuple[Status, ...] = ("proposed", "confirmed", "rejected")
REASONS: tuple[SupersededReason, ...] = ("replaced", "evicted", "merged", "restored-over")
INJECTIONS: tuple[ProposedInjection, ...] = ("all", "mention", "never")
MAX_IMPORT_CARDS = 100_000
MARK_CHARS = 64  # a compaction mark is 16 hex digits; anything longer is bad input


class StoreFormatError(ValueError):
    """The document is not a memory store this version can read."""


class StoreVersionError(StoreFormatError):
    """The document's schema version is unknown (newer than this app, or nonsense)."""


# --- migrations --------------------------------------------------------------------------------

def _v0_sentence(text: str, noted_at: int, origin: Origin) -> Doc:
    return {"text": text, "noted_at": noted_at, "origin": origin}


def _v0_card(card: Mapping[str, Any]) -> Doc:
    """A card of the reference app (facts as one text, a 3-deep `factsLog`, `source` absent for
    a user card, `reviewedAt` for the review state) in the version-1 shape."""
    auto = card.get("source") == "auto"
    updated = _as_int(card.get("updatedAt"), 0)
    created = _as_int(card.get("createdAt"), updated)
    reviewed = card.get("reviewedAt")
    origin: Origin = "auto-silent" if auto else "user"
    facts = card.get("facts") if isinstance(card.get("facts"), str) else ""
    raw_log = card.get("factsLog")
    log: list[Any] = raw_log if isinstance(raw_log, list) else []
    reviewed_ok = isinstance(reviewed, int) and reviewed >= updated
    return {
        "id": card.get("id"),
        "entity": card.get("entity"),
        "category": card.get("cat"),
        "aliases": card.get("aliases") or [],
        "sentences": [_v0_sentence(t, updated, origin) for t in split_sentences(str(facts)[:MAX_FACTS_CHARS])],
        "history": [
            {"sentence": _v0_sentence(str(e.get("prev", "")), created, origin),
             "superseded_at": _as_int(e.get("at"), updated), "reason": "replaced"}
            for e in log if isinstance(e, dict) and e.get("prev")
        ],
        # A user's card was reviewed by writing it; a machine card by the review flow.
        "status": "confirmed" if not auto or reviewed_ok else "proposed",
        "scope": None,
        "source": "auto" if auto else "user",
        "created_at": created,
        "updated_at": updated,
        "reviewed_at": reviewed if isinstance(reviewed, int) else (None if auto else updated),
    }


def migrate_v0_to_v1(doc: Doc) -> Doc:
    """Version 0 is the reference app's `MemoryData` ({profile?, cards}): sentences, history,
    status and scope appear; refusals, journal and dismissed suggestions start empty."""
    cards = doc.get("cards")
    if not isinstance(cards, list):
        raise StoreFormatError("version-0 document: `cards` must be a list")
    return {
        "version": 1,
        "profile": doc.get("profile") or "",
        "cards": [_v0_card(c) if isinstance(c, dict) else c for c in cards],
        "refusals": [],
        "journal": {"entries": [], "compacted": {}},
        "dismissed_suggestions": [],
    }


# MIGRATIONS[n] turns a version-n document into a version n+1 one.
MIGRATIONS: list[Callable[[Doc], Doc]] = [migrate_v0_to_v1]
assert len(MIGRATIONS) == STORE_VERSION


def document_version(doc: Mapping[str, Any]) -> int:
    """A document without a version is the reference app's (version 0)."""
    version = doc.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise StoreVersionError(f"memory document: invalid schema version {version!r}")
    if version > STORE_VERSION:
        raise StoreVersionError(
            f"memory document: schema version {version} is newer than this app's ({STORE_VERSION}); "
            "update the app to read it"
        )
    return version


def migrate(doc: Doc) -> Doc:
    """Bring a document to STORE_VERSION, one step at a time."""
    version = document_version(doc)
    while version < STORE_VERSION:
        doc = MIGRATIONS[version](doc)
        version += 1
    return doc


# --- to JSON -----------------------------------------------------------------------------------

def _sentence_to_dict(sentence: Sentence) -> Doc:
    out: Doc = {"text": sentence.text, "noted_at": sentence.noted_at, "origin": sentence.origin}
    if sentence.evidence is not None:
        out["evidence"] = {"conversation_id": sentence.evidence.conversation_id,
                           "message_ids": list(sentence.evidence.message_ids)}
    return out


def card_to_dict(card: Card) -> Doc:
    """A card's JSON shape; `compact_mark` only when set (absent reads as None: version-1
    documents written before it load unchanged)."""
    out: Doc = {
        "id": card.id, "entity": card.entity, "category": card.category, "aliases": list(card.aliases),
        "sentences": [_sentence_to_dict(s) for s in card.sentences],
        "history": [{"sentence": _sentence_to_dict(h.sentence), "superseded_at": h.superseded_at,
                     "reason": h.reason} for h in card.history],
        "status": card.status, "scope": card.scope, "source": card.source,
        "created_at": card.created_at, "updated_at": card.updated_at, "reviewed_at": card.reviewed_at,
    }
    if card.compact_mark is not None:
        out["compact_mark"] = card.compact_mark
    return out


def _refusal_to_dict(refusal: Refusal) -> Doc:
    return {"entity_key": refusal.entity_key, "fact_key": refusal.fact_key, "created_at": refusal.created_at,
            "reason": refusal.reason, "surfaces": list(refusal.surfaces), "label": refusal.label}


def store_to_dict(store: MemoryStore) -> Doc:
    settings = store.settings
    return {
        "version": STORE_VERSION,
        "profile": store.profile,
        "cards": [card_to_dict(card) for card in store.cards],
        "refusals": [_refusal_to_dict(r) for r in store.refusals],
        "journal": {"entries": [entry_to_dict(e) for e in store.journal],
                    "compacted": dict(sorted(store.journal_compacted.items()))},
        "dismissed_suggestions": sorted(store.dismissed_suggestions),
        "settings": {"proposed_injection": settings.proposed_injection, "auto_extract": settings.auto_extract,
                     "proposal_seen": settings.proposal_seen, "budget_chars": settings.budget_chars},
    }


def store_to_json(store: MemoryStore) -> str:
    return json.dumps(store_to_dict(store), ensure_ascii=False, separators=(",", ":"))


# --- from JSON ---------------------------------------------------------------------------------

def _as_int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _as_str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise StoreFormatError(f"{what} must be a string")
    return value


def _as_list(value: object, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise StoreFormatError(f"{what} must be a list")
    return value


def _as_dict(value: object, what: str) -> Doc:
    if not isinstance(value, dict):
        raise StoreFormatError(f"{what} must be an object")
    return cast(Doc, value)


def _pick(value: object, allowed: tuple[str, ...], default: str) -> str:
    return value if isinstance(value, str) and value in allowed else default


def _sentence_from(value: object) -> Sentence:
    doc = _as_dict(value, "sentence")
    text = _as_str(doc.get("text"), "sentence text")[:MAX_FACTS_CHARS].strip()
    evidence = None
    if isinstance(doc.get("evidence"), dict):
        ev = doc["evidence"]
        evidence = Evidence(str(ev.get("conversation_id", ""))[:200],
                            tuple(str(m)[:200] for m in _as_list(ev.get("message_ids"), "message ids")[:1000]))
    origin = cast(Origin, _pick(doc.get("origin"), ORIGINS, "user"))
    return Sentence(text, _as_int(doc.get("noted_at"), 0), origin, evidence)


def _superseded_from(value: object) -> Superseded:
    doc = _as_dict(value, "history entry")
    reason = cast(SupersededReason, _pick(doc.get("reason"), REASONS, "replaced"))
    return Superseded(_sentence_from(doc.get("sentence")), _as_int(doc.get("superseded_at"), 0), reason)


def card_from_dict(value: object) -> Card:
    """One card, sanitised: names cut, aliases bounded, sentences clamped to 600 characters (what
    does not fit moves to the history), history cut to 20."""
    doc = _as_dict(value, "card")
    card_id = _as_str(doc.get("id"), "card id")[:MAX_NAME_CHARS]
    entity = " ".join(_as_str(doc.get("entity"), "card entity")[:MAX_NAME_CHARS * 4].split())[:MAX_NAME_CHARS]
    if not card_id or not normalise_fast(entity):
        raise StoreFormatError("a card needs an id and a non-empty entity")
    sentences = [s for s in (_sentence_from(v) for v in _as_list(doc.get("sentences"), "sentences")[:1000]) if s.text]
    kept, evicted = clamp(sentences)
    history = [_superseded_from(v) for v in _as_list(doc.get("history"), "history")[:MAX_HISTORY]]
    updated = _as_int(doc.get("updated_at"), 0)
    history = [*(Superseded(s, updated, "evicted") for s in evicted), *history][:MAX_HISTORY]
    aliases: list[str] = []
    keys = {normalise_fast(entity)}
    for alias in _as_list(doc.get("aliases"), "aliases")[:100]:
        text = " ".join(str(alias)[:MAX_NAME_CHARS * 4].split())[:MAX_NAME_CHARS]
        if normalise_fast(text) and normalise_fast(text) not in keys and len(aliases) < MAX_ALIASES:
            aliases.append(text)
            keys.add(normalise_fast(text))
    scope = doc.get("scope")
    reviewed = doc.get("reviewed_at")
    mark = doc.get("compact_mark")
    return Card(
        id=card_id, entity=entity, category=category_of(str(doc.get("category", ""))), sentences=kept,
        aliases=aliases, history=history, status=cast(Status, _pick(doc.get("status"), STATUSES, "proposed")),
        scope=str(scope)[:MAX_NAME_CHARS] if scope is not None else None,
        source="user" if doc.get("source") == "user" else "auto",
        created_at=_as_int(doc.get("created_at"), updated), updated_at=updated,
        reviewed_at=_as_int(reviewed, 0) if reviewed is not None else None,
        # A mark only matches the sentences it was computed on: a clamped card simply refolds.
        compact_mark=mark[:MARK_CHARS] if isinstance(mark, str) else None,
    )


def _refusal_from(value: object) -> Refusal:
    doc = _as_dict(value, "refusal")
    entity_key = normalise_fast(_as_str(doc.get("entity_key"), "refusal entity")[:MAX_NAME_CHARS])
    if not entity_key:
        raise StoreFormatError("a refusal needs an entity")
    fact = doc.get("fact_key")
    return Refusal(
        entity_key=entity_key,
        fact_key=normalise_fast(str(fact)[:MAX_FACTS_CHARS]) or None if fact is not None else None,
        created_at=_as_int(doc.get("created_at"), 0), reason=str(doc.get("reason", "deleted"))[:40],
        surfaces=tuple(normalise_fast(str(s)[:MAX_NAME_CHARS]) for s in _as_list(doc.get("surfaces"), "surfaces")[:20]),
        label=str(doc.get("label", ""))[:MAX_FACTS_CHARS],
    )


def _entry_from(value: object) -> JournalEntry:
    doc = _as_dict(value, "journal entry")

    def text(name: str) -> str | None:
        item = doc.get(name)
        return str(item)[:2000] if item is not None else None

    return JournalEntry(at=_as_int(doc.get("at"), 0), action=str(doc.get("action", "?"))[:40],
                        origin=str(doc.get("origin", "?"))[:40], card_id=text("card_id"), entity=text("entity"),
                        before=text("before"), after=text("after"), detail=text("detail"))


def _settings_from(value: object) -> MemorySettings:
    if not isinstance(value, dict):
        return MemorySettings()
    defaults = MemorySettings()
    return MemorySettings(
        proposed_injection=cast(ProposedInjection, _pick(value.get("proposed_injection"), INJECTIONS,
                                                         defaults.proposed_injection)),
        auto_extract=bool(value.get("auto_extract", defaults.auto_extract)),
        proposal_seen=bool(value.get("proposal_seen", defaults.proposal_seen)),
        budget_chars=_as_int(value.get("budget_chars"), defaults.budget_chars),
    )


@dataclass
class _Parsed:
    store: MemoryStore
    from_version: int
    skipped: list[str] = field(default_factory=list)


def _parse(text: str, *, strict: bool) -> _Parsed:
    """JSON text -> a migrated, sanitised store. `strict`: any malformed part is an error;
    otherwise malformed cards, refusals and entries are skipped and listed."""
    try:
        raw = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise StoreFormatError(f"memory document: not JSON ({error})") from None
    doc = _as_dict(raw, "memory document")
    from_version = document_version(doc)
    doc = migrate(doc)
    parsed = _Parsed(MemoryStore(), from_version)
    store = parsed.store

    def each(items: list[Any], build: Callable[[object], Any], what: str) -> list[Any]:
        out: list[Any] = []
        for i, item in enumerate(items):
            try:
                out.append(build(item))
            except StoreFormatError as error:
                if strict:
                    raise StoreFormatError(f"{what} {i}: {error}") from None
                parsed.skipped.append(f"{what} {i}: {error}")
        return out

    profile = doc.get("profile") or ""
    store.profile = clamp_profile(_as_str(profile, "profile"))
    cards = _as_list(doc.get("cards"), "cards")
    if len(cards) > MAX_IMPORT_CARDS:
        raise StoreFormatError(f"memory document: more than {MAX_IMPORT_CARDS} cards")
    store.cards = _unique_ids(each(cards, card_from_dict, "card"), parsed, strict)
    store.refusals = each(_as_list(doc.get("refusals"), "refusals"), _refusal_from, "refusal")
    journal = _as_dict(doc.get("journal") or {}, "journal")
    store.journal = each(_as_list(journal.get("entries"), "journal entries"), _entry_from, "journal entry")
    compacted = _as_dict(journal.get("compacted") or {}, "journal counts")
    store.journal_compacted = {str(k)[:40]: _as_int(v, 0) for k, v in compacted.items() if _as_int(v, 0) > 0}
    compact(store, MAX_JOURNAL)
    store.dismissed_suggestions = {str(k)[:500] for k in _as_list(doc.get("dismissed_suggestions"), "dismissed")}
    store.settings = _settings_from(doc.get("settings"))
    return parsed


def _unique_ids(cards: list[Card], parsed: _Parsed, strict: bool) -> list[Card]:
    seen: set[str] = set()
    out: list[Card] = []
    for card in cards:
        if card.id in seen:
            if strict:
                raise StoreFormatError(f"card id {card.id!r} appears twice")
            parsed.skipped.append(f"card {card.id}: duplicate id")
            continue
        seen.add(card.id)
        out.append(card)
    return out


def store_from_json(text: str) -> MemoryStore:
    """Load a whole store (the app's own document), migrating older versions. Raises
    StoreVersionError for an unknown version and StoreFormatError for anything malformed."""
    return _parse(text, strict=True).store


# --- import ------------------------------------------------------------------------------------

@dataclass
class ImportReport:
    from_version: int
    added: list[str] = field(default_factory=list)  # card ids new to this store
    merged: list[str] = field(default_factory=list)  # existing cards that absorbed an imported one
    unchanged: list[str] = field(default_factory=list)  # identical cards already here
    refused: list[str] = field(default_factory=list)  # entities deleted or rejected here: not brought back
    skipped: list[str] = field(default_factory=list)  # malformed parts of the document
    profile_changed: bool = False
    refusals_added: int = 0
    clean: CleanResult | None = None


def import_json(store: MemoryStore, text: str, *, now: int) -> ImportReport:
    """Merge an exported memory into this one, in place: new cards are added (unless refused
    here), a card with the same id is merged into ours, the profile grows append-only, refusals,
    dismissed pairs and journals are united; then the cleanup runs. The document is read and
    checked entirely before anything changes: an unknown version raises StoreVersionError, a
    malformed document StoreFormatError, and the store is untouched."""
    parsed = _parse(text, strict=False)
    incoming = parsed.store
    report = ImportReport(parsed.from_version, skipped=parsed.skipped)
    by_id = {card.id: card for card in store.cards}
    for card in incoming.cards:
        _import_card(store, by_id, card, report, now)
    store.cards.sort(key=lambda c: -c.created_at)  # newest created first, ties in place
    known = {(r.entity_key, r.fact_key) for r in store.refusals}
    for refusal in incoming.refusals:
        if (refusal.entity_key, refusal.fact_key) not in known:
            store.refusals.append(refusal)
            known.add((refusal.entity_key, refusal.fact_key))
            report.refusals_added += 1
    store.dismissed_suggestions |= incoming.dismissed_suggestions
    before = store.profile
    store.profile = append_to_profile(store.profile, [incoming.profile])
    report.profile_changed = store.profile != before
    _unite_journals(store, incoming)
    record(store, at=now, action="import", origin="import",
           detail=(f"v{parsed.from_version} · {len(report.added)} ajoutée(s) · {len(report.merged)} fusionnée(s) · "
                   f"{len(report.refused)} refusée(s) · {len(report.skipped)} ignorée(s)"))
    report.clean = auto_clean(store, now)
    return report


def _import_card(store: MemoryStore, by_id: dict[str, Card], card: Card, report: ImportReport, now: int) -> None:
    existing = by_id.get(card.id)
    if existing is not None:
        if existing == card:
            report.unchanged.append(card.id)
            return
        before = existing.facts
        merge_cards(existing, card, now=now)
        report.merged.append(card.id)
        record(store, at=now, action="merge", origin="import", card=existing, before=before, after=existing.facts,
               detail="fiche importée de même identifiant")
        return
    if entity_refusals(store, surface_keys(card)):
        report.refused.append(card.entity)
        return
    card.compact_mark = None  # another app's word that the card is compact: the cleanup checks it
    store.cards.append(card)
    by_id[card.id] = card
    report.added.append(card.id)
    record(store, at=now, action="create", origin="import", card=card, after=card.facts or None)


def _unite_journals(store: MemoryStore, incoming: MemoryStore) -> None:
    """Both audit trails, in time order, without repeats, bounded."""
    seen = set(store.journal)
    extra = [entry for entry in incoming.journal if entry not in seen]
    if extra:
        store.journal = sorted([*store.journal, *extra], key=lambda e: e.at)
    # Folded counts cannot be told apart: the larger of the two never counts an entry twice
    # (re-importing one's own backup is the common case).
    for action, count in incoming.journal_compacted.items():
        store.journal_compacted[action] = max(store.journal_compacted.get(action, 0), count)
    compact(store, MAX_JOURNAL)
