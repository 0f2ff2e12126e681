"""The drivers of the sans-I/O flows (the send flow, the extraction run), the way httpx keeps its two
auth-flow drivers on one base class: `Driver` answers every step, written once; the worker's driver
awaits it over the browser's fetch (worker/drive.py), the reference driver runs it at once over a
synchronous model (the tests, openmasq.testing)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine, Generator, Iterable, Iterator
from typing import Any, TypeVar, cast

from ..memory.semantic import Neighbour
from .codecs import StreamEvent
from .steps import Answer, CallModel, FindNeighbours, PersistTurn, ReplyDelta, Step

R = TypeVar("R")
Flow = Generator[Step, Answer, R]


class Driver:
    """Steps a flow to its end, answering each step with the shell's I/O (the methods a shell
    overrides; by default a step needs nothing of it). One protocol for every flow:
    - PersistTurn: `persist`, before any request leaves; answer None.
    - FindNeighbours: answer with `neighbours` (None: no embedding index).
    - CallModel: `calling` (the request is about to leave), then answer with the first event of
      `stream`.
    - ReplyDelta: `show` its text when there is one; when `stopped`, close the flow; else answer
      with the stream's next event if it wants one (None once the stream has ended), None if not."""

    _events: AsyncIterator[StreamEvent] | None = None

    async def drive(self, flow: Flow[R]) -> R | None:
        """The flow's outcome; None when the shell stopped it (the flow was closed)."""
        try:
            step = next(flow)
            while True:
                self.stepped(step)
                if isinstance(step, ReplyDelta) and await self._stops_after(step):
                    flow.close()
                    return None
                step = flow.send(await self.answer(step))
        except StopIteration as stop:
            return cast(R, stop.value)

    async def answer(self, step: Step) -> Answer:
        """What the flow is sent back for `step` (a ReplyDelta already shown)."""
        if isinstance(step, PersistTurn):
            await self.persist(step)
            return None
        if isinstance(step, FindNeighbours):
            return await self.neighbours(step)
        if isinstance(step, CallModel):
            await self.calling(step)
            self._events = self.stream(step)
            return await self._next_event()
        return await self._next_event() if step.wants_event else None

    async def _stops_after(self, step: ReplyDelta) -> bool:
        if step.text:
            await self.show(step)
        return self.stopped()

    async def _next_event(self) -> StreamEvent | None:
        if self._events is None:
            return None
        try:
            event = await self._events.__anext__()
        except StopAsyncIteration:
            self._events = None
            return None
        self.seen(event)
        return event

    # --- the shell's I/O --------------------------------------------------------------------------

    def stepped(self, step: Step) -> None:
        """The flow yielded `step` (before it is answered)."""

    def stream(self, step: CallModel) -> AsyncIterator[StreamEvent]:
        """The events answering `step.request`, as the provider streams them."""
        raise NotImplementedError

    async def calling(self, step: CallModel) -> None:
        """`step.request` is about to leave."""

    async def persist(self, step: PersistTurn) -> None:
        """Write the conversation (awaited: the request leaves only after)."""

    async def neighbours(self, step: FindNeighbours) -> list[Neighbour] | None:
        return None

    async def show(self, step: ReplyDelta) -> None:
        """A restored delta of the reply, for the user."""

    def seen(self, event: StreamEvent) -> None:
        """An event of the stream as it came (before the flow restores it)."""

    def stopped(self) -> bool:
        """The user asked to stop: the flow is closed at the next delta."""
        return False


Model = Callable[[CallModel], Iterable[StreamEvent]]


class ReferenceDriver(Driver):
    """The reference shell, synchronous: `model` answers each call with its events (a scripted model,
    a loopback HTTP server read with httpx), the hooks stand for the shell's storage, its embedding
    index and its stop button; every step and every shown text is kept, in order."""

    def __init__(self, model: Model, *, persist: Callable[[PersistTurn], None] | None = None,
                 neighbours: Callable[[str, int], list[Neighbour] | None] | None = None,
                 stop: Callable[[], bool] | None = None) -> None:
        self.model = model
        self._persist = persist
        self._neighbours = neighbours
        self._stop = stop
        self.steps: list[Step] = []
        self.shown: list[str] = []

    def run(self, flow: Flow[R]) -> R | None:
        """`drive` at once: nothing of this shell ever waits."""
        return run_now(self.drive(flow))

    @property
    def calls(self) -> list[CallModel]:
        return [step for step in self.steps if isinstance(step, CallModel)]

    def stepped(self, step: Step) -> None:
        self.steps.append(step)

    def stream(self, step: CallModel) -> AsyncIterator[StreamEvent]:
        return _Events(iter(self.model(step)))

    async def persist(self, step: PersistTurn) -> None:
        if self._persist is not None:
            self._persist(step)

    async def neighbours(self, step: FindNeighbours) -> list[Neighbour] | None:
        return self._neighbours(step.query, step.k) if self._neighbours is not None else None

    async def show(self, step: ReplyDelta) -> None:
        self.shown.append(step.text)

    def stopped(self) -> bool:
        return self._stop is not None and self._stop()


class _Events:
    """A synchronous iterator of events read as the driver reads a stream (no async generator: it
    would want an event loop to be finalised)."""

    def __init__(self, events: Iterator[StreamEvent]) -> None:
        self._events = events

    def __aiter__(self) -> _Events:
        return self

    async def __anext__(self) -> StreamEvent:
        try:
            return next(self._events)
        except StopIteration:
            raise StopAsyncIteration from None


def run_now(coroutine: Coroutine[Any, Any, R]) -> R:
    """A coroutine that never waits, run to its end in one step (no event loop)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return cast(R, done.value)
    coroutine.close()
    raise RuntimeError("the reference driver waited on I/O: its model and hooks must answer at once")
