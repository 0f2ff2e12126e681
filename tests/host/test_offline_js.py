"""The pure decisions of web/app/downloads.js and offline.js, run by node on the shipped modules: which
Range requests a resumed download still needs, when a model counts as ready or partial, which files
form each on-demand group of a real build's manifest, and when the storage warning shows."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from openmasq.site.build import APP_GROUP, CONDITIONAL_PREFIXES, ManifestFile, manifest_doc

REPO = Path(__file__).resolve().parents[2]
CHUNK = 8 * 1024 * 1024


def run_js(expression: str) -> Any:
    """The JSON value of `expression`, evaluated with downloads.js as `d` and offline.js as `o`."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    web = (REPO / "web" / "app").as_uri()
    script = (f"const d = await import('{web}/downloads.js'); const o = await import('{web}/offline.js');"
              f"console.log(JSON.stringify({expression}));")
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_a_resumed_download_asks_only_for_the_chunks_it_has_not_stored():
    size = 2 * CHUNK + 10
    fresh, resumed, done = run_js(f"[d.planChunks({size}, []), d.planChunks({size}, [0, {2 * CHUNK}]),"
                                  f" d.planChunks({size}, [0, {CHUNK}, {2 * CHUNK}])]")
    assert fresh == [{"start": 0, "end": CHUNK - 1}, {"start": CHUNK, "end": 2 * CHUNK - 1},
                     {"start": 2 * CHUNK, "end": size - 1}]
    assert resumed == [{"start": CHUNK, "end": 2 * CHUNK - 1}]
    assert done == []
    assert run_js(f"[d.CHUNK_BYTES, d.planChunks({CHUNK}, [])]") == [CHUNK, [{"start": 0, "end": CHUNK - 1}]]


def test_a_model_is_ready_only_when_every_file_is_cached_and_partial_when_bytes_are_kept():
    assert run_js("[d.stateOf([true, true], 5, 5), d.stateOf([true, false], 3, 5), d.stateOf([false], 0, 5)]") == [
        "ready", "partial", "absent"]


def test_the_groups_of_a_manifest_leave_the_app_out_and_count_shared_content_once():
    files = [ManifestFile("index.html", "a" * 64, 10, APP_GROUP),
             ManifestFile("models/e5/model.onnx", "b" * 64, 100, "e5"),
             ManifestFile("models/e5/copy.onnx", "b" * 64, 100, "e5"),
             ManifestFile("models/e5/tokenizer.json", "c" * 64, 7, "e5"),
             ManifestFile("vendor/wllama/wllama.wasm", "d" * 64, 50, "smollm2")]
    groups = run_js(f"d.groupsOf({json.dumps(manifest_doc('h', files))})")
    assert sorted(groups) == ["e5", "smollm2"]
    assert groups["e5"]["bytes"] == 107 and [f["path"] for f in groups["e5"]["files"]] == [
        "models/e5/model.onnx", "models/e5/tokenizer.json"]


def test_a_file_for_some_browsers_joins_its_group_only_where_its_condition_holds():
    files = [ManifestFile("vendor/wllama/wllama.wasm", "d" * 64, 50, "smollm2"),
             ManifestFile("vendor/wllama-compat/wllama.wasm", "e" * 64, 70, "smollm2", "wasm-compat"),
             ManifestFile("vendor/other/x.wasm", "f" * 64, 9, "smollm2", "a-condition-no-page-knows")]
    doc = json.dumps(manifest_doc("h", files))
    needs, lacks = run_js(f"[d.groupsOf({doc}, {{'wasm-compat': () => true}}),"
                          f" d.groupsOf({doc}, {{'wasm-compat': () => false}})]")
    assert [f["path"] for f in needs["smollm2"]["files"]] == ["vendor/wllama/wllama.wasm",
                                                             "vendor/wllama-compat/wllama.wasm"]
    assert needs["smollm2"]["bytes"] == 120
    assert [f["path"] for f in lacks["smollm2"]["files"]] == ["vendor/wllama/wllama.wasm"]
    # Every condition the build writes is one the page knows (a file under an unknown one is never downloaded).
    web = (REPO / "web" / "worker").as_uri()
    known = run_js(f"Object.keys((await import('{web}/wasm-features.js')).CONDITIONS)")
    assert set(CONDITIONAL_PREFIXES.values()) <= set(known)


def test_the_storage_warning_shows_from_four_fifths_of_the_quota_and_never_without_figures():
    warn = run_js("[o.QUOTA_WARNING_SHARE, o.nearQuota(79, 100), o.nearQuota(80, 100), o.nearQuota(50, 100, 30),"
                  " o.nearQuota(null, 100), o.nearQuota(10, null), o.nearQuota(1, 0)]")
    assert warn == [0.8, False, True, True, False, False, False]
