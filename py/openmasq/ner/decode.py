"""The NER model's per-word label scores -> entity spans with code-point offsets (pure: CPython and Pyodide decode
the scores of their own runtime, onnxruntime or onnxruntime-web, with this same code).

Each word takes its scores from the window where it has most context (features.best_window); labels are BIO over
PER / ORG / LOC, decoded by Viterbi under the BIO constraint (an I-X only after B-X or I-X), so a span never starts
inside itself. A span's score is the mean, over its words, of the probability that the word is of its kind."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..redact.spans import Span
from .features import Features, best_window

LABELS = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC")
# Span kinds as the model names them (lower case); redact/ner_merge.py turns them into engine kinds.
KINDS = ("per", "org", "loc")
_NEG = -1e30


class ScoresError(ValueError):
    """The scores do not fit the features (a model of another shape, or a truncated reply)."""


def word_probabilities(features: Features, scores: Sequence[float]) -> list[list[float]]:
    """Per word, the softmax of its label scores (flat [windows, length, labels] row-major)."""
    labels = len(LABELS)
    expected = features.windows * features.length * labels
    if len(scores) != expected:
        raise ScoresError(f"{len(scores)} scores for {features.windows}x{features.length} words x {labels} labels")
    count = len(features.offsets)
    chosen = best_window(count, features.starts, features.length)
    out: list[list[float]] = []
    for word, window in enumerate(chosen):
        base = (window * features.length + word - features.starts[window]) * labels
        row = [float(x) for x in scores[base : base + labels]]
        if not all(math.isfinite(x) for x in row):
            raise ScoresError(f"non-finite scores for word {word}")
        top = max(row)
        exps = [math.exp(x - top) for x in row]
        total = sum(exps)
        out.append([e / total for e in exps])
    return out


def _allowed(previous: int, current: int) -> bool:
    label = LABELS[current]
    if not label.startswith("I-"):
        return True
    return previous > 0 and LABELS[previous][2:] == label[2:]


_ALLOWED = tuple(tuple(_allowed(p, c) for c in range(len(LABELS))) for p in range(len(LABELS)))
_START = tuple(not label.startswith("I-") for label in LABELS)


def viterbi(probabilities: Sequence[Sequence[float]]) -> list[int]:
    """The likeliest BIO-valid label sequence."""
    if not probabilities:
        return []
    n = len(LABELS)
    logs = [[math.log(p) if p > 0 else _NEG for p in row] for row in probabilities]
    best = [logs[0][c] if _START[c] else _NEG for c in range(n)]
    back: list[list[int]] = []
    for row in logs[1:]:
        pointers: list[int] = []
        current: list[float] = []
        for c in range(n):
            choice, value = 0, _NEG * 2
            for p in range(n):
                if _ALLOWED[p][c] and best[p] > value:
                    choice, value = p, best[p]
            pointers.append(choice)
            current.append(value + row[c])
        back.append(pointers)
        best = current
    label = max(range(n), key=lambda c: best[c])
    path = [label]
    for pointers in reversed(back):
        label = pointers[label]
        path.append(label)
    path.reverse()
    return path


def spans(text: str, features: Features, scores: Sequence[float]) -> list[Span]:
    """The entities of `text`: Span(start, end, value, kind "per"|"org"|"loc", source "ner", score)."""
    if not features.offsets:
        return []
    probabilities = word_probabilities(features, scores)
    path = viterbi(probabilities)
    out: list[Span] = []
    current: list[int] = []
    kind = ""

    def close() -> None:
        if current:
            start, end = features.offsets[current[0]][0], features.offsets[current[-1]][1]
            index = KINDS.index(kind)
            score = sum(probabilities[w][1 + 2 * index] + probabilities[w][2 + 2 * index] for w in current)
            out.append(Span(start, end, text[start:end], kind, "ner", round(score / len(current), 4)))
            current.clear()

    for word, label_id in enumerate(path):
        label = LABELS[label_id]
        if label == "O":
            close()
            kind = ""
            continue
        if label.startswith("B-"):
            close()
            kind = label[2:].lower()
        current.append(word)
    close()
    return out
