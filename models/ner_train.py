"""The recipe of the on-device NER model (models/ner/): generate the training data (models/_ner_data.py), featurise
it with the app's own featuriser (py/openmasq/ner/features.py), train the network in a separate torch venv
(models/_ner_torch.py), export it to ONNX with int8 embeddings, and measure it on held-out generated data.

Run on demand, never by ./scripts/serve or CI (the trained files are committed under models/ner/):

    python models/ner_train.py                  # full recipe: ~35 min of training on one core
    python models/ner_train.py --check          # small budget into a temp folder, compared with the committed one
    python models/ner_train.py --eval-only      # the figures of the committed model

The project venv runs this file (faker, numpy, onnxruntime); torch lives in its own venv
(`python3 -m venv ~/.cache/openmasq/train-venv && ~/.cache/openmasq/train-venv/bin/pip install torch==2.13.0
numpy onnx onnxscript`), named by --torch-python. Not a `models/build.py` recipe (it has no NAME): build.py
never trains."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(HERE))

import _ner_data as data  # noqa: E402
from _recipe import sha256_of  # noqa: E402

from openmasq.ner import features as F  # noqa: E402

OUT = HERE / "ner"
TORCH_PYTHON = Path.home() / ".cache" / "openmasq" / "train-venv" / "bin" / "python"
LABELS = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC")
SEEDS = {"train": 1, "dev": 2, "test": 3}


def write_jsonl(samples: list[data.Sample], path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for s in samples:
            out.write(json.dumps({"lang": s.lang, "text": s.text, "spans": s.spans}, ensure_ascii=False) + "\n")


def word_labels(offsets: list[tuple[int, int]], spans: list[tuple[int, int, str]]) -> list[int]:
    """BIO label ids per word: a word starting inside an entity span takes its label (B on its first word)."""
    labels = [0] * len(offsets)
    for start, end, label in spans:
        first = True
        for i, (a, _b) in enumerate(offsets):
            if start <= a < end:
                labels[i] = LABELS.index(("B-" if first else "I-") + label)
                first = False
    return labels


def featurise(samples: list[data.Sample]) -> dict[str, np.ndarray]:
    """Concatenated per-word arrays of every sample (ids, flag bits, labels) and each sample's first word and
    length."""
    ids: list[tuple[int, ...]] = []
    flags: list[int] = []
    labels: list[int] = []
    starts: list[int] = []
    lengths: list[int] = []
    for s in samples:
        offsets = F.words(s.text)[: F.WINDOW]
        if not offsets:
            continue
        rows, masks = F.word_rows(s.text, offsets)
        starts.append(len(ids))
        lengths.append(len(offsets))
        ids.extend(rows)
        flags.extend(masks)
        labels.extend(word_labels(offsets, s.spans))
    mask_array = np.array(flags, dtype=np.int64)
    bits = ((mask_array[:, None] >> np.arange(F.FLAG_COUNT)[None, :]) & 1).astype(np.int8)
    return {"ids": np.array(ids, dtype=np.int32), "flags": bits, "labels": np.array(labels, dtype=np.int8),
            "starts": np.array(starts, dtype=np.int64), "lengths": np.array(lengths, dtype=np.int64)}


def meta() -> dict[str, object]:
    return {"word_buckets": F.WORD_BUCKETS, "affix_buckets": F.AFFIX_BUCKETS, "shapes": len(F.SHAPES),
            "flag_count": F.FLAG_COUNT}


def build_data(work: Path, sizes: dict[str, int]) -> dict[str, str]:
    """Writes the generated sets (JSONL) and the featurised arrays (data.npz) into `work`; returns the sha256 of
    each JSONL."""
    hashes: dict[str, str] = {}
    arrays: dict[str, np.ndarray] = {}
    for name, count in sizes.items():
        started = time.perf_counter()
        samples = data.generate(count, SEEDS[name], test=name != "train")
        path = work / f"{name}.jsonl"
        write_jsonl(samples, path)
        hashes[name] = sha256_of(path)
        if name != "test":
            for key, value in featurise(samples).items():
                arrays[f"{name}_{key}"] = value
        print(f"{name}: {count} texts in {time.perf_counter() - started:.0f} s, sha256 {hashes[name]}", flush=True)
    np.savez(work / "data.npz", meta=np.array(json.dumps(meta())), **arrays)
    return hashes


def write_config(out: Path, hashes: dict[str, str], history: dict[str, object], sizes: dict[str, int]) -> None:
    config = {
        "labels": list(LABELS),
        "features_version": F.FEATURES_VERSION,
        "window": F.WINDOW,
        "overlap": F.OVERLAP,
        "id_columns": F.ID_COLUMNS,
        "flags": list(F.FLAGS),
        "shapes": list(F.SHAPES),
        **meta(),
        "inputs": ["ids", "flags"],
        "output": "scores",
        "training": {"sizes": sizes, "data_sha256": hashes, "seeds": SEEDS, **history},
    }
    (out / "config.json").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")


def train(work: Path, out: Path, minutes: float, torch_python: Path, sizes: dict[str, int]) -> None:
    hashes = build_data(work, sizes)
    trained = work / "trained"
    command = [str(torch_python), str(HERE / "_ner_torch.py"), str(work / "data.npz"), str(trained),
               "--minutes", str(minutes)]
    subprocess.run(command, check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    history = json.loads((trained / "history.json").read_text())
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(trained / "model.onnx", out / "model.onnx")
    write_config(out, hashes, history, sizes)
    print("written", out, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--minutes", type=float, default=35.0)
    parser.add_argument("--train-size", type=int, default=90_000)
    parser.add_argument("--torch-python", type=Path, default=TORCH_PYTHON)
    parser.add_argument("--work", type=Path, default=None, help="keep the generated data here")
    parser.add_argument("--check", action="store_true", help="a small budget into a temp folder, then compare")
    parser.add_argument("--eval-only", action="store_true")
    args = parser.parse_args(argv)
    if args.eval_only:
        from _ner_eval import report

        return report(args.out)
    sizes = {"train": args.train_size, "dev": 3000, "test": 5000}
    if args.check:
        sizes = {"train": 8000, "dev": 1000, "test": 2000}
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "ner"
            train(Path(folder), out, 3.0, args.torch_python, sizes)
            from _ner_eval import compare

            return compare(out, args.out)
    work = args.work or Path(tempfile.mkdtemp(prefix="ner-train-"))
    work.mkdir(parents=True, exist_ok=True)
    train(work, args.out, args.minutes, args.torch_python, sizes)
    from _ner_eval import report

    return report(args.out, work / "test.jsonl")


if __name__ == "__main__":
    sys.exit(main())
