"""Pseudonymise one text for a conversation: detect, decide, allocate, substitute, verify.

Fail closed: any error raises and the caller sends nothing; the caller's vault is only
replaced by the returned one when the whole pass succeeded."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from .allocate import Prefetched, allocate
from .apply import Replacement, apply, check_nothing_left
from .collisions import resolve_collisions
from .detect import Offload, gather
from .kinds import CATEGORIES
from .options import RedactOptions
from .policy import admitted, resolve_overlaps
from .spans import Span
from .text import fold, folded_text
from .vault import Vault


@dataclass(frozen=True)
class Redaction:
    """The text the model may see, the vault that restores it, and what was replaced."""

    text: str
    vault: Vault
    replacements: tuple[Replacement, ...]
    # Values given a new substitute because a real value of this text collided with theirs
    # (collisions.py): texts redacted before with the old vault must be redacted again.
    refaked: tuple[str, ...] = ()

    @property
    def mapping(self) -> dict[str, str]:
        """substitute -> real for the values replaced in this text."""
        return {rep.substitute: rep.value for rep in self.replacements}


# A conversation's history is re-sent with every turn (chat APIs are stateless), so the same
# texts come back again and again: their detection is kept, up to this many characters of text
# per cache (about 100 turns of 2 kB messages; the spans take less room than their texts).
SPAN_CACHE_CHARS = 256_000

# How a shell detects: detect_spans itself, or its parallel form (the proxy's DetectionPool).
Detect = Callable[[str, RedactOptions], list[Span]]
# A statistical model's spans for a text, as the engine takes them (the NER model on CPython: ner.runtime).
SpanSource = Callable[[str], tuple[Span, ...]]


class Parallel(Protocol):
    """What a shell with a spare core lends a pass (the proxy's DetectionPool): detection with
    half of it done elsewhere, and fake candidates computed ahead (allocate.Prefetch)."""

    def detect_spans(self, text: str, options: RedactOptions) -> list[Span]: ...

    def prefetch(self, key: str, wanted: list[tuple[str, str]]) -> Callable[[], Prefetched | None]: ...


class SpanCache:
    """The spans detected in texts already seen, least recently used first out. Detection reads
    only the text and the options, never the vault, so a cached result is the one a new pass
    would find; allocation, substitution and the final check still run on every pass. Safe to
    share between threads (a shell's concurrent requests): the table is read and written under
    a lock, detection runs outside it."""

    def __init__(self, max_chars: int = SPAN_CACHE_CHARS) -> None:
        self.max_chars = max_chars
        self.chars = 0
        self._spans: OrderedDict[tuple[RedactOptions, str], tuple[Span, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._spans)

    def spans(self, text: str, options: RedactOptions, detect: Detect | None = None) -> list[Span]:
        key = (options, text)
        with self._lock:
            found = self._spans.get(key)
            if found is not None:
                self._spans.move_to_end(key)
                return list(found)
        spans = (detect or detect_spans)(text, options)
        if len(text) <= self.max_chars:
            with self._lock:
                if key not in self._spans:  # another thread may have stored it meanwhile
                    self._spans[key] = tuple(spans)
                    self.chars += len(text)
                while self.chars > self.max_chars:
                    (_, oldest), _ = self._spans.popitem(last=False)
                    self.chars -= len(oldest)
        return spans


def with_model(detect: Detect, model: SpanSource | None) -> Detect:
    """`detect` with the model's spans given for each text, if there is a model."""
    if model is None:
        return detect
    return lambda text, options: detect(text, replace(options, spans=options.spans + tuple(model(text))))


def detect_spans(text: str, options: RedactOptions, *, offload: Offload | None = None) -> list[Span]:
    """The spans a pass replaces: every admitted candidate, overlaps resolved (`offload`: see
    detect.gather)."""
    return resolve_overlaps(admitted(gather(text, options, offload=offload), text, options))


def prepare_pass(text: str) -> None:
    """Compute ahead, into their memos, the folds of `text` that a pass needs once its spans are
    known (allocation's context, substitution's variant search): a shell that waits for half of
    a detection (the proxy's DetectionPool) runs this meanwhile."""
    fold(text)
    folded_text(text)


def pseudonymise(text: str, vault: Vault, options: RedactOptions | None = None, *,
                 cache: SpanCache | None = None, parallel: Parallel | None = None,
                 model: SpanSource | None = None) -> Redaction:
    """Replace every sensitive value of `text`; `vault` is not modified (see Redaction.vault).
    `cache`: the conversation's detections of texts it has seen (see SpanCache); `parallel`:
    a shell's spare core (see Parallel); the result is the same with or without it. `model`:
    the NER model's spans, joined to `options.spans` (run only when the cache has not seen the
    text; an error raised by it fails the pass)."""
    options = options or RedactOptions()
    detect = with_model(parallel.detect_spans if parallel is not None else detect_spans, model)
    working = vault.copy()
    if working.mode is None:
        working.mode = options.mode
    spans = cache.spans(text, options, detect) if cache is not None else detect(text, options)
    lang = None if options.lang == "auto" else options.lang
    refaked = resolve_collisions(spans, text, working, lang=lang)
    substitutes = allocate(spans, text, working, lang=lang,
                           prefetch=parallel.prefetch if parallel is not None else None)
    planned = [_planned(span, text, substitutes[span]) for span in spans]
    excluded = _excluded_categories(options)
    keep = frozenset(fold(value) for value in options.keep if value.strip())
    output, replacements = apply(text, planned, working, excluded_categories=excluded, keep=keep)
    reals = {span.value for span in spans} | {f.value.strip() for f in options.force}
    reals |= {rep.value for rep in replacements}
    check_nothing_left(output, replacements, reals - {v for v in reals if fold(v) in keep})
    return Redaction(output, working, tuple(replacements), refaked)


def _planned(span: Span, text: str, substitute: str) -> Replacement:
    return Replacement(span.start, span.end, text[span.start : span.end], span.kind, substitute, span.source)


def _excluded_categories(options: RedactOptions) -> frozenset[str]:
    """Vault values of a category switched off for this pass stay in clear (reference 9.11)."""
    return frozenset(CATEGORIES) - options.active_categories()
