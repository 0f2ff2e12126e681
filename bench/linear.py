"""CPU time of the engine on hostile inputs against a tenth of them, in the same run: the timing side of
tests/core's linear-work checks (which count Python steps and cannot see the regular-expression
engine's backtracking), on the same inputs at 10x the tests' sizes, and the names detector's
latency on 10 kB of prose.

    python bench/linear.py            # every set; exit 1 if a ratio or the latency is over its bar
    python bench/linear.py names orgs # some sets"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT / "tests" / "core")]

# The hostile inputs are the tests' own (one source), imported from their modules.
import test_extract_explicit  # noqa: E402
import test_extract_parse  # noqa: E402
import test_names  # noqa: E402
import test_orgs  # noqa: E402
import test_properties  # noqa: E402
import test_restore_complete  # noqa: E402
import test_rules_adversarial  # noqa: E402

from openmasq.memory.extract.explicit import is_explicit_memory_ask  # noqa: E402
from openmasq.redact import Restorer  # noqa: E402
from openmasq.redact.names import detect_handles, detect_names  # noqa: E402
from openmasq.redact.orgs import detect_orgs  # noqa: E402
from openmasq.redact.rules import detect_rules  # noqa: E402

# Linear work gives a ratio near 10, quadratic work near 100. Measured on CPython 3.11: 10-15 for the
# detectors on a quiet machine, up to 33 at load 6 on 2 cores; quadratic stays far above.
MAX_RATIO = 45.0
MIN_SMALL_SECONDS = 0.005  # below this the small side is mostly timer noise: it counts as this much
PROSE_TARGET_S = 0.25  # 10 kB of French prose through detect_names: about 4 ms on CPython 3.11

Work = Callable[[str], object]
Case = tuple[str, Work, str, str]  # name, work, large text, small text (10x smaller, same shape)


def cpu_seconds(work: Work, text: str) -> float:
    """The work's CPU time with the cyclic GC paused (a full collection walks every live object, and
    the larger input triggers more of them: the algorithm's growth is what is measured)."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        work(text)
        return time.process_time() - start
    finally:
        gc.enable()


def ratio(work: Work, large: str, small: str) -> float:
    """CPU time on `large` over CPU time on `small`: best of three for the small side, of two for
    the large (one preempted run inflates a ratio)."""
    work(small)  # what loads once (lexicons, patterns) is not the algorithm
    fast = min(cpu_seconds(work, small) for _ in range(3))
    slow = min(cpu_seconds(work, large) for _ in range(2))
    return slow / max(fast, MIN_SMALL_SECONDS)


def tenfold(name: str, work: Work, table: dict[str, str]) -> Iterator[Case]:
    """A test table's texts (each a repeated unit) ten times over, against the test's size."""
    for label, text in table.items():
        yield f"{name}: {label}", work, text * 10, text


def cases() -> dict[str, list[Case]]:
    restorer = Restorer(test_restore_complete.conversation())
    rules = test_rules_adversarial.hostile
    prose = test_properties.PROSE_UNIT
    return {
        "names": list(tenfold("names", detect_names, test_names.HOSTILE_NAMES)),
        "handles": list(tenfold("handles", detect_handles, test_names.HOSTILE_HANDLES)),
        "orgs": list(tenfold("orgs", detect_orgs, test_orgs.HOSTILE_ORGS)),
        "asks": list(tenfold("asks", is_explicit_memory_ask, test_extract_explicit.HOSTILE_ASKS)),
        "restore": [(f"restore: {unit[:12]!r}", restorer.restore, test_restore_complete.digit_runs(unit, 200_000),
                     test_restore_complete.digit_runs(unit, 20_000)) for unit in test_restore_complete.DIGIT_RUN_UNITS],
        "rules": [("rules: hostile mix", detect_rules, rules(1_000_000), rules(100_000))],
        "pseudonymise": [("pseudonymise: prose", test_properties.pseudonymise_fresh, prose * 1000, prose * 100)],
        "parse": [(f"parse: {label}", test_extract_parse.parse_25, soup(1_000_000), soup(100_000))
                  for label, soup in test_extract_parse.SOUPS.items()],
    }


def prose_seconds() -> float:
    """Best of five: detect_names on 10 kB of French prose."""
    text = test_names.ten_kilobytes_of_prose()
    detect_names(text)  # the lexicons load once
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        detect_names(text)
        best = min(best, time.perf_counter() - started)
    return best


def main(argv: list[str] | None = None) -> int:
    sets = cases()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="*", help=f"sets to run, of {', '.join([*sets, 'prose'])} (default: all)")
    chosen = parser.parse_args(argv).sets or [*sets, "prose"]
    unknown = sorted(set(chosen) - {*sets, "prose"})
    if unknown:
        parser.error(f"unknown set: {', '.join(unknown)}")
    failed = 0
    print(f"{'case':44} {'ratio':>7}  bar {MAX_RATIO:.0f}")
    for name in chosen:
        for label, work, large, small in sets.get(name, []):
            value = ratio(work, large, small)
            failed += value >= MAX_RATIO
            print(f"{label:44} {value:7.1f}  {'MET' if value < MAX_RATIO else 'NOT MET'}", flush=True)
    if "prose" in chosen:
        seconds = prose_seconds()
        failed += seconds >= PROSE_TARGET_S
        print(f"{'names: 10 kB of French prose':44} {seconds * 1000:6.1f} ms  target < {PROSE_TARGET_S * 1000:.0f} ms  "
              f"{'MET' if seconds < PROSE_TARGET_S else 'NOT MET'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
