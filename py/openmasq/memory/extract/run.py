"""The extraction run (reference 3.8, 3.10), sans-I/O: a generator that yields model calls and
receives replies, from a conversation's new turns to resolved facts merged into the store."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from ...chat.codecs import ChatRequest
from ...chat.codecs import Message as WireMessage
from ...chat.steps import Answer, CallModel, Step, whole_reply
from ...redact.egress import carries_real_value, leaks, real_values
from ...redact.options import RedactOptions
from ...redact.replay import replay_for_model
from ...redact.vault import Vault
from ..keys import card_keys
from ..model import Evidence, MemoryStore, Origin, ResolvedExtraction
from ..normalise import key_in_text, normalise
from ..refusals import is_entity_refused
from .explicit import EXPLICIT_LOOKBACK, is_explicit_memory_ask
from .gate import worth_extracting
from .parse import ParsedExtraction, parse_extraction
from .prompt import Language, corrective_messages, fact_limit, join_turns, label_turn, system_prompt
from .resolve import resolve_extraction
from .sweep import EXPLICIT_MAX_PASSES, SILENT_MAX_PASSES, SweepResult, sweep_extraction

# Egress: the model reads the conversation replayed through its vault with the send's full
# substitution (replay_for_model: reference 12 item 15a), user turns only when their redaction
# completed (item 15b), names already in memory only as their fakes. Every request is checked for
# real values before it is yielded (redact/egress.py, the send's own postcondition); one that
# carries a real value is not sent. A call is the send's step, CallModel (chat/steps.py), streamed
# (the only format the local model answers) and read whole.

CALL_TIMEOUT_S = 60.0  # the shell enforces it; a timeout reply counts as "unreachable"
CALL_TEMPERATURE = 0.0
PROFILE_SENTINEL = "profile"  # in feedback ids: the profile changed

Status = Literal["skipped", "gated", "blocked", "unreachable", "illegible", "nothing", "noted"]


@dataclass(frozen=True)
class Feedback:
    """What an explicit ask shows on the assistant message it answers. `count` 0 with `failed`
    False means "nothing durable to remember", not a failure (reference 12 item 0)."""

    message_id: str | None
    count: int = 0
    created_ids: tuple[str, ...] = ()
    updated_ids: tuple[str, ...] = ()
    pending: bool = False
    failed: bool = False


@dataclass(frozen=True)
class ExtractionMessage:
    """A conversation message as the extractor needs it. `content` is the REAL text;
    `redactions` is None when the turn's redaction did not complete (never replayed)."""

    id: str
    role: Literal["system", "user", "assistant"]
    content: str
    redactions: int | None = None
    span_kinds: tuple[str, ...] = ()
    pending: bool = False


class MergeResult(Protocol):
    @property
    def created_ids(self) -> Sequence[str]: ...

    @property
    def updated_ids(self) -> Sequence[str]: ...

    @property
    def profile_changed(self) -> bool: ...


class MergeFunction(Protocol):
    def __call__(
        self,
        store: MemoryStore,
        resolved: ResolvedExtraction,
        *,
        now: int,
        origin: Origin,
        evidence: Evidence,
        scope: str | None,
    ) -> MergeResult: ...


@dataclass
class ExtractionInput:
    conversation_id: str
    messages: Sequence[ExtractionMessage]
    watermark: int
    vault: Vault  # the conversation's (fake -> real); not modified, see ExtractionOutcome.vault
    store: MemoryStore  # the merge writes into it
    now: int
    new_id: Callable[[], str]
    explicit: bool | None = None  # None: an explicit ask in the last user message decides
    memory_off: bool = False
    auto_extract: bool = False
    ui_language: Language = "fr"
    scope: str | None = None
    redact_options: RedactOptions = field(default_factory=RedactOptions)  # the conversation's send options
    model: str = ""  # the conversation's model: the requests name it


@dataclass(frozen=True)
class ExtractionOutcome:
    status: Status
    reason: str
    watermark: int  # never lower than the input's
    explicit: bool
    resolved: ResolvedExtraction | None = None
    merge: MergeResult | None = None
    feedback: Feedback | None = None  # explicit runs only
    journal: str | None = None
    calls: tuple[CallModel, ...] = ()  # exactly what was yielded, in order
    passes: int = 0
    truncated: bool = False
    vault: Vault | None = None  # after replay (spelling variants recorded): the shell keeps it

    @property
    def count(self) -> int:
        return len(self.resolved.facts) if self.resolved else 0

    def sent_texts(self) -> list[str]:
        return [text for call in self.calls for text in call.request.texts()]


# --- what to read -----------------------------------------------------------------------------


def is_replayable(message: ExtractionMessage) -> bool:
    """A user turn reaches the extractor only when its redaction completed (reference 12 item 15b)."""
    return message.redactions is not None


def detect_explicit(messages: Sequence[ExtractionMessage]) -> bool:
    """The last user message is an explicit memory ask (and may be read at all)."""
    for message in reversed(messages):
        if message.role == "user":
            return is_replayable(message) and is_explicit_memory_ask(message.content)
    return False


def readable_turns(messages: Sequence[ExtractionMessage], start: int, *, explicit: bool) -> list[ExtractionMessage]:
    """The turns from `start` the model may read: replayable user turns; in explicit mode also
    the assistant's replies, except one answering a user turn that is not replayable."""
    out: list[ExtractionMessage] = []
    answered_turn_ok = True
    for index, message in enumerate(messages):
        if message.role == "user":
            answered_turn_ok = is_replayable(message)
        if index < start or not message.content.strip():
            continue
        reads_role = message.role == "user" or (message.role == "assistant" and explicit and not message.pending)
        if reads_role and answered_turn_ok:
            out.append(message)
    return out


def feedback_target(messages: Sequence[ExtractionMessage]) -> str | None:
    """The last settled assistant message: the one an explicit ask's result is pinned to."""
    for message in reversed(messages):
        if message.role == "assistant" and not message.pending:
            return message.id
    return None


# --- egress -----------------------------------------------------------------------------------


def exclusion_names(store: MemoryStore, vault: Vault, real_text: str, options: RedactOptions) -> list[str]:
    """Names already in memory, for the prompt's "already in memory" clause, AS THEIR FAKES:
    only cards mentioned in the text read (others cannot be extracted anyway), never a refused
    or rejected one, and only when the conversation's vault masks the name; a name without a
    fake is left out, never sent real."""
    norm_real = normalise(real_text)
    reals = real_values(vault, options)
    out: list[str] = []
    for card in store.cards:
        if card.status == "rejected" or is_entity_refused(store, card.entity):
            continue
        keys = card_keys(card)
        if not any(key_in_text(norm_real, key) for key in keys):
            continue
        fake = replay_for_model(card.entity, vault, options).strip()
        if not fake or any(key_in_text(normalise(fake), key) for key in keys):
            continue
        if carries_real_value(fake, reals | {card.entity, *card.aliases}):
            continue
        out.append(fake)
    return out


# --- the flow ---------------------------------------------------------------------------------


@dataclass
class _Run:
    """State shared by the passes of one run."""

    inp: ExtractionInput
    explicit: bool
    vault: Vault
    wire: str
    reals: set[str]
    pending: Feedback | None
    calls: list[CallModel] = field(default_factory=list)
    failure: str | None = None  # why the last pass gave nothing: unreachable, illegible, blocked

    @property
    def language(self) -> Language:
        return self.inp.ui_language


def _safe(call: CallModel, run: _Run) -> bool:
    return not leaks(call.request.texts(), run.reals)


def _call(run: _Run, system: str, messages: tuple[WireMessage, ...], purpose: Literal["extract", "retry"],
          pass_number: int) -> CallModel:
    """One request to the conversation's model, streamed; at temperature 0 and with its own timeout."""
    request = ChatRequest(run.inp.model, messages, system, (), CALL_TEMPERATURE, None, stream=True)
    return CallModel(request, len(run.calls) + 1, purpose, pass_number, CALL_TIMEOUT_S,
                     noting=run.pending.message_id if run.pending else None)


def _one_pass(
    run: _Run, exclude: list[str], pass_number: int
) -> Generator[Step, Answer, ParsedExtraction | None]:
    """One pass: a call, and after an illegible reply one corrective retry."""
    limit = fact_limit(run.explicit)
    system = system_prompt(explicit=run.explicit, exclude=exclude, language=run.language)
    call = _call(run, system, (WireMessage("user", run.wire),), "extract", pass_number)
    for attempt in range(2):
        if not _safe(call, run):
            run.failure = "blocked"
            return None
        run.calls.append(call)
        reply = yield from whole_reply(call)
        if reply.failed or reply.text is None:
            run.failure = "unreachable"
            return None
        parsed = parse_extraction(reply.text, limit)
        if parsed is not None:
            run.failure = None
            return parsed
        run.failure = "illegible"
        if attempt == 0:
            # The faulty reply goes back re-faked: if the model ever wrote a real value, it leaves masked.
            tail = replay_for_model(reply.text[-4000:], run.vault, run.inp.redact_options)
            corrective = corrective_messages(run.wire, tail, run.language)
            call = _call(run, system, tuple(WireMessage(m["role"], m["content"]) for m in corrective), "retry",
                         pass_number)
    return None


def _sweep(run: _Run, known: list[str]) -> Generator[Step, Answer, SweepResult]:
    max_passes = EXPLICIT_MAX_PASSES if run.explicit else SILENT_MAX_PASSES
    sweep = sweep_extraction(limit=fact_limit(run.explicit), max_passes=max_passes, known=known)
    exclude = next(sweep)
    pass_number = 1
    while True:
        parsed = yield from _one_pass(run, exclude, pass_number)
        try:
            exclude = sweep.send(parsed)
        except StopIteration as stop:
            result: SweepResult = stop.value
            return result
        pass_number += 1


def _default_merge() -> MergeFunction:
    from ..merge import merge_extraction  # imported late: the store side is optional for tests

    return merge_extraction


@dataclass(frozen=True)
class _Words:
    illegible: str
    unreachable: str
    blocked: str
    nothing: str
    fact: tuple[str, str]
    passes: tuple[str, str]
    profile: str
    truncated: str

    def failure(self, status: Status) -> str:
        return {"illegible": self.illegible, "unreachable": self.unreachable, "blocked": self.blocked}[status]


_JOURNAL = {
    "fr": _Words(
        illegible="réponse du modèle illisible (deux essais) — rien noté",
        unreachable="modèle injoignable — rien noté, nouvel essai plus tard",
        blocked="requête bloquée : une valeur réelle y figurait — rien envoyé",
        nothing="rien de durable à retenir",
        fact=("fait", "faits"), passes=("passe", "passes"), profile="profil", truncated="tronqué",
    ),
    "en": _Words(
        illegible="the model's reply was illegible (two tries) — nothing noted",
        unreachable="model unreachable — nothing noted, will retry later",
        blocked="request blocked: it carried a real value — nothing sent",
        nothing="nothing durable to remember",
        fact=("fact", "facts"), passes=("pass", "passes"), profile="profile", truncated="truncated",
    ),
}


def _plural(n: int, forms: tuple[str, str]) -> str:
    return f"{n} {forms[0] if n == 1 else forms[1]}"


def journal_line(language: Language, status: Status, *, facts: int = 0, profile: bool = False,
                 passes: int = 0, truncated: bool = False) -> str | None:
    """The debug-journal line of a run: "3 faits + profil · 2 passes · tronqué"."""
    words = _JOURNAL[language]
    if status in ("illegible", "unreachable", "blocked"):
        return words.failure(status)
    if status not in ("nothing", "noted"):
        return None
    head = _plural(facts, words.fact) + (f" + {words.profile}" if profile else "")
    if status == "nothing" and not profile:
        head = words.nothing
    tail = f" · {words.truncated}" if truncated else ""
    return f"{head} · {_plural(passes, words.passes)}{tail}"


def _skip(inp: ExtractionInput, explicit: bool) -> str | None:
    """Why the run does nothing at all (no call, watermark untouched), or None to go on."""
    if not explicit and not inp.auto_extract:
        return "auto-extract-off"
    if not explicit and inp.memory_off:
        return "memory-off"  # an explicit ask is honoured even in a no-memory conversation
    if min(inp.watermark, len(inp.messages)) >= len(inp.messages):
        return "no-new-message"
    if any(message.pending for message in inp.messages):
        return "pending-message"
    return None


def _window(inp: ExtractionInput, explicit: bool) -> list[ExtractionMessage]:
    """The turns this run reads: from the watermark, or 6 messages below it for an explicit ask."""
    start = min(inp.watermark, len(inp.messages))
    return readable_turns(inp.messages, max(0, start - EXPLICIT_LOOKBACK) if explicit else start, explicit=explicit)


def _worth_a_call(turns: list[ExtractionMessage], explicit: bool) -> bool:
    users = [m for m in turns if m.role == "user"]
    if not users:
        return False
    kinds = [kind for m in users for kind in m.span_kinds]
    return explicit or worth_extracting([m.content for m in users], kinds)


@dataclass(frozen=True)
class _Wire:
    """What the model reads (labelled in explicit mode), the same without labels (the pseudonym
    guard's view) and the real text it stands for (the anchor)."""

    prompt: str
    plain: str
    real: str


def _wire(turns: list[ExtractionMessage], vault: Vault, inp: ExtractionInput, explicit: bool) -> _Wire:
    replayed = [replay_for_model(m.content, vault, inp.redact_options) for m in turns]
    labelled = [label_turn(m.role, text, inp.ui_language) for m, text in zip(turns, replayed, strict=True)]
    prompt = join_turns(labelled if explicit else replayed)
    return _Wire(prompt, join_turns(replayed), join_turns([m.content for m in turns]))


def _failed(run: _Run, result: SweepResult, target: str | None) -> ExtractionOutcome:
    """Nothing legible: unreachable or blocked runs try again later (watermark kept); two
    illegible replies move on (watermark advanced). An explicit ask reports the failure."""
    status: Status = "blocked" if run.failure == "blocked" else (
        "illegible" if run.failure == "illegible" else "unreachable")
    inp = run.inp
    watermark = max(inp.watermark, len(inp.messages)) if status == "illegible" else inp.watermark
    return ExtractionOutcome(
        status, status, watermark, run.explicit, feedback=Feedback(target, failed=True) if run.explicit else None,
        journal=journal_line(inp.ui_language, status), calls=tuple(run.calls), passes=result.passes, vault=run.vault,
    )


def _explicit_feedback(target: str | None, resolved: ResolvedExtraction, merged: MergeResult | None) -> Feedback:
    """Count 0 without `failed` is "nothing durable to remember"; "profile" marks a profile change."""
    if merged is None:
        return Feedback(target, count=len(resolved.facts))
    extra = (PROFILE_SENTINEL,) if merged.profile_changed else ()
    return Feedback(target, count=len(resolved.facts), created_ids=(*merged.created_ids, *extra),
                    updated_ids=tuple(merged.updated_ids))


def _resolved(
    run: _Run, result: SweepResult, wire: _Wire, turns: list[ExtractionMessage], target: str | None,
    merge: MergeFunction | None,
) -> ExtractionOutcome:
    """Resolve, merge when there is anything, advance the watermark (even for nothing durable)."""
    inp = run.inp
    resolved = resolve_extraction(
        ParsedExtraction(result.facts, result.profile), run.vault, wire.real,
        allow_notes=run.explicit, wire_text=wire.plain, new_id=inp.new_id,
    )
    merged: MergeResult | None = None
    if resolved.facts or resolved.profile:
        merged = (merge or _default_merge())(
            inp.store, resolved, now=inp.now, origin="auto-explicit" if run.explicit else "auto-silent",
            evidence=Evidence(inp.conversation_id, tuple(m.id for m in turns)), scope=inp.scope,
        )
    status: Status = "noted" if merged is not None else "nothing"
    journal = journal_line(inp.ui_language, status, facts=len(resolved.facts),
                           profile=bool(merged and merged.profile_changed), passes=result.passes,
                           truncated=result.truncated)
    return ExtractionOutcome(
        status, status, max(inp.watermark, len(inp.messages)), run.explicit, resolved=resolved, merge=merged,
        feedback=_explicit_feedback(target, resolved, merged) if run.explicit else None, journal=journal,
        calls=tuple(run.calls), passes=result.passes, truncated=result.truncated, vault=run.vault,
    )


def run_extraction(
    inp: ExtractionInput, *, merge: MergeFunction | None = None
) -> Generator[Step, Answer, ExtractionOutcome]:
    """Extract durable facts from the conversation's new turns and merge them into the store
    (`merge` defaults to memory.merge.merge_extraction). Yields the send flow's steps (chat/steps.py):
    a CallModel for each request, then a ReplyDelta("") for each further event of its stream (nothing
    to show: the reply is read whole); returns the outcome: new watermark, facts, merge, feedback,
    journal line, requests sent."""
    explicit = inp.explicit if inp.explicit is not None else detect_explicit(inp.messages)
    reason = _skip(inp, explicit)
    if reason is not None:
        return ExtractionOutcome("skipped", reason, inp.watermark, explicit)
    turns = _window(inp, explicit)
    if not _worth_a_call(turns, explicit):
        return ExtractionOutcome("gated", "not-worth-a-call", max(inp.watermark, len(inp.messages)), explicit)

    vault = inp.vault.copy()  # replay records spelling variants: the outcome hands this copy back
    wire = _wire(turns, vault, inp, explicit)
    known = exclusion_names(inp.store, vault, wire.real, inp.redact_options)
    target = feedback_target(inp.messages) if explicit else None
    pending = Feedback(target, pending=True) if explicit else None
    run = _Run(inp, explicit, vault, wire.prompt, real_values(vault, inp.redact_options), pending)
    result = yield from _sweep(run, known)
    if not result.legible:
        return _failed(run, result, target)
    return _resolved(run, result, wire, turns, target, merge)
