"""`openmasq build --out DIR`: web/ + vendored npm libraries + the Pyodide dist (patched lock, our
wheel) + cached model files -> one self-contained static site with a content-hashed service worker.

The site's manifest (`files.json`, also written into sw.js) lists every file with its sha256, size and
group: "app" files are precached at install; each on-demand group (a model and its runtime) is
downloaded when the user asks for it (web/app/downloads.js). The service worker caches files by
sha256, so a new build reuses every file whose content did not change (docs/install.md).

Deterministic: the same inputs give the same files. Incremental: a file whose size and mtime (or
sha256) match is not copied again, and sha256 values are cached by (size, mtime) in a state file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from . import assets, bytecode, contract_js, csp, ocrfiles, richtext

STATE_FILE = ".openmasq-build.json"  # not part of the site: the server refuses dotfiles
STATE_VERSION = 1
SW_TEMPLATE = "sw.js"
PLACEHOLDERS = ("__BUILD_HASH__", "__MANIFEST__", "__POLICIES__")
MANIFEST_FILE = "files.json"  # the manifest: written by the build, answered by the service worker itself
APP_GROUP = "app"
# On-demand groups: what only one optional feature needs, downloaded when the user asks (first need). The
# NER model stays in "app": every send's redaction needs it, and a send without it fails closed.
ON_DEMAND_GROUPS: dict[str, tuple[str, ...]] = {
    # the offline chat model and llama.cpp's wasm (and its compatibility build, for the browsers that need it)
    "smollm2": ("models/smollm2/", "vendor/wllama/", "vendor/wllama-compat/"),
    "e5": ("models/e5/",),  # the embedding model of the memory's semantic search
    # On-device OCR of attached images (issue 20): tesseract.js, its wasm core and the language data (ocrfiles.py)
    "ocr": (f"{ocrfiles.OCR_DIR}/",),
}
# Files of a group that only the browsers where a condition holds download (files.json's `only`; the conditions
# are web/worker/wasm-features.js's CONDITIONS): wllama's build without JSPI and memory64, for WebKit (issue 24).
CONDITIONAL_PREFIXES: dict[str, str] = {"vendor/wllama-compat/": "wasm-compat"}
# Where the service worker and the page keep files by content (one source: the manifest carries them).
FILES_CACHE = "openmasq-files"
FILE_KEY_PREFIX = "__openmasq/file/"
PARTIAL_CACHE = "openmasq-partial"
# Files and folders never copied from web/ or the model cache (editor and tool droppings).
SKIPPED_NAMES = frozenset({"__pycache__", ".DS_Store", "Thumbs.db"})
SKIPPED_SUFFIXES = (".tmp", ".partial", ".pyc", ".swp", "~")

# node_modules path -> path in the site. ES module builds only, no bare imports (the page has no
# bundler and no import map). d3-force's three dependencies are rewritten to relative imports below.
VENDOR_FILES: dict[str, str] = {
    "htm/preact/standalone.module.js": "vendor/preact-htm.mjs",  # preact + hooks + htm in one module
    "marked/lib/marked.esm.js": "vendor/marked.esm.js",
    "dompurify/dist/purify.es.mjs": "vendor/purify.es.mjs",
    "comlink/dist/esm/comlink.mjs": "vendor/comlink.mjs",
    "idb-keyval/dist/index.js": "vendor/idb-keyval.mjs",
    # PouchDB's browser bundle (UMD: imported as a module it sets self.PouchDB): sync's replication (docs/sync.md)
    "pouchdb/dist/pouchdb.min.js": "vendor/pouchdb.min.js",
    "@wllama/wllama/esm/index.js": "vendor/wllama/index.js",
    "@wllama/wllama/esm/wasm/wllama.wasm": "vendor/wllama/wllama.wasm",
    # Its compatibility build (Asyncify instead of JSPI, 32-bit memory): wllama fetches the script and the wasm
    # from the URLs llm-worker gives it (never its CDN default).
    "@wllama/wllama-compat/wasm/wllama.js": "vendor/wllama-compat/wllama.js",
    "@wllama/wllama-compat/wasm/wllama.wasm": "vendor/wllama-compat/wllama.wasm",
    "@huggingface/transformers/dist/transformers.min.js": "vendor/transformers/transformers.min.js",
    # The ORT build transformers.js 4.3.2 bundles (1.31.0-dev); the plain simd-threaded pair was the
    # fastest single-threaded option measured (docs toolchain.md).
    "onnxruntime-web/dist/ort-wasm-simd-threaded.mjs": "vendor/transformers/ort-wasm-simd-threaded.mjs",
    "onnxruntime-web/dist/ort-wasm-simd-threaded.wasm": "vendor/transformers/ort-wasm-simd-threaded.wasm",
    # The same ORT's own API (InferenceSession, Tensor) for the NER model, which is no transformers.js model: it
    # runs on the integer arrays openmasq.ner.features makes, with the wasm pair above.
    "onnxruntime-web/dist/ort.wasm.min.mjs": "vendor/transformers/ort.wasm.min.mjs",
    "d3-dispatch/dist/d3-dispatch.mjs": "vendor/d3/d3-dispatch.mjs",
    "d3-quadtree/dist/d3-quadtree.mjs": "vendor/d3/d3-quadtree.mjs",
    "d3-timer/dist/d3-timer.mjs": "vendor/d3/d3-timer.mjs",
}
D3_FORCE = ("d3-force/dist/d3-force.mjs", "vendor/d3/d3-force.mjs")
TEST_VENDOR_FILES: dict[str, str] = {"axe-core/axe.min.js": "tests/axe.min.js"}

CSP_META = re.compile(r"<meta\s[^>]*http-equiv\s*=\s*[\"']?content-security-policy[\"']?[^>]*>", re.IGNORECASE)
CHARSET_META = re.compile(r"<meta\s+charset\s*=[^>]*>", re.IGNORECASE)
HEAD_TAG = re.compile(r"<head(\s[^>]*)?>", re.IGNORECASE)
D3_BARE_IMPORT = re.compile(r"""from\s+['"](d3-(?:quadtree|dispatch|timer))['"]""")
CORE_TEST_FOLDERS = ("tests/core", "tests/data")
CORE_TEST_FILES = ("pyproject.toml", "tests/__init__.py")
TEST_FIXTURES = Path("e2e") / "fixtures" / "site-tests"


class BuildError(Exception):
    """The site cannot be built: a missing input, reported as one line."""


@dataclass(frozen=True)
class Entry:
    """One file of the site: copied from `source`, or written from `data`; `precache` unless test-only."""

    source: Path | None = None
    data: bytes | None = None
    precache: bool = True


@dataclass(frozen=True)
class ManifestFile:
    """One file of the site as the service worker knows it."""

    path: str
    sha256: str
    size: int
    group: str
    only: str = ""  # a condition the browser must meet to download it (CONDITIONAL_PREFIXES), or always


@dataclass
class BuildResult:
    out: Path
    build_hash: str
    precache: list[str]  # "./" and the app group's paths: what an install fetches
    manifest: list[ManifestFile]
    precache_bytes: int
    total_bytes: int
    files: int
    written: int
    seconds: float
    notes: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- what goes in


def _wanted(path: Path, root: Path) -> bool:
    parts = path.relative_to(root).parts
    return not any(p in SKIPPED_NAMES or p.startswith(".") for p in parts) and not path.name.endswith(SKIPPED_SUFFIXES)


def tree_files(root: Path) -> list[Path]:
    """Every regular file under root that belongs in a site, sorted (symlinks to files are followed)."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file() and _wanted(p, root))


def web_entries(web: Path, fallback: Path | None) -> dict[str, Entry]:
    """web/ as-is, except the service-worker template and the page (both generated from it)."""
    entries: dict[str, Entry] = {}
    for root in (fallback, web):  # web/ wins over the fallback, file by file
        if root is None:
            continue
        for path in tree_files(root):
            entries[path.relative_to(root).as_posix()] = Entry(source=path)
    if SW_TEMPLATE not in entries:
        raise BuildError(f"{web / SW_TEMPLATE} (the service-worker template) is missing")
    if "index.html" not in entries:
        raise BuildError(f"{web / 'index.html'} is missing: the UI's page shell is needed to build the site")
    del entries[SW_TEMPLATE]
    index = entries["index.html"]
    assert index.source is not None
    entries["index.html"] = Entry(data=with_csp_meta(index.source.read_text(encoding="utf-8")).encode())
    return entries


def with_csp_meta(html: str) -> str:
    """The page with exactly one CSP <meta>, holding the canonical policy (csp.meta_policy())."""
    tag = f'<meta http-equiv="Content-Security-Policy" content="{csp.meta_policy()}">'
    found = CSP_META.findall(html)
    if len(found) > 1:
        raise BuildError("index.html has more than one Content-Security-Policy <meta>")
    if found:
        return CSP_META.sub(lambda _: tag, html, count=1)
    # After the charset declaration, which must come first in the document.
    anchor = CHARSET_META.search(html) or HEAD_TAG.search(html)
    if anchor is None:
        raise BuildError("index.html has no <head> to carry the Content-Security-Policy <meta>")
    return f"{html[:anchor.end()]}\n  {tag}{html[anchor.end():]}"


def vendor_entries(node_modules: Path, with_tests: bool) -> dict[str, Entry]:
    wanted = {**VENDOR_FILES, **(TEST_VENDOR_FILES if with_tests else {})}
    missing = [name for name in [*wanted, D3_FORCE[0]] if not (node_modules / name).is_file()]
    if missing:
        raise BuildError(f"missing in {node_modules}: {', '.join(missing)} (run `npm ci --ignore-scripts`)")
    entries = {dest: Entry(source=node_modules / src, precache=dest not in TEST_VENDOR_FILES.values())
               for src, dest in wanted.items()}
    d3_force = (node_modules / D3_FORCE[0]).read_text(encoding="utf-8")
    entries[D3_FORCE[1]] = Entry(data=D3_BARE_IMPORT.sub(r'from "./\1.mjs"', d3_force).encode())
    try:  # highlight.js and KaTeX, wrapped as ES modules (richtext.py)
        rich = richtext.rich_files(node_modules)
    except richtext.MissingInput as error:
        raise BuildError(str(error)) from None
    try:  # tesseract.js, its core and the language data (ocrfiles.py)
        ocr = ocrfiles.ocr_files(node_modules)
    except ocrfiles.MissingInput as error:
        raise BuildError(str(error)) from None
    for dest, item in {**rich, **ocr}.items():
        entries[dest] = Entry(source=item) if isinstance(item, Path) else Entry(data=item)
    return entries


def pyodide_entries(repo: Path, with_tests: bool) -> dict[str, Entry]:
    """site/pyodide/: the verified core, the app's wheels, our wheel and the patched lock; the test
    wheels too with --with-tests (served, not precached). The lock is the same in both builds."""
    manifest = assets.load_manifest(repo)
    try:
        npm_dir = assets.verify_pyodide_core(manifest, repo)
        wheels = dict(zip((assets.normalize(w["name"]) for w in manifest["wheels"]),
                          assets.fetch_wheels(manifest), strict=True))
        # The app's wheels go out with their bytecode: the browser does not compile them at each boot.
        app = sorted(assets.APP_WHEELS)
        *compiled, own_wheel = bytecode.with_bytecode([*(wheels[name] for name in app),
                                                       assets.build_own_wheel(repo)], repo)
    except assets.AssetError as error:
        raise BuildError(str(error)) from None
    served = dict(zip(app, compiled, strict=True))
    entries = {f"pyodide/{name}": Entry(source=npm_dir / name)
               for name in manifest["pyodide"]["files"] if name != "pyodide-lock.json"}
    for name, path in wheels.items():
        if name in served or with_tests:
            entries[f"pyodide/{path.name}"] = Entry(source=served.get(name, path), precache=name in served)
    entries[f"pyodide/{own_wheel.name}"] = Entry(source=own_wheel)
    original = json.loads((npm_dir / "pyodide-lock.json").read_text(encoding="utf-8"))
    lock = assets.patched_lock(original, manifest, own_wheel, served)
    entries["pyodide/pyodide-lock.json"] = Entry(data=json.dumps(lock, indent=1, sort_keys=True).encode())
    zipped = [{"name": name, "file_name": served[name].name, "sha256": lock["packages"][name]["sha256"]}
              for name in sorted(assets.ZIP_IMPORTED)]
    entries["pyodide/zip-imports.json"] = Entry(data=json.dumps(zipped, indent=1).encode())
    return entries


def model_entries(models_dir: Path) -> dict[str, Entry]:
    """$OPENMASQ_CACHE/models/<name>/** -> models/<name>/** (what the model recipes built, if any)."""
    return {f"models/{path.relative_to(models_dir).as_posix()}": Entry(source=path)
            for path in tree_files(models_dir) if len(path.relative_to(models_dir).parts) > 1}


# The trained NER model, committed in the repo (models/ner_train.py makes it): shipped as it is, never rebuilt.
REPO_MODELS = ("ner",)
REPO_MODEL_FILES = ("model.onnx", "config.json")


def repo_model_entries(repo: Path) -> dict[str, Entry]:
    """models/<name>/{model.onnx,config.json} of the repo -> models/<name>/ in the site."""
    return {f"models/{name}/{file}": Entry(source=repo / "models" / name / file)
            for name in REPO_MODELS for file in REPO_MODEL_FILES if (repo / "models" / name / file).is_file()}


def deterministic_zip(files: Iterable[tuple[str, Path]]) -> bytes:
    """A zip of the files by name, whose bytes depend only on the names and contents."""
    return assets.deterministic_zip((name, path.read_bytes()) for name, path in sorted(files))


def test_entries(repo: Path, node_modules: Path) -> dict[str, Entry]:
    """--with-tests: what the in-browser test runner needs, none of it precached."""
    shipped = [(name, repo / name) for name in CORE_TEST_FILES if (repo / name).is_file()]
    for folder in CORE_TEST_FOLDERS:
        shipped += [(p.relative_to(repo).as_posix(), p) for p in tree_files(repo / folder)]
    entries = {"tests/core-tests.zip": Entry(data=deterministic_zip(shipped), precache=False)}
    recorder = repo / "tests" / "pyodide" / "recorder.py"
    if recorder.is_file():
        entries["tests/recorder.py"] = Entry(source=recorder, precache=False)
    for path in tree_files(repo / TEST_FIXTURES):
        entries[f"tests/{path.relative_to(repo / TEST_FIXTURES).as_posix()}"] = Entry(source=path, precache=False)
    return entries


# ---------------------------------------------------------------- writing, incrementally


class State:
    """sha256 values of the site's files keyed by (size, mtime_ns), kept between builds."""

    def __init__(self, out: Path) -> None:
        self.path = out / STATE_FILE
        self.files: dict[str, list[object]] = {}
        if self.path.is_file():
            try:
                doc = json.loads(self.path.read_text(encoding="utf-8"))
                if doc.get("version") == STATE_VERSION:
                    self.files = doc["files"]
            except (ValueError, KeyError):
                self.files = {}

    def sha256(self, rel: str, path: Path) -> str:
        stat = path.stat()
        known = self.files.get(rel)
        if known and known[0] == stat.st_size and known[1] == stat.st_mtime_ns:
            return str(known[2])
        digest = assets.sha256_of(path)
        self.files[rel] = [stat.st_size, stat.st_mtime_ns, digest]
        return digest

    def save(self, keep: Iterable[str]) -> None:
        wanted = set(keep)
        doc = {"version": STATE_VERSION, "files": {k: v for k, v in sorted(self.files.items()) if k in wanted}}
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc), encoding="utf-8")
        tmp.replace(self.path)


def write_bytes_if_changed(dest: Path, data: bytes) -> bool:
    if dest.is_file() and dest.stat().st_size == len(data) and dest.read_bytes() == data:
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(dest)
    return True


def copy_if_changed(source: Path, dest: Path, rel: str, state: State) -> bool:
    """Copies unless size+mtime match, or the contents match (then only the mtime is aligned)."""
    src = source.stat()
    if dest.is_file():
        have = dest.stat()
        if have.st_size == src.st_size and have.st_mtime_ns == src.st_mtime_ns:
            return False
        if have.st_size == src.st_size and state.sha256(rel, dest) == assets.sha256_of(source):
            os.utime(dest, ns=(src.st_atime_ns, src.st_mtime_ns))
            state.files[rel] = [src.st_size, src.st_mtime_ns, state.files[rel][2]]
            return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp")
    shutil.copy2(source, tmp)
    tmp.replace(dest)
    return True


def remove_stale(out: Path, keep: set[str]) -> None:
    """Deletes what an earlier build wrote and this one does not (and the empty folders left)."""
    for path in sorted(out.rglob("*"), reverse=True):
        rel = path.relative_to(out).as_posix()
        if rel == STATE_FILE:
            continue
        if path.is_file() or path.is_symlink():
            if rel not in keep:
                path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def check_out_dir(out: Path) -> None:
    """Refuses to take over a non-empty folder that is not one of our builds (stale files get deleted)."""
    if out.exists() and not out.is_dir():
        raise BuildError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / STATE_FILE).is_file():
        raise BuildError(f"{out} is not empty and was not written by `openmasq build`: choose another folder")


# ---------------------------------------------------------------- the service worker


def group_of(rel: str) -> str:
    """The on-demand group a site path belongs to, or "app" (precached)."""
    for group, prefixes in ON_DEMAND_GROUPS.items():
        if rel.startswith(prefixes):
            return group
    return APP_GROUP


def condition_of(rel: str) -> str:
    """The browser condition under which a site path is downloaded with its group ("" for always)."""
    return next((only for prefix, only in CONDITIONAL_PREFIXES.items() if rel.startswith(prefix)), "")


def _manifest_entry(f: ManifestFile) -> dict[str, object]:
    entry: dict[str, object] = {"path": f.path, "sha256": f.sha256, "size": f.size, "group": f.group}
    if f.only:
        entry["only"] = f.only
    return entry


def manifest_doc(hash_: str, files: list[ManifestFile]) -> dict[str, object]:
    """What files.json holds and sw.js embeds: the build, the cache names and every file."""
    return {
        "build": hash_,
        "filesCache": FILES_CACHE,
        "fileKeyPrefix": FILE_KEY_PREFIX,
        "partialCache": PARTIAL_CACHE,
        "appGroup": APP_GROUP,
        "files": [_manifest_entry(f) for f in files],
    }


def build_hash(precached: list[tuple[str, str]]) -> str:
    """One hash over every precached path and its contents: any change ships a new service worker."""
    digest = hashlib.sha256()
    for rel, sha in sorted(precached):
        digest.update(f"{rel}\0{sha}\n".encode())
    return digest.hexdigest()[:16]


def policies(egress_scripts: list[str]) -> dict[str, object]:
    """What the service worker needs to set the same headers as our server (csp.py is the source)."""
    marker = "'self'"
    base = csp.egress_policy(())
    return {
        "page": csp.page_policy(),
        "byPath": {csp.LLM_WORKER: csp.llm_worker_policy()},
        "egressScripts": egress_scripts,
        # The egress policy with the origins left out: the worker inserts them after connect-src 'self'.
        "egressTemplate": base.replace(f"connect-src {marker}", f"connect-src {marker}__ORIGINS__", 1),
        "maxOrigins": csp.MAX_EGRESS_ORIGINS,
        "headers": csp.SECURITY_HEADERS,
    }


def render_service_worker(template: str, hash_: str, manifest: dict[str, object], egress_scripts: list[str]) -> bytes:
    values = {
        "__BUILD_HASH__": json.dumps(hash_),
        "__MANIFEST__": json.dumps(manifest, indent=0, sort_keys=True),
        "__POLICIES__": json.dumps(policies(egress_scripts), indent=1, sort_keys=True),
    }
    for name in PLACEHOLDERS:
        if template.count(name) != 1:
            raise BuildError(f"the service-worker template must hold {name} exactly once")
    for name, value in values.items():
        template = template.replace(name, value)
    return template.encode()


# ---------------------------------------------------------------- the build


@dataclass(frozen=True)
class BuildOptions:
    out: Path
    repo: Path = assets.DEFAULT_REPO
    with_tests: bool = False
    # Used for the files web/ lacks (the e2e tests' placeholder page until the UI's exists).
    fallback_web: Path | None = None
    models_dir: Path | None = None  # default: $OPENMASQ_CACHE/models
    web: Path | None = None  # the app's files; default: repo/web (a test builds a changed copy)


def web_dir(options: BuildOptions) -> Path:
    return options.web or options.repo / "web"


def plan(options: BuildOptions) -> dict[str, Entry]:
    repo = options.repo
    node_modules = repo / "node_modules"
    entries: dict[str, Entry] = {}
    entries.update(vendor_entries(node_modules, options.with_tests))
    entries.update(pyodide_entries(repo, options.with_tests))
    entries.update(model_entries(options.models_dir or assets.cache_dir() / "models"))
    entries.update(repo_model_entries(repo))
    if options.with_tests:
        entries.update(test_entries(repo, node_modules))
    entries.update(web_entries(web_dir(options), options.fallback_web))  # the app's own files win
    # The values page and workers share, generated from Python (contract_js.py): never a copy in web/.
    entries[contract_js.SITE_PATH] = Entry(data=contract_js.render())
    return entries


def build_site(options: BuildOptions, log: Callable[[str], None] = lambda _: None) -> BuildResult:
    started = time.perf_counter()
    out = options.out.resolve()
    check_out_dir(out)
    entries = plan(options)
    out.mkdir(parents=True, exist_ok=True)
    state = State(out)
    written = 0
    for rel, entry in sorted(entries.items()):
        dest = out / rel
        if entry.data is not None:
            written += write_bytes_if_changed(dest, entry.data)
        else:
            assert entry.source is not None
            written += copy_if_changed(entry.source, dest, rel, state)
    listed = sorted(rel for rel, entry in entries.items() if entry.precache)
    files = [ManifestFile(rel, state.sha256(rel, out / rel), (out / rel).stat().st_size, group_of(rel),
                          condition_of(rel))
             for rel in listed]
    hash_ = build_hash([(f.path, f.sha256) for f in files])
    manifest = manifest_doc(hash_, files)
    precache = ["./", *(f.path for f in files if f.group == APP_GROUP)]
    egress = list(csp.EGRESS_SCRIPTS) + ([csp.TEST_EGRESS_PROBE] if csp.TEST_EGRESS_PROBE in entries else [])
    template = (web_dir(options) / SW_TEMPLATE).read_text(encoding="utf-8")
    written += write_bytes_if_changed(out / SW_TEMPLATE, render_service_worker(template, hash_, manifest, egress))
    written += write_bytes_if_changed(out / MANIFEST_FILE, json.dumps(manifest, indent=0, sort_keys=True).encode())
    keep = {*entries, SW_TEMPLATE, MANIFEST_FILE}
    remove_stale(out, keep)
    state.save(keep)
    sizes = {rel: (out / rel).stat().st_size for rel in keep}
    result = BuildResult(
        out=out, build_hash=hash_, precache=precache, manifest=files,
        precache_bytes=sum(f.size for f in files if f.group == APP_GROUP), total_bytes=sum(sizes.values()),
        files=len(keep), written=written, seconds=time.perf_counter() - started,
    )
    if not any(rel.startswith("models/") for rel in entries):
        result.notes.append("no model files found in the cache: the offline model is not in this build")
    log(f"built {out}: {result.files} files, {result.total_bytes / 1e6:.1f} MB "
        f"({result.precache_bytes / 1e6:.1f} MB precached), {written} written, hash {hash_}, "
        f"{result.seconds:.2f} s")
    for note in result.notes:
        log(f"note: {note}")
    return result
