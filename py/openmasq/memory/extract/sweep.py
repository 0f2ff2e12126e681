"""The explicit sweep (reference 3.7), sans-I/O: while a pass comes back full, ask again with what
was captured listed, up to 4 passes; yields exclusion lists, receives parses (None: failed)."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass

from ..normalise import normalise
from .parse import ParsedExtraction, ParsedFact

EXPLICIT_MAX_PASSES = 4
SILENT_MAX_PASSES = 1


@dataclass(frozen=True)
class SweepResult:
    facts: tuple[ParsedFact, ...] = ()
    profile: str | None = None  # the first pass's
    passes: int = 0
    truncated: bool = False  # the last pass was full and the pass budget ran out
    legible: bool = False  # at least one pass parsed: an empty legible sweep is "nothing durable"
    failed: bool = False  # the sweep stopped on a failed pass (never reported as truncated)


def _is_full(result: ParsedExtraction, limit: int) -> bool:
    """Full when the model offered as many rows as allowed, even if some were invalid (the
    reference judged the validated count, so a few bad rows stopped the sweep: item 6)."""
    return result.rows >= limit or len(result.facts) >= limit


def _exclusion(captured: list[str], known: Sequence[str]) -> list[str]:
    """Captured entities first (they keep the sweep paging when the prompt keeps 60 names), then
    the entities already in memory; one spelling per normalised name."""
    out: list[str] = []
    seen: set[str] = set()
    for name in [*captured, *known]:
        key = normalise(name)
        if key and key not in seen:
            seen.add(key)
            out.append(name)
    return out


def sweep_extraction(
    *, limit: int, max_passes: int, known: Sequence[str] = (), drop_known: bool = False
) -> Generator[list[str], ParsedExtraction | None, SweepResult]:
    """Drive up to `max_passes` passes. A fact whose entity was captured by an earlier pass is
    dropped. Entities already in memory are listed to every pass; a fact about one is kept (it
    may be an update) unless `drop_known` (the reference's behaviour)."""
    known_keys = {normalise(name) for name in known}
    captured: list[str] = []
    captured_keys: set[str] = set()
    facts: list[ParsedFact] = []
    profile: str | None = None
    passes = 0
    legible = False
    while passes < max_passes:
        result = yield _exclusion(captured, known)
        passes += 1
        if result is None:
            return SweepResult(tuple(facts), profile, passes, False, legible, failed=True)
        if not legible:
            profile = result.profile
        legible = True
        earlier = set(captured_keys)
        added = 0
        for fact in result.facts:
            key = normalise(fact.entity)
            if key in earlier or (drop_known and key in known_keys):
                continue
            facts.append(fact)
            added += 1
            if key not in captured_keys:
                captured_keys.add(key)
                captured.append(fact.entity)
        if not _is_full(result, limit) or added == 0:
            return SweepResult(tuple(facts), profile, passes, False, legible)
    return SweepResult(tuple(facts), profile, passes, True, legible)
