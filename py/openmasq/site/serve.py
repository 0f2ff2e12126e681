"""`openmasq serve`: a threaded static server for the built site on loopback, with explicit MIME
types, the strict security headers (csp.py), no-cache revalidation, HEAD and single Range requests,
no directory listings and no dotfiles. It never reads request bodies, so it cannot log them."""

from __future__ import annotations

import contextlib
import email.utils
import re
import socket
import sys
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote, urlsplit

from . import csp

DEFAULT_PORT = 8765
DEFAULT_HOST = "127.0.0.1"
MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".gguf": "application/octet-stream",
    ".onnx": "application/octet-stream",
    ".bin": "application/octet-stream",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".py": "text/x-python; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
}
DEFAULT_MIME = "application/octet-stream"
SECURITY_HEADERS = csp.SECURITY_HEADERS  # nosniff, no referrer, cross-origin isolation
CHUNK = 1 << 20  # 1 MiB writes: a 100 MB model streams without being held in memory
SINGLE_RANGE = re.compile(r"bytes=(\d*)-(\d*)")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def mime_type(path: Path) -> str:
    return MIME_TYPES.get(path.suffix.lower(), DEFAULT_MIME)


def cache_control(rel: str) -> str:
    """Everything revalidates (cheap: an ETag answers 304). The shell must: a stale index.html or
    sw.js would pin users to an old build; the rest is precached by the service worker anyway."""
    return "no-cache"


def etag_of(path: Path) -> str:
    stat = path.stat()
    return f'"{stat.st_size:x}-{stat.st_mtime_ns:x}"'


def parse_range(header: str, size: int) -> tuple[int, int] | str | None:
    """(first, last) for one satisfiable range, None to ignore the header (serve everything),
    "unsatisfiable" for a range outside the file."""
    match = SINGLE_RANGE.fullmatch(header.strip())
    if match is None or match.group(1) == match.group(2) == "":
        return None
    first, last = match.group(1), match.group(2)
    if first == "":
        start, end = max(0, size - int(last)), size - 1
    else:
        start = int(first)
        end = size - 1 if last == "" else min(int(last), size - 1)
    if start > end or start >= size:
        return "unsatisfiable"
    return start, end


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True  # a restart on the same port right after a stop (offline tests)
    request_queue_size = 64

    def __init__(self, root: Path, host: str, port: int, log: Callable[[str], None] | None = None) -> None:
        self.root = root.resolve()
        self.log = log
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__((host, port), SiteHandler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """Cuts the kept-alive connections too: a stopped server must not go on answering on them."""
        with self._open_lock:
            live = list(self._open)
        for sock in live:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    @property
    def url(self) -> str:
        host, port = str(self.server_address[0]), self.server_address[1]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"

    def resolve(self, url_path: str) -> tuple[Path, str] | None:
        """The file for a URL path and its site-relative name; None for anything not servable."""
        rel = unquote(url_path).lstrip("/")
        if rel == "" or rel.endswith("/"):
            rel += "index.html"  # a folder's page if it has one; never a listing
        parts = rel.split("/")
        if any(part in ("", ".", "..") or part.startswith(".") for part in parts) or "\\" in rel or "\0" in rel:
            return None
        path = (self.root / rel).resolve()
        if not path.is_file() or not path.is_relative_to(self.root):
            return None
        return path, rel


class SiteHandler(BaseHTTPRequestHandler):
    server: SiteServer
    protocol_version = "HTTP/1.1"
    server_version = "openmasq"
    sys_version = ""

    def do_GET(self) -> None:
        self._serve(send_body=True)

    def do_HEAD(self) -> None:
        self._serve(send_body=False)

    def _refuse_method(self) -> None:
        # The body (if any) is never read: the connection closes after the answer.
        self.close_connection = True
        self._send_empty(HTTPStatus.METHOD_NOT_ALLOWED, {"Allow": "GET, HEAD"})

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse_method

    def _send_empty(self, status: HTTPStatus, headers: dict[str, str] | None = None, policy: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.send_header("Content-Security-Policy", policy or csp.page_policy())
        for name, value in {**SECURITY_HEADERS, **(headers or {})}.items():
            self.send_header(name, value)
        self.end_headers()

    def _serve(self, send_body: bool) -> None:
        found = self.server.resolve(urlsplit(self.path).path)
        if found is None:
            self._send_empty(HTTPStatus.NOT_FOUND)
            return
        path, rel = found
        size = path.stat().st_size
        etag = etag_of(path)
        headers = {
            "Content-Type": mime_type(path),
            "Cache-Control": cache_control(rel),
            "ETag": etag,
            "Last-Modified": email.utils.formatdate(path.stat().st_mtime, usegmt=True),
            "Accept-Ranges": "bytes",
            **SECURITY_HEADERS,
        }
        policy = csp.policy_for(rel)
        if etag in (self.headers.get("If-None-Match") or "") and "Range" not in self.headers:
            self._send_empty(HTTPStatus.NOT_MODIFIED, {"ETag": etag, "Cache-Control": headers["Cache-Control"]},
                             policy)
            return
        status, start, end = HTTPStatus.OK, 0, size - 1
        if "Range" in self.headers and self.headers.get("If-Range", etag) == etag:
            wanted = parse_range(self.headers["Range"], size)
            if wanted == "unsatisfiable":
                self._send_empty(HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE, {"Content-Range": f"bytes */{size}"},
                                 policy)
                return
            if isinstance(wanted, tuple):
                status, (start, end) = HTTPStatus.PARTIAL_CONTENT, wanted
                headers["Content-Range"] = f"bytes {start}-{end}/{size}"
        self.send_response(status)
        headers["Content-Length"] = str(max(0, end - start + 1))
        headers["Content-Security-Policy"] = policy
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if send_body:
            with path.open("rb") as handle:
                self._copy(handle, start, end - start + 1)

    def _copy(self, handle: BinaryIO, start: int, length: int) -> None:
        handle.seek(start)
        while length > 0:
            block = handle.read(min(CHUNK, length))
            if not block:
                break
            self.wfile.write(block)
            length -= len(block)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        # Method, path (no query string) and status only: never a header or a body.
        if self.server.log is not None:
            path = urlsplit(self.path).path if isinstance(self.path, str) else "?"
            self.server.log(f"{self.command} {path} {code}")

    def log_error(self, format: str, *args: object) -> None:
        if self.server.log is not None:
            self.server.log(f"error: {format % args}")


def make_server(root: Path, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                log: Callable[[str], None] | None = None) -> SiteServer:
    if not (root / "index.html").is_file():
        raise FileNotFoundError(f"{root} has no index.html: build the site first (openmasq build --out {root})")
    return SiteServer(root, host, port, log)


def serve_forever(root: Path, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, quiet: bool = False) -> None:
    """Serves until interrupted; prints the URL first (service workers need loopback or HTTPS)."""
    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    server = make_server(root, host, port, None if quiet else log)
    print(f"OpenMasq is served at {server.url}  (from {server.root}; Ctrl-C stops)", flush=True)
    if host not in LOOPBACK_HOSTS:
        print("note: browsers run service workers (offline use, install) only on https:// or localhost; "
              "this address is neither", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


class BackgroundServer:
    """`with BackgroundServer(root, port=0) as server:` serves in a thread (tests, benchmarks);
    stop() and start() again reuse the same port."""

    def __init__(self, root: Path, host: str = DEFAULT_HOST, port: int = 0) -> None:
        self.root, self.host, self.port = root, host, port
        self._server: SiteServer | None = None
        self._thread: threading.Thread | None = None
        self.lines: list[str] = []

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self) -> BackgroundServer:
        self._server = make_server(self.root, self.host, self.port, self.lines.append)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.close_connections()
            self._server.server_close()
            assert self._thread is not None
            self._thread.join(timeout=10)
            self._server = None

    @property
    def running(self) -> bool:
        return self._server is not None

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
