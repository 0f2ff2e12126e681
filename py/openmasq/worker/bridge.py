"""The small interfaces the App needs from its host: encrypted records, the egress ports, a clock
and timers. Pyodide implements them over JS (pyodide_bridge.py); tests implement them in memory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Route = Literal["net", "llm"]  # net-worker (remote providers) or llm-worker (the bundled model)


# --- records ----------------------------------------------------------------------------------


class Records(Protocol):
    """One unlocked account's key -> text store (storage.js encrypts every value)."""

    async def get(self, key: str) -> str | None: ...

    async def put(self, key: str, value: str) -> None: ...

    async def delete(self, key: str) -> None: ...

    async def keys(self) -> list[str]: ...


@dataclass
class MemoryRecords:
    """Records in a dict: the host tests' storage, and a record of every write in order."""

    data: dict[str, str] = field(default_factory=dict)
    writes: list[tuple[str, str | None]] = field(default_factory=list)  # (key, value or None for a delete)

    async def get(self, key: str) -> str | None:
        return self.data.get(key)

    async def put(self, key: str, value: str) -> None:
        self.data[key] = value
        self.writes.append((key, value))

    async def delete(self, key: str) -> None:
        self.data.pop(key, None)
        self.writes.append((key, None))

    async def keys(self) -> list[str]:
        return sorted(self.data)


# --- egress -----------------------------------------------------------------------------------
# The port protocol (docs/web.md, "The worker protocol"): head, then chunks, then end; or an error at any point.


@dataclass(frozen=True)
class Head:
    status: int
    headers: dict[str, str]


@dataclass(frozen=True)
class Chunk:
    data: bytes


@dataclass(frozen=True)
class End:
    pass


@dataclass(frozen=True)
class Failure:
    kind: str  # network | timeout | blocked | aborted
    message: str = ""


EgressMessage = Head | Chunk | End | Failure


class EgressStream(Protocol):
    async def next(self) -> EgressMessage: ...

    def abort(self) -> None: ...


class Egress(Protocol):
    """Opens one request on a port. `spec` is {url, method, headers, body, timeout_ms}: already
    redacted, JSON-able; the JS side adds the message id."""

    def open(self, route: Route, spec: dict[str, Any]) -> EgressStream: ...

    def online(self) -> bool: ...


# --- time -------------------------------------------------------------------------------------


class Timer(Protocol):
    def cancel(self) -> None: ...


class Host(Protocol):
    """The clock, timers, randomness and notices to the page."""

    def now(self) -> int: ...  # epoch milliseconds

    def call_later(self, delay_ms: int, callback: Callable[[], Any]) -> Timer: ...

    def random_bytes(self, count: int) -> bytes: ...

    def notify(self, notice: dict[str, Any]) -> None: ...  # {type: "locked"|"memory"|..., ...}
