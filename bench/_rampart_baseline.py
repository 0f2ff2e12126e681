"""The BASELINE of bench/models.py only: the Rampart token-classification model (a 6-layer uncased BERT) the app
used before its own NER (models/ner/), kept to print the speed ratio in the same run when its files are still in
$OPENMASQ_CACHE/models/rampart (its recipe is gone: the app no longer ships it). Not part of the package."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime as ort  # type: ignore[import-untyped,unused-ignore]
from numpy.typing import NDArray
from tokenizers import Encoding, Tokenizer

from openmasq.redact.spans import Span

MODEL_FILE = "onnx/model_q4.onnx"
# [CLS] and [SEP] take two of the model's positions.
SPECIAL_TOKENS = 2
# Tokens of context shared by two neighbouring windows: each token is labelled by the window where it
# sits farthest from a cut edge, so it always sees at least half this many tokens on each side.
DEFAULT_OVERLAP = 64


class ModelNotBuilt(FileNotFoundError):
    """The model folder lacks the model files."""


@dataclass(frozen=True)
class _Word:
    """One pre-tokenised word: its character range and the label and probability of its first token."""

    start: int
    end: int
    label: str
    score: float


class Recogniser:
    """`Recogniser(model_dir).spans(text)`: the model's entities as `Span`s with source "ner" and, as kind,
    the model's own label in lower case ("given_name", "surname", "city"...). `redact.ner_merge` turns
    them into engine kinds."""

    def __init__(self, model_dir: Path | str, *, window: int | None = None, overlap: int = DEFAULT_OVERLAP,
                 threads: int | None = None) -> None:
        root = Path(model_dir)
        missing = [name for name in ("config.json", "tokenizer.json", MODEL_FILE) if not (root / name).is_file()]
        if missing:
            raise ModelNotBuilt(f"no Rampart baseline in {root} (missing {', '.join(missing)})")
        config = json.loads((root / "config.json").read_text(encoding="utf-8"))
        self.labels: dict[int, str] = {int(k): str(v) for k, v in config["id2label"].items()}
        longest = int(config["max_position_embeddings"]) - SPECIAL_TOKENS
        self.window = min(window or longest, longest)
        if not 0 <= overlap < self.window // 2:
            raise ValueError(f"overlap {overlap} must be below half the window ({self.window})")
        self.overlap = overlap
        self.tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self._cls = self._special_id("[CLS]")
        self._sep = self._special_id("[SEP]")
        self._pad = int(config.get("pad_token_id", 0))
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        self.session = ort.InferenceSession(str(root / MODEL_FILE), options, providers=["CPUExecutionProvider"])
        self._inputs = {item.name for item in self.session.get_inputs()}

    def _special_id(self, token: str) -> int:
        found = self.tokenizer.token_to_id(token)
        if found is None:
            raise ValueError(f"the tokenizer has no {token} token")
        return int(found)

    def spans(self, text: str) -> list[Span]:
        """The model's entities in `text`, in order; `text[span.start:span.end] == span.value`."""
        encoding = self.tokenizer.encode(text, add_special_tokens=False)
        if not encoding.ids:
            return []
        probs = self.token_probabilities(encoding.ids)
        return _entities(text, _words(encoding, probs, self.labels))

    def token_probabilities(self, ids: Sequence[int]) -> NDArray[np.float32]:
        """[tokens, labels] softmax probabilities, each token taken from the window where it has most context."""
        windows = window_starts(len(ids), self.window, self.overlap)
        logits = self._run([ids[start : start + self.window] for start in windows])
        chosen = best_window(len(ids), windows, self.window)
        rows = np.stack([logits[w][i - windows[w]] for i, w in enumerate(chosen)])
        shifted = np.exp(rows - rows.max(axis=-1, keepdims=True))
        probs: NDArray[np.float32] = (shifted / shifted.sum(axis=-1, keepdims=True)).astype(np.float32)
        return probs

    def _run(self, pieces: list[Sequence[int]]) -> list[NDArray[np.float32]]:
        """Logits of each window without its [CLS]/[SEP] rows; windows go through the model in one padded batch."""
        width = max(len(piece) for piece in pieces) + SPECIAL_TOKENS
        ids = np.full((len(pieces), width), self._pad, dtype=np.int64)
        mask = np.zeros((len(pieces), width), dtype=np.int64)
        for row, piece in enumerate(pieces):
            ids[row, : len(piece) + SPECIAL_TOKENS] = [self._cls, *piece, self._sep]
            mask[row, : len(piece) + SPECIAL_TOKENS] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        (logits,) = self.session.run(["logits"], feeds)
        return [logits[row, 1 : len(piece) + 1] for row, piece in enumerate(pieces)]


def window_starts(length: int, window: int, overlap: int) -> list[int]:
    """First token of each window over `length` tokens: windows of `window` tokens, neighbours sharing
    `overlap`, the last one ending on the last token."""
    if length <= window:
        return [0]
    step = window - overlap
    starts = list(range(0, length - window, step))
    return [*starts, length - window]


def best_window(length: int, starts: Sequence[int], window: int) -> list[int]:
    """For each token, the window where its nearest cut edge is farthest (a text edge is no cut)."""
    chosen: list[int] = []
    for token in range(length):
        best, best_margin = 0, -1.0
        for index, start in enumerate(starts):
            end = start + window
            if not start <= token < end:
                continue
            left = math.inf if start == 0 else token - start
            right = math.inf if end >= length else end - 1 - token
            margin = min(left, right)
            if margin > best_margin:
                best, best_margin = index, margin
        chosen.append(best)
    return chosen


def _words(encoding: Encoding, probs: NDArray[np.float32], labels: dict[int, str]) -> list[_Word]:
    """One entry per pre-tokenised word, labelled by its first sub-token (a word is never split
    between two entities)."""
    words: list[_Word] = []
    last_word: int | None = None
    for index, (word_id, (start, end)) in enumerate(zip(encoding.word_ids, encoding.offsets, strict=True)):
        if word_id is None or start == end:
            continue
        if word_id == last_word:
            words[-1] = _Word(words[-1].start, end, words[-1].label, words[-1].score)
            continue
        best = int(probs[index].argmax())
        words.append(_Word(start, end, labels[best], float(probs[index][best])))
        last_word = word_id
    return words


def _entities(text: str, words: list[_Word]) -> list[Span]:
    """BIO decoding over words: B-X opens an entity, I-X extends an open X entity (or opens one)."""
    spans: list[Span] = []
    current: list[_Word] = []
    kind = ""

    def close() -> None:
        if current:
            start, end = current[0].start, current[-1].end
            score = sum(word.score for word in current) / len(current)
            spans.append(Span(start, end, text[start:end], kind, "ner", round(score, 4)))
            current.clear()

    for word in words:
        prefix, _, label = word.label.partition("-")
        if not label:  # "O"
            close()
            kind = ""
            continue
        label = label.lower()
        if prefix == "I" and label == kind and current:
            current.append(word)
            continue
        close()
        kind = label
        current.append(word)
    close()
    return spans
