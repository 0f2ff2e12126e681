"""The app's wheels with bytecode for the Pyodide they run in (stdlib only).

A wheel from PyPI, like ours, holds sources only, and Pyodide compiled each module the worker
imports at every boot (Chromium: the boot's imports took 1.0-1.1 s from sources, 0.45-0.6 s with
bytecode). The modules the worker imports at boot get, beside their sources,
`__pycache__/<module>.cpython-3XX.pyc`, compiled by Pyodide's own Python (run by Node:
scripts/pyodide_compile.mjs), hash-based and unchecked (the sources in a wheel never change under
it). Only those: the bytecode of everything, Faker's locales above all (imported at a first
redaction), would add ~1.5 MB that every boot downloads and unpacks. Cached by the input wheels'
sha256, the Pyodide core, the compiler and what it imports."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from . import assets

COMPILER = Path("scripts") / "pyodide_compile.mjs"
# What the app imports at boot (a first redaction imports more, Faker's locales above all: their
# bytecode would add ~1 MB that every boot downloads and unpacks for a gain at one send).
WARM_UP = "from openmasq.worker.pyodide_bridge import import_engine\nimport_engine()\n"
KEPT = 3


def with_bytecode(wheels: list[Path], repo: Path = assets.DEFAULT_REPO) -> list[Path]:
    """The wheels with bytecode added (same file names, in the cache), in the same order. They
    are compiled together (which modules the app imports depends on all of them), once: the
    result is cached under a key of all the inputs."""
    root = assets.cache_dir() / "bytecode-wheels"
    target = root / _key(wheels, repo)
    outputs = [target / wheel.name for wheel in wheels]
    if not all(path.is_file() for path in outputs):
        assets.log(f"compiling what the app imports from {', '.join(w.name for w in wheels)} with Pyodide's Python")
        _compile_wheels(wheels, target, repo)
        assets.prune_old_wheels(root, keep=target, kept=KEPT)
    return outputs


def _key(wheels: list[Path], repo: Path) -> str:
    """The wheels, the interpreter and how it is asked."""
    digest = hashlib.sha256()
    for wheel in wheels:
        digest.update(f"{wheel.name}:{assets.sha256_of(wheel)}\n".encode())
    digest.update(json.dumps(assets.load_manifest(repo)["pyodide"]["files"], sort_keys=True).encode())
    digest.update((repo / COMPILER).read_bytes() + WARM_UP.encode())
    return digest.hexdigest()[:20]


def _compile_wheels(wheels: list[Path], target: Path, repo: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        folders = []
        for index, wheel in enumerate(wheels):
            folder = Path(tmp) / str(index)
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(folder)
            folders.append(folder)
        _run_compiler(repo, folders)
        built = Path(tmp) / "built"
        built.mkdir()
        for folder, wheel in zip(folders, wheels, strict=True):
            if any(folder.rglob("*.pyc")):
                _repack(wheel, folder, built / wheel.name)
            else:  # nothing of it is imported at boot: served as pinned
                shutil.copyfile(wheel, built / wheel.name)
        try:
            built.rename(target)  # atomic: the cache never holds half a result
        except OSError:
            if not all((target / wheel.name).is_file() for wheel in wheels):
                raise  # else another build (serve and test at once) got there first


def _run_compiler(repo: Path, folders: list[Path]) -> None:
    node = shutil.which("node")
    if node is None:
        raise assets.AssetError("node is not installed: it runs Pyodide to compile the wheels' bytecode")
    pyodide = assets.verify_pyodide_core(assets.load_manifest(repo), repo)
    done = subprocess.run([node, str(repo / COMPILER), str(pyodide), WARM_UP, *map(str, folders)],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise assets.AssetError(f"compiling the wheels' bytecode with Pyodide failed:\n{tail}")


def _repack(wheel: Path, folder: Path, out: Path) -> None:
    """The wheel's entries as they were, then the bytecode files, RECORD last and listing them;
    fixed dates, so the same wheel gives the same bytes."""
    with zipfile.ZipFile(wheel) as original:
        entries = [(info.filename, original.read(info)) for info in original.infolist() if not info.is_dir()]
    record_name = next(name for name, _ in entries if name.endswith(".dist-info/RECORD"))
    bytecode = sorted((p.relative_to(folder).as_posix(), p.read_bytes()) for p in folder.rglob("*.pyc"))
    record = dict(entries)[record_name].decode("utf-8").rstrip("\n")
    record += "".join(f"\n{name},sha256={_digest(data)},{len(data)}" for name, data in bytecode) + "\n"
    kept = [(name, data) for name, data in entries if name != record_name]
    out.write_bytes(assets.deterministic_zip([*kept, *bytecode, (record_name, record.encode("utf-8"))]))


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
