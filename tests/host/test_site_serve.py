"""`openmasq serve`'s server: MIME types, the security headers per path, revalidation, HEAD and Range,
no listings or dotfiles or escapes from the root, bodies never read, a restart on the same port that
cuts the connections kept alive by the previous run, and the CLI wiring."""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from openmasq.site import csp
from openmasq.site.serve import BackgroundServer, parse_range

BLOB = bytes(range(256)) * 40  # 10,240 bytes


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    files = {
        "index.html": b"<!doctype html><title>t</title>",
        "sw.js": b"// sw",
        "manifest.webmanifest": b"{}",
        "app/main.js": b"export {};",
        "vendor/lib.mjs": b"export {};",
        "pyodide/pyodide.asm.wasm": b"\0asm",
        "pyodide/pyodide-lock.json": b"{}",
        "pyodide/x-1.0-py3-none-any.whl": b"PK",
        "tests/core-tests.zip": b"PK",
        "models/m/model.gguf": BLOB,
        "models/m/onnx/model_q4.onnx": b"onnx",
        "models/m/e5-small-q4.bin": b"bin",
        csp.NET_WORKER: b"// net",
        csp.LLM_WORKER: b"// llm",
        "worker/py-worker.js": b"// py",
        ".openmasq-build.json": b"{}",
    }
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    (tmp_path / "secret.txt").write_text("outside the root", encoding="utf-8")
    return root


@pytest.fixture
def server(site: Path):
    with BackgroundServer(site) as running:
        yield running


def request(server: BackgroundServer, path: str, method: str = "GET", headers: dict[str, str] | None = None,
            body: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


@pytest.mark.parametrize(("path", "mime"), [
    ("/", "text/html; charset=utf-8"),
    ("/sw.js", "text/javascript; charset=utf-8"),
    ("/vendor/lib.mjs", "text/javascript; charset=utf-8"),
    ("/manifest.webmanifest", "application/manifest+json"),
    ("/pyodide/pyodide.asm.wasm", "application/wasm"),
    ("/pyodide/pyodide-lock.json", "application/json"),
    ("/pyodide/x-1.0-py3-none-any.whl", "application/zip"),
    ("/tests/core-tests.zip", "application/zip"),
    ("/models/m/model.gguf", "application/octet-stream"),
    ("/models/m/onnx/model_q4.onnx", "application/octet-stream"),
    ("/models/m/e5-small-q4.bin", "application/octet-stream"),
])
def test_each_kind_of_file_gets_its_explicit_mime_type_and_the_security_headers(server, path, mime):
    status, headers, _ = request(server, path)
    assert status == 200
    assert headers["content-type"] == mime
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["cache-control"] == "no-cache"
    assert headers["accept-ranges"] == "bytes"


@pytest.mark.parametrize(("path", "policy"), [
    ("/", csp.page_policy()),
    ("/app/main.js", csp.page_policy()),
    ("/worker/py-worker.js", csp.page_policy()),
    ("/" + csp.LLM_WORKER, csp.llm_worker_policy()),
    ("/" + csp.NET_WORKER, csp.egress_policy(())),
    ("/" + csp.NET_WORKER + "?origins=https://evil.example", csp.egress_policy(())),
])
def test_each_script_gets_its_own_policy_and_the_server_never_widens_egress(server, path, policy):
    _, headers, _ = request(server, path)
    assert headers["content-security-policy"] == policy
    assert "frame-ancestors 'none'" in policy and "connect-src 'self';" in policy


@pytest.mark.parametrize("path", ["/", "/worker/py-worker.js", "/" + csp.LLM_WORKER, "/models/m/model.gguf",
                                  "/missing.js"])
def test_every_answer_makes_the_app_cross_origin_isolated(server, path):
    _, headers, _ = request(server, path)
    assert headers["cross-origin-opener-policy"] == "same-origin"
    assert headers["cross-origin-embedder-policy"] == "require-corp"
    assert headers["cross-origin-resource-policy"] == "same-origin"


def test_the_policies_forbid_inline_script_and_third_parties():
    page = csp.page_policy()
    assert "script-src 'self' 'wasm-unsafe-eval';" in page and "unsafe-inline" not in page
    assert "'unsafe-eval'" not in page and "*" not in page and "http" not in page
    assert csp.llm_worker_policy() == page.replace("worker-src 'self'", "worker-src 'self' blob:")
    assert csp.egress_policy(["https://b.example", "https://a.example/", "https://b.example"]) == page.replace(
        "connect-src 'self'", "connect-src 'self' https://a.example https://b.example")
    with pytest.raises(ValueError, match="not an http"):
        csp.egress_policy(["https://a.example; script-src *"])
    with pytest.raises(ValueError, match="more than"):
        csp.egress_policy([f"https://h{i}.example" for i in range(csp.MAX_EGRESS_ORIGINS + 1)])
    assert "frame-ancestors" not in csp.meta_policy()


def test_head_answers_the_headers_of_get_without_a_body(server):
    status, headers, body = request(server, "/models/m/model.gguf", method="HEAD")
    assert (status, headers["content-length"], body) == (200, str(len(BLOB)), b"")


@pytest.mark.parametrize(("header", "status", "expected", "content_range"), [
    ("bytes=0-3", 206, BLOB[:4], "bytes 0-3/10240"),
    ("bytes=10000-", 206, BLOB[10000:], "bytes 10000-10239/10240"),
    ("bytes=-16", 206, BLOB[-16:], "bytes 10224-10239/10240"),
    ("bytes=10230-99999", 206, BLOB[10230:], "bytes 10230-10239/10240"),
    ("bytes=10240-", 416, b"", "bytes */10240"),
    ("bytes=0-1,4-5", 200, BLOB, None),  # several ranges: HTTP allows answering with everything
    ("items=0-3", 200, BLOB, None),
])
def test_single_range_requests_are_served(server, header, status, expected, content_range):
    got_status, headers, body = request(server, "/models/m/model.gguf", headers={"Range": header})
    assert (got_status, body) == (status, expected)
    assert headers.get("content-range") == content_range


def test_parse_range_edge_cases():
    assert parse_range("bytes=5-2", 10) == "unsatisfiable"
    assert parse_range("bytes=-0", 10) == "unsatisfiable"
    assert parse_range("bytes=-", 10) is None
    assert parse_range("bytes=0-", 0) == "unsatisfiable"


def test_an_unchanged_file_revalidates_with_304(server):
    _, headers, _ = request(server, "/app/main.js")
    status, again, body = request(server, "/app/main.js", headers={"If-None-Match": headers["etag"]})
    assert (status, body, again["etag"]) == (304, b"", headers["etag"])


@pytest.mark.parametrize("path", [
    "/app/", "/vendor/", "/.openmasq-build.json", "/../secret.txt", "/%2e%2e/secret.txt", "/app/%2e%2e/../secret.txt",
    "/nothing.js", "/app/..%2f..%2fsecret.txt",
])
def test_no_listing_no_dotfile_and_nothing_outside_the_root(server, path):
    status, _, body = request(server, path)
    assert status == 404 and b"outside the root" not in body


def test_other_methods_are_refused_and_bodies_never_logged(server):
    status, headers, _ = request(server, "/?token=abc", method="POST", body=b"api_key=sk-SECRET")
    assert status == 405 and headers["allow"] == "GET, HEAD"
    request(server, "/app/main.js?key=sk-SECRET")
    log = "\n".join(server.lines)
    assert "SECRET" not in log and "token" not in log
    assert "POST / 405" in log and "GET /app/main.js 200" in log


def test_stop_cuts_kept_alive_connections_and_start_reuses_the_port(site):
    server = BackgroundServer(site).start()
    port = server.port
    keep_alive = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    keep_alive.request("GET", "/sw.js")
    assert keep_alive.getresponse().read() == b"// sw"
    server.stop()
    with pytest.raises((ConnectionError, http.client.HTTPException, socket.timeout, OSError)):
        keep_alive.request("GET", "/sw.js")  # the same connection: a stopped server must not answer
        keep_alive.getresponse().read()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5)
    server.start()
    try:
        assert server.port == port
        assert request(server, "/sw.js")[2] == b"// sw"
    finally:
        server.stop()


def test_serving_a_folder_without_a_page_fails_clearly(tmp_path: Path):
    done = subprocess.run([sys.executable, "-m", "openmasq", "serve", "--dir", str(tmp_path), "--port", "0"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert "has no index.html" in done.stderr and "openmasq build --out" in done.stderr


def test_the_cli_lists_build_and_serve():
    done = subprocess.run([sys.executable, "-m", "openmasq", "--help"], capture_output=True, text=True, timeout=60,
                          check=True)
    assert "build" in done.stdout and "serve" in done.stdout
    build_help = subprocess.run([sys.executable, "-m", "openmasq", "build", "--help"], capture_output=True,
                                text=True, timeout=60, check=True).stdout
    assert "--out" in build_help and "--with-tests" in build_help
