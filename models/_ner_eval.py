"""Figures of a trained NER model (models/ner_train.py): span-level precision/recall per language and label on the
held-out GENERATED set (names and places the training never saw), and, through the whole engine, leaks on
tests/data/corpus and tests/data/dev (never tests/data/unseen). Writes metrics.json next to the model."""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(HERE))

import _ner_data as data  # noqa: E402

from openmasq.ner.runtime import Tagger  # noqa: E402

KIND_LABEL = {"per": "PER", "org": "ORG", "loc": "LOC"}
TEST_SEED = 3


def _samples(path: Path | None, count: int) -> list[dict[str, object]]:
    if path is not None and path.is_file():
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [{"lang": s.lang, "text": s.text, "spans": s.spans} for s in data.generate(count, TEST_SEED, test=True)]


def span_scores(tagger: Tagger, samples: list[dict[str, object]]) -> dict[str, dict[str, dict[str, float]]]:
    """{lang: {label: {precision, recall, f1, gold}}}, exact spans (edges and label); "all" pools languages."""
    counts: dict[tuple[str, str], Counter[str]] = {}
    for sample in samples:
        text = str(sample["text"])
        lang = str(sample["lang"])
        gold = {(int(a), int(b), str(c)) for a, b, c in sample["spans"]}  # type: ignore[attr-defined]
        found = {(s.start, s.end, KIND_LABEL[s.kind]) for s in tagger.spans(text)}
        for key in ((lang, "ALL"), ("all", "ALL")):
            counts.setdefault(key, Counter())
        for label in ("PER", "ORG", "LOC"):
            g = {x for x in gold if x[2] == label}
            f = {x for x in found if x[2] == label}
            for key in ((lang, label), ("all", label), (lang, "ALL"), ("all", "ALL")):
                c = counts.setdefault(key, Counter())
                c["tp"] += len(g & f)
                c["fp"] += len(f - g)
                c["fn"] += len(g - f)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for (lang, label), c in sorted(counts.items()):
        p = c["tp"] / max(1, c["tp"] + c["fp"])
        r = c["tp"] / max(1, c["tp"] + c["fn"])
        out.setdefault(lang, {})[label] = {"precision": round(p, 4), "recall": round(r, 4),
                                           "f1": round(2 * p * r / max(1e-9, p + r), 4), "gold": c["tp"] + c["fn"]}
    return out


def format_scores(scores: dict[str, dict[str, dict[str, float]]]) -> str:
    lines = [f"{'lang':<5}" + "".join(f"{label:>22}" for label in ("PER", "ORG", "LOC", "ALL")),
             f"{'':<5}" + "".join(f"{'P / R / F1':>22}" for _ in range(4))]
    for lang, by_label in scores.items():
        cells = []
        for label in ("PER", "ORG", "LOC", "ALL"):
            s = by_label.get(label)
            cells.append(f"{s['precision']:.3f}/{s['recall']:.3f}/{s['f1']:.3f}" if s else "-")
        lines.append(f"{lang:<5}" + "".join(f"{c:>22}" for c in cells))
    return "\n".join(lines)


def report(out: Path, test_jsonl: Path | None = None) -> int:
    tagger = Tagger(out)
    started = time.perf_counter()
    samples = _samples(test_jsonl, 5000)
    scores = span_scores(tagger, samples)
    print(f"held-out generated set ({len(samples)} texts, unseen names and places), exact spans, "
          f"{time.perf_counter() - started:.0f} s:")
    print(format_scores(scores))
    metrics_path = out / "metrics.json"
    metrics = json.loads(metrics_path.read_text()) if metrics_path.is_file() else {}
    metrics["generated_heldout"] = scores
    metrics_path.write_text(json.dumps(metrics, indent=1) + "\n", encoding="utf-8")
    return 0


def compare(new: Path, committed: Path) -> int:
    """--check: the small-budget model's figures next to the committed model's (same held-out texts)."""
    samples = _samples(None, 2000)
    fresh = span_scores(Tagger(new), samples)
    print("small-budget retrain:\n" + format_scores(fresh))
    if (committed / "model.onnx").is_file():
        shipped = span_scores(Tagger(committed), samples)
        print("committed model:\n" + format_scores(shipped))
        print(f"F1 all: retrain {fresh['all']['ALL']['f1']:.3f}, committed {shipped['all']['ALL']['f1']:.3f}")
    return 0 if fresh["all"]["ALL"]["f1"] > 0.5 else 1
