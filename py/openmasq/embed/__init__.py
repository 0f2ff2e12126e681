"""Sentence embeddings on CPython with the converted multilingual-e5-small (onnxruntime; needs the `models` extra).

Not part of the pure core: numpy, onnxruntime and tokenizers are imported only in this package.
"""

from __future__ import annotations

from .e5 import DIM, Embedder, Kind, ModelNotBuilt, default_model_dir

__all__ = ["DIM", "Embedder", "Kind", "ModelNotBuilt", "default_model_dir"]
