"""The one plain data object between detection and substitution: a list of spans.

Every detector (rules, lexicons, forced values, the on-device NER model) returns `Span`s;
policy, overlap resolution and allocation only ever see spans."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# Where a span came from. "ner" spans arrive from JavaScript (transformers.js) or onnxruntime.
SOURCES = ("rule", "lexicon", "context", "forced", "ner", "given")


@dataclass(frozen=True, slots=True)
class Span:
    """A detected value of fine `kind` (see kinds.py) at `text[start:end]`; `value` is that slice
    without zero-width characters (detectors read the text without them, see detect.py)."""

    start: int
    end: int
    value: str
    kind: str
    source: str
    score: float = 1.0

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end:
            raise ValueError(f"empty or negative span {self.start}:{self.end}")

    @property
    def length(self) -> int:
        return self.end - self.start

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end

    def contains(self, other: Span) -> bool:
        return self.start <= other.start and other.end <= self.end

    def to_json(self) -> dict[str, object]:
        return {
            "start": self.start,
            "end": self.end,
            "value": self.value,
            "kind": self.kind,
            "source": self.source,
            "score": self.score,
        }


def spans_from_json(items: Iterable[dict[str, object]], text: str) -> list[Span]:
    """Spans given from outside (the NER worker): offsets are checked against the text."""
    out: list[Span] = []
    for item in items:
        start, end = int(str(item["start"])), int(str(item["end"]))
        if not (0 <= start < end <= len(text)):
            raise ValueError(f"span {start}:{end} is outside the text")
        kind = str(item["kind"])
        score = float(str(item.get("score", 1.0)))
        out.append(Span(start, end, text[start:end], kind, str(item.get("source", "given")), score))
    return out
