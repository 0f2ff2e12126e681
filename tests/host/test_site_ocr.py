"""The vendored files of on-device OCR (site/ocrfiles.py): tesseract.js, one core build and the language data of
every language the engine reads, in one folder of the on-demand group "ocr" (never precached), without source
map lines; ocr-worker.js names every path tesseract.js would otherwise take from its CDN."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from openmasq.redact.options import LANGS
from openmasq.site import build
from openmasq.site.ocrfiles import CORE, LANGUAGES, OCR_DIR, SOURCE_MAP, ocr_files, without_source_map

REPO = Path(__file__).resolve().parents[2]
NODE_MODULES = REPO / "node_modules"
needs_npm = pytest.mark.skipif(not (NODE_MODULES / "tesseract.js").is_dir(),
                               reason="node_modules is not installed (./scripts/test installs it)")


def test_every_language_the_engine_reads_has_its_ocr_data() -> None:
    assert set(LANGUAGES) == set(LANGS) - {"auto"}


@needs_npm
def test_the_core_and_its_wasm_sit_beside_the_worker_script_with_every_language() -> None:
    files = ocr_files(NODE_MODULES)
    for name in ("tesseract.esm.min.js", "worker.min.js", f"{CORE}.js", f"{CORE}.wasm"):
        assert f"{OCR_DIR}/{name}" in files
    assert {p for p in files if p.startswith(f"{OCR_DIR}/lang/")} == {
        f"{OCR_DIR}/lang/{code}.traineddata.gz" for code in LANGUAGES.values()}
    for path, item in files.items():
        if path.endswith(".js"):
            assert isinstance(item, bytes) and SOURCE_MAP.encode() not in item


def test_a_source_map_line_is_dropped_and_nothing_else() -> None:
    assert without_source_map("a();\n//# sourceMappingURL=x.js.map\nb();") == "a();\nb();\n"


def test_the_ocr_files_are_their_own_on_demand_group() -> None:
    assert build.group_of(f"{OCR_DIR}/lang/fra.traineddata.gz") == "ocr"
    assert build.group_of(f"{OCR_DIR}/worker.min.js") == "ocr"
    assert build.group_of("worker/ocr-worker.js") == build.APP_GROUP


def test_ocr_worker_names_every_path_tesseract_would_take_from_a_cdn() -> None:
    source = (REPO / "web" / "worker" / "ocr-worker.js").read_text(encoding="utf-8")
    for option in ("workerPath", "corePath", "langPath"):
        assert re.search(rf"{option}: new URL\(", source), option
    assert "workerBlobURL: false" in source and 'cacheMethod: "none"' in source
    assert not re.search(r"https?://", source)
