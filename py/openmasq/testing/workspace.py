"""An in-memory workspace for tests: a state document, conversations, and a driver that runs the
send and extraction flows against a scripted model while recording everything sent on the wire."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..attach import extract as read_file
from ..chat.attachments import TurnAttachment
from ..chat.codecs import StreamEvent
from ..chat.codecs.openai import request_body
from ..chat.conversation import Conversation
from ..chat.drive import ReferenceDriver
from ..chat.extraction import apply_extraction, extraction_input
from ..chat.instructions import instructions_for
from ..chat.send import SendInput, SendOutcome, conversation_options, send_flow
from ..chat.steps import CallModel, PersistTurn
from ..memory.extract import ExtractionOutcome, is_explicit_memory_ask
from ..memory.extract import run_extraction as extraction_flow
from ..memory.model import Card, MemoryStore
from ..memory.normalise import normalise
from ..memory.ops import confirm_card, create_card, delete_card
from ..redact import RedactOptions, Vault, replay_for_model
from ..store import Settings, StateDocument, document_to_json
from .scripted import ScriptedModel


def attached(data: bytes, name: str, media_type: str = "") -> TurnAttachment:
    """A file read as the app reads one (openmasq.attach.extract), ready for `Workspace.send`."""
    return TurnAttachment(name, read_file(data, name, media_type), len(data))


START = 1_767_225_600_000  # 2026-01-01T00:00:00Z, in ms
TURN_MS = 60_000  # the workspace clock moves one minute per send


@dataclass(frozen=True)
class WireRecord:
    """One request the model received, as the JSON body a provider would get."""

    kind: Literal["chat", "extract"]
    conversation_id: str
    body: str


@dataclass
class SentTurn:
    """What one `Workspace.send` did: the send outcome, what the page displayed, the extraction."""

    outcome: SendOutcome
    displayed: str
    extraction: ExtractionOutcome | None = None
    persisted_before_request: bool = False

    @property
    def reply(self) -> str:
        return self.outcome.reply.content if self.outcome.reply else ""


@dataclass
class Workspace:
    model: ScriptedModel = field(default_factory=ScriptedModel)
    document: StateDocument = field(default_factory=StateDocument)
    now: int = START
    seed: int = 7
    model_name: str = "scripted-model"
    context_tokens: int | None = None
    wire: list[WireRecord] = field(default_factory=list)
    saved: list[str] = field(default_factory=list)  # the document as persisted at each PersistTurn

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)
        self._ids = 0

    # --- state --------------------------------------------------------------------------------

    @property
    def store(self) -> MemoryStore:
        return self.document.memory

    @property
    def settings(self) -> Settings:
        return self.document.settings

    def new_id(self) -> str:
        self._ids += 1
        return f"id{self._ids:04d}"

    def conversation(self, title: str = "", *, space: str | None = None, memory_off: bool = False) -> Conversation:
        key = bytes(self._random.getrandbits(8) for _ in range(32))
        conv = Conversation(self.new_id(), Vault.new(key), title=title, space=space, created_at=self.now,
                            updated_at=self.now, memory_off=memory_off)
        self.document.conversations.insert(0, conv)
        return conv

    def options(self, conv: Conversation) -> RedactOptions:
        return conversation_options(conv, self.settings.redact_options())

    def note(self, entity: str, facts: str = "", *, category: str = "personne", aliases: Iterable[str] = (),
             scope: str | None = None) -> Card:
        """A card written by hand (confirmed)."""
        card = create_card(self.store, card_id=self.new_id(), entity=entity, now=self.now, category=category,
                           facts=facts, aliases=aliases, scope=scope)
        if card is None:
            raise ValueError(f"no card for the empty entity {entity!r}")
        return card

    def card(self, name: str) -> Card | None:
        """The card whose entity or alias normalises like `name`."""
        key = normalise(name)
        for card in self.store.cards:
            if key in {normalise(card.entity), *(normalise(a) for a in card.aliases)}:
                return card
        return None

    def confirm(self, name: str) -> Card:
        """The user confirms a proposed card in the review flow."""
        card = self.card(name)
        if card is None:
            raise KeyError(name)
        return confirm_card(self.store, card.id, now=self.now)

    def delete(self, name: str) -> None:
        card = self.card(name)
        if card is None:
            raise KeyError(name)
        delete_card(self.store, card.id, now=self.now)

    # --- the model speaks fakes ----------------------------------------------------------------

    def _speak(self, conv: Conversation) -> ScriptSpeak:
        return ScriptSpeak(conv.vault, self.options(conv))

    # --- flows ---------------------------------------------------------------------------------

    def send(self, conv: Conversation, text: str, *, extract: bool | None = None,
             close_after_deltas: int | None = None, attachments: Sequence[TurnAttachment] = ()) -> SentTurn:
        """One send, driven like the worker drives it; then, like the app's timers, an extraction
        when the message is an explicit ask (or `extract` says so, or silent extraction is on).
        `attachments`: files sent with the text (`attached(data, name)` reads one)."""
        inp = SendInput(conv, text, self.store, self.model_name, self.now, self.new_id,
                        options=self.settings.redact_options(),
                        system_prompt=instructions_for(conv, self.document.personas, self.settings.system_prompt),
                        lang=self.settings.ui_lang, tz_offset_minutes=self.settings.tz_offset_minutes,
                        context_tokens=self.context_tokens, attachments=tuple(attachments))
        turn = self._drive_send(conv, inp, close_after_deltas)
        self.now += TURN_MS
        wanted = extract if extract is not None else (
            is_explicit_memory_ask(text) or self.store.settings.auto_extract)
        if wanted and turn.outcome.status != "blocked":
            turn.extraction = self.extract(conv)
        return turn

    def _drive_send(self, conv: Conversation, inp: SendInput, close_after: int | None) -> SentTurn:
        requested: list[bool] = []
        persisted: list[bool] = []

        def persist(_step: PersistTurn) -> None:
            self.saved.append(document_to_json(self.document))
            persisted.append(not requested)

        def stop() -> bool:
            return close_after is not None and len(driver.shown) >= close_after  # shown: the non-empty deltas

        def model(call: CallModel) -> list[StreamEvent]:
            requested.append(True)
            return self._answer(conv, call)

        driver = ReferenceDriver(model, persist=persist, stop=stop)
        outcome = driver.run(send_flow(inp))
        shown = "".join(driver.shown)
        if outcome is None:  # closed after `close_after` deltas
            return SentTurn(_outcome_after_close(conv, inp), shown, persisted_before_request=any(persisted))
        return SentTurn(outcome, shown, persisted_before_request=any(persisted))

    def _answer(self, conv: Conversation, call: CallModel) -> list[StreamEvent]:
        """The scripted model's answer to `call`, the request recorded as it went on the wire."""
        if call.purpose == "message":
            body = json.dumps(request_body(call.request), ensure_ascii=False)
            self.wire.append(WireRecord("chat", conv.id, body))
        else:  # an extraction call: its prompt and the turns it reads
            messages = [{"role": m.role, "content": m.content} for m in call.request.messages]
            body = json.dumps({"system": call.request.system, "messages": messages}, ensure_ascii=False)
            self.wire.append(WireRecord("extract", conv.id, body))
        return self.model.answer(call, self._speak(conv))

    def extract(self, conv: Conversation, *, explicit: bool | None = None) -> ExtractionOutcome:
        """An extraction run over the conversation's new turns, merged into the store, then the
        store's automatic cleanup, as the app does after every memory change."""
        inp = extraction_input(conv, self.store, self.options(conv), now=self.now, new_id=self.new_id,
                               explicit=explicit, model=self.model_name)
        outcome = ReferenceDriver(lambda call: self._answer(conv, call)).run(extraction_flow(inp))
        assert outcome is not None  # an extraction run is never stopped
        apply_extraction(conv, self.store, outcome, now=self.now)
        return outcome

    # --- the wire ------------------------------------------------------------------------------

    def wire_text(self, kind: str | None = None) -> str:
        return "\n".join(r.body for r in self.wire if kind is None or r.kind == kind)

    def real_values(self) -> set[str]:
        """Every real value the account holds: card names and aliases, and every conversation's
        vault values except per-word aliases (a surname typed alone before its person was known
        is not a value the engine could know); at least 3 characters."""
        values: set[str] = set()
        for card in self.store.cards:
            values.update([card.entity, *card.aliases])
        for conv in self.document.conversations:
            values.update(real for sub, real in conv.vault.entries.items() if sub not in conv.vault.aliases)
        return {v.strip() for v in values if len(v.strip()) >= 3}

    def leaked(self, values: Iterable[str] | None = None) -> list[str]:
        """The real values found on the wire (empty: nothing leaked)."""
        wire = self.wire_text()
        return sorted(v for v in (self.real_values() if values is None else values) if appears_in(v, wire))

    def assert_wire_clean(self) -> None:
        leaked = self.leaked()
        assert not leaked, f"real values on the wire: {leaked}"


@dataclass(frozen=True)
class ScriptSpeak:
    """real -> fake through a conversation's vault, as the model (which only knows fakes) writes."""

    vault: Vault
    options: RedactOptions

    def __call__(self, text: str) -> str:
        return replay_for_model(text, self.vault.copy(), self.options) if text else text


def appears_in(value: str, text: str) -> bool:
    """A single word counts on its exact case (the common noun "pierre" is not Pierre); a longer
    name case-insensitively. Whole words only."""
    flags = re.IGNORECASE if len(value.split()) > 1 else 0
    return re.search(r"(?<!\w)" + re.escape(value) + r"(?!\w)", text, flags) is not None


def _outcome_after_close(conv: Conversation, inp: SendInput) -> SendOutcome:
    """A closed flow returns nothing: rebuild the outcome from what it left in the conversation."""
    user = next(m for m in reversed(conv.messages) if m.role == "user")
    reply = conv.messages[-1] if conv.messages[-1].role == "assistant" else None
    return SendOutcome("interrupted", "aborted", user, reply)
