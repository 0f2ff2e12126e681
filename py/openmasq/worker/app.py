"""The App API the page calls through py-worker (docs/web.md, "The worker protocol"): settings, providers,
conversations and sends for the unlocked account, persisted record by record after each change, with the
extraction scheduled by memory/extract/schedule.py and the idle auto-lock."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from typing import Any

from ..chat import branches
from ..chat.attachments import TurnAttachment, turn_attachment
from ..chat.codecs import ErrorEvent
from ..chat.conversation import AttachedFile, Conversation, Message
from ..chat.extraction import apply_extraction, extraction_input
from ..chat.instructions import check_instructions, instructions_for
from ..chat.send import (
    SendInput,
    SendOutcome,
    attachment_signature,
    conversation_options,
    masked_spans,
    preview_turn,
    send_flow,
)
from ..chat.steps import CallModel
from ..memory.extract import ConversationSummary, DueRun, Event, is_explicit_memory_ask, plan
from ..memory.extract import run_extraction as extraction_flow
from ..memory.extract.schedule import EventKind
from ..memory.ops import note_title
from ..memory.select import MemoryIndex
from ..redact import Redaction, Restorer, Vault
from ..redact.caches import forget_values
from ..redact.kinds import LEVELS
from ..redact.vault import MODES
from ..store import Provider, StateDocument
from . import embeddings as ml
from . import records as rec
from .attach_api import AttachApi, AttachmentRefused, Staging, file_spans
from .bridge import Egress, Host, Records, Timer
from .drive import Call, ClockedEgress, Hooks, drive_extraction, drive_send, list_models
from .local import local_shape
from .providers import (
    LIST_TIMEOUT_MS,
    LOCAL_ID,
    ProviderError,
    local_provider,
    origin_of,
    page_view,
    provider_from_page,
    target_of,
)
from .views import (
    attachment_preview,
    conversation_summary,
    conversation_view,
    is_draft,
    is_empty_untitled,
    matches,
    message_view,
    preview_view,
    request_view,
)

OnEvent = Callable[[dict[str, Any]], None]

# A streaming reply is saved at most this often, so a reload or a crash keeps all but the last
# moment of it; each save re-encrypts the whole conversation record (a few ms for a long one).
PARTIAL_SAVE_MS = 1_000
PAGE_ACTIVITY_KINDS = ("activity", "left_conversation", "window_blur", "page_hidden")
THEMES = ("auto", "light", "dark")
UI_LANGS = ("fr", "en")
INJECTION_POLICIES = ("all", "mention", "never")
# A model name typed by the user for a conversation (providers' ids are far shorter).
MODEL_NAME_MAX = 200
# "What the model saw": the requests of this session kept per conversation (sends and memory
# extraction), the oldest dropped past this many (each holds a whole request: history included).
WIRE_LOG_MAX = 60


class AppError(Exception):
    """An error the page shows as is; `name` is what the JS Error's name becomes."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name
        self.message = message


@dataclass
class _Sending:
    """A send in progress on one conversation."""

    stopped: bool = False
    calls: list[Call] = field(default_factory=list)
    keys: list[str] | None = None  # the staged files it sends (attach_api.py), forgotten once the turn is saved

    def stop(self) -> None:
        self.stopped = True
        for call in self.calls:
            call.stream.abort()


@dataclass(frozen=True)
class _Rework:
    """A send that makes a new version after `parent` (an edit, a regenerated reply); `previous` is
    the version shown before, back on screen if no new one is made; `again`: answer the last user
    turn anew instead of appending the text as a new turn."""

    parent: str
    previous: str | None
    again: bool


@dataclass
class _Account:
    """The unlocked account: its records bridge and its loaded state."""

    records: Records
    document: StateDocument
    app: rec.AppSettings
    unreadable: list[str]
    trash: dict[str, Conversation] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    locks: dict[str, asyncio.Lock] = field(default_factory=dict)
    index: MemoryIndex | None = None

    def lock_of(self, conversation_id: str) -> asyncio.Lock:
        return self.locks.setdefault(conversation_id, asyncio.Lock())

    def memory_index(self) -> MemoryIndex:
        """The memory's index, rebuilt only when the store changed since (its revision says)."""
        self.index = MemoryIndex.for_store(self.document.memory, self.index)
        return self.index


class App:
    """One per worker; `open` gives it an unlocked account's records, `close` forgets them."""

    def __init__(self, egress: Egress, host: Host) -> None:
        self.egress = egress
        self.host = host
        self.account: _Account | None = None
        self.sending: dict[str, _Sending] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.timings: dict[str, dict[str, float]] = {}  # conversation id -> its last send's (drive.py)
        self.requests_sent: dict[str, list[dict[str, Any]]] = {}  # conversation id -> its requests (wire_log)
        self.last_activity = 0
        # Issue 18: the provider the user adds and tests becomes the default. The address and key of
        # the last successful test of an unsaved provider, and the providers saved without a test yet.
        self._tested: tuple[str, str, str] | None = None
        self._untested: set[str] = set()
        self._lock_timer: Timer | None = None
        self._plan_timer: Timer | None = None
        self.staging = Staging()  # files read in the composer, not sent yet (attach_api.py)
        ml.attach(self)  # issue 7: on-device NER and the memory's embedding index (worker/embeddings.py)

    # --- lifecycle ----------------------------------------------------------------------------

    async def open(self, records: Records) -> dict[str, Any]:
        """Loads every record of the unlocked account; replies cut by a crash or a reload are
        marked interrupted (their partial text was saved as it streamed)."""
        self.close()
        keys = [key for key in await records.keys() if not ml.is_index_record(key)]
        texts = {key: text for key in keys if (text := await records.get(key)) is not None}
        loaded = rec.load_records(texts)
        account = _Account(records, loaded.document, loaded.app, loaded.unreadable)
        self.account = account
        if not texts:
            for key, value in rec.all_records(account.document, account.app).items():
                await records.put(key, value)
        for conv in account.document.conversations:
            branches.settle(conv, loading=True)  # a send cut while it made a version: the last one shows
            if _mark_cut_replies(conv):
                await self._save_conversation(conv)
        self.touch()
        self._log("app_started")
        ml.schedule_sync(self)
        return {"conversations": len(account.document.conversations), "unreadable": list(loaded.unreadable)}

    def close(self) -> None:
        """Forgets the account: streams aborted, timers cancelled, the state dropped."""
        for sending in self.sending.values():
            sending.stop()
        self.sending.clear()
        self.timings.clear()
        self.requests_sent.clear()
        self._tested, self._untested = None, set()
        for timer in (self._lock_timer, self._plan_timer):
            if timer is not None:
                timer.cancel()
        self._lock_timer = self._plan_timer = None
        self.staging.clear()
        self.account = None
        forget_values()  # the engine's caches of words and texts read from this account

    @property
    def opened(self) -> _Account:
        if self.account is None:
            raise AppError("Locked", "No account is unlocked.")
        return self.account

    async def wait_idle(self) -> None:
        """Waits for the background work (extraction runs) started so far."""
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)

    def _spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # --- ids and persistence ------------------------------------------------------------------

    def new_id(self) -> str:
        return self.host.random_bytes(8).hex()

    async def _save_conversation(self, conv: Conversation) -> None:
        branches.settle(conv)
        await self.opened.records.put(rec.conv_key(conv.id), rec.conversation_record(conv))

    async def _save(self, key: str) -> None:
        account = self.opened
        if key in account.unreadable:
            raise AppError("Unreadable", f"The stored {key} could not be read; it is left untouched.")
        text = {
            rec.SETTINGS: lambda: rec.settings_record(account.document, account.app),
            rec.PROVIDERS: lambda: rec.providers_record(account.document),
            rec.MEMORY: lambda: rec.memory_record(account.document),
        }[key]()
        await account.records.put(key, text)
        if key == rec.MEMORY:
            ml.schedule_sync(self)

    # --- auto-lock ----------------------------------------------------------------------------

    def touch(self) -> None:
        """The user did something: the idle delay starts again."""
        self.last_activity = self.host.now()
        self._arm_autolock()

    def _arm_autolock(self) -> None:
        if self._lock_timer is not None:
            self._lock_timer.cancel()
            self._lock_timer = None
        minutes = self.account.app.autolock_minutes if self.account else 0
        if minutes > 0:
            self._lock_timer = self.host.call_later(minutes * 60_000, self._autolock_due)

    def _autolock_due(self) -> None:
        self._lock_timer = None
        if self.account is None:
            return
        idle_ms = self.host.now() - self.last_activity
        if self.sending or idle_ms < self.account.app.autolock_minutes * 60_000:
            self._arm_autolock()  # a reply still streaming counts as activity
            return
        self.close()
        self.host.notify({"type": "locked", "reason": "idle"})

    async def activity(self, kind: str = "activity", conversation_id: str | None = None) -> None:
        """The page reports the user's activity (typing, reading, switching away)."""
        self.touch()
        if kind in PAGE_ACTIVITY_KINDS and conversation_id:
            self._log(kind, conversation_id)  # type: ignore[arg-type]

    # --- settings -----------------------------------------------------------------------------

    async def get_settings(self) -> dict[str, Any]:
        account = self.opened
        s, m = account.document.settings, account.document.memory.settings
        return {"lang": s.ui_lang, "theme": account.app.theme, "autolock_minutes": account.app.autolock_minutes,
                "mode": s.mode, "level": s.level, "detect_lang": s.lang, "auto_extract": m.auto_extract,
                "proposed_injection": m.proposed_injection, "default_provider": s.default_provider or LOCAL_ID,
                "system_prompt": s.system_prompt, "keep": list(s.keep), "always_mask": list(s.coffre),
                "tz_offset_minutes": s.tz_offset_minutes, "categories": dict(s.categories),
                "onboarded": account.app.onboarded}

    async def update_settings(self, patch: dict[str, Any]) -> dict[str, Any]:
        account = self.opened
        s, m, app = account.document.settings, account.document.memory.settings, account.app
        setters: dict[str, Callable[[Any], None]] = {
            "lang": lambda v: setattr(s, "ui_lang", _choice(v, UI_LANGS, "lang")),
            "theme": lambda v: setattr(app, "theme", _choice(v, THEMES, "theme")),
            "autolock_minutes": lambda v: setattr(app, "autolock_minutes", _minutes(v)),
            "onboarded": lambda v: setattr(app, "onboarded", bool(v)),
            "mode": lambda v: setattr(s, "mode", _choice(v, MODES, "mode")),
            "level": lambda v: setattr(s, "level", _choice(v, LEVELS, "level")),
            "detect_lang": lambda v: setattr(s, "lang", str(v)),
            "auto_extract": lambda v: setattr(m, "auto_extract", bool(v)),
            "proposed_injection": lambda v: setattr(m, "proposed_injection",
                                                    _choice(v, INJECTION_POLICIES, "proposed_injection")),
            "default_provider": lambda v: setattr(s, "default_provider", self._provider(str(v)).id),
            "system_prompt": lambda v: setattr(s, "system_prompt", _instructions(v)),
            "keep": lambda v: setattr(s, "keep", _strings(v)),
            "always_mask": lambda v: setattr(s, "coffre", _strings(v)),
            "tz_offset_minutes": lambda v: setattr(s, "tz_offset_minutes", int(v)),
            "categories": lambda v: setattr(s, "categories", {str(k): bool(x) for k, x in dict(v).items()}),
        }
        unknown = sorted(set(patch) - set(setters))
        if unknown:
            raise AppError("BadRequest", f"unknown settings: {', '.join(unknown)}")
        for key, value in patch.items():
            setters[key](value)
        await self._save(rec.SETTINGS)
        if {"auto_extract", "proposed_injection"} & set(patch):
            await self._save(rec.MEMORY)
        if "autolock_minutes" in patch:
            self._arm_autolock()
        return await self.get_settings()

    # --- providers ----------------------------------------------------------------------------

    def _providers(self) -> list[Provider]:
        return [local_provider(), *self.opened.document.providers]

    def _provider(self, provider_id: str) -> Provider:
        found = next((p for p in self._providers() if p.id == provider_id), None)
        if found is None:
            raise AppError("NotFound", f"no provider {provider_id!r}")
        return found

    async def list_providers(self) -> list[dict[str, Any]]:
        return [page_view(p) for p in self._providers()]

    async def save_provider(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Adds or edits a provider (the key is kept encrypted and never returned)."""
        document = self.opened.document
        existing = next((p for p in document.providers if p.id == spec.get("id")), None) if spec.get("id") else None
        if spec.get("id") and existing is None:
            raise AppError("NotFound", f"no provider {spec.get('id')!r}")
        try:
            provider = provider_from_page(spec, existing, self.new_id())
        except ProviderError as error:
            raise AppError("BadRequest", str(error)) from None
        if existing is None:
            document.providers.append(provider)
        else:
            document.providers[document.providers.index(existing)] = provider
        await self._save(rec.PROVIDERS)
        made_default = False
        if self._tested == _tested_key(provider):
            made_default = await self._make_default(provider.id)
        elif existing is None:
            self._untested.add(provider.id)  # a successful test of it (list_models) makes it the default
        return {**page_view(provider), "made_default": made_default}

    async def _make_default(self, provider_id: str) -> bool:
        """The provider the user just added and tested answers new conversations (issue 18)."""
        self._tested = None
        self._untested.discard(provider_id)
        settings = self.opened.document.settings
        if settings.default_provider == provider_id:
            return False
        settings.default_provider = provider_id
        await self._save(rec.SETTINGS)
        return True

    async def remove_provider(self, provider_id: str) -> None:
        document = self.opened.document
        document.providers = [p for p in document.providers if p.id != provider_id]
        if document.settings.default_provider == provider_id:
            document.settings.default_provider = None
            await self._save(rec.SETTINGS)
        await self._save(rec.PROVIDERS)

    async def egress_origins(self) -> list[str]:
        """The origins net-worker must be allowed to reach (the service worker's connect-src)."""
        origins = {origin_of(p.base_url) for p in self.opened.document.providers}
        return sorted(o for o in origins if o)

    async def test_provider(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Lists the models of a provider described by `spec` (saved or not): proves the URL and
        the key work. A saved provider's stored key is used when `spec` has none."""
        existing = next((p for p in self._providers() if p.id == spec.get("id")), None) if spec.get("id") else None
        if existing is not None and existing.id == LOCAL_ID:
            return {"ok": True, "models": [existing.model]}
        try:
            provider = provider_from_page(spec, existing, "test")
        except ProviderError as error:
            return {"ok": False, "error": {"kind": "bad_request", "message": str(error)}}
        answer = await self._models_of(provider)
        if answer["ok"]:
            self._tested = _tested_key(provider)
        return answer

    async def list_models(self, provider_id: str) -> dict[str, Any]:
        provider = self._provider(provider_id)
        if provider.id == LOCAL_ID:
            return {"ok": True, "models": [provider.model], "names": {}}
        answer = await self._models_of(provider)
        if answer["ok"] and provider.id in self._untested and await self._make_default(provider.id):
            answer["made_default"] = True
        return answer

    async def _models_of(self, provider: Provider) -> dict[str, Any]:
        """The provider's models (ids sorted, display names when it gives them), or why it cannot list
        them: the page then offers to type the model's name."""
        target = target_of(provider)
        if target.route == "net" and not self.egress.online():
            return {"ok": False, "error": {"kind": "offline", "message": "This device is offline."}}
        models, error = await list_models(self.egress, target, LIST_TIMEOUT_MS)
        if error is not None:
            return {"ok": False, "error": _error_view(error)}
        ids = sorted({m.id for m in models})
        names = {m.id: m.name for m in models if m.name and m.name != m.id}
        return {"ok": True, "models": ids, "names": names}

    # --- conversations ------------------------------------------------------------------------

    def _conversation(self, conversation_id: str) -> Conversation:
        conv = self.opened.document.conversation(conversation_id)
        if conv is None:
            raise AppError("NotFound", f"no conversation {conversation_id!r}")
        return conv

    async def list_conversations(self, query: dict[str, Any] | str | None = None) -> list[dict[str, Any]]:
        query = {"text": query} if isinstance(query, str) else (query or {})
        text, space = str(query.get("text") or ""), query.get("space", "*")
        out = [c for c in self.opened.document.conversations
               if matches(c, text) and (space == "*" or c.space == space)]
        out.sort(key=lambda c: c.updated_at, reverse=True)
        return [conversation_summary(c) for c in out]

    async def create_conversation(self, spec: dict[str, Any] | None = None) -> dict[str, Any]:
        spec = spec or {}
        document = self.opened.document
        now = self.host.now()
        if spec.get("reuse_empty") and not spec.get("title"):
            reusable = self._empty_untitled(spec.get("space") or None, now)
            if reusable is not None:
                await self._save_conversation(reusable)
                return conversation_view(reusable)
        mode = _choice(spec.get("mode") or document.settings.mode, MODES, "mode")
        conv = Conversation(self.new_id(), Vault.new(self.host.random_bytes(32), mode),
                            title=str(spec.get("title") or ""), space=spec.get("space"), created_at=now,
                            updated_at=now, memory_off=bool(spec.get("memory_off", False)))
        if spec.get("provider_id"):
            conv.provider = self._provider(str(spec["provider_id"])).id
        document.conversations.insert(0, conv)
        await self._save_conversation(conv)
        return conversation_view(conv)

    def _empty_untitled(self, space: str | None, now: int) -> Conversation | None:
        """The page's "new conversation" while one never written in is there: that one, first in the
        list again, rather than another empty one (issue 18: no pile of empty untitled conversations)."""
        document = self.opened.document
        found = next((c for c in document.conversations
                      if is_empty_untitled(c, space) and c.id not in self.sending), None)
        if found is not None:
            found.updated_at = max(found.updated_at, now)
            document.conversations.remove(found)
            document.conversations.insert(0, found)
        return found

    async def get_conversation(self, conversation_id: str) -> dict[str, Any]:
        return conversation_view(self._conversation(conversation_id))

    async def rename_conversation(self, conversation_id: str, title: str) -> dict[str, Any]:
        return await self.update_conversation(conversation_id, {"title": title})

    async def update_conversation(self, conversation_id: str, patch: dict[str, Any]) -> dict[str, Any]:
        """title, mode (only before the first send: it is pinned then), memory_off, keep,
        always_mask, space, provider_id."""
        conv = self._conversation(conversation_id)
        # provider_id first: changing the provider resets the model, which the same patch may then set
        for key, value in sorted(patch.items(), key=lambda item: item[0] != "provider_id"):
            _update_conversation_field(self, conv, key, value)
        await self._save_conversation(conv)
        return conversation_view(conv)

    async def delete_conversation(self, conversation_id: str) -> None:
        account = self.opened
        conv = self._conversation(conversation_id)
        if conversation_id in self.sending:
            self.sending[conversation_id].stop()
        account.document.conversations.remove(conv)
        account.trash[conversation_id] = conv  # until the page's undo delay ends or the account locks
        await account.records.delete(rec.conv_key(conversation_id))

    async def undo_delete(self, conversation_id: str) -> dict[str, Any]:
        account = self.opened
        conv = account.trash.pop(conversation_id, None)
        if conv is None:
            raise AppError("NotFound", "nothing to undo")
        account.document.conversations.insert(0, conv)
        await self._save_conversation(conv)
        return conversation_summary(conv)

    # --- sending ------------------------------------------------------------------------------

    async def send(self, conversation_id: str, text: str, on_event: OnEvent) -> dict[str, Any]:
        """One turn: the user's message saved before anything leaves, restored deltas to the
        page, the reply saved as it streams and at the end; offline: kept as a draft."""
        return await self._begin(conversation_id, text, on_event, None)

    async def send_previewed(self, conversation_id: str, text: str, signature: list[list[Any]],
                             on_event: OnEvent) -> dict[str, Any]:
        """A send of what the composer's preview showed: `signature` is that preview's; when the send
        would mask otherwise (the memory or the settings changed since), nothing is saved or sent and
        the page gets a "preview_changed" error with the new preview."""
        return await self._begin(conversation_id, text, on_event, _signature(signature))

    async def send_attached(self, conversation_id: str, text: str, keys: list[str], signature: list[list[Any]] | None,
                            file_signature: list[list[list[Any]]] | None, on_event: OnEvent) -> dict[str, Any]:
        """A send with the files staged under `keys` (issue 20): they go before the text, redacted with
        the same vault; with the preview's signatures (the text's, each file's), as send_previewed."""
        files = self._files(keys)
        expected = None if signature is None else _signature(signature)
        expected_files = None if file_signature is None else tuple(_signature(s) for s in _list_of(file_signature))
        return await self._begin(conversation_id, text, on_event, expected, files=files,
                                 expected_files=expected_files, keys=list(keys))

    def _files(self, keys: object) -> tuple[TurnAttachment, ...]:
        try:
            return AttachApi(self).take(keys)
        except AttachmentRefused as error:
            raise AppError("AttachmentRefused", error.message) from None

    async def edit_message(self, conversation_id: str, message_id: str, text: str,
                           on_event: OnEvent) -> dict[str, Any]:
        """A sent user turn changed and sent again (issue 18): the turns from it on stay as the
        previous version (switch_version brings them back); only the new one is sent."""
        def rework(conv: Conversation) -> _Rework:
            index = self._index_of(conv, message_id, "user")
            parent = branches.parent_at(conv, index)
            return _Rework(parent, branches.detach(conv, index), again=False)

        conv = self._conversation(conversation_id)
        files = _files_of(conv.messages[self._index_of(conv, message_id, "user")])  # an edit keeps the turn's files
        return await self._begin(conversation_id, text, on_event, None, rework, files=files)

    async def regenerate(self, conversation_id: str, message_id: str, on_event: OnEvent) -> dict[str, Any]:
        """Another reply to the user turn before the reply `message_id`: the reply and what follows it
        stay as a version; a last reply that failed or stopped with no text is replaced instead."""
        conv = self._conversation(conversation_id)
        index = self._index_of(conv, message_id, "assistant")
        if index == 0 or conv.messages[index - 1].role != "user" or not conv.messages[index - 1].replayable:
            raise AppError("NotFound", "this reply has no sent message to answer again")
        if target_of(self._provider_of(conv)).route == "net" and not self.egress.online():
            raise AppError("Offline", "This device is offline: the reply is kept as it is.")
        text = conv.messages[index - 1].content
        files = _files_of(conv.messages[index - 1])

        def rework(conv: Conversation) -> _Rework:
            at = self._index_of(conv, message_id, "assistant")
            parent = conv.messages[at - 1].id
            if at == len(conv.messages) - 1 and not conv.messages[at].content.strip():
                return _Rework(parent, branches.drop_last(conv), again=True)  # nothing said: nothing to keep
            return _Rework(parent, branches.detach(conv, at), again=True)

        return await self._begin(conversation_id, text, on_event, None, rework, files=files)

    async def switch_version(self, conversation_id: str, message_id: str, delta: int) -> dict[str, Any]:
        """Shows the version before (-1) or after (+1) the message's own, and everything after it."""
        conv = self._conversation(conversation_id)
        if conversation_id in self.sending:
            raise AppError("Busy", "a reply is still streaming in this conversation")
        if delta not in (-1, 1):
            raise AppError("BadRequest", "delta must be -1 or 1")
        try:
            branches.step(conv, message_id, delta)
        except ValueError as error:
            raise AppError("NotFound", str(error)) from None
        await self._save_conversation(conv)
        return conversation_view(conv)

    def _index_of(self, conv: Conversation, message_id: str, role: str) -> int:
        try:
            index = branches.index_of(conv, message_id)
        except ValueError as error:
            raise AppError("NotFound", str(error)) from None
        if conv.messages[index].role != role:
            raise AppError("BadRequest", f"message {message_id!r} is not a {role} turn")
        return index

    async def _begin(self, conversation_id: str, text: str, on_event: OnEvent,
                     expected: tuple[tuple[int, int, str], ...] | None,
                     rework: Callable[[Conversation], _Rework] | None = None, *,
                     files: tuple[TurnAttachment, ...] = (),
                     expected_files: tuple[tuple[tuple[int, int, str], ...], ...] | None = None,
                     keys: list[str] | None = None) -> dict[str, Any]:
        conv = self._conversation(conversation_id)
        if not isinstance(text, str) or (not text.strip() and not files):
            raise AppError("BadRequest", "empty message")
        if conversation_id in self.sending:
            raise AppError("Busy", "a reply is still streaming in this conversation")
        self.touch()
        sending = _Sending(keys=keys)
        self.sending[conversation_id] = sending
        turn = (files, expected_files)
        try:
            async with self.opened.lock_of(conversation_id):
                if rework is None:
                    return await self._send(conv, text, on_event, sending, expected, turn=turn)
                made = rework(conv)
                try:
                    return await self._send(conv, text, on_event, sending, expected, again=made.again, turn=turn)
                finally:
                    branches.finish(conv, made.parent, made.previous)
                    if self.account is not None:
                        await self._save_conversation(conv)
        finally:
            self.sending.pop(conversation_id, None)
            self.touch()

    async def _send(self, conv: Conversation, text: str, on_event: OnEvent, sending: _Sending,
                    expected: tuple[tuple[int, int, str], ...] | None = None, again: bool = False,
                    turn: tuple[tuple[TurnAttachment, ...], Any] = ((), None)) -> dict[str, Any]:
        account = self.opened
        provider = self._provider_of(conv)
        target = target_of(provider)
        if target.route == "net" and not self.egress.online():
            if again:  # regenerate checked it first: the device went offline since
                on_event({"type": "error", "kind": "offline", "message": "Offline: nothing was sent."})
                return {"status": "offline"}
            return await self._keep_draft(conv, text, on_event, turn[0], sending)
        egress = ClockedEgress(self.egress)
        now = self.host.now()
        _drop_drafts(conv)
        inp = self._send_input(conv, text, provider, now)
        inp.expected_spans = expected
        inp.again = again
        inp.attachments, inp.expected_attachment_spans = turn
        inp.cache = self.staging.detections if inp.attachments else None
        await ml.prepare_send(self, inp, text)
        inp.attachments = await file_spans(self, inp)
        saved_at = [now]
        errors: list[ErrorEvent] = []

        async def persist(stage: str) -> None:
            if stage == "turn":
                saving = time.perf_counter()
                await self._save_conversation(conv)
                egress.saving_s += time.perf_counter() - saving
                AttachApi(self).forget(sending.keys)  # the turn holds its files now
                on_event({"type": "saved", "message": message_view(conv.messages[-1])})
            elif self.host.now() - saved_at[0] >= PARTIAL_SAVE_MS:
                saved_at[0] = self.host.now()
                await self._save_conversation(conv)

        hooks = Hooks(persist, lambda t: on_event({"type": "delta", "text": t}), lambda: sending.stopped,
                      sending.calls, errors, neighbours=lambda query, k: ml.nearest_cards(self, query, k),
                      request=lambda step: on_event({"type": "request", "entry": self._note_request(
                          conv.id, "send", "message", step.request)}),
                      raw=lambda t: on_event({"type": "wire", "text": t}))
        before = len(conv.messages)
        try:
            outcome = await drive_send(send_flow(inp), egress, target, hooks)
        finally:
            for message in conv.messages[before:]:
                if message.role == "assistant" and message.model is None:
                    message.model = provider.model  # which model wrote it (issue 18: the page shows it)
                    message.provider = provider.id  # and at which provider: its price is that provider's
            if self.account is account:  # not locked meanwhile: what streamed so far is kept
                await self._save_conversation(conv)
        self.timings[conv.id] = egress.timings()
        return await self._after_send(conv, text, outcome, errors, sending, target.route, on_event, again)

    def _send_input(self, conv: Conversation, text: str, provider: Provider, now: int) -> SendInput:
        """The send's input. The bundled model gets a short prompt (local.py); a remote provider
        its configured context, and the account's memory index kept from one send to the next
        (rebuilding it costs more than the selection itself at 1,000 cards)."""
        account = self.opened
        document = account.document
        settings = document.settings
        inp = SendInput(conv, text, document.memory, provider.model, now, self.new_id,
                        options=settings.redact_options(),
                        system_prompt=instructions_for(conv, document.personas, settings.system_prompt),
                        lang=settings.ui_lang, tz_offset_minutes=settings.tz_offset_minutes,
                        context_tokens=provider.context_tokens)
        if provider.id == LOCAL_ID:
            shape = local_shape(document.memory)
            inp.context_tokens, inp.max_tokens, inp.store = shape.context_tokens, shape.max_tokens, shape.store
            if shape.store is document.memory:
                inp.index = account.memory_index()
        else:
            inp.index = account.memory_index()
        return inp

    async def _after_send(self, conv: Conversation, text: str, outcome: SendOutcome | None, errors: list[ErrorEvent],
                          sending: _Sending, route: str, on_event: OnEvent, again: bool = False) -> dict[str, Any]:
        if outcome is not None and outcome.status == "stale":
            preview = await self.preview(conv.id, text, None, sending.keys)
            on_event({"type": "error", "kind": "preview_changed", "message": outcome.reason, "preview": preview})
            return {"status": "stale", "preview": preview}
        if outcome is not None and outcome.status == "blocked":
            on_event({"type": "error", "kind": "redaction", "message": outcome.reason,
                      "message_view": message_view(outcome.user)})
            await self._save_conversation(conv)
            return {"status": "blocked", "reason": outcome.reason}
        reply = conv.messages[-1]
        error = errors[-1] if errors else None
        if error is not None and _never_reached(error, sending, reply, route):
            if again:  # the turn was sent before: it stays as it was, the earlier reply comes back
                conv.messages.pop()
                on_event({"type": "error", "kind": "offline", "message": "The provider could not be reached."})
                return {"status": "offline"}
            return await self._to_draft(conv, on_event)
        if outcome is None or outcome.status == "interrupted":
            kind = "aborted" if outcome is None or sending.stopped else (error.kind if error else reply.error)
            event: dict[str, Any] = {"type": "error", "kind": kind, "message": error.message if error else "Stopped.",
                                     "partial": message_view(reply)}
            if error is not None and error.retry_after is not None:
                event["retry_after"] = error.retry_after
            if error is not None and error.provider_message:
                event["provider_message"] = error.provider_message  # the page shows these words, not ours
            on_event(event)
            return {"status": "interrupted", "kind": kind}
        on_event({"type": "done", "message": message_view(reply)})
        self._turn_completed(conv, text)
        return {"status": "done"}

    async def _keep_draft(self, conv: Conversation, text: str, on_event: OnEvent,
                          files: tuple[TurnAttachment, ...] = (), sending: _Sending | None = None) -> dict[str, Any]:
        """Offline with a remote provider: nothing is redacted or sent; the text (and its files) kept as a draft."""
        _drop_drafts(conv)
        now = self.host.now()
        draft = Message(self.new_id(), "user", text, at=now, error="offline")
        draft.attachments = [AttachedFile(f.name, f.extracted.format, f.size, f.extracted.text, "", "", f.kind,
                                          f.warnings or f.extracted.warnings) for f in files]
        conv.messages.append(draft)
        conv.updated_at = max(conv.updated_at, now)
        conv.title = conv.title or note_title(text or " ".join(f.name for f in files))
        await self._save_conversation(conv)
        if sending is not None:
            AttachApi(self).forget(sending.keys)
        on_event({"type": "saved", "message": message_view(draft)})
        on_event({"type": "error", "kind": "offline", "message": "Offline: the message is kept as a draft."})
        return {"status": "offline"}

    async def _to_draft(self, conv: Conversation, on_event: OnEvent) -> dict[str, Any]:
        """The provider could not be reached at all: the empty reply goes, the user's turn stays
        as a draft (never replayed: the model did not see it)."""
        if conv.messages and conv.messages[-1].role == "assistant":
            conv.messages.pop()
        user = conv.messages[-1]
        user.error, user.redactions, user.wire, user.wire_memory = "offline", None, None, None
        user.attachments = [replace(a, wire_name="", wire="") for a in user.attachments]  # the model saw none
        await self._save_conversation(conv)
        on_event({"type": "error", "kind": "offline",
                  "message": "The provider could not be reached: the message is kept as a draft.",
                  "message_view": message_view(user)})
        return {"status": "offline"}

    async def preview(self, conversation_id: str | None, text: str,
                      spec: dict[str, Any] | None = None, keys: list[str] | None = None) -> dict[str, Any]:
        """What a send of `text` (with the files staged under `keys`) would mask now, computed as the
        send computes it (same options, memory, history and vault, the on-device NER included) and
        changing nothing. Without a conversation yet: as the first send of a new one (`spec`: its space)
        would."""
        if not isinstance(text, str):
            raise AppError("BadRequest", "the text to preview must be a text")
        conv = self._conversation(conversation_id) if conversation_id else self._draft_conversation(spec or {})
        files = self._files(keys)
        if not text.strip() and not files:
            return preview_view(text, _nothing_masked(text, conv), [], [])
        inp = self._send_input(conv, text, self._provider_of(conv), self.host.now())
        inp.attachments = files
        inp.cache = self.staging.detections if files else None
        await ml.prepare_send(self, inp, text)
        inp.attachments = await file_spans(self, inp)
        try:
            redacted = preview_turn(inp)
        except Exception as error:  # the send would fail closed on it too: say so, nothing is shown masked
            raise AppError("PreviewFailed",
                           f"The masking failed ({type(error).__name__}): nothing would be sent.") from None
        redaction = redacted.message
        signature = [list(item) for item in masked_spans(redaction)]
        # Only a conversation's own keep list can be toggled from the preview; fakes of a conversation
        # not created yet are not final (its vault key is drawn at creation): they are not shown.
        view = preview_view(text, redaction, list(conv.revealed_values) if conversation_id else [], signature)
        view["attachments"] = [attachment_preview(key, r) for key, r in zip(keys or [], redacted.attachments,
                                                                              strict=True)]
        view["file_signature"] = [[list(item) for item in spans] for spans in attachment_signature(redacted)]
        if not conversation_id:
            for span in view["spans"]:
                span["fake"] = None
            for item in view["attachments"]:
                item["wire_name"] = None
                for masked in item["masked"]:
                    masked["fake"] = None
        return view

    def _draft_conversation(self, spec: dict[str, Any]) -> Conversation:
        """The conversation a first send would create (never stored)."""
        settings = self.opened.document.settings
        return Conversation("preview", Vault.new(self.host.random_bytes(32), settings.mode),
                            space=spec.get("space") or None)

    async def restore_texts(self, conversation_id: str, texts: list[str]) -> list[str]:
        """Texts of a rendered reply (the page's text nodes, or a link target the user asked to see
        restored) with this conversation's fakes replaced by their real values: the page restores
        only what it shows as text (docs/web.md, "Replies, links and what the model saw")."""
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise AppError("BadRequest", "expected a list of texts")
        restorer = Restorer(self._conversation(conversation_id).vault)
        return [restorer.restore(t) if t.strip() else t for t in texts]

    async def wire_log(self, conversation_id: str) -> list[dict[str, Any]]:
        """Every request of this conversation sent since the account was unlocked, oldest first:
        sends (each model call of the tool loop) and memory extraction passes, with when and why."""
        self._conversation(conversation_id)
        return [dict(entry) for entry in self.requests_sent.get(conversation_id, [])]

    def _note_request(self, conversation_id: str, kind: str, why: str, request: Any) -> dict[str, Any]:
        log = self.requests_sent.setdefault(conversation_id, [])
        entry = {"kind": kind, "why": why, "at": self.host.now(), "request": request_view(request)}
        log.append(entry)
        del log[:-WIRE_LOG_MAX]
        return entry

    async def send_timings(self, conversation_id: str) -> dict[str, float]:
        """How long the last send of this conversation spent in the worker before its request was
        handed to the egress (`prepare_ms`, of which `save_ms` persisting the turn); {} if none left."""
        return dict(self.timings.get(conversation_id, {}))

    async def stop(self, conversation_id: str) -> None:
        sending = self.sending.get(conversation_id)
        if sending is not None:
            sending.stop()

    async def retry(self, conversation_id: str, on_event: OnEvent) -> dict[str, Any]:
        """Sends again what got no answer: the last user turn when it is a draft (or was refused), else
        a new version of the last reply (regenerate: the reply there is kept or, if empty, replaced)."""
        conv = self._conversation(conversation_id)
        if conversation_id in self.sending:
            raise AppError("Busy", "a reply is still streaming in this conversation")
        if conv.messages and conv.messages[-1].role == "assistant":
            return await self.regenerate(conversation_id, conv.messages[-1].id, on_event)
        index = next((i for i in range(len(conv.messages) - 1, -1, -1) if conv.messages[i].role == "user"), None)
        if index is None:
            raise AppError("NotFound", "nothing to retry")
        text = conv.messages[index].content
        files = _files_of(conv.messages[index])
        del conv.messages[index:]
        await self._save_conversation(conv)
        return await self._begin(conversation_id, text, on_event, None, files=files)

    def _provider_of(self, conv: Conversation) -> Provider:
        """The provider that answers `conv`, with the model picked for it (issue 18), if any."""
        wanted = conv.provider or self.opened.document.settings.default_provider or LOCAL_ID
        provider = next((p for p in self._providers() if p.id == wanted), local_provider())
        if conv.model and provider.id != LOCAL_ID:
            return dataclasses.replace(provider, model=conv.model)
        return provider

    # --- extraction ---------------------------------------------------------------------------

    def _log(self, kind: EventKind, conversation_id: str | None = None, **extra: Any) -> None:
        if self.account is None:
            return
        self.account.events.append(Event(kind, self.host.now(), conversation_id, **extra))
        self._replan()

    def _turn_completed(self, conv: Conversation, text: str) -> None:
        self._log("turn_completed", conv.id)
        if is_explicit_memory_ask(text):
            self._log("explicit_ask", conv.id)

    def _replan(self) -> None:
        account = self.account
        if account is None:
            return
        if self._plan_timer is not None:
            self._plan_timer.cancel()
            self._plan_timer = None
        now = self.host.now()
        summaries = [ConversationSummary(c.id, c.updated_at, len(c.messages), c.memory_watermark,
                                         any(m.pending for m in c.messages)) for c in account.document.conversations]
        due = plan(account.events, now, auto_extract=account.document.memory.settings.auto_extract,
                   conversations=summaries)
        for run in due.run_now:
            account.events.append(Event("run_started", now, run.conversation_id, run.mode, run.reason))
            self._spawn(self._extract(account, run))
        if due.wake_at is not None:
            self._plan_timer = self.host.call_later(max(0, due.wake_at - now), self._replan)

    async def _extract(self, account: _Account, run: DueRun) -> None:
        try:
            conv = account.document.conversation(run.conversation_id)
            if conv is not None:
                async with account.lock_of(conv.id):
                    await self._extract_locked(account, conv, run)
        finally:
            if self.account is account:
                self._log("run_finished", run.conversation_id)

    async def _extract_locked(self, account: _Account, conv: Conversation, run: DueRun) -> None:
        document = account.document
        options = conversation_options(conv, document.settings.redact_options())
        target = target_of(self._provider_of(conv))
        inp = extraction_input(conv, document.memory, options, now=self.host.now(), new_id=self.new_id,
                               explicit=run.mode == "explicit", ui_language=document.settings.ui_lang,
                               model=target.model)

        def show_pending(call: CallModel) -> None:
            self._note_request(conv.id, "extraction", run.reason, call.request)  # idle, flush, startup, explicit
            message = conv.message(call.noting) if call.noting else None
            if message is not None and not message.memory_noted_pending:
                message.memory_noted_pending = True
                self.host.notify({"type": "memory", "conversation_id": conv.id, "message": message_view(message)})

        outcome = await drive_extraction(extraction_flow(inp), self.egress, target, show_pending)
        if self.account is not account:
            return  # locked meanwhile: nothing of it is kept
        apply_extraction(conv, document.memory, outcome, now=self.host.now())
        await self._save_conversation(conv)
        if outcome.merge is not None:
            await self._save(rec.MEMORY)
        feedback = outcome.feedback
        target_message = conv.message(feedback.message_id) if feedback and feedback.message_id else None
        self.host.notify({"type": "memory", "conversation_id": conv.id, "status": outcome.status,
                          "journal": outcome.journal,
                          "message": message_view(target_message) if target_message else None})


# --- helpers ----------------------------------------------------------------------------------


def _mark_cut_replies(conv: Conversation) -> bool:
    """A reply still pending when the account was loaded was cut by a crash or a reload."""
    changed = False
    for message in conv.messages:
        if message.pending:
            message.pending, message.interrupted = False, True
            message.error = message.error or "interrupted"
            changed = True
        if message.memory_noted_pending:
            message.memory_noted_pending = False
            changed = True
    return changed


def _files_of(message: Message) -> tuple[TurnAttachment, ...]:
    """The files a stored user turn carries, as a new send of it takes them."""
    return tuple(turn_attachment(a) for a in message.attachments)


def _list_of(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise AppError("BadRequest", "expected a list")
    return value


def _signature(value: object) -> tuple[tuple[int, int, str], ...]:
    """A preview's signature back from the page: [[start, end, kind], ...] (code points)."""
    try:
        return tuple(sorted((int(s), int(e), str(k)) for s, e, k in value))  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise AppError("BadRequest", "a preview signature is a list of [start, end, kind]") from None


def _nothing_masked(text: str, conv: Conversation) -> Redaction:
    return Redaction(text, conv.vault, ())


def _drop_drafts(conv: Conversation) -> None:
    """A new send replaces an unsent draft (the page put its text back in the composer)."""
    conv.messages = [m for m in conv.messages if not is_draft(m)]


def _never_reached(error: ErrorEvent, sending: _Sending, reply: Message, route: str) -> bool:
    """A network failure before any byte of any answer: the provider was not reached at all."""
    return (route == "net" and error.kind == "network" and not sending.stopped and reply.role == "assistant"
            and not reply.content and not any(call.received for call in sending.calls))


def _error_view(error: ErrorEvent) -> dict[str, Any]:
    view: dict[str, Any] = {"kind": error.kind, "message": error.message}
    if error.status is not None:
        view["status"] = error.status
    if error.retry_after is not None:
        view["retry_after"] = error.retry_after
    return view


def _choice(value: object, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise AppError("BadRequest", f"{what} must be one of {', '.join(allowed)}")
    return str(value)


def _minutes(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 24 * 60:
        raise AppError("BadRequest", "autolock_minutes must be a whole number of minutes (0: never)")
    return value


def _instructions(value: object) -> str:
    try:
        return check_instructions(value, "the account's system prompt")
    except ValueError as error:
        raise AppError("BadRequest", str(error)) from None


def _strings(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AppError("BadRequest", "expected a list of texts")
    return [v for v in value if v.strip()]


def _update_conversation_field(app: App, conv: Conversation, key: str, value: Any) -> None:
    if key == "title":
        conv.title = str(value)
    elif key == "mode":
        mode = _choice(value, MODES, "mode")
        if mode != conv.vault.mode and any(m.redactions is not None for m in conv.messages):
            raise AppError("Pinned", "the mode is pinned at the first send")
        conv.vault = Vault.new(conv.vault.key, mode)
    elif key == "memory_off":
        conv.memory_off = bool(value)
    elif key == "keep":
        conv.revealed_values = _strings(value)
    elif key == "always_mask":
        conv.forced_redactions = [(v, "") for v in _strings(value)]
    elif key == "space":
        conv.space = None if value is None else str(value)
    elif key == "provider_id":
        provider = None if value is None else app._provider(str(value)).id
        if provider != conv.provider:
            conv.model = None  # another provider's model name means nothing here (a "model" in the patch follows)
        conv.provider = provider
    elif key == "model":
        conv.model = _model_name(value)
    else:
        raise AppError("BadRequest", f"unknown conversation field {key!r}")


def _model_name(value: Any) -> str | None:
    """A conversation's model: a provider's model id as listed or typed; None or "" for the provider's own."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value.strip()) > MODEL_NAME_MAX:
        raise AppError("BadRequest", f"a model name is a text of at most {MODEL_NAME_MAX} characters")
    return value.strip() or None


def _tested_key(provider: Provider) -> tuple[str, str, str]:
    """What a successful test proved works: the kind, the address and the key."""
    return (provider.preset, provider.base_url.rstrip("/"), provider.api_key)
