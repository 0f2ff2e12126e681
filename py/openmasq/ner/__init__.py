"""The on-device NER model on CPython (onnxruntime): `Recogniser` runs it, `ner_spans` gives the spans the
redaction engine takes (`RedactOptions.spans`). Needs the `models` extra; the pure core never imports this."""

from __future__ import annotations

import os
from pathlib import Path

from openmasq.redact.ner_merge import model_spans
from openmasq.redact.spans import Span

from .recogniser import ModelNotBuilt, Recogniser

MODEL_NAME = "rampart"


def default_model_dir() -> Path:
    """Where `python models/build.py rampart` lays the model: $OPENMASQ_CACHE/models/rampart."""
    cache = os.environ.get("OPENMASQ_CACHE") or str(Path.home() / ".cache" / "openmasq")
    return Path(cache) / "models" / MODEL_NAME


def ner_spans(text: str, recogniser: Recogniser, lang: str = "auto") -> tuple[Span, ...]:
    """The model's spans for `text` as the engine takes them: engine kinds, source "ner", only the kinds
    kept for `lang` (redact/ner_merge.py)."""
    return tuple(model_spans(text, recogniser.spans(text), lang))


__all__ = ["MODEL_NAME", "ModelNotBuilt", "Recogniser", "default_model_dir", "ner_spans"]
