"""Shared fixtures of the browser tests of the built app (Playwright + Debian's Chromium).

- `built_site`: the site built once per session with --with-tests into a temp folder;
- `site_server`: serves it on a free 127.0.0.1 port (openmasq.site.serve); stop() and start() again
  reuse the same port (offline tests: the origin, and so the service worker, stay the same);
- `browser` (session), `context` (a fresh incognito context per test; `new_context(**options)` opens more,
  with Playwright's options such as service_workers="block"), `persistent_context` (a real
  profile in a temp folder: installability, restarts); every request the pages, their dedicated
  workers and the service worker make is recorded (`recorder`; Playwright's context-level request
  event covers all three, measured: see docs/web.md);
- `provider`: a scripted OpenAI/Anthropic-compatible server on loopback that answers CORS
  preflights and records every request body (openmasq.testing.upstream);
- `shoot(page, name)`: a screenshot in $OPENMASQ_ARTIFACTS (default e2e/artifacts, git-ignored).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from e2e_support import DEFAULT_TIMEOUT_MS, LOCALE

from openmasq.site.build import BuildOptions, BuildResult, build_site
from openmasq.site.serve import BackgroundServer
from openmasq.testing.upstream import Script, ScriptedUpstream

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PLACEHOLDER_WEB = HERE / "fixtures" / "placeholder-web"
CHROMIUM = os.environ.get("OPENMASQ_CHROMIUM", "/usr/bin/chromium")
# The flags of tests/pyodide/conftest.py (docs toolchain.md): without the background-networking ones
# Chromium floods the closed network with refused connections.
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
ARTIFACTS = Path(os.environ.get("OPENMASQ_ARTIFACTS") or HERE / "artifacts")


# ---------------------------------------------------------------- the site and its server


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    """The app built once for the session, with the in-browser test runner's files (not precached).
    Until the UI's web/index.html exists, a placeholder page from e2e/fixtures stands in for it."""
    out = tmp_path_factory.mktemp("site") / "site"
    fallback = None if (REPO / "web" / "index.html").is_file() else PLACEHOLDER_WEB
    return build_site(BuildOptions(out=out, repo=REPO, with_tests=True, fallback_web=fallback))


@pytest.fixture
def site_server(built_site: BuildResult) -> Iterator[BackgroundServer]:
    server = BackgroundServer(built_site.out, port=0).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def provider() -> Iterator[ScriptedUpstream]:
    """A scripted OpenAI-compatible server on loopback (echoes by default: set .script to change it)."""
    with ScriptedUpstream(cors=True) as upstream:
        yield upstream


def scripted_provider(script: Script) -> ScriptedUpstream:
    """For a test that needs its own script: `with scripted_provider(script) as up:`."""
    return ScriptedUpstream(script, cors=True)


# ---------------------------------------------------------------- the browser


@dataclass
class Recorded:
    url: str
    method: str
    resource_type: str
    post_data: bytes | None
    from_service_worker_script: bool  # made BY the service worker (its precache fetches)
    worker_url: str | None = None


@dataclass
class Recorder:
    """Every request of a context: pages, their dedicated workers, and the service worker."""

    requests: list[Recorded] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def attach(self, context: Any) -> None:
        context.on("request", self._on_request)
        context.on("requestfailed", self._on_failed)

    def _on_request(self, request: Any) -> None:
        worker = getattr(request, "service_worker", None)
        try:
            body = request.post_data_buffer
        except Exception:  # a body Playwright cannot expose (a stream) is recorded as absent
            body = None
        record = Recorded(request.url, request.method, request.resource_type, body, worker is not None,
                          worker.url if worker is not None else None)
        with self.lock:
            self.requests.append(record)

    def _on_failed(self, request: Any) -> None:
        with self.lock:
            self.failed.append((request.url, request.failure or ""))

    def urls(self) -> list[str]:
        with self.lock:
            return [r.url for r in self.requests]

    def off_origin(self, *allowed_origins: str) -> list[Recorded]:
        """Requests to any origin outside `allowed_origins` (data: and blob: URLs never leave)."""
        with self.lock:
            return [r for r in self.requests if not r.url.startswith(("data:", "blob:", *allowed_origins))]

    def wire_text(self) -> str:
        """Every URL and body sent, as one text (for the wire audits)."""
        with self.lock:
            return "\n".join(
                r.url + "\n" + (r.post_data.decode("utf-8", "replace") if r.post_data else "") for r in self.requests
            )


@pytest.fixture(scope="session")
def playwright_instance() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright_instance: Any) -> Iterator[Any]:
    browser = playwright_instance.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()




@pytest.fixture
def new_context(browser: Any, recorder: Recorder) -> Iterator[Callable[..., Any]]:
    """Opens fresh incognito contexts as `context` is, with Playwright's options added
    (`new_context(service_workers="block")`); each is closed after the test."""
    opened: list[Any] = []

    def open_context(**options: Any) -> Any:
        context = browser.new_context(locale=LOCALE, **options)
        context.set_default_timeout(DEFAULT_TIMEOUT_MS)
        recorder.attach(context)
        opened.append(context)
        return context

    try:
        yield open_context
    finally:
        for context in opened:
            context.close()


@pytest.fixture
def context(new_context: Callable[..., Any]) -> Any:
    """A fresh incognito context (no service worker, no storage from another test), in French: the
    tests read the app's French labels."""
    return new_context()


@pytest.fixture
def persistent_context(playwright_instance: Any, recorder: Recorder, tmp_path: Path) -> Iterator[Any]:
    """A real profile in a temp folder (a browser of its own): what installability needs."""
    context = playwright_instance.chromium.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, locale=LOCALE
    )
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    recorder.attach(context)
    try:
        yield context
    finally:
        context.close()


# ---------------------------------------------------------------- artifacts


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def shoot(artifacts_dir: Path, request: pytest.FixtureRequest) -> Callable[..., Path]:
    """shoot(page, "chat-phone") writes <artifacts>/<test name>--chat-phone.png and returns its path."""
    test_name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)

    def take(page: Any, name: str, full_page: bool = True) -> Path:
        path = artifacts_dir / f"{test_name}--{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take
