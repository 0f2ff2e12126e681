"""Linear-time checks without wall-clock limits: the CPU time on a tenth of the input against the
whole, measured in the same run (a busy machine or Pyodide slows both sides alike)."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

# Linear work gives a ratio near 10, quadratic work near 100. Measured on CPython 3.11: 10-15 for
# the detectors here on a quiet machine, up to 33 at load 6 on 2 cores; quadratic stays far above.
MAX_RATIO = 45.0
# Below this the small side is mostly timer noise: it counts as this much.
MIN_SMALL_SECONDS = 0.005


def cpu_seconds(work: Callable[[str], object], text: str) -> float:
    """The work's CPU time with the cyclic GC paused: a full collection walks every live object of
    the test session (lexicons, memo caches), and the larger input triggers more of them, which
    measured 49x for linear work late in a full run (the algorithm's growth is what is checked)."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        work(text)
        return time.process_time() - start
    finally:
        gc.enable()


def tenth_of(text: str) -> str:
    """The first tenth of a hostile text, which repeats a short unit: the same shape, 10x smaller."""
    return text[: max(1, len(text) // 10)]


def scaling_ratio(work: Callable[[str], object], text: str, small_text: str | None = None) -> float:
    """CPU time on `text` over CPU time on a text 10x smaller of the same shape (by default its
    first tenth; best of three for the small side, of two for the large: inside Pyodide the "CPU"
    clock is the page's wall clock, so a busy machine preempting one run inflated it to 53x)."""
    small_text = tenth_of(text) if small_text is None else small_text
    small = min(cpu_seconds(work, small_text) for _ in range(3))
    large = min(cpu_seconds(work, text) for _ in range(2))
    return large / max(small, MIN_SMALL_SECONDS)


def assert_linear(work: Callable[[str], object], text: str, small_text: str | None = None) -> None:
    ratio = scaling_ratio(work, text, small_text)
    assert ratio < MAX_RATIO, f"10x the input took {ratio:.1f}x the CPU time"
