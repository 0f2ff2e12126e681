"""The e5 embedder: `query: ` / `passage: ` prefixes, masked mean pooling and L2 normalisation over the ONNX
encoder that `python models/build.py e5` writes (the same files the browser worker loads)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

Kind = Literal["query", "passage"]
PREFIXES: dict[str, str] = {"query": "query: ", "passage": "passage: "}
DIM = 384
MODEL_NAME = "e5"
MODEL_FILE = Path("onnx") / "model_q4.onnx"
TOKENIZER_FILE = "tokenizer.json"
# e5's position table has 512 rows; longer texts are truncated there, as transformers.js does.
MAX_TOKENS = 512
# The memory index embeds cards in batches of 16 (issue 7); padding cost stays small as texts are length-sorted.
DEFAULT_BATCH = 16
PAD_ID = 1  # `<pad>` in e5's vocabulary; padded positions are masked out anyway


class ModelNotBuilt(FileNotFoundError):
    """The model folder lacks the converted files."""


def default_model_dir() -> Path:
    """$OPENMASQ_CACHE/models/e5, the folder the models build writes (cache default ~/.cache/openmasq)."""
    cache = os.environ.get("OPENMASQ_CACHE") or str(Path.home() / ".cache" / "openmasq")
    return Path(cache) / "models" / MODEL_NAME


class Embedder:
    """Embeds texts into normalised 384-d vectors; one onnxruntime CPU session, reused across calls."""

    def __init__(self, model_dir: Path | str | None = None, *, threads: int | None = None) -> None:
        folder = Path(model_dir) if model_dir is not None else default_model_dir()
        model, tokenizer = folder / MODEL_FILE, folder / TOKENIZER_FILE
        missing = [p.name for p in (model, tokenizer) if not p.is_file()]
        if missing:
            raise ModelNotBuilt(
                f"no e5 model in {folder} (missing {', '.join(missing)}): build it with `python models/build.py e5`"
            )
        self.model_dir = folder
        self._tokenizer = Tokenizer.from_file(str(tokenizer))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=PAD_ID, pad_token="<pad>")
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        # Spinning worker threads lose their core when the machine is busy (the proxy shares it with its clients):
        # on 2 busy cores (load 12) 2 threads gave 4-5 texts/s at batch 1 spinning, 9-15 texts/s without.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])

    def embed(
        self, texts: Sequence[str], kind: Kind = "passage", *, batch_size: int = DEFAULT_BATCH
    ) -> list[list[float]]:
        """One normalised vector per text, in input order. The batching does not change the vectors."""
        if kind not in PREFIXES:
            raise ValueError(f"kind must be 'query' or 'passage', not {kind!r}")
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        prefixed = [PREFIXES[kind] + text for text in texts]
        # Similar lengths share a batch, so little compute goes to padding.
        order = sorted(range(len(prefixed)), key=lambda i: len(prefixed[i]))
        vectors: list[list[float]] = [[] for _ in prefixed]
        for start in range(0, len(order), batch_size):
            chosen = order[start : start + batch_size]
            for index, vector in zip(chosen, self._embed_batch([prefixed[i] for i in chosen]), strict=True):
                vectors[index] = vector
        return vectors

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        (hidden,) = self._session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask})
        vectors: list[list[float]] = _normalise(_mean_pool(hidden, mask)).tolist()
        return vectors


def _mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    weights = mask[..., None].astype(np.float32)
    counts = np.maximum(weights.sum(axis=1), 1.0)
    pooled: np.ndarray = (hidden * weights).sum(axis=1) / counts
    return pooled


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    normalised: np.ndarray = vectors / norms
    return normalised
