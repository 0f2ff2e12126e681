"""On-device models on CPython. NER (`ner`): latency of the Rampart model per 1 kB message, and the leak-rate
table of the redaction engine with and without the model's spans, per language and kind, on the labelled
corpus and the held-out set, with the per-language decision that redact/ner_merge.py encodes.

Run in the dev venv after `python models/build.py rampart`:  python bench/models.py ner"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "bench"))

from openmasq.ner import Recogniser, default_model_dir  # noqa: E402
from openmasq.ner.measure import (  # noqa: E402
    ALL_LANGS,
    as_shipped,
    decision,
    format_comparison,
    format_trials,
    raw_spans,
    run_engine,
    trials,
    with_kinds,
)
from openmasq.redact import ner_merge  # noqa: E402
from openmasq.redact.evaluate import Record, parse_jsonl  # noqa: E402
from redact import build_messages, measure  # noqa: E402  (bench/redact.py: the same 1 kB messages)

DATA_DIR = ROOT / "tests" / "data"
THRESHOLDS = (0.5, 0.6, 0.65, 0.7, 0.8, 0.9)


def records_of(name: str) -> list[Record]:
    return [r for path in sorted((DATA_DIR / name).glob("*.jsonl")) for r in parse_jsonl(path.read_text("utf-8"))]


def ner_latency(recogniser: Recogniser, records: list[Record]) -> None:
    """p50/p95 wall time of one `Recogniser.spans` call on 1 kB and 10 kB messages (10 kB: several windows),
    and the CPU time per call (the wall time also counts whatever else the machine runs)."""
    print(f"NER latency on CPython (onnxruntime, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f}), one call:")
    for label, size, count in (("1 kB", 1024, 40), ("10 kB", 10240, 10)):
        messages = build_messages(records, size, count, seed=7)
        cpu = time.process_time()
        latency = measure(lambda text, _lang: recogniser.spans(text), messages, repeats=3)
        cpu_per_call = (time.process_time() - cpu) / (4 * len(messages))  # measure: 1 warm-up + 3 repeats
        tokens = sum(len(recogniser.tokenizer.encode(t, add_special_tokens=False).ids) for t, _ in messages)
        print(f"  {label:>5}: p50 {1000 * latency.p50:7.1f} ms  p95 {1000 * latency.p95:7.1f} ms  "
              f"CPU {1000 * cpu_per_call:7.1f} ms per call  ({tokens // len(messages)} tokens per message)")


def ner_tables(recogniser: Recogniser) -> dict[str, frozenset[str]]:
    """Prints the with/without tables per set, the threshold sweep and the trials; returns the decision."""
    sets = {name: records_of(name) for name in ("corpus", "heldout")}
    started = time.perf_counter()
    raw = {name: raw_spans(records, recogniser) for name, records in sets.items()}
    count = sum(len(r) for r in sets.values())
    print(f"\nmodel over {count} messages in {time.perf_counter() - started:.1f} s")
    for name, records in sets.items():
        outcomes = {
            "rules only": run_engine(records),
            "+model all": run_engine(records, with_kinds(raw[name])),
            "+model kept": run_engine(records, as_shipped(raw[name])),
        }
        print(f"\n=== {name} ({len(records)} messages) ===")
        print(format_comparison(outcomes))
        new = [v for v in outcomes["+model kept"].false_positive_values
               if v not in outcomes["rules only"].false_positive_values]
        print("replacements on no label added by the kept model spans:", new or "none")
        print("leaks left with the kept model spans:",
              [(leak.record_id, leak.value) for leak in outcomes["+model kept"].score.leaks] or "none")

    pooled = [r for records in sets.values() for r in records]
    pooled_raw = {k: v for spans in raw.values() for k, v in spans.items()}
    baseline = run_engine(pooled)
    print("\n=== threshold sweep, person spans only, corpus + held-out: per language (leaks whole,+part; "
          "over clean changed,on-no-label) ===")
    langs = [*sorted({r.lang for r in pooled}), ALL_LANGS]
    print("rules only ", "  ".join(f"{lang} {baseline.leaks(lang)} {baseline.over(lang)}" for lang in langs))
    for threshold in THRESHOLDS:
        outcome = run_engine(pooled, with_kinds(pooled_raw, frozenset({"person"}), threshold))
        cells = (f"{lang} {outcome.leaks(lang)} {outcome.over(lang)}" for lang in langs)
        print(f"at {threshold:<5}   ", "  ".join(cells))

    print(f"\n=== one model kind at a time, corpus + held-out, threshold {ner_merge.SCORE_THRESHOLD} ===")
    found = trials(pooled, pooled_raw, ner_merge.SCORE_THRESHOLD, baseline)
    print(format_trials(found))
    return decision(found)


def ner_main(model_dir: Path, threads: int | None = None) -> int:
    if not (model_dir / "config.json").is_file():
        print(f"no model in {model_dir}: run `python models/build.py rampart` first", file=sys.stderr)
        return 2
    recogniser = Recogniser(model_dir, threads=threads)
    ner_latency(recogniser, records_of("corpus"))
    decided = ner_tables(recogniser)
    shipped = {lang: ner_merge.KEPT_KINDS.get(lang, frozenset()) for lang in decided}
    print("\ndecision (kept model kinds per language):",
          {lang: sorted(kinds) for lang, kinds in decided.items()})
    same = decided == shipped
    print("ner_merge.KEPT_KINDS " + ("matches it" if same else f"DIFFERS: {shipped}"))
    return 0 if same else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="part", required=True)
    ner = sub.add_parser("ner", help="NER latency and the leak tables with and without the model")
    ner.add_argument("--model-dir", type=Path, default=None, help="default: $OPENMASQ_CACHE/models/rampart")
    ner.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads (default: all cores)")
    args = parser.parse_args(argv)
    if args.part == "ner":
        return ner_main(args.model_dir or default_model_dir(), args.threads)
    return 2


if __name__ == "__main__":
    sys.exit(main())
