"""When to run extraction (reference 10): pure functions of the session's events and `now` that
say which runs are due and when to look again."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

# The shell logs events (a turn completed, the user left, a run started or finished...), calls
# `plan`, starts the runs it returns (logging `run_started`) and sets one timer for `wake_at`.

IDLE_MS = 120_000  # silent extraction after two idle minutes on a completed turn
EXPLICIT_DELAY_MS = 800  # an explicit ask runs once the turn has settled
STARTUP_DELAY_MS = 45_000
STARTUP_MAX_CONVERSATIONS = 3
STARTUP_MAX_AGE_MS = 7 * 24 * 3600 * 1000

EventKind = Literal[
    "turn_completed",  # an assistant turn finished on the active conversation
    "activity",  # the user is typing or reading: re-arms the idle timer
    "left_conversation",  # switched to another conversation
    "window_blur",
    "page_hidden",
    "explicit_ask",  # the settled turn's last user message is an explicit ask
    "app_started",
    "run_started",
    "run_finished",
]
Mode = Literal["silent", "explicit"]
Reason = Literal["idle", "flush", "startup", "explicit"]
_FLUSHES = frozenset({"left_conversation", "window_blur", "page_hidden"})


@dataclass(frozen=True)
class Event:
    kind: EventKind
    at: int
    conversation_id: str | None = None
    mode: Mode = "silent"  # run_started only
    reason: Reason | None = None  # run_started only


@dataclass(frozen=True)
class ConversationSummary:
    """What the startup sweep needs to know about a stored conversation."""

    id: str
    updated_at: int
    message_count: int
    watermark: int
    pending: bool = False


@dataclass(frozen=True)
class DueRun:
    conversation_id: str
    mode: Mode
    reason: Reason


@dataclass(frozen=True)
class Plan:
    run_now: tuple[DueRun, ...] = ()
    wake_at: int | None = None  # call `plan` again then (None: on the next event)


@dataclass
class _Conversation:
    idle_at: int | None = None
    explicit_at: int | None = None
    flush: bool = False
    running: Reason | None = None


@dataclass
class _Session:
    conversations: dict[str, _Conversation] = field(default_factory=dict)
    started_at: int | None = None
    startup_runs: list[str] = field(default_factory=list)

    def of(self, conversation_id: str) -> _Conversation:
        return self.conversations.setdefault(conversation_id, _Conversation())

    @property
    def startup_running(self) -> bool:
        return any(c.running == "startup" for c in self.conversations.values())


def _apply(session: _Session, event: Event) -> None:
    if event.kind == "app_started":
        session.started_at = event.at
        session.startup_runs = []
        return
    if event.conversation_id is None:
        return
    conv = session.of(event.conversation_id)
    rearms = event.kind == "activity" and conv.idle_at is not None
    if event.kind == "turn_completed" or rearms:
        conv.idle_at = event.at + IDLE_MS
    elif event.kind in _FLUSHES and conv.idle_at is not None:
        conv.flush = True
    elif event.kind == "explicit_ask":
        conv.explicit_at = event.at + EXPLICIT_DELAY_MS
    elif event.kind == "run_started":
        _start(session, conv, event)
    elif event.kind == "run_finished":
        conv.running = None


def _start(session: _Session, conv: _Conversation, event: Event) -> None:
    """A run reads every new turn: it settles the idle timer and a flush; an explicit run also
    settles the asks made before it started (one made during a run waits for the next)."""
    conv.running = event.reason or ("explicit" if event.mode == "explicit" else "idle")
    conv.idle_at = None
    conv.flush = False
    if event.mode == "explicit" and conv.explicit_at is not None and conv.explicit_at - EXPLICIT_DELAY_MS <= event.at:
        conv.explicit_at = None
    if event.reason == "startup" and event.conversation_id is not None:
        session.startup_runs.append(event.conversation_id)


def fold_events(events: Iterable[Event]) -> _Session:
    session = _Session()
    for event in sorted(events, key=lambda e: e.at):  # stable: same-instant events keep their order
        _apply(session, event)
    return session


def startup_candidates(
    conversations: Sequence[ConversationSummary],
    now: int,
    *,
    started_at: int | None = None,
    limit: int = STARTUP_MAX_CONVERSATIONS,
    exclude: Iterable[str] = (),
) -> list[str]:
    """Conversations left with unread turns: past their watermark, no pending message, updated
    within 7 days (and, once the app started, not since: those have their own timers), most
    recent first, at most `limit`."""
    skip = set(exclude)
    eligible = [
        c for c in conversations
        if c.id not in skip and not c.pending and c.message_count > c.watermark
        and c.updated_at >= now - STARTUP_MAX_AGE_MS and (started_at is None or c.updated_at <= started_at)
    ]
    eligible.sort(key=lambda c: c.updated_at, reverse=True)
    return [c.id for c in eligible[: max(0, limit)]]


def _due(conversation_id: str, conv: _Conversation, now: int, auto_extract: bool) -> DueRun | None:
    if conv.running is not None:
        return None  # one extraction per conversation at a time
    if conv.explicit_at is not None and conv.explicit_at <= now:
        return DueRun(conversation_id, "explicit", "explicit")  # even with silent memory off
    if not auto_extract:
        return None
    if conv.flush:
        return DueRun(conversation_id, "silent", "flush")
    if conv.idle_at is not None and conv.idle_at <= now:
        return DueRun(conversation_id, "silent", "idle")
    return None


def _next_deadline(conv: _Conversation, now: int, auto_extract: bool) -> int | None:
    if conv.running is not None:
        return None  # its run_finished event will bring the caller back
    deadlines = [conv.explicit_at] + ([conv.idle_at] if auto_extract else [])
    future = [d for d in deadlines if d is not None and d > now]
    return min(future, default=None)


def _startup_run(session: _Session, conversations: Sequence[ConversationSummary], now: int,
                 busy: set[str]) -> DueRun | int | None:
    """The next startup run (serially, at most 3 per session), or the time to wait for, or None."""
    if session.started_at is None or len(session.startup_runs) >= STARTUP_MAX_CONVERSATIONS:
        return None
    if now < session.started_at + STARTUP_DELAY_MS:
        return session.started_at + STARTUP_DELAY_MS
    if session.startup_running:
        return None
    left = STARTUP_MAX_CONVERSATIONS - len(session.startup_runs)
    chosen = startup_candidates(conversations, now, started_at=session.started_at, limit=left,
                                exclude=[*session.startup_runs, *busy])
    return DueRun(chosen[0], "silent", "startup") if chosen else None


def plan(
    events: Sequence[Event],
    now: int,
    *,
    auto_extract: bool,
    conversations: Sequence[ConversationSummary] = (),
) -> Plan:
    """The runs to start now and when to look again. Explicit asks run 800 ms after the turn
    even with silent memory off; idle timers (120 s), flushes and the startup sweep (45 s after
    start, at most 3 conversations, one at a time) need `auto_extract`."""
    session = fold_events(events)
    due: list[DueRun] = []
    deadlines: list[int] = []
    for conversation_id, conv in session.conversations.items():
        run = _due(conversation_id, conv, now, auto_extract)
        if run is not None:
            due.append(run)
        deadline = _next_deadline(conv, now, auto_extract)
        if deadline is not None:
            deadlines.append(deadline)
    if auto_extract:
        busy = {d.conversation_id for d in due} | {
            cid for cid, conv in session.conversations.items() if conv.running is not None
        }
        startup = _startup_run(session, conversations, now, busy)
        if isinstance(startup, DueRun):
            due.append(startup)
        elif startup is not None:
            deadlines.append(startup)
    return Plan(tuple(due), min(deadlines, default=None))
