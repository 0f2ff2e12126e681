"""The send flow, sans-I/O (design.md; reference 6.7-6.8, 7, 9.12-9.14): memory selected on real
values, every text pseudonymised before anything leaves, the reply restored as it streams."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from ..attach import Attachment, Redacted, redact_with_attachments
from ..memory.model import MemoryStore
from ..memory.ops import note_title
from ..memory.search import (
    SEARCH_MAX,
    TOOL_NAME,
    memory_search_tool,
    nothing_found,
    search_memory,
    search_query_of,
    search_result_for_model,
    search_tool_offered,
)
from ..memory.select import MemoryIndex, Selection, forced_for_text, select_memory, to_redact_forced
from ..memory.semantic import Neighbour, SemanticSearch
from ..redact import (
    Forced,
    Redaction,
    RedactionError,
    RedactOptions,
    SpanCache,
    StreamRestorer,
    Vault,
    pseudonymise,
    replay_for_model,
    restore_args,
)
from ..redact.collisions import MAX_COLLISION_ROUNDS, rename_substitutes, renamed_substitutes
from ..redact.egress import leaks, real_values
from ..redact.spans import Span
from .attachments import (
    TurnAttachment,
    attached_file,
    replayed_images,
    replayed_parts,
    spans_by_text,
    wire_images,
    wire_part,
)
from .branches import replayable_turns
from .codecs import (
    ChatRequest,
    Done,
    ErrorEvent,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallAccumulator,
    ToolCallDelta,
    ToolSpec,
    Usage,
)
from .codecs import Message as WireMessage
from .context import DEFAULT_REPLY_RESERVE, trim_history
from .conversation import Conversation, MemorySkip, Message, ToolUse
from .steps import Answer, CallModel, FindNeighbours, PersistTurn, ReplyDelta, Step

MAX_MODEL_CALLS = 4  # per send: the tool loop is bounded; the last call is made without tools
UNKNOWN_TOOL = "Outil inconnu : seul memory_search est disponible."

# "stale": the composer's preview showed another masking than the send would make (nothing was sent).
Status = Literal["done", "blocked", "interrupted", "stale"]


# --- input and outcome ---------------------------------------------------------------------------


@dataclass
class SendInput:
    conversation: Conversation  # mutated: the user turn and the reply are appended, the vault replaced
    text: str  # REAL, as typed
    store: MemoryStore  # read only (selection and search)
    model: str
    now: int
    new_id: Callable[[], str]
    options: RedactOptions = field(default_factory=RedactOptions)  # account-level; the conversation overrides
    # REAL: the instructions of this send (chat/instructions.py: the account's, the persona's, the
    # conversation's), redacted with the conversation's vault like every other text that leaves
    system_prompt: str = ""
    # The on-device NER model's spans of `system_prompt` (offsets on it), as text_spans for the typed text
    instruction_spans: tuple[Span, ...] = ()
    lang: str = "fr"
    tz_offset_minutes: int = 0
    context_tokens: int | None = None  # the model's window; None: never trim
    max_tokens: int | None = None
    temperature: float | None = None
    index: MemoryIndex | None = None
    # An embedding index of the memory exists: memory_search asks it with FindNeighbours steps.
    semantic: bool = False
    # Spans given from outside for `text` only (the on-device NER model, through redact/ner_merge.py): offsets
    # on `text`, so they join the typed text's redaction and no other pass (memory block, history, tools).
    text_spans: tuple[Span, ...] = ()
    # The masking the composer's preview showed for `text` (masked_spans of preview_turn's message); when given
    # and the send would mask otherwise, the flow returns "stale" before anything is persisted or sent.
    expected_spans: tuple[tuple[int, int, str], ...] | None = None
    # A new reply to the conversation's last message, a user turn (regenerate, issue 18): that turn is
    # redacted again as the new message and keeps its place and id; `text` must be its content.
    again: bool = False
    # Files sent with `text` (issue 20): redacted before it with the same vault, each a text part.
    attachments: tuple[TurnAttachment, ...] = ()
    # The masking the preview showed in each file's text (masked_spans of its pass), as expected_spans.
    expected_attachment_spans: tuple[tuple[tuple[int, int, str], ...], ...] | None = None
    # The shell's detections of texts already seen (redact.SpanCache): a file is redacted at every preview
    # and again at the send; its detection is the same each time (it reads the text and the options only).
    cache: SpanCache | None = None


@dataclass
class SendOutcome:
    status: Status
    reason: str
    user: Message
    reply: Message | None = None
    requests: list[ChatRequest] = field(default_factory=list)  # exactly what was yielded, in order
    memory_used: list[str] = field(default_factory=list)
    memory_skipped: list[MemorySkip] = field(default_factory=list)
    memory_error: str | None = None  # why the memory block was not injected (fail closed)
    dropped_turns: int = 0  # history turns left out to fit the context window
    usage: dict[str, int] = field(default_factory=dict)


# --- redaction passes (reference 6.8) --------------------------------------------------------------


def conversation_options(conv: Conversation, base: RedactOptions) -> RedactOptions:
    """The account's options with the conversation's overrides: its category toggles, values
    revealed here, values forced here, and the mode pinned at its first redaction."""
    categories = dict(base.categories)
    categories.update(conv.redact_categories)
    force = base.force + tuple(Forced(value, kind) for value, kind in conv.forced_redactions)
    return replace(base, mode=conv.vault.mode or base.mode, categories=tuple(categories.items()),
                   keep=base.keep + tuple(conv.revealed_values), force=force)


@dataclass(frozen=True)
class _Block:
    wire: str = ""
    selection: Selection = field(default_factory=Selection)
    error: str | None = None


def select(inp: SendInput, options: RedactOptions) -> Selection:
    """The memory of this send, selected on REAL values; a failing selection injects nothing."""
    conv = inp.conversation
    try:
        return select_memory(
            inp.store, inp.text, conv.known_real_values(), scope=conv.space, now=inp.now,
            tz_offset_minutes=inp.tz_offset_minutes, lang=inp.lang, memory_off=conv.memory_off, index=inp.index,
            spare_famous=options.spares_famous(),
        )
    except Exception:  # memory is an extra: a bug in it must not stop the user's message
        return Selection()


def redact_memory_block(selection: Selection, vault: Vault, options: RedactOptions) -> tuple[_Block, Vault]:
    """The memory block pseudonymised with its entities forced. Fail closed: any error skips the
    injection and leaves the vault as it was (nothing memory-related egresses)."""
    if not selection.block:
        return _Block(selection=selection), vault
    try:
        forced = options.force + to_redact_forced(selection.forced)
        redaction = pseudonymise(selection.block, vault, replace(options, force=forced))
    except Exception as error:  # any failure at all: the block is dropped, the send goes on
        return _Block(selection=selection, error=type(error).__name__), vault
    return _Block(redaction.text, selection), redaction.vault


def named_in_typed_text(inp: SendInput, options: RedactOptions, text: str | None = None) -> RedactOptions:
    """The send's options with every card the typed text (or `text`: the instructions) names forced,
    selected or not: a card dropped by the budget, or not injected because it is only proposed, is
    still a name the user wrote, and masking more is always safe."""
    index = MemoryIndex.for_store(inp.store, inp.index)
    named = forced_for_text(inp.text if text is None else text, index, (), spare_famous=options.spares_famous())
    return replace(options, force=options.force + to_redact_forced(named)) if named else options


def redact_instructions(inp: SendInput, vault: Vault, options: RedactOptions) -> Redaction | None:
    """The send's instructions pseudonymised in `vault` (the working copy), with the names of cards they
    mention forced and the on-device model's spans of them; None when there are none."""
    if not inp.system_prompt.strip():
        return None
    own = replace(named_in_typed_text(inp, options, inp.system_prompt), spans=inp.instruction_spans)
    return pseudonymise(inp.system_prompt, vault, own)


def replay_history(messages: Sequence[Message], vault: Vault, options: RedactOptions) -> list[WireMessage]:
    """Past turns as the model sees them, alternating (branches.replayable_turns: a user turn only
    when its redaction completed and a reply with text answered it), through the send's own
    substitution (replay_for_model, which records spelling variants in `vault`: pass the working copy)."""
    return [WireMessage(m.role, replay_for_model(m.content, vault, options),
                        parts=replayed_parts(m, vault, options) if m.role == "user" else (),
                        images=replayed_images(m) if m.role == "user" else ())
            for m in replayable_turns(list(messages))]


# --- the flow ------------------------------------------------------------------------------------


@dataclass
class _Turn:
    """State of one send after the user's turn is persisted."""

    inp: SendInput
    options: RedactOptions
    vault: Vault
    reply: Message
    outcome: SendOutcome
    restorer: StreamRestorer | None = None
    reasoning_restorer: StreamRestorer | None = None  # reasoning streams apart: its own hold-back
    earlier_usage: dict[str, int] = field(default_factory=dict)  # the send's finished model calls
    call_usage: dict[str, int] = field(default_factory=dict)  # the call streaming now

    def show(self, restored: str) -> str:
        self.reply.content += restored
        return restored

    def think(self, restored: str) -> str:
        self.reply.reasoning += restored
        return restored

    def flush_reasoning(self) -> str:
        if self.reasoning_restorer is None:
            return ""
        rest, self.reasoning_restorer = self.reasoning_restorer.flush(), None
        return self.think(rest)

    def start_call(self) -> None:
        """A new model call of this send: the figures of the one before are final."""
        self.earlier_usage = _added(self.earlier_usage, self.call_usage)
        self.call_usage = {}

    def add_usage(self, usage: Usage) -> None:
        """A call's token counts as its provider reports them, each a running total of that call
        (Anthropic's message_start gives input_tokens and a first output_tokens that message_delta
        then repeats, grown; some OpenAI-compatible servers send usage on every chunk): the latest
        figure replaces the one before. The calls of a send (the tool loop) add up."""
        for name in USAGE_FIELDS:
            value = getattr(usage, name)
            if value is not None:
                self.call_usage[name] = value
        self.outcome.usage = _added(self.earlier_usage, self.call_usage)
        self.reply.usage = dict(self.outcome.usage)

    def stop(self, reason: str) -> None:
        """The stream ended early (an error event, or the shell closed the flow): keep the partial
        reply, restored to its last character, and say so."""
        if self.restorer is not None:
            self.show(self.restorer.flush())
            self.restorer = None
        self.flush_reasoning()
        self.reply.pending = False
        self.reply.interrupted = True
        self.reply.error = reason
        self.outcome.status = "interrupted"
        self.outcome.reason = reason


USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def _added(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {name: a.get(name, 0) + b.get(name, 0) for name in USAGE_FIELDS if name in a or name in b}


@dataclass(frozen=True)
class _CallResult:
    raw_text: str
    tool_calls: tuple[ToolCall, ...]
    error: str | None


def _stream(turn: _Turn, request: ChatRequest, number: int) -> Generator[Step, Answer, _CallResult]:
    """One model call: restore text and reasoning deltas as they come (each with its own
    restorer: a fake split across chunks is held back in either), assemble tool calls, stop on
    Done or on an error."""
    turn.restorer = StreamRestorer(turn.vault)
    turn.reasoning_restorer = None
    turn.start_call()
    calls = ToolCallAccumulator()
    raw: list[str] = []
    event = yield CallModel(request, number)
    while True:
        if isinstance(event, TextDelta):
            raw.append(event.text)
            event = yield ReplyDelta(turn.show(turn.restorer.feed(event.text)))
        elif isinstance(event, ReasoningDelta):
            if turn.reasoning_restorer is None:
                turn.reasoning_restorer = StreamRestorer(turn.vault)
            event = yield ReplyDelta("", reasoning=turn.think(turn.reasoning_restorer.feed(event.text)))
        elif isinstance(event, ToolCallDelta):
            calls.add(event)
            event = yield ReplyDelta("")
        elif isinstance(event, Usage):
            turn.add_usage(event)
            event = yield ReplyDelta("")
        elif isinstance(event, Done):
            tail = turn.show(turn.restorer.flush())
            turn.restorer = None
            yield ReplyDelta(tail, wants_event=False, reasoning=turn.flush_reasoning())
            return _CallResult("".join(raw), calls.calls(), None)
        elif isinstance(event, ErrorEvent) or event is None:
            reason = event.kind if isinstance(event, ErrorEvent) else "truncated"
            turn.stop(reason)
            yield ReplyDelta("", wants_event=False)
            return _CallResult("".join(raw), (), reason)
        else:  # an event this flow has no use for
            event = yield ReplyDelta("")


def _tool_result(turn: _Turn, call: ToolCall) -> Generator[Step, Answer, tuple[str, ToolUse]]:
    """Run one tool call: the model's query un-redacted, the store searched on real values (the
    embedding index asked for its nearest cards when there is one), the result re-redacted through
    the conversation's vault (fail closed: a masked notice)."""
    inp = turn.inp
    restored = restore_args(call.arguments, turn.vault)
    if call.name != TOOL_NAME:
        return UNKNOWN_TOOL, ToolUse(call.name, restored, call.arguments, UNKNOWN_TOOL)
    query = search_query_of(restored)
    wire = nothing_found(inp.lang)
    if query:
        semantic = None
        if inp.semantic and not inp.conversation.memory_off:
            nearest = yield FindNeighbours(query, SEARCH_MAX)
            semantic = SemanticSearch(_given(nearest if isinstance(nearest, list) else []))
        found = search_memory(
            inp.store, query, scope=inp.conversation.space, tz_offset_minutes=inp.tz_offset_minutes, lang=inp.lang,
            semantic=semantic, memory_off=inp.conversation.memory_off, index=inp.index,
            spare_famous=turn.options.spares_famous(),
        )
        wire = found.text if not found.hits else search_result_for_model(
            found.text, turn.vault, found.forced, options=turn.options, lang=inp.lang)
    return wire, ToolUse(call.name, restored, call.arguments, wire)


def _given(nearest: list[Neighbour]) -> Callable[[str, int], list[Neighbour]]:
    return lambda _query, k: nearest[:k]


def _tool_loop(
    turn: _Turn, system: str, history: list[WireMessage], current: list[WireMessage], tools: tuple[ToolSpec, ...]
) -> Generator[Step, Answer, None]:
    inp = turn.inp
    for number in range(1, MAX_MODEL_CALLS + 1):
        offered = tools if number < MAX_MODEL_CALLS else ()
        request = ChatRequest(inp.model, (*history, *current), system, offered, inp.temperature, inp.max_tokens,
                              stream=True)
        if number > 1 and _tool_results_leak(current, turn):
            turn.stop("blocked")
            turn.outcome.status, turn.outcome.reason = "blocked", "a real value reached a tool result"
            return
        turn.outcome.requests.append(request)
        result = yield from _stream(turn, request, number)
        if result.error is not None or not result.tool_calls or not offered:
            turn.reply.wire = (turn.reply.wire or "") + result.raw_text
            return
        turn.reply.wire = (turn.reply.wire or "") + result.raw_text
        current.append(WireMessage("assistant", result.raw_text, tool_calls=result.tool_calls))
        for call in result.tool_calls:
            before = dict(turn.vault.entries)
            wire, use = yield from _tool_result(turn, call)
            turn.reply.tool_uses.append(use)
            renames = renamed_substitutes(before, turn.vault)
            if renames:  # the result named someone as another value's fake: the loop's texts follow the new one
                history[:] = [_renamed(m, renames) for m in history]
                current[:] = [_renamed(m, renames) for m in current]
                system = rename_substitutes(system, renames)
            current.append(WireMessage("tool", wire, tool_call_id=call.id))


def _renamed(message: WireMessage, renames: dict[str, str]) -> WireMessage:
    return replace(
        message, content=rename_substitutes(message.content, renames),
        parts=tuple(rename_substitutes(part, renames) for part in message.parts),
        tool_calls=tuple(replace(call, arguments=rename_substitutes(call.arguments, renames))
                         for call in message.tool_calls))


def _tool_results_leak(current: list[WireMessage], turn: _Turn) -> bool:
    """The postcondition on what this loop added: tool results. (The history and the user's
    message were checked before the first call; the model's own tool calls go back as it wrote
    them. A value the search taught the vault may already have left in clear in the user's text,
    "Claire" alone: re-checking those would block a send that revealed nothing new.)"""
    return leaks((m.content for m in current if m.role == "tool"), real_values(turn.vault, turn.options))


def _answered_again(conv: Conversation, inp: SendInput) -> Message:
    """The last user turn, taken off the conversation while it is redacted again (the history is what
    comes before it); the flow puts it back in its place, whatever the outcome."""
    if not conv.messages or conv.messages[-1].role != "user" or conv.messages[-1].content != inp.text:
        raise ValueError("a new reply needs the conversation to end with the user turn it answers")
    return conv.messages.pop()


def _blocked(conv: Conversation, user: Message, reason: str, again: bool = False) -> SendOutcome:
    """Nothing left: the typed text is kept (never lost) but is not replayable (no count). A turn
    answered again goes back as it was (it was sent before; its new reply is what failed)."""
    if not again:
        user.error = "redaction"
    conv.messages.append(user)
    return SendOutcome("blocked", reason, user)


# A typed real value that collides with a substitute re-fakes that substitute's value (redact/collisions.py);
# the memory block and the history, redacted before the typed text with the old substitute, are then redacted
# again from the resolved vault. Another round would need the new fake to collide in turn (it avoids every
# word of the typed text): the bound only keeps a bug from looping.


@dataclass(frozen=True)
class _Prepared:
    """A turn's texts as they would leave: the instructions, the memory block, the history and the turn."""

    instructions: str
    block: _Block
    history: list[WireMessage]
    redacted: Redacted


def _redact_turn(inp: SendInput, options: RedactOptions) -> _Prepared:
    """The instructions, the memory block, the history replay, then the turn's files and its typed text
    (reference 6.8: attachments before the message, one vault), on a copy of the conversation's vault
    (changes nothing): what send_flow sends and preview_turn shows."""
    conv = inp.conversation
    selection = select(inp, options)
    text_options = replace(named_in_typed_text(inp, options), spans=inp.text_spans)
    files = [Attachment(a.name, a.extracted) for a in inp.attachments]
    found = spans_by_text(inp.attachments)
    model = (lambda text: found.get(text, ())) if found else None
    vault = conv.vault.copy()
    for _ in range(MAX_COLLISION_ROUNDS):
        block, working = redact_memory_block(selection, vault.copy(), options)
        instructions = redact_instructions(inp, working, options)
        if instructions is not None:
            working = instructions.vault
        history = replay_history(list(conv.messages), working, options)
        if files:
            redacted = redact_with_attachments(files, inp.text, working, options, text_options=text_options,
                                               cache=inp.cache, model=model)
        else:
            redacted = Redacted((), pseudonymise(inp.text, working, text_options))
        if not redacted.message.refaked:
            return _Prepared(instructions.text if instructions else "", block, history, redacted)
        vault = redacted.vault
    raise RedactionError("collisions between real values and substitutes did not settle")


def preview_turn(inp: SendInput) -> Redacted:
    """The composer's preview: the files' and the typed text's redaction exactly as a send of them
    now would make it (same selection, options, history replay and vault state). Raises what the
    send would fail closed on."""
    return _redact_turn(inp, conversation_options(inp.conversation, inp.options)).redacted


def preview_instructions(inp: SendInput) -> Redaction | None:
    """The instructions as a send now would mask them (None: there are none); raises what the send
    would fail closed on."""
    options = conversation_options(inp.conversation, inp.options)
    _block, working = redact_memory_block(select(inp, options), inp.conversation.vault.copy(), options)
    return redact_instructions(inp, working, options)


def attachment_signature(redacted: Redacted) -> tuple[tuple[tuple[int, int, str], ...], ...]:
    """What a turn's redaction masks in each of its files, as the preview shows it and the send checks it."""
    return tuple(masked_spans(a.text) for a in redacted.attachments)


def masked_spans(redaction: Redaction) -> tuple[tuple[int, int, str], ...]:
    """What a redaction masks in the typed text, as the preview shows it and the send checks it."""
    return tuple(sorted((rep.start, rep.end, rep.kind) for rep in redaction.replacements))


def _masks_otherwise(inp: SendInput, redacted: Redacted) -> bool:
    """The send would mask otherwise than the composer's preview showed (when it showed one)."""
    if inp.expected_spans is not None and masked_spans(redacted.message) != inp.expected_spans:
        return True
    expected = inp.expected_attachment_spans
    return expected is not None and attachment_signature(redacted) != expected


def send_flow(inp: SendInput) -> Generator[Step, Answer, SendOutcome]:
    """One send, with its memory_search tool loop. Fail closed: when the new message, the history
    or the first request cannot be proven free of real values, the flow returns `blocked` before
    yielding anything.

    Driving it (the protocol every shell follows: chat/steps.py, and chat/drive.py's Driver answers it):
    - `PersistTurn(conversation, message)`: the user's turn and the conversation's vault are final;
      write the conversation to storage NOW, before any request leaves. Answer None.
    - `CallModel(request, call)`: send `request` (a neutral ChatRequest, stream=True) to the model.
      Answer with the first stream event (TextDelta, ToolCallDelta, Usage, Done, ErrorEvent...).
    - `ReplyDelta(text, wants_event)`: show `text` (restored, real values) after the reply so far.
      When `wants_event`, answer with the next stream event (None if the stream ended without a
      Done: it counts as interrupted); otherwise the call is over: answer None.
    - `FindNeighbours(query, k)`: the embedding index's nearest cards, or None.
    The generator returns a `SendOutcome`. Closing it (`close()`) mid-stream stops the turn: the
    partial reply stays in the conversation, marked interrupted. Either way the shell then persists
    the conversation once more."""
    conv = inp.conversation
    options = conversation_options(conv, inp.options)
    user = _answered_again(conv, inp) if inp.again else Message(inp.new_id(), "user", inp.text, at=inp.now)
    try:
        prepared = _redact_turn(inp, options)
        block, history, redacted = prepared.block, prepared.history, prepared.redacted
        parts = tuple(wire_part(a, r) for a, r in zip(inp.attachments, redacted.attachments, strict=True))
    except Exception as error:  # fail closed: nothing is yielded
        return _blocked(conv, user, type(error).__name__, inp.again)
    redaction = redacted.message
    if _masks_otherwise(inp, redacted):
        if inp.again:
            conv.messages.append(user)  # back in its place, unchanged
        return SendOutcome("stale", "the masking changed since the preview", user)
    vault = redaction.vault
    current = [WireMessage("user", redaction.text, parts=parts, images=wire_images(inp.attachments))]
    system = "\n\n".join(part for part in (prepared.instructions, block.wire) if part)
    tools = (ToolSpec(**memory_search_tool(inp.lang)),) if search_tool_offered(
        inp.store, scope=conv.space, memory_off=conv.memory_off) else ()
    reserve = inp.max_tokens or DEFAULT_REPLY_RESERVE
    history, dropped = trim_history(system, history, current, limit_tokens=inp.context_tokens, reserve_tokens=reserve)
    first = ChatRequest(inp.model, (*history, *current), system, tools, inp.temperature, inp.max_tokens, stream=True)
    if leaks(first.texts(), real_values(vault, options)):
        return _blocked(conv, user, "a real value reached the request", inp.again)

    user.error = None  # a turn answered again was a draft or had failed: it is sent now
    replacements = [rep for a in redacted.attachments for rep in a.text.replacements] + list(redaction.replacements)
    user.redactions = len(replacements)
    user.redacted_spans = [(rep.value, rep.kind) for rep in replacements]
    user.attachments = [attached_file(a, r) for a, r in zip(inp.attachments, redacted.attachments, strict=True)]
    user.wire = redaction.text
    user.wire_memory = block.wire or None
    user.context_dropped = dropped
    conv.vault = vault  # from here on the working vault is the conversation's
    conv.messages.append(user)
    conv.updated_at = max(conv.updated_at, inp.now)
    if not conv.title:
        conv.title = note_title(inp.text or " ".join(a.name for a in inp.attachments))
    yield PersistTurn(conv, user)

    used = list(block.selection.used_ids) if block.wire else []
    skipped = [MemorySkip(s.id, s.reason) for s in block.selection.skipped]
    reply = Message(inp.new_id(), "assistant", "", at=inp.now, pending=True, memory_used=used or None,
                    memory_skipped=skipped or None)
    conv.messages.append(reply)
    outcome = SendOutcome("done", "done", user, reply, memory_used=used, memory_skipped=skipped,
                          memory_error=block.error, dropped_turns=dropped)
    turn = _Turn(inp, options, vault, reply, outcome)
    try:
        yield from _tool_loop(turn, system, history, current, tools)
    except GeneratorExit:
        turn.stop("aborted")
        raise
    reply.pending = False
    return outcome
