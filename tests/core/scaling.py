"""Linear-work checks that count instead of timing: the Python steps the engine executes on a hostile
text against a text 10x smaller of the same shape. A count is the same on a quiet or a busy machine,
on CPython and inside Pyodide. The regular-expression engine's own backtracking runs in C and is not
counted here: bench/linear.py times the same inputs at 10x these sizes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import openmasq

ENGINE = str(Path(openmasq.__file__).parent)  # as the engine's code objects name their files

# Linear work gives a ratio of at most about 10 (fixed costs make it less), n log n about 12 at these
# sizes, quadratic work about 100: measured 8.9-10.0 on the hostile inputs of tests/core.
MAX_RATIO = 15.0


class OverBudget(Exception):
    """The work took more steps than it was allowed: stopped there (quadratic work on the large
    text would otherwise run for many minutes under the tracer)."""


def steps(work: Callable[[str], object], text: str, within: str = ENGINE, limit: float | None = None) -> int:
    """The Python steps (calls, lines, returns) that code under `within` executes during
    `work(text)`, counted by a trace function, which raises OverBudget past `limit`; the tracer in
    place before (a coverage run's) is put back."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        count += 1
        if limit is not None and count > limit:
            raise OverBudget(count)
        return local

    def enter(frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename.startswith(within):
            return local(frame, event, arg)
        return None

    previous = sys.gettrace()
    sys.settrace(enter)
    try:
        work(text)
    finally:
        sys.settrace(previous)
    return count


def tenth_of(text: str) -> str:
    """The first tenth of a hostile text, which repeats a short unit: the same shape, 10x smaller."""
    return text[: max(1, len(text) // 10)]


def work_ratio(work: Callable[[str], object], text: str, small_text: str | None = None,
               within: str = ENGINE) -> float:
    """Steps on `text` over steps on a text 10x smaller of the same shape (by default its first
    tenth), after one untraced run that loads what the engine loads once (lexicons, patterns)."""
    small_text = tenth_of(text) if small_text is None else small_text
    work(small_text)
    small = max(steps(work, small_text, within), 1)
    try:
        large = steps(work, text, within, limit=small * MAX_RATIO)
    except OverBudget:
        return MAX_RATIO  # at least: the count was stopped there
    return large / small


def assert_linear(work: Callable[[str], object], text: str, small_text: str | None = None,
                  within: str = ENGINE) -> None:
    ratio = work_ratio(work, text, small_text, within)
    assert ratio < MAX_RATIO, f"10x the input took {ratio:.1f}x the Python steps or more"
