"""Conversation vaults of the proxy: one per X-OpenMasq-Session header, kept while used and
evicted after an hour of silence; a request without the header gets a vault of its own."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from ..redact import SpanCache, Vault
from .masking import Restorers

SESSION_HEADER = "x-openmasq-session"
IDLE_SECONDS = 3600.0  # reference 1.5: a session's vault lives until an hour of silence
MAX_SESSIONS = 10_000  # past this, the least recently used session goes first
MAX_SESSION_ID = 200  # characters; a longer header is refused rather than stored
# All sessions' detection caches together: each holds up to 256k chars of text, so 10,000 busy
# sessions could pin ~2.5 G chars. Past this budget the least recently used sessions lose their cache
# (not their vault: only speed is lost). Checked every TRIM_EVERY requests (summing 10,000 sessions
# costs ~0.5 ms), so the overshoot is at most TRIM_EVERY requests' texts.
MAX_CACHED_CHARS = 32_000_000
TRIM_EVERY = 32
# Requests without a session header share one detection cache (detection reads only the text
# and the options, never the vault): a tool that re-sends its whole history without the header
# gets each old message's detection back, while each request keeps a vault of its own.
SHARED_CACHE_CHARS = 4_000_000


class SessionError(ValueError):
    """A session header the proxy will not use."""


@dataclass
class Session:
    """A conversation's vault. Redacting a request reads and replaces `vault` under `lock`, so
    two requests of one conversation never build on the same old vault."""

    vault: Vault
    last_used: float
    version: int = 0  # how many times the vault was stored (vaultstore.MemoryVaultStore); 0: none yet
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    named: bool = True  # False: a one-request vault (no session header)
    restorers: Restorers | None = None  # those of the last vault state, kept while it does not change
    # The detections of the texts this conversation sent (bounded; evicted with the session).
    spans: SpanCache = field(default_factory=SpanCache)

    def restorers_for(self, vault: Vault) -> Restorers:
        """Restorers for `vault`: the session's last ones when the request added no value
        (building them costs more than the check), else new ones, kept for the next request."""
        if self.restorers is None or not self.restorers.serves(vault):
            self.restorers = Restorers(vault)
        return self.restorers


class SessionStore:
    def __init__(self, *, idle: float = IDLE_SECONDS, clock: Callable[[], float] = time.monotonic,
                 max_sessions: int = MAX_SESSIONS, max_cached_chars: int = MAX_CACHED_CHARS) -> None:
        self._idle = idle
        self._clock = clock
        self._max = max_sessions
        self._max_cached_chars = max_cached_chars
        self._since_trim = 0
        self._sessions: OrderedDict[str, Session] = OrderedDict()  # least recently used first
        self.shared_spans = SpanCache(SHARED_CACHE_CHARS)  # used by requests of several threads at once

    def get(self, session_id: str | None) -> Session:
        """The session's vault holder (created on first use); without an id, a fresh one that
        is not kept (with the shared detection cache)."""
        now = self._clock()
        self._evict(now)
        self._since_trim += 1
        if self._since_trim >= TRIM_EVERY:
            self._since_trim = 0
            self.trim_detection_caches()
        if session_id is None:
            return Session(Vault.new(), now, named=False, spans=self.shared_spans)
        if not session_id or len(session_id) > MAX_SESSION_ID or not session_id.isprintable():
            raise SessionError(f"the {SESSION_HEADER} header must be 1 to {MAX_SESSION_ID} printable characters")
        session = self._sessions.get(session_id)
        if session is None:
            session = self._sessions[session_id] = Session(Vault.new(), now)
        self.touch(session_id, session)
        return session

    def held(self, session_id: str) -> Session:
        """The session kept under this id (created when missing), without the bookkeeping of get()."""
        session = self._sessions.get(session_id)
        if session is None:
            session = self._sessions[session_id] = Session(Vault.new(), self._clock())
        return session

    def touch(self, session_id: str, session: Session) -> None:
        """Mark a session as used now (a long stream keeps its conversation alive)."""
        session.last_used = self._clock()
        if session_id in self._sessions:
            self._sessions.move_to_end(session_id)

    def cached_chars(self) -> int:
        return sum(session.spans.chars for session in self._sessions.values())

    def trim_detection_caches(self) -> None:
        """Empty the detection caches of the least recently used sessions until all of them fit
        the global budget."""
        excess = self.cached_chars() - self._max_cached_chars
        for session in self._sessions.values():
            if excess <= 0:
                break
            if session.spans.chars and not session.lock.locked():
                excess -= session.spans.chars
                session.spans = SpanCache()

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._sessions

    def _evict(self, now: float) -> None:
        while self._sessions:
            oldest_id, oldest = next(iter(self._sessions.items()))
            if now - oldest.last_used < self._idle and len(self._sessions) < self._max:
                break
            if oldest.lock.locked():  # a request is redacting with it right now
                self._sessions.move_to_end(oldest_id)
                break
            del self._sessions[oldest_id]
