"""Runs tests/core inside Pyodide in headless Chromium once per session and replays each outcome on the host.

The page, its module worker and runner.mjs live next to this file; recorder.py runs on both sides.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CORE_TESTS = "tests/core"
MANIFEST = REPO / "scripts" / "assets.lock.json"
CHROMIUM = os.environ.get("OPENMASQ_CHROMIUM", "/usr/bin/chromium")
# Without the background-networking flags Chromium floods the closed network (docs/toolchain.md).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
TIMEOUT_S = float(os.environ.get("OPENMASQ_PYODIDE_TIMEOUT_S", "900"))
# Each fatal crash costs a fresh Pyodide (about 10 s); past this many, something is broken wholesale.
MAX_CRASHES = 5
# Deadlines measure the machine, not the code: Pyodide is slower than CPython, so it runs without them.
# The example database would only fill the worker's in-memory file system.
PYODIDE_HYPOTHESIS_SETTINGS = {"deadline": None, "database": None}
# One broken test file must not hide the outcome of the others (its error is reported on its own).
PYODIDE_PYTEST_ARGS = [CORE_TESTS, "-p", "no:cacheprovider", "--color=no", "--continue-on-collection-errors"]
CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; "
    "worker-src 'self'; object-src 'none'; base-uri 'none'"
)
MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".py": "text/x-python; charset=utf-8",
}
# The core tests may read files next to them or under tests/data (the labelled corpus).
SHIPPED_TEST_FOLDERS = (CORE_TESTS, "tests/data")
SKIPPED_IN_TEST_ZIP = frozenset({"__pycache__", ".hypothesis", ".pytest_cache"})


# ---------------------------------------------------------------- host side: the ids to expect


@dataclass
class HostCollection:
    ids: list[str]
    errors: list[dict[str, str]]
    exit_code: int


HOST_COLLECTION = pytest.StashKey[HostCollection]()
PYODIDE_RUN = pytest.StashKey["PyodideRun"]()


def collect_core_ids() -> HostCollection:
    """Lists tests/core's node ids with a separate pytest process, so the two sessions stay apart."""
    if not (REPO / CORE_TESTS).is_dir():
        return HostCollection([], [], 5)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "collected.json"
        command = [sys.executable, str(HERE / "recorder.py"), str(out), "--collect-only", "-q",
                   "-p", "no:cacheprovider", CORE_TESTS]
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
        if not out.is_file():
            raise RuntimeError(f"host collection of {CORE_TESTS} crashed:\n{done.stdout}\n{done.stderr}")
        record = json.loads(out.read_text(encoding="utf-8"))
    return HostCollection(record["collected"], record["collect_errors"], record["exit_code"])


def host_collection(config: pytest.Config) -> HostCollection:
    if HOST_COLLECTION not in config.stash:
        config.stash[HOST_COLLECTION] = collect_core_ids()
    return config.stash[HOST_COLLECTION]


@pytest.fixture(scope="session")
def core_collection(request: pytest.FixtureRequest) -> HostCollection:
    return host_collection(request.config)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "core_nodeid" in metafunc.fixturenames:
        ids = host_collection(metafunc.config).ids
        metafunc.parametrize("core_nodeid", ids, ids=ids)


# ---------------------------------------------------------------- a static server for the page


class StaticServer:
    """Serves a few folders under URL prefixes on 127.0.0.1 with explicit MIME types and a strict CSP."""

    def __init__(self, routes: dict[str, Path]) -> None:
        self.routes = {prefix: root.resolve() for prefix, root in routes.items()}
        self.log: list[tuple[int, str]] = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def resolve(self, url_path: str) -> Path | None:
        for prefix, root in self.routes.items():
            if url_path.startswith(prefix):
                candidate = (root / unquote(url_path[len(prefix):])).resolve()
                if candidate.is_file() and candidate.is_relative_to(root):
                    return candidate
        return None

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = urlsplit(self.path).path
                if path == "/favicon.ico":  # browsers ask for it unprompted
                    self.send_response(204)
                    self.end_headers()
                    return
                target = server.resolve(path)
                if target is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    server.log.append((404, path))
                    return
                body = target.read_bytes()
                self.send_response(200)
                self.send_header("Content-Type", MIME_TYPES.get(target.suffix, "application/octet-stream"))
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Security-Policy", CSP)
                self.send_header("X-Content-Type-Options", "nosniff")
                self.end_headers()
                self.wfile.write(body)
                server.log.append((200, path))

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the server keeps its own log

        return Handler

    def __enter__(self) -> StaticServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# ---------------------------------------------------------------- the browser session


@dataclass
class PyodideRun:
    """What the browser session left: the merged record, the crashes on the way, and what was fetched."""

    record: dict[str, Any] | None = None
    error: str | None = None
    crashes: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    served: list[tuple[int, str]] = field(default_factory=list)
    origin: str = ""
    wall_s: float = 0.0
    saved_to: Path | None = None


def pyodide_dist() -> Path:
    if "OPENMASQ_PYODIDE_DIST" in os.environ:
        return Path(os.environ["OPENMASQ_PYODIDE_DIST"])
    cache = os.environ.get("OPENMASQ_CACHE") or str(Path.home() / ".cache" / "openmasq")
    return Path(cache) / "pyodide-dist"


def own_wheel() -> Path:
    """Our wheel, rebuilt when py/ changed since the last build (the helper caches it by content)."""
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "fetch_assets.py"), "own-wheel"],
        cwd=REPO, capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"building the openmasq wheel failed:\n{done.stdout}\n{done.stderr}")
    return Path(done.stdout.strip().splitlines()[-1])


def zip_core_tests() -> bytes:
    """The core tests, their data and pyproject.toml (for the host's rootdir, node ids and ini options)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ("pyproject.toml", "tests/__init__.py"):
            if (REPO / name).is_file():
                archive.write(REPO / name, name)
        for folder in SHIPPED_TEST_FOLDERS:
            for path in sorted((REPO / folder).rglob("*")):
                relative = path.relative_to(REPO)
                wanted = path.suffix != ".pyc" and SKIPPED_IN_TEST_ZIP.isdisjoint(relative.parts)
                if path.is_file() and wanted:
                    archive.write(path, relative.as_posix())
    return buffer.getvalue()


def lock_package_names() -> list[str]:
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return [wheel["name"] for wheel in manifest["wheels"]]


def page_config(origin: str, session_dir: Path, deselect: list[str], timeout_s: float) -> dict[str, Any]:
    """What the page's worker needs: where Pyodide, the packages, our wheel and the tests are."""
    deselect_args = [arg for nodeid in deselect for arg in ("--deselect", nodeid)]
    return {
        "indexURL": f"{origin}/dist/",
        "lockFileURL": f"{origin}/dist/pyodide-lock.json",
        "packages": lock_package_names(),
        "wheelUrls": [f"{origin}/session/{wheel.name}" for wheel in sorted(session_dir.glob("*.whl"))],
        "testsZipUrl": f"{origin}/session/core-tests.zip",
        "recorderUrl": f"{origin}/runner/recorder.py",
        # Not named after the package: a folder called openmasq on sys.path would shadow it.
        "projectDir": "/home/pyodide/project",
        "recorderOptions": {"hypothesis_settings": PYODIDE_HYPOTHESIS_SETTINGS},
        "args": [*PYODIDE_PYTEST_ARGS, *deselect_args],
        "timeoutMs": int(timeout_s * 1000),
    }


def record_from_events(events: list[dict[str, Any]]) -> tuple[dict[str, Any], str | None]:
    """Rebuilds what a crashed attempt got through, and the test that was running when it died."""
    record: dict[str, Any] = {"collected": None, "collect_errors": [], "outcomes": {}}
    running = None
    for event in events:
        if event["kind"] == "collected":
            record["collected"] = event["ids"]
        elif event["kind"] == "collect_error":
            record["collect_errors"].append({"nodeid": event["nodeid"], "longrepr": event["longrepr"]})
        elif event["kind"] == "start":
            running = event["nodeid"]
        elif event["kind"] == "outcome":
            record["outcomes"][event["nodeid"]] = event["outcome"]
            running = None
    return record, running


def merge_attempt(earlier: dict[str, Any] | None, later: dict[str, Any]) -> dict[str, Any]:
    """Later attempts ran with the finished tests deselected: ids and errors come from the first one."""
    if earlier is None:
        return later
    known_errors = {error["nodeid"] for error in earlier["collect_errors"]}
    return {
        **later,
        "collected": earlier["collected"],
        "collect_errors": earlier["collect_errors"]
        + [error for error in later["collect_errors"] if error["nodeid"] not in known_errors],
        "outcomes": {**earlier["outcomes"], **later["outcomes"]},
    }


def last_lines(text: str, count: int = 30) -> str:
    return "\n".join(text.splitlines()[-count:])


def run_attempts(page: Any, run: PyodideRun, session_dir: Path) -> None:
    """Runs the suite; after a fatal crash, starts a fresh Pyodide without the tests already done.

    A test that crashes Pyodide (a stack overflow in wasm is fatal, not a RecursionError) fails on
    its own, and the tests after it still run.
    """
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + TIMEOUT_S
    merged: dict[str, Any] | None = None
    deselect: list[str] = []
    for _ in range(MAX_CRASHES + 1):
        config = page_config(run.origin, session_dir, deselect, deadline - time.monotonic())
        try:
            answer = page.evaluate("config => window.runCoreTests(config)", config)
        except PlaywrightError as error:  # the page itself broke (a CSP refusal, a browser crash)
            answer = {"error": str(error), "output": "", "events": []}
        if "result" in answer:
            run.record = merge_attempt(merged, answer["result"])
            return
        partial, running = record_from_events(answer["events"])
        crash = {"nodeid": running, "error": answer["error"], "output": last_lines(answer["output"])}
        run.crashes.append(crash)
        if partial["collected"] is None or running is None or time.monotonic() >= deadline:
            run.error = f"{crash['error']}\n--- Pyodide output ---\n{crash['output']}"
            if merged is not None or partial["collected"] is not None:
                run.record = merge_attempt(merged, partial)
            return
        partial["outcomes"][running] = {
            "outcome": "failed",
            "reason": f"Pyodide crashed while running this test:\n{crash['error']}\n"
            f"--- last Pyodide output ---\n{crash['output']}",
        }
        merged = merge_attempt(merged, partial)
        deselect = list(merged["outcomes"])
    run.error = f"gave up after {MAX_CRASHES + 1} fatal crashes of Pyodide"
    run.record = merged


def run_in_browser(session_dir: Path, dist: Path) -> PyodideRun:
    from playwright.sync_api import sync_playwright

    run = PyodideRun()
    started = time.perf_counter()
    routes = {"/dist/": dist, "/runner/": HERE, "/session/": session_dir}
    with StaticServer(routes) as server, sync_playwright() as playwright:
        run.origin = server.origin
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context()
            context.on("request", lambda request: run.requests.append(request.url))
            page = context.new_page()
            page.on("console", lambda message: run.console.append(f"{message.type}: {message.text}"))
            page.on("pageerror", lambda error: run.console.append(f"pageerror: {error}"))
            page.goto(f"{server.origin}/runner/page/index.html")
            run_attempts(page, run, session_dir)
        finally:
            browser.close()
        run.served = list(server.log)
    run.wall_s = time.perf_counter() - started
    return run


@pytest.fixture(scope="session")
def pyodide_run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[PyodideRun]:
    dist = pyodide_dist()
    if not (dist / "pyodide-lock.json").is_file():
        message = f"no Pyodide dist in {dist}: run ./scripts/test (or scripts/fetch_assets.py all)"
        if os.environ.get("OPENMASQ_REQUIRE_PYODIDE") == "1":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    session_dir = tmp_path_factory.mktemp("pyodide-session")
    shutil.copyfile(wheel := own_wheel(), session_dir / wheel.name)
    (session_dir / "core-tests.zip").write_bytes(zip_core_tests())
    run = run_in_browser(session_dir, dist)
    run.saved_to = session_dir / "pyodide-run.json"
    run.saved_to.write_text(json.dumps(asdict(run), default=str, indent=1), encoding="utf-8")
    request.config.stash[PYODIDE_RUN] = run
    yield run


# ---------------------------------------------------------------- reporting


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    run = config.stash.get(PYODIDE_RUN, None)
    if run is None:
        return
    write = terminalreporter.write_line
    terminalreporter.section("tests/core inside Pyodide")
    for crash in run.crashes:
        first_line = crash["error"].splitlines()[0]
        where = f"Pyodide crashed while running {crash['nodeid']}" if crash["nodeid"] else "the run broke"
        write(f"{where}: {first_line}")
    record = run.record
    if record is None or "timings" not in record:
        write(f"the in-Pyodide run did not finish ({run.wall_s:.1f} s): see test_pyodide_session_ran")
    else:
        timings = record["timings"]
        write(
            f"Pyodide {record['pyodide_version']}: load {timings['load_pyodide_s']:.2f} s, "
            f"packages {timings['packages_s']:.2f} s, pytest {timings['pytest_s']:.2f} s "
            f"(last attempt), browser session {run.wall_s:.2f} s"
        )
        lines = [line for line in record["output"].splitlines() if line.strip()]
        if lines:
            write(f"in-Pyodide pytest said: {lines[-1].strip('= ')}")
    write(f"full record (output, console, requests): {run.saved_to}")
