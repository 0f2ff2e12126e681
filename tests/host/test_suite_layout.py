"""The suite's own layout: pytest imports every test module by its file name alone (rootdir-relative
`sys.path` entries, no packages), so two test modules of the same name in different folders stop the whole
run at collection (it happened twice on a clean clone: test_backup.py, test_instructions.py)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUITES = ("tests", "e2e")


def test_no_two_test_modules_share_a_file_name() -> None:
    by_name: dict[str, list[str]] = defaultdict(list)
    for suite in SUITES:
        for path in (ROOT / suite).rglob("*.py"):
            if path.name != "conftest.py" and "__pycache__" not in path.parts and "node_modules" not in path.parts:
                by_name[path.name].append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in by_name.items() if len(paths) > 1} == {}


def test_no_module_imports_a_conftest_by_name_outside_its_own_folder() -> None:
    """Several folders hold a conftest.py: "from conftest import X" gets whichever one pytest imported first
    (e2e/test_sync_app.py got tests/pyodide's on a clean clone). Shared values live in a uniquely named module."""
    offenders = []
    for suite in SUITES:
        for path in (ROOT / suite).rglob("*.py"):
            if "node_modules" in path.parts or "__pycache__" in path.parts or path == Path(__file__).resolve():
                continue
            text = path.read_text("utf-8")
            if ("from conftest import" in text or "import conftest" in text) and path.parent.name != "pyodide":
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


# Top-level folders a run or an install makes, not the project's own.
_MADE = frozenset({"node_modules", "__pycache__", "build", "dist"})


def test_the_readme_layout_names_every_folder_and_package() -> None:
    """A newcomer finds where a thing lives from the README's layout: every top-level folder of the repository
    and every package of py/openmasq is in it (attach/, worker/ and embed/ were missing)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout") :]
    folders = [f"{p.name}/" for p in sorted(ROOT.iterdir()) if p.is_dir() and not p.name.startswith(".")
               and p.name not in _MADE and not p.name.endswith(".egg-info")]
    packages = [f"py/openmasq/{p.name}/" for p in sorted((ROOT / "py" / "openmasq").iterdir())
                if (p / "__init__.py").exists()]
    assert [name for name in folders + packages if name not in layout] == []
