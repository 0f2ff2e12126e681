"""Runs tests/core inside the app's own Python worker (web/worker/py-worker.js, `runPytest`) in
headless Chromium once per session and replays each outcome on the host.

The app is built with its test files (appsite.py); recorder.py runs on both sides.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pytest
from appsite import CHROMIUM, CHROMIUM_ARGS, HARNESS_PATH, AppServer, build_test_site

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CORE_TESTS = "tests/core"
MANIFEST = REPO / "scripts" / "assets.lock.json"
TIMEOUT_S = float(os.environ.get("OPENMASQ_PYODIDE_TIMEOUT_S", "900"))
# Each fatal crash costs a fresh Pyodide (about 10 s); past this many, something is broken wholesale.
MAX_CRASHES = 5
# Deadlines measure the machine, not the code: Pyodide is slower than CPython, so it runs without them.
# The example database would only fill the worker's in-memory file system.
PYODIDE_HYPOTHESIS_SETTINGS = {"deadline": None, "database": None}
# One broken test file must not hide the outcome of the others (its error is reported on its own).
PYODIDE_PYTEST_ARGS = [CORE_TESTS, "-p", "no:cacheprovider", "--color=no", "--continue-on-collection-errors"]


# ---------------------------------------------------------------- host side: the ids to expect


@dataclass
class HostCollection:
    ids: list[str]
    errors: list[dict[str, str]]
    exit_code: int


HOST_COLLECTION = pytest.StashKey[HostCollection]()


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


def test_packages() -> list[str]:
    """The lock names runPytest loads on top of the app's own packages (pytest and its kin)."""
    from openmasq.site.assets import APP_WHEELS, normalize

    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return [wheel["name"] for wheel in manifest["wheels"] if normalize(wheel["name"]) not in APP_WHEELS]


def page_config(origin: str, deselect: list[str], timeout_s: float) -> dict[str, Any]:
    """What py-worker's runPytest needs: the test packages, the tests and the recorder (both in the
    site built with --with-tests), the pytest arguments."""
    deselect_args = [arg for nodeid in deselect for arg in ("--deselect", nodeid)]
    return {
        "packages": test_packages(),
        "testsZipUrl": f"{origin}/tests/core-tests.zip",
        "recorderUrl": f"{origin}/tests/recorder.py",
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


def run_attempts(page: Any, run: PyodideRun) -> None:
    """Runs the suite; after a fatal crash, starts a fresh Pyodide without the tests already done.

    A test that crashes Pyodide (a stack overflow in wasm is fatal, not a RecursionError) fails on
    its own, and the tests after it still run.
    """
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + TIMEOUT_S
    merged: dict[str, Any] | None = None
    deselect: list[str] = []
    for _ in range(MAX_CRASHES + 1):
        config = page_config(run.origin, deselect, deadline - time.monotonic())
        try:
            answer = page.evaluate(RUN_IN_FRESH_WORKER_JS, config)
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


# Each attempt gets a fresh py-worker (a fatal crash leaves a Pyodide that cannot go on). Always
# resolves, with {result} or with {error, output, events}, so the host sees Pyodide's own words.
RUN_IN_FRESH_WORKER_JS = """
async (config) => {
  const Comlink = await import("/vendor/comlink.mjs");
  const worker = new Worker("/worker/py-worker.js", { type: "module", name: "py-worker" });
  const api = Comlink.wrap(worker);
  let timer;
  const broken = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ error: `no answer from py-worker after ${config.timeoutMs} ms`,
      output: "", events: [] }), config.timeoutMs);
    worker.addEventListener("error",
      (e) => resolve({ error: `py-worker error: ${e.message}`, output: "", events: [] }));
  });
  const ran = api.runPytest(config).then(
    (answer) => (answer.result ? { result: answer.result } : answer),
    (error) => ({ error: String((error && error.stack) || error), output: "", events: [] }));
  const answer = await Promise.race([ran, broken]);
  clearTimeout(timer);
  worker.terminate();
  return answer;
}
"""


def run_in_browser(site: Path) -> PyodideRun:
    from playwright.sync_api import sync_playwright

    run = PyodideRun()
    started = time.perf_counter()
    with AppServer(site) as server, sync_playwright() as playwright:
        run.origin = server.origin
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context()
            context.on("request", lambda request: run.requests.append(request.url))
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_S * 1000)
            page.on("console", lambda message: run.console.append(f"{message.type}: {message.text}"))
            page.on("pageerror", lambda error: run.console.append(f"pageerror: {error}"))
            page.goto(server.origin + HARNESS_PATH)
            run_attempts(page, run)
        finally:
            browser.close()
        run.served = list(server.served)
    run.wall_s = time.perf_counter() - started
    return run


def test_site() -> Path:
    """The app with its test files, built into the cache (incremental: a rebuild copies only changes)."""
    cache = os.environ.get("OPENMASQ_CACHE") or str(Path.home() / ".cache" / "openmasq")
    return build_test_site(Path(cache) / "pyodide-test-site")


@pytest.fixture(scope="session")
def pyodide_run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[PyodideRun]:
    from openmasq.site.build import BuildError

    try:
        site = test_site()
    except BuildError as error:
        message = f"the app cannot be built here ({error}): run ./scripts/test"
        if os.environ.get("OPENMASQ_REQUIRE_PYODIDE") == "1":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    run = run_in_browser(site)
    run.saved_to = tmp_path_factory.mktemp("pyodide-session") / "pyodide-run.json"
    run.saved_to.write_text(json.dumps(asdict(run), default=str, indent=1), encoding="utf-8")
    request.config.suite_summaries["tests/core inside Pyodide"] = summary_lines(run)  # tests/conftest.py
    yield run


# ---------------------------------------------------------------- reporting


def summary_lines(run: PyodideRun) -> list[str]:
    """What the terminal summary says of the browser session: its crashes, timings and last pytest line."""
    lines = []
    for crash in run.crashes:
        first_line = crash["error"].splitlines()[0]
        where = f"Pyodide crashed while running {crash['nodeid']}" if crash["nodeid"] else "the run broke"
        lines.append(f"{where}: {first_line}")
    record = run.record
    if record is None or "timings" not in record:
        lines.append(f"the in-Pyodide run did not finish ({run.wall_s:.1f} s): see test_pyodide_session_ran")
    else:
        timings = record["timings"]
        lines.append(
            f"Pyodide {record['pyodide_version']}: load {timings['load_pyodide_s']:.2f} s, "
            f"packages {timings['packages_s']:.2f} s, pytest {timings['pytest_s']:.2f} s "
            f"(last attempt), browser session {run.wall_s:.2f} s"
        )
        output = [line for line in record["output"].splitlines() if line.strip()]
        if output:
            lines.append(f"in-Pyodide pytest said: {output[-1].strip('= ')}")
    lines.append(f"full record (output, console, requests): {run.saved_to}")
    return lines
