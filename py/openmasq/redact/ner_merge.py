"""How the NER model's spans join the rule and lexicon spans: model labels (PER / ORG / LOC) become engine kinds,
spans are cut at line breaks and stripped of edge punctuation, a person span inside a famous person's name becomes
that name (so the engine's notoriety rule judges it whole), unsure spans are dropped, and only the kinds the
measurement kept for a language go on.

Pure: the spans come from the browser worker (ml-worker.js runs the model on the arrays openmasq.ner.features
made, openmasq.ner.decode decodes them) or from `openmasq.ner.runtime` on CPython; the result goes into
`RedactOptions.spans`, where the engine weighs it against its own detectors."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..patterns import deferred
from . import lexicon
from .spans import Span

# Model label (lower case) -> engine kind (kinds.py).
LABEL_KINDS: dict[str, str] = {"per": "person", "org": "org", "loc": "location"}
# Kinds whose value is a name: cut at a line break, edge punctuation stripped.
NAME_KINDS = frozenset({"person", "org", "location"})

# A span below its kind's probability (the mean over its words that each word is of that kind) is dropped.
# Set by `python bench/models.py ner` (threshold sweep on tests/data/corpus + tests/data/dev, see there).
SCORE_THRESHOLDS: dict[str, float] = {"person": 0.5, "org": 0.5, "location": 0.5}
SCORE_THRESHOLD = 0.5  # the default of a kind not in the table

_LINE_BREAK = deferred(r"[\r\n\u2028\u2029]")
_LETTER_WORD = deferred(r"(?<!\w)[^\W\d_][\w-]*")
_FAMOUS_MAX_WORDS = 4

# Where the model is kept, per language and engine kind: only where it lowers leaks without raising any leak
# count, clean messages changed or replacements on no labelled value (measure.helps), measured by
# `python bench/models.py ner` (see models/ner/TRAINING.md for the run).
KEPT_KINDS: dict[str, frozenset[str]] = {
    "de": frozenset({"person"}),
    "en": frozenset({"person"}),
    "fr": frozenset({"person"}),
    "es": frozenset(),
    "it": frozenset(),
    "auto": frozenset({"person"}),
}


@dataclass(frozen=True)
class _Part:
    """A model span on its way to an engine span: its range, model label and probability."""

    start: int
    end: int
    label: str
    score: float


def kept_kinds(lang: str) -> frozenset[str]:
    """The engine kinds the model contributes for `lang`; "auto" and unmeasured languages get the decision
    taken on every language pooled."""
    return KEPT_KINDS.get(lang, KEPT_KINDS["auto"])


def threshold_of(kind: str, threshold: float | None = None) -> float:
    return SCORE_THRESHOLDS.get(kind, SCORE_THRESHOLD) if threshold is None else threshold


def model_spans(text: str, raw: Iterable[Span], lang: str, threshold: float | None = None) -> list[Span]:
    """The spans to give the engine (`RedactOptions.spans`) for the model's raw spans over `text`."""
    keep = kept_kinds(lang)
    return [span for span in engine_spans(text, raw, threshold) if span.kind in keep]


def engine_spans(text: str, raw: Iterable[Span], threshold: float | None = None) -> list[Span]:
    """Every model span as an engine span (kinds.py kinds, source "ner"), trimmed and thresholded (each kind at
    its own threshold, or all at `threshold`), before the per-language table."""
    out: list[Span] = []
    for s in sorted(raw, key=lambda s: (s.start, s.end)):
        kind = LABEL_KINDS.get(s.kind.lower())
        if kind is None or s.score < threshold_of(kind, threshold):
            continue
        span = _to_span(text, _Part(s.start, s.end, kind, s.score))
        if span is not None:
            out.append(span)
    return out


def _to_span(text: str, part: _Part) -> Span | None:
    kind = part.label
    # A name never runs over a line break ("Lefèvre\r\nMerci": the signature's next line): the first line is kept.
    line_end = _LINE_BREAK.search(text, part.start, part.end)
    edges = _strip_punctuation(text, part.start, line_end.start() if line_end else part.end)
    if edges is not None and kind == "person":
        edges = _person_edges(text, *edges)
    if edges is None:
        return None
    start, end = edges
    return Span(start, end, text[start:end], kind, "ner", part.score)


def _person_edges(text: str, start: int, end: int) -> tuple[int, int] | None:
    """A person span that is part of, or overruns, a famous person's name ("Emmanuel" in "Emmanuel Macron",
    "Angela Merkel Physik") becomes that name, so that the engine's notoriety rule judges the whole name;
    a lone word that is a country is no person."""
    famous = _famous_name_around(text, start, end)
    if famous is not None:
        return famous
    value = text[start:end]
    if " " not in value and lexicon.is_country(value):
        return None
    return start, end


def _famous_name_around(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The longest run of capitalised words, one space apart, that overlaps [start, end) and is a famous
    person's name (lexicon.is_famous_person), if any."""
    words = [(m.start(), m.end()) for m in _LETTER_WORD.finditer(text) if m.group()[0].isupper()]
    touched = [i for i, (a, b) in enumerate(words) if a < end and start < b]
    if not touched:
        return None
    first, last = touched[0], touched[-1]
    while first > 0 and text[words[first - 1][1] : words[first][0]] == " ":
        first -= 1
    while last + 1 < len(words) and text[words[last][1] : words[last + 1][0]] == " ":
        last += 1
    best: tuple[int, int] | None = None
    for i in range(first, last + 1):
        for j in range(i, min(last, i + _FAMOUS_MAX_WORDS - 1) + 1):
            a, b = words[i][0], words[j][1]
            overlaps = a < end and start < b
            longer = best is None or b - a > best[1] - best[0]
            if overlaps and longer and lexicon.is_famous_person(text[a:b]):
                best = (a, b)
    return best


def _strip_punctuation(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return (start, end) if start < end else None
