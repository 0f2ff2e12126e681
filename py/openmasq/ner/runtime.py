"""The NER model on CPython: onnxruntime runs models/ner/model.onnx on the arrays `features` makes, `decode` turns
its scores into spans. Needs the `models` extra (numpy, onnxruntime); the pure core never imports this module.

The model is found in the repo's models/ner/ (committed, trained by models/ner_train.py); OPENMASQ_NER_MODEL names
another folder."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort  # type: ignore[import-untyped,unused-ignore]

from openmasq.redact.ner_merge import model_spans
from openmasq.redact.spans import Span

from . import decode, features

MODEL_FILE = "model.onnx"
CONFIG_FILE = "config.json"
ENV_VAR = "OPENMASQ_NER_MODEL"
# py/openmasq/ner/runtime.py -> the repo root
REPO_MODEL_DIR = Path(__file__).resolve().parents[3] / "models" / "ner"


class ModelNotFound(FileNotFoundError):
    """The model folder lacks the model files."""


class ModelLoadError(RuntimeError):
    """The model files are there but cannot be used (corrupt, or trained for other features or labels)."""


def default_model_dir() -> Path:
    """$OPENMASQ_NER_MODEL, else the repo's models/ner/."""
    given = os.environ.get(ENV_VAR)
    return Path(given) if given else REPO_MODEL_DIR


def check_config(config: dict[str, Any], where: Path) -> None:
    """The model must have been trained on this featuriser and these labels."""
    expected = {"features_version": features.FEATURES_VERSION, "labels": list(decode.LABELS),
                "id_columns": features.ID_COLUMNS, "flag_count": features.FLAG_COUNT}
    for key, value in expected.items():
        if config.get(key) != value:
            raise ModelLoadError(f"NER model in {where}: {key} is {config.get(key)!r}, this code needs {value!r}"
                                 " (retrain with models/ner_train.py)")


class Tagger:
    """`Tagger(model_dir).spans(text)`: the model's entities (kind "per" / "org" / "loc", source "ner")."""

    def __init__(self, model_dir: Path | str | None = None, *, threads: int | None = 1) -> None:
        root = Path(model_dir) if model_dir is not None else default_model_dir()
        missing = [name for name in (CONFIG_FILE, MODEL_FILE) if not (root / name).is_file()]
        if missing:
            raise ModelNotFound(f"no NER model in {root} (missing {', '.join(missing)}); "
                                f"set {ENV_VAR} or train one with `python models/ner_train.py`")
        try:
            self.config: dict[str, Any] = json.loads((root / CONFIG_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ModelLoadError(f"NER model in {root}: unreadable {CONFIG_FILE}: {error}") from error
        check_config(self.config, root)
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(str(root / MODEL_FILE), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # onnxruntime raises its own exception types
            raise ModelLoadError(f"NER model in {root}: onnxruntime cannot load {MODEL_FILE}: {error}") from error
        self.model_dir = root

    def scores(self, feats: features.Features) -> np.ndarray:
        """The model's [windows, length, labels] scores for featurised text."""
        ids = np.asarray(feats.ids, dtype=np.int64).reshape(feats.ids_dims)
        flags = np.asarray(feats.flags, dtype=np.int64).reshape(feats.flags_dims)
        (out,) = self.session.run(["scores"], {"ids": ids, "flags": flags})
        return np.asarray(out, dtype=np.float32)

    def spans(self, text: str) -> list[Span]:
        """The entities of `text`, in order; `text[span.start:span.end] == span.value`."""
        feats = features.featurise(text)
        if not feats.offsets:
            return []
        return decode.spans(text, feats, self.scores(feats).ravel().tolist())


def ner_spans(text: str, tagger: Tagger, lang: str = "auto") -> tuple[Span, ...]:
    """The model's spans for `text` as the engine takes them (`RedactOptions.spans`): engine kinds, only the kinds
    kept for `lang` (redact/ner_merge.py)."""
    return tuple(model_spans(text, tagger.spans(text), lang))
