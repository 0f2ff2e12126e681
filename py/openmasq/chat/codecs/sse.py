"""An incremental server-sent-events parser (WHATWG event-stream rules) that never raises:
bytes or text in any chunking, events out, and a problem item for what cannot be read."""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from ...patterns import deferred

_EOL = deferred(r"\r\n|\r|\n")
# A chat stream's lines are a few kB; a line this long is garbage, not a slow event.
MAX_LINE = 4 * 1024 * 1024
_DETAIL_CHARS = 40  # problem details quote this much of the offending text, never more


@dataclass(frozen=True)
class SSEEvent:
    data: str
    event: str = ""  # the event field; empty means the default type "message"
    id: str | None = None
    retry: int | None = None


@dataclass(frozen=True)
class SSEComment:
    text: str


@dataclass(frozen=True)
class SSEProblem:
    """Something the stream did wrong: invalid_utf8, unknown_field, line_too_long,
    event_too_large, truncated (the stream ended inside an event)."""

    kind: str
    detail: str


SSEItem = SSEEvent | SSEComment | SSEProblem


class SSEParser:
    def __init__(self, *, max_line: int = MAX_LINE, comments: bool = False) -> None:
        self._max = max_line
        self._comments = comments
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self._started = False
        self._after_cr = False  # a chunk ended on "\r": a "\n" opening the next one is the same break
        self._parts: list[str] = []  # the current unfinished line
        self._part_len = 0
        self._skipping = False  # inside an overlong line, dropped up to its end
        self._data: list[str] = []
        self._data_len = 0
        self._event = ""
        self._last_id: str | None = None
        self._retry: int | None = None
        self._out: list[SSEItem] = []

    def feed(self, chunk: bytes | str) -> list[SSEItem]:
        text = self._decode(chunk, final=False) if isinstance(chunk, bytes) else chunk
        self._scan(text)
        return self._take()

    def close(self) -> list[SSEItem]:
        """End of stream: an event without its closing blank line is not dispatched (it may be
        cut anywhere) and is reported as truncated."""
        self._scan(self._decode(b"", final=True))
        pending = self._part_len + self._data_len + len(self._event)
        if pending or self._skipping:
            self._problem("truncated", f"the stream ended inside an event ({pending} characters dropped)")
        self._parts, self._part_len, self._skipping = [], 0, False
        self._reset_event()
        return self._take()

    # --- decoding and line splitting --------------------------------------------------------

    def _decode(self, chunk: bytes, *, final: bool) -> str:
        state = self._decoder.getstate()
        try:
            return self._decoder.decode(chunk, final)
        except UnicodeDecodeError as error:
            replacing = codecs.getincrementaldecoder("utf-8")("replace")
            replacing.setstate(state)
            text = replacing.decode(chunk, final)
            self._decoder.setstate(replacing.getstate())
            self._problem("invalid_utf8", f"bytes that are not UTF-8 were replaced ({error.reason})")
            return text

    def _scan(self, text: str) -> None:
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")
        pos = 0
        if self._after_cr and text:
            pos = 1 if text.startswith("\n") else 0
            self._after_cr = False
        for match in _EOL.finditer(text, pos):
            self._end_line(text[pos : match.start()])
            pos = match.end()
            if match.group() == "\r" and pos == len(text):
                self._after_cr = True
        self._hold(text[pos:])

    def _hold(self, rest: str) -> None:
        if not rest or self._skipping:
            return
        self._parts.append(rest)
        self._part_len += len(rest)
        if self._part_len > self._max:
            self._problem("line_too_long", f"a line longer than {self._max} characters was dropped")
            self._parts, self._part_len, self._skipping = [], 0, True

    def _end_line(self, tail: str) -> None:
        line = "".join(self._parts) + tail if self._parts else tail
        self._parts, self._part_len = [], 0
        if self._skipping:
            self._skipping = False
            return
        if len(line) > self._max:
            self._problem("line_too_long", f"a line longer than {self._max} characters was dropped")
            return
        self._line(line)

    # --- fields -----------------------------------------------------------------------------

    def _line(self, line: str) -> None:
        if not line:
            self._dispatch()
            return
        if line.startswith(":"):
            if self._comments:
                self._out.append(SSEComment(line[1:].removeprefix(" ")))
            return
        name, colon, value = line.partition(":")
        if colon:
            value = value.removeprefix(" ")
        if name == "data":
            self._add_data(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self._retry = int(value)
        else:
            self._problem("unknown_field", f"ignored a line that is not an SSE field: {name[:_DETAIL_CHARS]!r}")

    def _add_data(self, value: str) -> None:
        if self._data_len + len(value) > self._max:
            self._problem("event_too_large", f"an event longer than {self._max} characters was dropped")
            self._reset_event()
            return
        self._data.append(value)
        self._data_len += len(value) + 1

    def _dispatch(self) -> None:
        if self._data:
            self._out.append(SSEEvent("\n".join(self._data), self._event, self._last_id, self._retry))
        self._reset_event()

    def _reset_event(self) -> None:
        self._data, self._data_len, self._event, self._retry = [], 0, "", None

    def _problem(self, kind: str, detail: str) -> None:
        self._out.append(SSEProblem(kind, detail))

    def _take(self) -> list[SSEItem]:
        out, self._out = self._out, []
        return out


def encode_event(event: SSEEvent) -> str:
    """The wire form of one event, ending with its blank line."""
    lines = []
    if event.event:
        lines.append(f"event: {event.event}\n")
    if event.id is not None:
        lines.append(f"id: {event.id}\n")
    if event.retry is not None:
        lines.append(f"retry: {event.retry}\n")
    lines.extend(f"data: {line}\n" for line in _EOL.split(event.data))
    lines.append("\n")
    return "".join(lines)


def encode_comment(text: str) -> str:
    return "".join(f": {line}\n" for line in _EOL.split(text)) + "\n"
