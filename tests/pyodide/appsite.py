"""The built app for browser tests: `openmasq build --with-tests` into a temporary folder, and a
loopback server with the site's per-script policies (net-worker widened to the origins a test
allows, as the service worker does once providers are saved) plus a blank same-origin page from
which a test drives py-worker and net-worker directly."""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from openmasq.site import csp
from openmasq.site.build import BuildOptions, build_site
from openmasq.site.serve import SECURITY_HEADERS, mime_type

REPO = Path(__file__).resolve().parent.parent.parent
CHROMIUM = os.environ.get("OPENMASQ_CHROMIUM", "/usr/bin/chromium")
# Without the background-networking flags Chromium floods the closed network (docs/toolchain.md).
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]
HARNESS_PATH = "/__harness.html"
HARNESS = (b"<!doctype html><html lang=en><head><meta charset=utf-8><link rel=icon href='data:,'>"
           b"<title>harness</title></head><body></body></html>")

# Spawns py-worker and net-worker the way app/workers.js does, and keeps the comlink handle on
# window.api. Evaluated by Playwright (its scripts are not subject to the page's script-src).
START_WORKERS_JS = """
async (withNet) => {
  const Comlink = await import("/vendor/comlink.mjs");
  const py = new Worker("/worker/py-worker.js", { type: "module", name: "py-worker" });
  const api = Comlink.wrap(py);
  let netPort;
  if (withNet) {
    const net = new Worker("/worker/net-worker.js", { type: "module", name: "net-worker" });
    const channel = new MessageChannel();
    net.postMessage({ type: "port", port: channel.port2 }, [channel.port2]);
    netPort = channel.port1;
    window.netWorker = net;
  }
  await api.init(Comlink.transfer({ netPort, lang: "fr" }, netPort ? [netPort] : []));
  const progress = [];
  window.notices = [];
  const started = performance.now();
  const boot = await api.boot(Comlink.proxy((p) => { progress.push(p); }));
  await api.setNoticeHandler(Comlink.proxy((n) => { window.notices.push(n); }));
  window.Comlink = Comlink;
  window.api = api;
  window.pyWorker = py;
  return { boot, progress, seconds: (performance.now() - started) / 1000 };
}
"""


_BUILT: dict[str, Path] = {}


def shared_test_site() -> Path:
    """build_test_site once per process, into a temporary folder (several test modules share it)."""
    if "site" not in _BUILT:
        _BUILT["site"] = build_test_site(Path(tempfile.mkdtemp(prefix="openmasq-app-")) / "site")
    return _BUILT["site"]


def build_test_site(out: Path) -> Path:
    """The app with its test files (pytest wheels, core tests); no model files (not needed here)."""
    empty_models = out.parent / (out.name + "-no-models")
    empty_models.mkdir(parents=True, exist_ok=True)
    build_site(BuildOptions(out=out, repo=REPO, with_tests=True, models_dir=empty_models))
    return out


class AppServer(ThreadingHTTPServer):
    """Serves a built site on 127.0.0.1 with the policy of each script (csp.py); net-worker may
    reach `egress_origins`, as the service worker would allow once the providers are saved."""

    daemon_threads = True

    def __init__(self, root: Path, egress_origins: Iterable[str] = (), extra: dict[str, Path] | None = None) -> None:
        self.root = root.resolve()
        self.egress_origins = list(egress_origins)
        self.extra = {prefix: path.resolve() for prefix, path in (extra or {}).items()}
        self.served: list[tuple[int, str]] = []
        super().__init__(("127.0.0.1", 0), _SiteHandler)
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def resolve(self, url_path: str) -> tuple[Path, str] | None:
        for prefix, root in [*self.extra.items(), ("/", self.root)]:
            if url_path.startswith(prefix):
                rel = unquote(url_path[len(prefix):]) or "index.html"
                candidate = (root / rel).resolve()
                if candidate.is_file() and candidate.is_relative_to(root) and not rel.startswith("."):
                    return candidate, rel if root == self.root else ""
        return None

    def policy(self, rel: str) -> str:
        if rel in csp.EGRESS_SCRIPTS:
            return csp.egress_policy(self.egress_origins)
        return csp.policy_for(rel)

    def __enter__(self) -> AppServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()


class _SiteHandler(BaseHTTPRequestHandler):
    server: AppServer

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path == HARNESS_PATH:
            self._answer(200, HARNESS, "text/html; charset=utf-8", csp.page_policy())
            return
        found = self.server.resolve(path)
        if found is None:
            self._answer(404, b"", "text/plain", csp.page_policy())
            self.server.served.append((404, path))
            return
        target, rel = found
        self._answer(200, target.read_bytes(), mime_type(target), self.server.policy(rel))
        self.server.served.append((200, path))

    def _answer(self, status: int, body: bytes, content_type: str, policy: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Security-Policy", policy)
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass
