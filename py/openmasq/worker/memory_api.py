"""The Mémoire methods of the App (issue 6): list, search and review cards, edit them, delete with
undo, history, merges and suggestions, refusals, the journal, the profile, "remember this", and the
exports. Every mutation goes through memory/ops.py (which journals it) and is saved at once."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta, timezone
from typing import Any

from ..chat.conversation import Conversation
from ..chat.send import conversation_options
from ..contract import MAX_REMEMBER_CHARS, journal_values
from ..memory import ops
from ..memory.cluster import graph_cards, mention_links
from ..memory.dedupe import MergeSuggestion, auto_clean
from ..memory.export import export_file_name, memory_export_text
from ..memory.extract import ExtractionInput, ExtractionMessage, ExtractionOutcome
from ..memory.extract import run_extraction as extraction_flow
from ..memory.journal import action_counts, entry_to_dict
from ..memory.model import CATEGORIES, Card, JournalEntry, MemoryStore, Refusal, Sentence, Superseded
from ..memory.refusals import list_refusals
from ..memory.semantic import BARS, MERGE_MIN_SIM, semantic_clusters, semantic_merge_suggestions
from ..memory.serialise import StoreFormatError, StoreVersionError, import_json, store_to_json
from ..redact import Vault, pseudonymise
from . import records as rec
from .app import App, AppError, _Account
from .drive import drive_extraction
from .embeddings import index_edges, neighbours_of, schedule_sync
from .providers import LOCAL_ID, local_provider, target_of

STATUSES = ("proposed", "confirmed", "rejected")
DAY_MS = 86_400_000
JOURNAL_PAGE = 200  # entries per page of the journal view (the journal keeps at most 2,000)
PREVIEW_CHARS = 160  # facts shown on a list row; the panel shows them all
EXPORT_BRAND = "openmasq"


@dataclass
class _State:
    """What the memory view keeps between calls for one unlocked account."""

    account: _Account
    undo: dict[str, ops.DeleteUndo] = field(default_factory=dict)  # card id -> its pending undo


_STATES: weakref.WeakKeyDictionary[App, _State] = weakref.WeakKeyDictionary()


class MemoryApi:
    """The memory methods over one App; the page calls them through dispatch.py."""

    def __init__(self, app: App) -> None:
        self.app = app

    # --- plumbing --------------------------------------------------------------------------------

    @property
    def state(self) -> _State:
        account = self.app.opened  # raises Locked
        state = _STATES.get(self.app)
        if state is None or state.account is not account:  # another unlock: nothing carries over
            state = _STATES[self.app] = _State(account)
        return state

    @property
    def store(self) -> MemoryStore:
        return self.app.opened.document.memory

    def now(self) -> int:
        return self.app.host.now()

    async def save(self) -> None:
        """The memory record, written the way the App writes it (refused when it was unreadable)."""
        await self.app._save(rec.MEMORY)

    def card(self, card_id: str) -> Card:
        card = self.store.card(str(card_id))
        if card is None:
            raise AppError("NotFound", f"no card {card_id!r}")
        return card

    async def mutate(self, change: Callable[[], Card]) -> dict[str, Any]:
        """Runs one journaled operation, saves, and returns the card's full view."""
        self.app.touch()
        try:
            card = change()
        except ops.UnknownCard as missing:
            raise AppError("NotFound", f"no card {missing.args[0]!r}") from None
        except IndexError as wrong:
            raise AppError("BadRequest", str(wrong)) from None
        await self.save()
        return self.card_view(card)

    # --- views -----------------------------------------------------------------------------------

    def summary(self, card: Card) -> dict[str, Any]:
        facts = card.facts
        return {
            "id": card.id, "entity": card.entity, "aliases": list(card.aliases), "category": card.category,
            "status": card.status, "scope": card.scope, "source": card.source, "created": card.created_at,
            "updated": card.updated_at, "reviewed": card.reviewed_at, "noted": card.newest_noted_at,
            "facts": facts if len(facts) <= PREVIEW_CHARS else facts[:PREVIEW_CHARS].rstrip() + "…",
            "sentences": len(card.sentences), "history": len(card.history), "inbox": ops.in_review_inbox(card),
        }

    def evidence_view(self, sentence: Sentence) -> dict[str, Any] | None:
        evidence = sentence.evidence
        if evidence is None:
            return None
        conv = self.app.opened.document.conversation(evidence.conversation_id)
        roles = {m.id: m.role for m in conv.messages} if conv is not None else {}
        present = [m for m in evidence.message_ids if m in roles]
        # The jump lands on the user's own words when the run read them (an explicit run also reads
        # the replies around them).
        said = [m for m in present if roles[m] == "user"]
        target = (said or present)[-1] if present else None
        return {"conversation_id": evidence.conversation_id, "message_ids": list(evidence.message_ids),
                "message_id": target, "exists": conv is not None,
                "conversation_title": conv.title if conv is not None else None}

    def sentence_view(self, index: int, sentence: Sentence) -> dict[str, Any]:
        return {"index": index, "text": sentence.text, "noted_at": sentence.noted_at, "origin": sentence.origin,
                "evidence": self.evidence_view(sentence)}

    def history_view(self, index: int, entry: Superseded) -> dict[str, Any]:
        return {**self.sentence_view(index, entry.sentence), "superseded_at": entry.superseded_at,
                "reason": entry.reason}

    def card_view(self, card: Card) -> dict[str, Any]:
        journal = [journal_view(e) for e in self.store.journal if e.card_id == card.id][-50:]
        return {
            **self.summary(card), "facts": card.facts,
            "sentence_list": [self.sentence_view(i, s) for i, s in enumerate(card.sentences)],
            "history_list": [self.history_view(i, h) for i, h in enumerate(card.history)],
            "journal": list(reversed(journal)),
            "suggestions": [self.suggestion_view(s) for s in self.suggestions() if card.id in (s.keep_id, s.drop_id)],
        }

    def suggestions(self) -> list[MergeSuggestion]:
        """Surface suggestions, plus the embedding index's pairs once it has been built."""
        return semantic_merge_suggestions(self.store, neighbours_of(self.app))

    def suggestion_view(self, suggestion: MergeSuggestion) -> dict[str, Any]:
        keep, drop = self.store.card(suggestion.keep_id), self.store.card(suggestion.drop_id)
        return {"key": suggestion.key, "reason": suggestion.reason, "similarity": suggestion.similarity,
                "keep": self.summary(keep) if keep else None, "drop": self.summary(drop) if drop else None}

    # --- reading ---------------------------------------------------------------------------------

    async def memory_overview(self) -> dict[str, Any]:
        """Counts for the navigation badge and the page header, and the memory settings."""
        store = self.store
        live = [c for c in store.cards if c.status != "rejected"]
        scopes = {c.scope for c in store.cards if c.scope} | {
            c.space for c in self.app.opened.document.conversations if c.space}
        return {
            "cards": len(live), "rejected": len(store.cards) - len(live),
            "proposed": sum(c.status == "proposed" for c in live),
            "inbox": len(ops.review_inbox_ids(store)), "suggestions": len(self.suggestions()),
            "refusals": len(store.refusals), "journal": len(store.journal), "profile": bool(store.profile.strip()),
            "scopes": sorted(s for s in scopes if s), "categories": list(CATEGORIES),
            "auto_extract": store.settings.auto_extract, "proposal_seen": store.settings.proposal_seen,
            "proposed_injection": store.settings.proposed_injection,
            "indexed": len(neighbours_of(self.app)),  # cards the embedding index covers (0: lexical search only)
        }

    async def list_cards(self, query: dict[str, Any] | str | None = None) -> list[dict[str, Any]]:
        """Search (entity, aliases, facts; accents and case folded) and filters: category, status
        ("any" includes rejected ones; by default they are left out), scope ("global" or a space),
        recent_days (changed within), inbox (to review only); sort "updated" or store order."""
        query = {"text": query} if isinstance(query, str) else (query or {})
        store = self.store
        wanted = ops.matching_card_ids(store, str(query.get("text") or ""))
        ids = set(wanted) if wanted is not None else None
        category, status, scope = query.get("category"), query.get("status"), query.get("scope")
        recent = query.get("recent_days")
        since = self.now() - int(recent) * DAY_MS if isinstance(recent, int) and recent > 0 else None
        out = [
            card for card in store.cards
            if (ids is None or card.id in ids)
            and (not category or card.category == category)
            and (status == "any" or (card.status == status if status else card.status != "rejected"))
            and (not scope or (card.scope is None if scope == "global" else card.scope == scope))
            and (since is None or card.updated_at >= since)
            and (not query.get("inbox") or ops.in_review_inbox(card))
        ]
        if query.get("sort") == "updated":
            out.sort(key=lambda c: -c.updated_at)
        return [self.summary(c) for c in out]

    async def get_card(self, card_id: str) -> dict[str, Any]:
        return self.card_view(self.card(card_id))

    async def review_inbox(self) -> dict[str, Any]:
        """"À revoir": cards to review (proposed, or changed by the machine since the last review)
        and merge suggestions not dismissed."""
        store = self.store
        cards = [self.summary(c) for c in store.cards if ops.in_review_inbox(c)]
        return {"cards": cards, "suggestions": [self.suggestion_view(s) for s in self.suggestions()]}

    async def memory_graph(self) -> dict[str, Any]:
        """What the page's force layout draws: the cards (not rejected), mention links and the
        clusters they form (semantic edges join in when the embedding index exists)."""
        cards = graph_cards(self.store)
        links = mention_links(cards)
        clusters = semantic_clusters(cards, neighbours_of(self.app), links)
        return {
            "nodes": [{"id": c.id, "entity": c.entity, "category": c.category, "status": c.status,
                       "scope": c.scope} for c in cards],
            "links": [{"source": a, "target": b, "kind": "mention"} for a, b in links],
            "clusters": [{"id": cl.id, "members": list(cl.members), "label": cl.label, "tone": cl.tone}
                         for cl in clusters],
        }

    # --- editing ---------------------------------------------------------------------------------

    async def create_card(self, spec: dict[str, Any]) -> dict[str, Any]:
        def change() -> Card:
            card = ops.create_card(self.store, card_id=self.app.new_id(), entity=str(spec.get("entity") or ""),
                                   now=self.now(), category=str(spec.get("category") or "autre"),
                                   facts=str(spec.get("facts") or ""), aliases=_strings(spec.get("aliases", [])),
                                   scope=_scope(spec.get("scope")))
            if card is None:
                raise AppError("BadRequest", "a card needs a name")
            return card

        return await self.mutate(change)

    async def create_note(self, text: str, conversation_id: str | None = None) -> dict[str, Any]:
        """The user keeps a selection as their own note (no model): titled by its first words."""
        conv = self.app.opened.document.conversation(conversation_id) if conversation_id else None

        def change() -> Card:
            card = ops.create_note(self.store, card_id=self.app.new_id(), text=str(text)[:MAX_REMEMBER_CHARS],
                                   now=self.now(), scope=conv.space if conv else None)
            if card is None:
                raise AppError("BadRequest", "nothing to remember")
            return card

        return await self.mutate(change)

    async def update_card(self, card_id: str, patch: dict[str, Any]) -> dict[str, Any]:
        """entity, aliases, category, scope: each change journaled on its own."""
        unknown = sorted(set(patch) - {"entity", "aliases", "category", "scope"})
        if unknown:
            raise AppError("BadRequest", f"unknown card fields: {', '.join(unknown)}")
        card = self.card(card_id)
        store, now = self.store, self.now()

        def change() -> Card:
            if "entity" in patch:
                ops.rename_card(store, card.id, str(patch["entity"]), now=now)
            if "aliases" in patch and _strings(patch["aliases"]) != card.aliases:
                ops.set_aliases(store, card.id, _strings(patch["aliases"]), now=now)
            if "category" in patch and patch["category"] != card.category:
                ops.set_category(store, card.id, str(patch["category"]), now=now)
            if "scope" in patch and _scope(patch["scope"]) != card.scope:
                ops.set_scope(store, card.id, _scope(patch["scope"]), now=now)
            return card

        return await self.mutate(change)

    async def add_sentence(self, card_id: str, text: str) -> dict[str, Any]:
        return await self.mutate(lambda: ops.add_sentence(self.store, str(card_id), str(text), now=self.now()))

    async def edit_sentence(self, card_id: str, index: int, text: str) -> dict[str, Any]:
        return await self.mutate(lambda: ops.edit_sentence(self.store, str(card_id), int(index), str(text),
                                                           now=self.now()))

    async def remove_sentence(self, card_id: str, index: int) -> dict[str, Any]:
        return await self.mutate(lambda: ops.remove_sentence(self.store, str(card_id), int(index), now=self.now()))

    async def restore_sentence(self, card_id: str, history_index: int) -> dict[str, Any]:
        return await self.mutate(lambda: ops.restore(self.store, str(card_id), int(history_index), now=self.now()))

    async def confirm_card(self, card_id: str) -> dict[str, Any]:
        return await self.mutate(lambda: ops.confirm_card(self.store, str(card_id), now=self.now()))

    async def reject_card(self, card_id: str) -> dict[str, Any]:
        return await self.mutate(lambda: ops.reject_card(self.store, str(card_id), now=self.now()))

    async def merge_cards(self, a_id: str, b_id: str) -> dict[str, Any]:
        if str(a_id) == str(b_id):
            raise AppError("BadRequest", "a card cannot be merged with itself")
        return await self.mutate(lambda: ops.merge_two_cards(self.store, str(a_id), str(b_id), now=self.now()))

    async def dismiss_suggestion(self, a_id: str, b_id: str) -> None:
        self.app.touch()
        ops.dismiss_suggestion(self.store, str(a_id), str(b_id), now=self.now())
        await self.save()

    # --- deletion with undo ----------------------------------------------------------------------

    async def delete_card(self, card_id: str) -> dict[str, Any]:
        """Deleted now, refusal recorded now (a silent extraction in the next seconds cannot bring
        it back); `undo_delete_card` within 6 seconds puts it back and lifts the refusal."""
        self.app.touch()
        state = self.state
        try:
            undo = ops.delete_card(self.store, str(card_id), now=self.now())
        except ops.UnknownCard:
            raise AppError("NotFound", f"no card {card_id!r}") from None
        state.undo[undo.card.id] = undo
        await self.save()
        return {"id": undo.card.id, "entity": undo.card.entity, "undo_until": undo.expires_at}

    async def undo_delete_card(self, card_id: str) -> dict[str, Any]:
        state = self.state
        undo = state.undo.pop(str(card_id), None)
        if undo is None or not ops.undo_delete(self.store, undo, now=self.now()):
            raise AppError("Expired", "too late to undo this deletion")
        await self.save()
        return self.card_view(self.card(undo.card.id))

    # --- refusals, journal, profile, settings ---------------------------------------------------

    async def list_refusals(self) -> list[dict[str, Any]]:
        return [_refusal_view(r) for r in list_refusals(self.store)]

    async def lift_refusal(self, entity_key: str, fact_key: str | None = None) -> bool:
        store = self.store
        found = next((r for r in store.refusals if r.entity_key == entity_key and r.fact_key == fact_key), None)
        if found is None:
            raise AppError("NotFound", "no such refusal")
        self.app.touch()
        lifted = ops.lift_refusal(store, found, now=self.now())
        await self.save()
        return lifted

    async def list_journal(self, query: dict[str, Any] | None = None) -> dict[str, Any]:
        """Newest first; filters: action, origin, card_id, text (in entity, before, after, detail);
        `before` (an index into the filtered list) pages back."""
        query = query or {}
        store = self.store
        needle = str(query.get("text") or "").casefold().strip()
        entries = [e for e in reversed(store.journal) if _journal_match(e, query, needle)]
        start = max(0, int(query.get("offset") or 0))
        limit = min(JOURNAL_PAGE, max(1, int(query.get("limit") or JOURNAL_PAGE)))
        page = entries[start:start + limit]
        return {"entries": [journal_view(e) for e in page], "total": len(entries), "offset": start,
                "counts": action_counts(store), "compacted": dict(store.journal_compacted),
                "actions": sorted({e.action for e in store.journal}),
                "origins": sorted({e.origin for e in store.journal})}

    async def get_profile(self) -> str:
        return self.store.profile

    async def set_profile(self, text: str) -> str:
        self.app.touch()
        profile = ops.set_profile(self.store, str(text), now=self.now())
        await self.save()
        return profile

    async def mark_memory_proposal_seen(self) -> None:
        """The one-time proposal to turn on automatic extraction was shown (answered or not)."""
        settings = self.store.settings
        if not settings.proposal_seen:
            settings.proposal_seen = True
            await self.save()

    # --- "remember this" ------------------------------------------------------------------------

    async def remember_text(self, text: str, conversation_id: str | None = None,
                            message_id: str | None = None) -> dict[str, Any]:
        """The « Retenir » gesture and /retenir, /remember: an explicit extraction over `text`
        alone, redacted first through the conversation's vault (no real value leaves). When the
        model cannot be reached, the text is kept as the user's own note (offline, no model)."""
        text = str(text).strip()
        if not text:
            raise AppError("BadRequest", "nothing to remember")
        if len(text) > MAX_REMEMBER_CHARS:
            raise AppError("BadRequest", f"a selection to remember is at most {MAX_REMEMBER_CHARS} characters")
        self.app.touch()
        account = self.app.opened
        conv = account.document.conversation(conversation_id) if conversation_id else None
        if conv is not None:
            async with account.lock_of(conv.id):
                outcome = await self._extract_text(account, text, conv, message_id)
        else:
            outcome = await self._extract_text(account, text, None, message_id)
        if self.app.account is not account:
            raise AppError("Locked", "the account was locked meanwhile")
        if outcome is None or outcome.status in ("unreachable", "blocked", "illegible", "skipped"):
            note = ops.create_note(self.store, card_id=self.app.new_id(), text=text, now=self.now(),
                                   scope=conv.space if conv else None)
            await self.save()
            created = [note.id] if note else []
            self._notify(conv, "noted" if created else "nothing", created)
            return {"status": "note", "reason": outcome.status if outcome else "offline", "created": created,
                    "updated": []}
        if outcome.merge is not None:
            auto_clean(self.store, self.now())  # as the App's own runs do after a merge
            await self.save()
        created = [i for i in (outcome.feedback.created_ids if outcome.feedback else ()) if i != "profile"]
        updated = list(outcome.feedback.updated_ids) if outcome.feedback else []
        self._notify(conv, outcome.status, created)
        return {"status": outcome.status, "created": created, "updated": updated,
                "profile": bool(outcome.merge and outcome.merge.profile_changed)}

    async def _extract_text(self, account: _Account, text: str, conv: Conversation | None,
                            message_id: str | None) -> ExtractionOutcome | None:
        document = account.document
        provider = self.app._provider_of(conv) if conv is not None else _default_provider(self.app)
        target = target_of(provider)
        if target.route == "net" and not self.app.egress.online():
            return None
        base = document.settings.redact_options()
        options = conversation_options(conv, base) if conv is not None else base
        vault = conv.vault if conv is not None else Vault.new(self.app.host.random_bytes(32), document.settings.mode)
        try:
            redaction = pseudonymise(text, vault, options)
        except Exception:  # fail closed: nothing leaves; the text is kept as a note instead
            return None
        message = ExtractionMessage(message_id or f"retenir-{self.app.new_id()}", "user", text,
                                    len(redaction.replacements), tuple(r.kind for r in redaction.replacements))
        inp = ExtractionInput(conv.id if conv is not None else "", [message], 0, redaction.vault, document.memory,
                              self.now(), self.app.new_id, explicit=True,
                              ui_language="en" if document.settings.ui_lang == "en" else "fr",
                              scope=conv.space if conv is not None else None, redact_options=options,
                              model=target.model)
        outcome = await drive_extraction(extraction_flow(inp), self.app.egress, target)
        if conv is not None and self.app.account is account:
            conv.vault = outcome.vault or redaction.vault  # the fakes the model saw restore in this conversation
            await self.app._save_conversation(conv)
        return outcome

    def _notify(self, conv: Conversation | None, status: str, created: list[str]) -> None:
        self.app.host.notify({"type": "memory", "conversation_id": conv.id if conv else None, "status": status,
                              "created": created, "source": "remember"})

    # --- exports --------------------------------------------------------------------------------

    def _tz(self) -> timezone:
        return timezone(timedelta(minutes=self.app.opened.document.settings.tz_offset_minutes))

    async def export_memory_text(self) -> dict[str, str]:
        """The plain-text diagnostic export (real data: the page says so before saving it)."""
        now, tz = self.now(), self._tz()
        return {"name": export_file_name(EXPORT_BRAND, now, tz),
                "text": memory_export_text(self.store, now=now, tz=tz, edges=index_edges(self.app), bars=BARS,
                                           merge_bar=MERGE_MIN_SIM)}

    async def export_memory_json(self) -> dict[str, str]:
        now, tz = self.now(), self._tz()
        name = export_file_name(EXPORT_BRAND, now, tz).removesuffix(".txt") + ".json"
        return {"name": name, "text": store_to_json(self.store)}

    async def import_memory_json(self, text: str) -> dict[str, Any]:
        """Merges an exported memory into this one; an unknown version or a malformed file
        changes nothing and says why."""
        self.app.touch()
        try:
            report = import_json(self.store, str(text), now=self.now())
        except StoreVersionError as error:
            raise AppError("UnknownVersion", str(error)) from None
        except StoreFormatError as error:
            raise AppError("BadFile", str(error)) from None
        await self.save()
        schedule_sync(self.app, rebuild=True)  # imported texts get their vectors again
        return {"from_version": report.from_version, "added": len(report.added), "merged": len(report.merged),
                "unchanged": len(report.unchanged), "refused": list(report.refused), "skipped": len(report.skipped),
                "profile_changed": report.profile_changed, "refusals_added": report.refusals_added}


# --- helpers ----------------------------------------------------------------------------------


def memory_api(app: App) -> MemoryApi:
    """The memory methods of this App (one object per App, made on first use)."""
    return MemoryApi(app)


def _default_provider(app: App) -> Any:
    wanted = app.opened.document.settings.default_provider or LOCAL_ID
    return next((p for p in app.opened.document.providers if p.id == wanted), local_provider())


def _strings(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AppError("BadRequest", "expected a list of texts")
    return [v.strip() for v in value if v.strip()]


def _scope(value: object) -> str | None:
    if value is None or value == "" or value == "global":
        return None
    if not isinstance(value, str):
        raise AppError("BadRequest", "a scope is a space name or null")
    return value.strip() or None


def _refusal_view(refusal: Refusal) -> dict[str, Any]:
    return {"entity_key": refusal.entity_key, "fact_key": refusal.fact_key,
            "kind": "fact" if refusal.fact_key else "entity", "label": refusal.label or refusal.entity_key,
            "reason": refusal.reason, "created": refusal.created_at}


def journal_view(entry: JournalEntry) -> dict[str, Any]:
    """An entry as the page shows it: `values` names the enum its before/after texts hold (the page labels
    them: a confirmation reads "Proposée → Confirmée", not "proposed → confirmed")."""
    view = entry_to_dict(entry)
    values = journal_values(entry.action, entry.detail)
    if values is not None:
        view["values"] = values
    return view


def _journal_match(entry: JournalEntry, query: dict[str, Any], needle: str) -> bool:
    if query.get("action") and entry.action != query["action"]:
        return False
    if query.get("origin") and entry.origin != query["origin"]:
        return False
    if query.get("card_id") and entry.card_id != query["card_id"]:
        return False
    if needle:
        hay = " ".join(x for x in (entry.entity, entry.before, entry.after, entry.detail) if x).casefold()
        return needle in hay
    return True


# page method -> MemoryApi method (dispatch.py routes them here)
MEMORY_METHODS: dict[str, str] = {
    "memoryOverview": "memory_overview",
    "listCards": "list_cards",
    "getCard": "get_card",
    "reviewInbox": "review_inbox",
    "memoryGraph": "memory_graph",
    "createCard": "create_card",
    "createNote": "create_note",
    "updateCard": "update_card",
    "addSentence": "add_sentence",
    "editSentence": "edit_sentence",
    "removeSentence": "remove_sentence",
    "restoreSentence": "restore_sentence",
    "confirmCard": "confirm_card",
    "rejectCard": "reject_card",
    "mergeCards": "merge_cards",
    "dismissSuggestion": "dismiss_suggestion",
    "deleteCard": "delete_card",
    "undoDeleteCard": "undo_delete_card",
    "listRefusals": "list_refusals",
    "liftRefusal": "lift_refusal",
    "listJournal": "list_journal",
    "getProfile": "get_profile",
    "setProfile": "set_profile",
    "markMemoryProposalSeen": "mark_memory_proposal_seen",
    "rememberText": "remember_text",
    "exportMemoryText": "export_memory_text",
    "exportMemoryJson": "export_memory_json",
    "importMemoryJson": "import_memory_json",
}
