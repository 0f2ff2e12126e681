"""The vendored files of on-device OCR (issue 20, item 2): tesseract.js's API and worker script, one build of its
core (WebAssembly) and the LSTM language data of the engine's languages, all under vendor/tesseract/, the
on-demand group "ocr" (build.ON_DEMAND_GROUPS: downloaded from Settings, never precached).

One folder for all: the core's glue looks for its .wasm beside the script of the worker that imports it
(Emscripten's scriptDirectory is the worker's location), and ocr-worker.js names every path itself, so
tesseract.js never falls back to its CDN defaults. One core build: SIMD with LSTM only (every browser the app
runs in has wasm SIMD; the legacy engine is not used), as a .js and its .wasm (2.9 MB) rather than the
.wasm.js that embeds it as base64 (3.9 MB). The language data is the "best_int" LSTM set (what tesseract.js
itself loads for LSTM only), gzipped as published: the worker unzips it.
"""

from __future__ import annotations

from pathlib import Path

from ..attach.ocr import OCR_LANGUAGES as LANGUAGES

OCR_DIR = "vendor/tesseract"
CORE = "tesseract-core-simd-lstm"
SOURCES: dict[str, str] = {
    "tesseract.js/dist/tesseract.esm.min.js": "tesseract.esm.min.js",
    "tesseract.js/dist/worker.min.js": "worker.min.js",
    f"tesseract.js-core/{CORE}.js": f"{CORE}.js",
    f"tesseract.js-core/{CORE}.wasm": f"{CORE}.wasm",
    **{f"@tesseract.js-data/{code}/4.0.0_best_int/{code}.traineddata.gz": f"lang/{code}.traineddata.gz"
       for code in LANGUAGES.values()},
}
SOURCE_MAP = "//# sourceMappingURL="


class MissingInput(Exception):
    """A file OCR needs is not in node_modules."""


def without_source_map(code: str) -> str:
    """The script without its sourceMappingURL line: the map is not shipped, and a browser's developer
    tools would ask for it (a 404, or worse a request the user did not make)."""
    return "\n".join(line for line in code.split("\n") if not line.startswith(SOURCE_MAP)) + "\n"


def ocr_files(node_modules: Path) -> dict[str, Path | bytes]:
    """Site path -> the node_modules file copied as it is, or the bytes written there."""
    missing = [name for name in SOURCES if not (node_modules / name).is_file()]
    if missing:
        raise MissingInput(f"missing in {node_modules}: {', '.join(missing)} (run `npm ci --ignore-scripts`)")
    files: dict[str, Path | bytes] = {}
    for source, dest in SOURCES.items():
        path = node_modules / source
        if dest.endswith(".js"):
            files[f"{OCR_DIR}/{dest}"] = without_source_map(path.read_text(encoding="utf-8")).encode()
        else:
            files[f"{OCR_DIR}/{dest}"] = path
    return files
