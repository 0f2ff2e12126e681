"""The vendored files of rich replies (site/richtext.py): highlight.js and KaTeX as ES modules without bare
imports, every shipped language registered, KaTeX's stylesheet naming only the woff2 fonts the site ships."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from openmasq.site.richtext import HIGHLIGHT_LANGUAGES, font_urls, rich_files, woff2_only

NODE_MODULES = Path(__file__).resolve().parents[2] / "node_modules"
pytestmark = pytest.mark.skipif(not (NODE_MODULES / "katex").is_dir() or not (NODE_MODULES / "highlight.js").is_dir(),
                                reason="node_modules is not installed (./scripts/test installs it)")


def test_katex_stylesheet_names_only_woff2_fonts_and_the_site_ships_each_of_them() -> None:
    files = rich_files(NODE_MODULES)
    css = files["vendor/katex/katex.min.css"]
    assert isinstance(css, bytes)
    urls = font_urls(css.decode())
    assert urls and all(url.endswith(".woff2") for url in urls)
    assert all(f"vendor/katex/{url}" in files for url in urls)
    assert not [p for p in files if p.endswith((".woff", ".ttf"))]


def test_woff2_only_keeps_each_font_face_its_woff2_source() -> None:
    css = ('@font-face{font-family:A;src:url(fonts/A.woff2) format("woff2"),url(fonts/A.woff) format("woff"),'
           'url(fonts/A.ttf) format("truetype")}')
    assert woff2_only(css) == '@font-face{font-family:A;src:url(fonts/A.woff2) format("woff2")}'


def test_the_modules_import_without_a_bundler_and_register_every_shipped_language(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    for dest, item in rich_files(NODE_MODULES).items():
        target = tmp_path / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(item if isinstance(item, bytes) else item.read_bytes())
        if dest.endswith((".mjs", ".js")):
            assert not re.search(r"""\bfrom\s+['"](?![./])""", target.read_text(encoding="utf-8")), dest
    probe = tmp_path / "probe.mjs"
    probe.write_text('import hljs from "./vendor/highlight/index.mjs";\n'
                     'import katex from "./vendor/katex/katex.mjs";\n'
                     'const typeset = katex.renderToString("x^2").includes("katex");\n'
                     'console.log(JSON.stringify([hljs.listLanguages(), typeset]));\n',
                     encoding="utf-8")
    out = subprocess.run([node, str(probe)], capture_output=True, text=True, check=True, timeout=60).stdout
    languages, typeset = json.loads(out)
    assert sorted(languages) == sorted(HIGHLIGHT_LANGUAGES) and typeset is True
