"""Trains the NER network on the featurised data (`ner_train.py` writes it) and exports it to ONNX, with int8
embedding tables. Runs in the training venv (torch); never imported by the app.

usage: python _ner_torch.py DATA.npz OUT_DIR --minutes M [--seed S]"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

LABELS = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC")


class Tagger(nn.Module):
    """Hashed word embedding + four hashed affix embeddings + shape embedding + gazetteer flags -> BiLSTM ->
    per-word label scores."""

    def __init__(self, word_buckets: int, affix_buckets: int, shapes: int, flags: int, *, word_dim: int = 64,
                 affix_dim: int = 24, shape_dim: int = 8, hidden: int = 160, dropout: float = 0.25) -> None:
        super().__init__()
        self.word = nn.Embedding(word_buckets, word_dim)
        self.affix = nn.Embedding(affix_buckets, affix_dim)
        self.shape = nn.Embedding(shapes, shape_dim)
        width = word_dim + 4 * affix_dim + shape_dim + flags
        self.mix = nn.Linear(width, width)
        self.drop = nn.Dropout(dropout)
        self.lstm = nn.LSTM(width, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, len(LABELS))

    def inputs(self, ids: torch.Tensor, flags: torch.Tensor) -> torch.Tensor:
        word = self.word(ids[..., 0])
        affix = self.affix(ids[..., 1:5]).flatten(-2)
        shape = self.shape(ids[..., 5])
        x = torch.cat([word, affix, shape, flags.float()], dim=-1)
        return torch.relu(self.mix(x))

    def forward(self, ids: torch.Tensor, flags: torch.Tensor, lengths: torch.Tensor | None = None) -> torch.Tensor:
        x = self.drop(self.inputs(ids, flags))
        if lengths is not None:
            packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
            y, _ = self.lstm(packed)
            y, _ = pad_packed_sequence(y, batch_first=True, total_length=x.shape[1])
        else:
            y, _ = self.lstm(x)
        return self.out(self.drop(y))  # type: ignore[no-any-return]


class QuantEmbedding(nn.Module):
    """An embedding table stored as int8 with one scale per row (exported as Gather, Cast, Gather, Mul)."""

    def __init__(self, weight: torch.Tensor) -> None:
        super().__init__()
        scale = weight.abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / 127.0
        self.register_buffer("q", torch.round(weight / scale).clamp(-127, 127).to(torch.int8))
        self.register_buffer("scale", scale.float())

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.q[ids].float() * self.scale[ids]  # type: ignore[index]


class Exported(nn.Module):
    """The inference graph: ids [N, W, 6] int64, flags [N, W, F] int64 -> scores [N, W, labels] (logits)."""

    def __init__(self, tagger: Tagger) -> None:
        super().__init__()
        self.word = QuantEmbedding(tagger.word.weight.detach())
        self.affix = QuantEmbedding(tagger.affix.weight.detach())
        self.shape = tagger.shape
        self.mix = tagger.mix
        self.lstm = tagger.lstm
        self.out = tagger.out

    def forward(self, ids: torch.Tensor, flags: torch.Tensor) -> torch.Tensor:
        word = self.word(ids[:, :, 0])
        affix = torch.cat([self.affix(ids[:, :, k]) for k in range(1, 5)], dim=-1)
        shape = self.shape(ids[:, :, 5])
        x = torch.relu(self.mix(torch.cat([word, affix, shape, flags.float()], dim=-1)))
        y, _ = self.lstm(x)
        return self.out(y)  # type: ignore[no-any-return]


def batches(starts: np.ndarray, lengths: np.ndarray, size: int, rng: random.Random) -> list[np.ndarray]:
    """Sample indices in batches of similar length (less padding)."""
    order = sorted(range(len(starts)), key=lambda i: (lengths[i] + rng.random() * 8))
    out = [np.array(order[i : i + size]) for i in range(0, len(order), size)]
    rng.shuffle(out)
    return out


def tensors(data: dict[str, np.ndarray], index: np.ndarray, word_drop: float,
            rng: np.random.Generator | None) -> tuple[torch.Tensor, ...]:
    starts, lengths = data["starts"][index], data["lengths"][index]
    width = int(lengths.max())
    ids = np.zeros((len(index), width, 6), dtype=np.int64)
    flags = np.zeros((len(index), width, data["flags"].shape[1]), dtype=np.int64)
    labels = np.full((len(index), width), -100, dtype=np.int64)
    for row, (s, n) in enumerate(zip(starts, lengths, strict=True)):
        ids[row, :n] = data["ids"][s : s + n]
        flags[row, :n] = data["flags"][s : s + n]
        labels[row, :n] = data["labels"][s : s + n]
    if word_drop and rng is not None:
        drop = (rng.random(ids.shape[:2]) < word_drop) & (labels >= 0)
        ids[..., 0][drop] = 0  # the unknown word: names the model never saw must be told by affixes and flags
    return torch.from_numpy(ids), torch.from_numpy(flags), torch.from_numpy(labels), torch.from_numpy(lengths)


def evaluate(model: Tagger, data: dict[str, np.ndarray]) -> dict[str, float]:
    """Token-level precision/recall/F1 of entity words (label type only), on `data`."""
    model.eval()
    tp = fp = fn = 0
    index = np.arange(len(data["starts"]))
    with torch.no_grad():
        for i in range(0, len(index), 256):
            ids, flags, labels, lengths = tensors(data, index[i : i + 256], 0.0, None)
            pred = model(ids, flags, lengths).argmax(-1)
            mask = labels >= 0
            gold_type = (labels + 1) // 2
            pred_type = (pred + 1) // 2
            tp += int(((gold_type == pred_type) & (gold_type > 0) & mask).sum())
            fp += int(((pred_type > 0) & (gold_type != pred_type) & mask).sum())
            fn += int(((gold_type > 0) & (gold_type != pred_type) & mask).sum())
    model.train()
    p = tp / max(1, tp + fp)
    r = tp / max(1, tp + fn)
    return {"precision": p, "recall": r, "f1": 2 * p * r / max(1e-9, p + r)}


def export(model: Tagger, out: Path, flag_count: int) -> None:
    """The inference graph to out/model.onnx (int8 embeddings), and its scores on a fixed input."""
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    exported = Exported(model).eval()
    ids = torch.ones((2, 11, 6), dtype=torch.int64)
    flags = torch.zeros((2, 11, flag_count), dtype=torch.int64)
    torch.onnx.export(exported, (ids, flags), str(out / "model.onnx"), input_names=["ids", "flags"],
                      output_names=["scores"], opset_version=17, dynamo=False,
                      dynamic_axes={"ids": {0: "windows", 1: "words"}, "flags": {0: "windows", 1: "words"},
                                    "scores": {0: "windows", 1: "words"}})
    with torch.no_grad():
        np.save(out / "reference.npy", exported(ids, flags).numpy())
    model.train()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--minutes", type=float, default=35.0)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--batch", type=int, default=48)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    nrng = np.random.default_rng(args.seed)
    raw = np.load(args.data)
    meta = json.loads(str(raw["meta"]))
    train = {k[6:]: raw[k] for k in raw.files if k.startswith("train_")}
    dev = {k[4:]: raw[k] for k in raw.files if k.startswith("dev_")}
    model = Tagger(meta["word_buckets"], meta["affix_buckets"], meta["shapes"], meta["flag_count"])
    # O is most words: a lighter weight on it lifts recall of the rare entity words.
    weights = torch.tensor([0.6] + [1.0] * (len(LABELS) - 1))
    loss_fn = nn.CrossEntropyLoss(weight=weights, ignore_index=-100)
    optimiser = torch.optim.Adam(model.parameters(), lr=2e-3)
    budget = args.minutes * 60
    started = time.perf_counter()
    best, best_state, history = -1.0, None, []
    epoch = 0
    steps = 0
    while time.perf_counter() - started < budget:
        epoch += 1
        for index in batches(train["starts"], train["lengths"], args.batch, rng):
            ids, flags, labels, lengths = tensors(train, index, 0.12, nrng)
            scores = model(ids, flags, lengths)
            loss = loss_fn(scores.reshape(-1, len(LABELS)), labels.reshape(-1))
            optimiser.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimiser.step()
            steps += 1
            if steps % 500 == 0:
                print(f"epoch {epoch} step {steps} loss {loss.item():.4f} "
                      f"{(time.perf_counter() - started) / 60:.1f} min", flush=True)
            if time.perf_counter() - started >= budget:
                break
        for group in optimiser.param_groups:
            group["lr"] *= 0.7
        score = evaluate(model, dev)
        history.append({"epoch": epoch, "steps": steps, "minutes": round((time.perf_counter() - started) / 60, 2),
                        **{k: round(v, 4) for k, v in score.items()}})
        print("dev", history[-1], flush=True)
        if score["f1"] >= best:  # on a tie the later epoch (more training) wins
            best = score["f1"]
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
            export(model, args.out, meta["flag_count"])  # after every better epoch: a run cut short keeps it
        (args.out / "history.json").write_text(json.dumps({"history": history, "best_f1": best,
                                                           "seconds": round(time.perf_counter() - started, 1),
                                                           "torch": torch.__version__}, indent=1))
    assert best_state is not None
    print("exported", args.out / "model.onnx", flush=True)


if __name__ == "__main__":
    main()
