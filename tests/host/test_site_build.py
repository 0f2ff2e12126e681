"""`openmasq build`: the precache list is complete, the build hash follows content and only content,
the page carries the CSP <meta>, vendor files and the patched Pyodide lock are there, test files stay
out of the precache, and the service worker applies the same origin rule as csp.py."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from openmasq.site import csp
from openmasq.site.assets import sha256_of
from openmasq.site.build import (
    MANIFEST_FILE,
    STATE_FILE,
    VENDOR_FILES,
    BuildError,
    BuildOptions,
    BuildResult,
    build_site,
    group_of,
)

REPO = Path(__file__).resolve().parents[2]
PLACEHOLDER_WEB = REPO / "e2e" / "fixtures" / "placeholder-web"
LINKED = ("node_modules", "scripts", "pyproject.toml", "README.md", "tests", "e2e")
# Copied, not linked: our wheel is built from py/, which must not change in the middle of a test.
COPIED = ("py", "web")

pytestmark = pytest.mark.skipif(
    not (REPO / "node_modules" / "pyodide" / "pyodide.asm.wasm").is_file(),
    reason="node_modules is not installed (./scripts/test installs it)",
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A checkout whose web/ and model cache the test may change; the rest links to the real one."""
    root = tmp_path / "repo"
    root.mkdir()
    for name in LINKED:
        if (REPO / name).exists():
            (root / name).symlink_to(REPO / name)
    for name in COPIED:
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    if not (root / "web" / "index.html").is_file():
        shutil.copyfile(PLACEHOLDER_WEB / "index.html", root / "web" / "index.html")
    model = root / "model-cache" / "tiny"
    model.mkdir(parents=True)
    (model / "weights.bin").write_bytes(b"\x01\x02\x03" * 1000)
    (model / ".manifest.json").write_text("{}", encoding="utf-8")  # the recipes' own record: not shipped
    return root


def build(repo: Path, out: Path, with_tests: bool = False) -> BuildResult:
    return build_site(BuildOptions(out=out, repo=repo, with_tests=with_tests, models_dir=repo / "model-cache"))


def site_files(out: Path) -> set[str]:
    return {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()} - {STATE_FILE}


def test_the_manifest_lists_every_file_of_the_site_by_content_and_the_precache_its_app_group(
    repo: Path, tmp_path: Path
):
    result = build(repo, tmp_path / "site")
    files = site_files(result.out)
    assert {f.path for f in result.manifest} == files - {"sw.js", MANIFEST_FILE}
    for entry in result.manifest:
        path = result.out / entry.path
        assert (entry.sha256, entry.size) == (sha256_of(path), path.stat().st_size)
    assert result.precache[0] == "./"
    assert result.precache[1:] == [f.path for f in result.manifest if f.group == "app"]
    assert {"index.html", "manifest.webmanifest", "icons/icon-512.png", "models/tiny/weights.bin"} <= files
    assert "models/tiny/.manifest.json" not in files
    assert result.precache_bytes == sum((result.out / p).stat().st_size for p in result.precache[1:])
    doc = json.loads((result.out / MANIFEST_FILE).read_text(encoding="utf-8"))
    assert doc["build"] == result.build_hash and len(doc["files"]) == len(result.manifest)


def test_models_and_their_runtimes_are_on_demand_and_the_ner_model_is_part_of_the_app(repo: Path, tmp_path: Path):
    manifest = build(repo, tmp_path / "site").manifest
    groups = {f.path: f.group for f in manifest}
    assert groups["vendor/wllama/wllama.wasm"] == groups["vendor/wllama/index.js"] == "smollm2"
    # wllama's compatibility build is the offline model's too, but only for the browsers that need it (WebKit).
    only = {f.path: f.only for f in manifest if f.only}
    assert only == {"vendor/wllama-compat/wllama.js": "wasm-compat", "vendor/wllama-compat/wllama.wasm": "wasm-compat"}
    assert groups["vendor/wllama-compat/wllama.wasm"] == "smollm2"
    assert group_of("models/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") == "smollm2"
    assert group_of("models/e5/onnx/model_q4.onnx") == group_of("models/e5/tokenizer.json") == "e5"
    # Every send's redaction runs the NER model (a send without it fails closed): it is precached.
    assert group_of("models/ner/model.onnx") == "app"
    assert groups["vendor/transformers/ort-wasm-simd-threaded.wasm"] == "app"
    assert groups["pyodide/pyodide.asm.wasm"] == groups["index.html"] == "app"


def test_a_changed_script_changes_only_its_own_manifest_entry(repo: Path, tmp_path: Path):
    first = {f.path: f for f in build(repo, tmp_path / "one").manifest}
    script = repo / "web" / "app" / "main.js"
    script.write_text(script.read_text(encoding="utf-8") + "\n// changed\n", encoding="utf-8")
    second = {f.path: f for f in build(repo, tmp_path / "two").manifest}
    assert second.keys() == first.keys()
    assert [path for path in first if first[path] != second[path]] == ["app/main.js"]


def test_the_hash_changes_with_any_content_and_only_with_content(repo: Path, tmp_path: Path):
    out = tmp_path / "site"
    first = build(repo, out)
    again = build(repo, out)
    assert (again.build_hash, again.written) == (first.build_hash, 0)

    style = repo / "web" / "manifest.webmanifest"
    original = style.read_bytes()
    style.write_bytes(original + b"\n")
    changed = build(repo, out)
    assert changed.build_hash != first.build_hash
    style.write_bytes(original)  # same bytes again, a newer mtime
    assert build(repo, out).build_hash == first.build_hash

    weights = repo / "model-cache" / "tiny" / "weights.bin"
    weights.write_bytes(b"\x09" + weights.read_bytes()[1:])  # same size, other content
    assert build(repo, out).build_hash not in (first.build_hash, changed.build_hash)


def test_a_rebuild_into_another_folder_gives_the_same_bytes(repo: Path, tmp_path: Path):
    one = build(repo, tmp_path / "one")
    two = build(repo, tmp_path / "two")
    assert one.build_hash == two.build_hash
    for rel in sorted(site_files(one.out)):
        assert (one.out / rel).read_bytes() == (two.out / rel).read_bytes(), rel


def test_the_page_carries_exactly_one_csp_meta_with_the_canonical_policy(repo: Path, tmp_path: Path):
    index = repo / "web" / "index.html"
    index.write_text('<!doctype html><html><head><meta charset="utf-8">'
                     '<meta http-equiv="content-security-policy" content="default-src *">'
                     "<title>t</title></head><body></body></html>", encoding="utf-8")
    html = (build(repo, tmp_path / "a").out / "index.html").read_text(encoding="utf-8")
    metas = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html, re.IGNORECASE)
    assert metas == [csp.meta_policy()]
    assert "default-src *" not in html and "frame-ancestors" not in metas[0]

    index.write_text('<!doctype html><html><head><meta charset="utf-8"><title>t</title></head></html>',
                     encoding="utf-8")
    html = (build(repo, tmp_path / "b").out / "index.html").read_text(encoding="utf-8")
    assert html.count(csp.meta_policy()) == 1
    assert html.index('charset="utf-8"') < html.index("Content-Security-Policy") < html.index("<title>")


def test_vendor_files_are_copied_and_d3_has_no_bare_imports(repo: Path, tmp_path: Path):
    out = build(repo, tmp_path / "site").out
    for source, dest in VENDOR_FILES.items():
        assert (out / dest).read_bytes() == (REPO / "node_modules" / source).read_bytes(), dest
    d3_force = (out / "vendor/d3/d3-force.mjs").read_text(encoding="utf-8")
    imports = re.findall(r"""from\s+['"]([^'"]+)['"]""", d3_force)
    assert sorted(imports) == ["./d3-dispatch.mjs", "./d3-quadtree.mjs", "./d3-timer.mjs"]
    assert not (out / "tests" / "axe.min.js").exists()


def test_the_lock_points_at_the_wheels_the_site_serves(repo: Path, tmp_path: Path):
    out = build(repo, tmp_path / "site").out
    packages = json.loads((out / "pyodide" / "pyodide-lock.json").read_text(encoding="utf-8"))["packages"]
    for name in ("faker", "phonenumberslite", "openmasq"):
        entry = packages[name]
        wheel = out / "pyodide" / entry["file_name"]
        assert wheel.is_file(), name
        assert sha256_of(wheel) == entry["sha256"], name
    assert packages["openmasq"]["depends"] == ["phonenumberslite"]  # Faker is imported from its zip:
    zipped = json.loads((out / "pyodide" / "zip-imports.json").read_text(encoding="utf-8"))
    assert zipped == [{"name": name, "file_name": packages[name]["file_name"], "sha256": packages[name]["sha256"]}
                      for name in ("faker", "pypdf")]  # pypdf: imported when a PDF is attached
    assert packages["pytest"]["depends"] == ["pluggy", "iniconfig", "packaging", "pygments"]
    assert not (out / "pyodide" / packages["pytest"]["file_name"]).exists()  # a test wheel: --with-tests only


def test_the_app_wheels_carry_pyodide_bytecode_for_what_the_worker_imports_at_boot(repo: Path, tmp_path: Path):
    out = build(repo, tmp_path / "site").out
    lock = json.loads((out / "pyodide" / "pyodide-lock.json").read_text(encoding="utf-8"))
    tag = "cpython-" + "".join(lock["info"]["python"].split(".")[:2])  # Pyodide's interpreter, not ours
    own = zipfile.ZipFile(out / "pyodide" / lock["packages"]["openmasq"]["file_name"])
    names = set(own.namelist())
    for module in ("openmasq/redact/pseudonymise", "openmasq/worker/pyodide_bridge", "openmasq/memory/extract/run"):
        folder, stem = module.rsplit("/", 1)
        pyc = f"{folder}/__pycache__/{stem}.{tag}.pyc"
        assert pyc in names and f"{module}.py" in names, module  # the source stays, for tracebacks
        assert int.from_bytes(own.read(pyc)[4:8], "little") == 0b01, pyc  # hash-based, never checked
    assert not [n for n in names if n.startswith("openmasq/proxy/") and n.endswith(".pyc")]  # not imported at boot
    record = own.read(next(n for n in names if n.endswith(".dist-info/RECORD"))).decode()
    listed = {line.split(",")[0]: line.split(",")[1] for line in record.splitlines() if line}
    for name in (n for n in names if n.endswith(".pyc")):
        digest = base64.urlsafe_b64encode(hashlib.sha256(own.read(name)).digest()).rstrip(b"=").decode()
        assert listed[name] == f"sha256={digest}", name
    pinned = {w["name"]: w["sha256"] for w in json.loads((REPO / "scripts" / "assets.lock.json").read_text())["wheels"]}
    assert lock["packages"]["faker"]["sha256"] == pinned["faker"]  # nothing of Faker is imported at boot
    assert lock["packages"]["pypdf"]["sha256"] == pinned["pypdf"]  # nor of pypdf


def test_with_tests_adds_the_runner_files_without_touching_the_precache(repo: Path, tmp_path: Path):
    plain = build(repo, tmp_path / "plain")
    tested = build(repo, tmp_path / "tested", with_tests=True)
    assert (tested.build_hash, tested.precache) == (plain.build_hash, plain.precache)
    extra = site_files(tested.out) - site_files(plain.out)
    packages = json.loads((tested.out / "pyodide" / "pyodide-lock.json").read_text(encoding="utf-8"))["packages"]
    for name in ("pytest", "pluggy", "iniconfig", "packaging", "pygments", "hypothesis", "sortedcontainers"):
        assert f"pyodide/{packages[name]['file_name']}" in extra, name
    assert {"tests/core-tests.zip", "tests/axe.min.js", csp.TEST_EGRESS_PROBE} <= extra
    with zipfile.ZipFile(tested.out / "tests" / "core-tests.zip") as archive:
        names = archive.namelist()
    assert "pyproject.toml" in names and any(n.startswith("tests/core/test_") for n in names)
    sw = (tested.out / "sw.js").read_text(encoding="utf-8")
    assert csp.TEST_EGRESS_PROBE in sw and csp.TEST_EGRESS_PROBE not in (plain.out / "sw.js").read_text("utf-8")


def test_the_service_worker_is_filled_in_from_the_build_and_csp_py(repo: Path, tmp_path: Path):
    result = build(repo, tmp_path / "site")
    sw = (result.out / "sw.js").read_text(encoding="utf-8")
    assert "__BUILD_HASH__" not in sw and "__MANIFEST__" not in sw and "__POLICIES__" not in sw
    assert f'const BUILD_HASH = "{result.build_hash}";' in sw
    embedded = json.loads(re.search(r"const MANIFEST = (\{.*?\n\});", sw, re.DOTALL).group(1))  # type: ignore[union-attr]
    assert embedded == json.loads((result.out / MANIFEST_FILE).read_text(encoding="utf-8"))
    policies = json.loads(re.search(r"const POLICIES = (\{.*?\n\});", sw, re.DOTALL).group(1))  # type: ignore[union-attr]
    assert policies["page"] == csp.page_policy()
    assert policies["byPath"] == {csp.LLM_WORKER: csp.llm_worker_policy()}
    assert policies["egressTemplate"].replace("__ORIGINS__", " https://a.example") == csp.egress_policy(
        ["https://a.example"])
    assert policies["headers"] == csp.SECURITY_HEADERS  # the worker sets the server's headers, isolation included


def test_stale_files_go_and_a_foreign_folder_is_refused(repo: Path, tmp_path: Path):
    out = tmp_path / "site"
    build(repo, out)
    (repo / "web" / "icons" / "icon.svg").unlink()
    build(repo, out)
    assert not (out / "icons" / "icon.svg").exists()

    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "precious.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(BuildError, match="not empty"):
        build(repo, foreign)
    assert (foreign / "precious.txt").read_text(encoding="utf-8") == "keep me"


def test_a_missing_page_fails_clearly(repo: Path, tmp_path: Path):
    (repo / "web" / "index.html").unlink()
    with pytest.raises(BuildError, match=r"index\.html is missing"):
        build(repo, tmp_path / "site")


ORIGIN_VECTORS = [
    "https://api.openai.com", "https://api.openai.com/", "http://127.0.0.1:11434", "http://localhost:1234/",
    "http://[::1]:8080", "https://API.openai.com", "https://a.example:443", "https://a.example/v1",
    "https://u@a.example", "https://a.example?x", "https://a.example#", "https://*.a.example", "ftp://a.example",
    "https://a.example; script-src *", "https://a.example 'unsafe-inline'", "javascript:alert(1)", "",
    "https://a$b.example", "https://café.example", "http://a.example:99999",
]


def test_the_service_worker_validates_origins_exactly_as_csp_py_does():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    source = (REPO / "web" / "sw.js").read_text(encoding="utf-8")
    function = source[source.index("function originOf"):source.index("function validOrigins")]
    script = f"{function}\nconsole.log(JSON.stringify(JSON.parse(process.argv[1]).map(originOf)));"
    done = subprocess.run([node, "-e", script, json.dumps(ORIGIN_VECTORS)], capture_output=True, text=True,
                          check=True)
    from_js = json.loads(done.stdout)
    assert from_js == [csp.origin_of(v) for v in ORIGIN_VECTORS]
    assert from_js[:5] == ["https://api.openai.com", "https://api.openai.com", "http://127.0.0.1:11434",
                           "http://localhost:1234", "http://[::1]:8080"]
    assert set(from_js[5:]) == {None}
