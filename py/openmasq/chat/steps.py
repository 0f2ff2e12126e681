"""The steps the sans-I/O flows yield to their shell and the answers they take: one model-call step
for the send flow and the extraction run alike, so one driver (chat/drive.py) answers both."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .codecs import ChatRequest, Done, ErrorEvent, StreamEvent, TextDelta

if TYPE_CHECKING:  # types only: memory/extract yields these steps, and loads neither module with them
    from ..memory.semantic import Neighbour
    from .conversation import Conversation, Message

# Why a model is called: the user's message (the send flow), or an extraction pass and its retry
# after an illegible reply (the extraction run).
Purpose = Literal["message", "extract", "retry"]


@dataclass(frozen=True)
class PersistTurn:
    """The user's turn and the conversation's vault are final: write the conversation NOW, before
    any request leaves. Answer None."""

    conversation: Conversation
    message: Message


@dataclass(frozen=True)
class CallModel:
    """Send `request` (a neutral ChatRequest, stream=True: exactly what leaves) to the model and
    answer with the first stream event; the ReplyDelta steps that follow ask for the next ones."""

    request: ChatRequest
    call: int = 1  # 1-based within the flow (a send's tool loop, an extraction run's passes and retries)
    purpose: Purpose = "message"
    pass_number: int = 1  # the extraction's sweep pass this call belongs to
    timeout_s: float | None = None  # how long the stream may stay silent; None: the shell's own for chats
    # The message an explicit memory ask answers: the shell marks it "Mise en mémoire…" while the call runs.
    noting: str | None = None


@dataclass(frozen=True)
class ReplyDelta:
    """Show `text` (restored: real values) after the reply so far; nothing to show when empty. When
    `wants_event`, answer with the next stream event (None: the stream ended without a Done);
    otherwise the call is over: answer None."""

    text: str
    wants_event: bool = True
    # Restored reasoning ("thinking") to show apart from the answer, never inside `text`.
    reasoning: str = ""


@dataclass(frozen=True)
class FindNeighbours:
    """memory_search's semantic top-up: the shell's embedding index answers with the cards nearest to
    the REAL query, as (card id, cosine) pairs best first, or None when it cannot (lexical only)."""

    query: str
    k: int


Step = PersistTurn | CallModel | ReplyDelta | FindNeighbours
Answer = StreamEvent | list["Neighbour"] | None


@dataclass(frozen=True)
class ModelReply:
    """A model call's whole answer text, or the kind of error that prevented one."""

    text: str | None = None
    error: str | None = None  # timeout, unreachable, http, aborted, ...

    @staticmethod
    def ok(text: str) -> ModelReply:
        return ModelReply(text=text)

    @staticmethod
    def failure(kind: str) -> ModelReply:
        return ModelReply(error=kind or "unreachable")

    @property
    def failed(self) -> bool:
        return self.error is not None or self.text is None


def whole_reply(call: CallModel) -> Generator[Step, Answer, ModelReply]:
    """`call` made, its stream read to the end: the text deltas joined once Done comes; a timeout
    as "timeout", any other error or a stream cut short as "unreachable". Nothing is shown."""
    parts: list[str] = []
    event = yield call
    while not isinstance(event, Done):
        if isinstance(event, ErrorEvent):
            return ModelReply.failure("timeout" if event.kind == "timeout" else "unreachable")
        if event is None:
            return ModelReply.failure("unreachable")
        if isinstance(event, TextDelta):
            parts.append(event.text)
        event = yield ReplyDelta("")
    return ModelReply.ok("".join(parts))
