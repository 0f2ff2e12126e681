"""The built site in Chromium: headers and MIME types as the browser receives them, the page's CSP,
the service worker (install, precache, offline boot with the server stopped, Range and HEAD from the
cache), installability, and the net-worker's egress policy widened only for configured origins."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from e2e_support import ask_service_worker, wait_for_service_worker

from openmasq.site import csp
from openmasq.site.build import BuildResult
from openmasq.site.serve import BackgroundServer
from openmasq.testing.upstream import ScriptedUpstream

GGUF = "models/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
PYODIDE_WASM = "pyodide/pyodide.asm.wasm"
# Not precached: only the server can answer for it (proves the server is really down).
TEST_ONLY_FILE = "tests/core-tests.zip"


def open_app(context: Any, server: BackgroundServer) -> Any:
    page = context.new_page()
    page.goto(server.url)
    return page


def fetch_in_page(page: Any, path: str, method: str = "GET", headers: dict[str, str] | None = None) -> Any:
    """What a fetch from the page gets: status, some headers, byte length, the first bytes (hex)."""
    return page.evaluate(
        """async ([path, method, headers]) => {
            try {
                const r = await fetch(path, { method, headers });
                const bytes = new Uint8Array(await r.arrayBuffer());
                const head = Array.from(bytes.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
                return { status: r.status, length: bytes.length, head,
                         csp: r.headers.get("content-security-policy"), type: r.headers.get("content-type"),
                         contentLength: r.headers.get("content-length"), range: r.headers.get("content-range") };
            } catch (error) {
                return { error: String(error) };
            }
        }""",
        [path, method, headers or {}],
    )


def run_probe(page: Any, script: str, url: str) -> Any:
    """Starts a fresh module worker from `script` and has it fetch `url`."""
    return page.evaluate(
        """([script, url]) => new Promise((resolve) => {
            const worker = new Worker(script, { type: "module" });
            worker.onmessage = (event) => { worker.terminate(); resolve(event.data); };
            worker.onerror = (event) => resolve({ ok: false, error: "worker error: " + event.message });
            worker.postMessage({ url });
        })""",
        [script, url],
    )


# ---------------------------------------------------------------- headers as the browser gets them


def test_the_page_and_its_scripts_arrive_with_the_security_headers_and_mime_types(context, site_server):
    page = context.new_page()
    response = page.goto(site_server.url)
    headers = response.headers
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["content-security-policy"] == csp.page_policy()
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["cache-control"] == "no-cache"
    expected = {
        "sw.js": "text/javascript; charset=utf-8",
        "manifest.webmanifest": "application/manifest+json",
        "vendor/comlink.mjs": "text/javascript; charset=utf-8",
        PYODIDE_WASM: "application/wasm",
        "pyodide/pyodide-lock.json": "application/json",
    }
    for path, mime in expected.items():
        got = page.request.get(site_server.url + path)
        assert got.status == 200, path
        assert got.headers["content-type"] == mime, path
        assert got.headers["x-content-type-options"] == "nosniff", path


def test_the_page_policy_blocks_an_inline_script(context, site_server):
    page = open_app(context, site_server)
    outcome = page.evaluate(
        """() => new Promise((resolve) => {
            document.addEventListener("securitypolicyviolation",
                (event) => resolve({ ran: window.__inlineRan === true, directive: event.effectiveDirective }),
                { once: true });
            const script = document.createElement("script");
            script.textContent = "window.__inlineRan = true;";
            document.head.append(script);
        })"""
    )
    assert outcome == {"ran": False, "directive": "script-src-elem"}


# ---------------------------------------------------------------- the service worker


def test_the_service_worker_precaches_every_listed_file_and_nothing_test_only(
    context, site_server, built_site: BuildResult
):
    page = open_app(context, site_server)
    assert wait_for_service_worker(page) == built_site.build_hash
    cached = page.evaluate(
        """async () => {
            const name = (await caches.keys()).find((n) => n.startsWith("openmasq-files@"));
            const keys = await (await caches.open(name)).keys();
            return keys.map((request) => request.url);
        }""",
    )
    # Cached by content (one entry per sha256): the app group, no model, nothing test-only.
    app = {f.sha256 for f in built_site.manifest if f.group == "app"}
    assert {url.rsplit("/", 1)[1] for url in cached} == app
    assert all(url.startswith(site_server.url + "__openmasq/file/") for url in cached)
    assert not any(f.path.startswith("tests/") for f in built_site.manifest)


def test_the_app_boots_offline_with_the_server_stopped(context, site_server, shoot):
    page = open_app(context, site_server)
    wait_for_service_worker(page)
    site_server.stop()
    assert "error" in fetch_in_page(page, TEST_ONLY_FILE)  # the server is really gone

    # Only what the reloaded page asks for counts: the first visit's requests in flight when the
    # server stopped fail, as they should.
    started: set[Any] = set()
    failed: list[str] = []
    context.on("request", lambda request: started.add(request))
    context.on("requestfailed", lambda request: request in started and failed.append(request.url))
    response = page.reload()
    assert response.ok and response.from_service_worker
    page.wait_for_load_state("load")
    assert page.title() == "OpenMasq"
    assert page.locator("#app").count() == 1
    wasm = fetch_in_page(page, PYODIDE_WASM)
    assert wasm["status"] == 200 and wasm["head"].startswith("0061736d")  # "\0asm"
    assert wasm["csp"] == csp.page_policy()
    assert len(started) > 1
    assert [url for url in failed if url.startswith(site_server.url)] == []
    shoot(page, "offline-boot")

    site_server.start()  # same port, same origin: the test-only file is back
    assert fetch_in_page(page, TEST_ONLY_FILE)["status"] == 200


def test_range_and_head_requests_are_answered_from_the_cache(context, site_server, built_site: BuildResult):
    page = open_app(context, site_server)
    wait_for_service_worker(page)
    site_server.stop()
    path = GGUF if GGUF in built_site.precache else PYODIDE_WASM
    size = (built_site.out / path).stat().st_size
    head = fetch_in_page(page, path, method="HEAD")
    assert head["status"] == 200 and head["contentLength"] == str(size) and head["length"] == 0
    first = fetch_in_page(page, path, headers={"Range": "bytes=0-3"})
    assert first["status"] == 206 and first["length"] == 4
    assert first["range"] == f"bytes 0-3/{size}"
    assert first["head"] == ("47475546" if path == GGUF else "0061736d")  # "GGUF" / "\0asm"
    tail = fetch_in_page(page, path, headers={"Range": "bytes=-10"})
    assert tail["status"] == 206 and tail["length"] == 10 and tail["range"] == f"bytes {size - 10}-{size - 1}/{size}"
    assert fetch_in_page(page, path, headers={"Range": f"bytes={size}-"})["status"] == 416


# ---------------------------------------------------------------- installability


def installability_errors(context: Any, url: str) -> list[str]:
    page = context.new_page()
    page.goto(url)
    session = context.new_cdp_session(page)
    errors = session.send("Page.getInstallabilityErrors")["installabilityErrors"]
    return [error["errorId"] for error in errors]


def test_the_app_is_installable_in_a_real_profile(persistent_context, site_server):
    page = persistent_context.new_page()
    page.goto(site_server.url)
    wait_for_service_worker(page)
    assert installability_errors(persistent_context, site_server.url) == []


def test_a_page_without_a_manifest_is_not_installable(persistent_context, site_server):
    assert "no-manifest" in installability_errors(persistent_context, site_server.url + "tests/no-manifest.html")


# ---------------------------------------------------------------- egress: only the net-worker, only configured origins


def test_egress_is_blocked_until_the_origin_is_configured_and_only_for_the_egress_worker(
    context, site_server, provider: ScriptedUpstream
):
    page = open_app(context, site_server)
    wait_for_service_worker(page)
    url = f"{provider.base_url}/models"

    blocked = run_probe(page, csp.TEST_EGRESS_PROBE, url)
    assert blocked["ok"] is False
    assert {"directive": "connect-src", "blocked": url} in blocked["violations"]
    assert provider.received == [] and provider.preflights == []

    saved = ask_service_worker(page, {"type": "egress-origins", "origins": [provider.origin]})
    assert saved == {"type": "egress-origins-saved", "origins": [provider.origin]}
    allowed = run_probe(page, csp.TEST_EGRESS_PROBE, url)
    assert allowed["ok"] is True and allowed["status"] == 200
    assert json.loads(allowed["text"])["data"][0]["id"] == "scripted-1"
    assert [r.path for r in provider.received] == ["/v1/models"]

    plain = run_probe(page, "tests/plain-probe.js", url)  # how py-worker and the others are served
    assert plain["ok"] is False and plain["violations"][0]["directive"] == "connect-src"
    assert len(provider.received) == 1


def test_the_configured_origins_survive_a_service_worker_restart(context, site_server, provider: ScriptedUpstream):
    page = open_app(context, site_server)
    wait_for_service_worker(page)
    ask_service_worker(page, {"type": "egress-origins", "origins": [provider.origin + "/"]})
    session = context.new_cdp_session(page)
    session.send("ServiceWorker.enable")
    session.send("ServiceWorker.stopAllWorkers")
    status = ask_service_worker(page, {"type": "status"})  # wakes a fresh instance of the worker
    assert status["origins"] == [provider.origin]
    allowed = run_probe(page, csp.TEST_EGRESS_PROBE, f"{provider.base_url}/models")
    assert allowed["ok"] is True


INVALID_ORIGIN_LISTS = [
    ["https://api.example.com; script-src *"],  # a directive smuggled in
    ["https://api.example.com/v1"],  # a path
    ["*"],
    ["javascript:alert(1)"],
    ["https://ok.example", "http://evil.example 'unsafe-inline'"],  # one bad entry spoils the list
    "https://api.example.com",  # not a list
]


def test_invalid_egress_origins_are_refused_and_change_nothing(context, site_server):
    page = open_app(context, site_server)
    wait_for_service_worker(page)
    ask_service_worker(page, {"type": "egress-origins", "origins": ["https://api.example.com"]})
    for origins in INVALID_ORIGIN_LISTS:
        answer = ask_service_worker(page, {"type": "egress-origins", "origins": origins})
        assert answer["type"] == "egress-origins-refused", origins
    assert ask_service_worker(page, {"type": "status"})["origins"] == ["https://api.example.com"]


def test_the_net_worker_script_gets_the_configured_origins_from_the_service_worker(
    context, site_server, built_site: BuildResult, provider: ScriptedUpstream
):
    if not (built_site.out / csp.NET_WORKER).is_file():
        pytest.skip("web/worker/net-worker.js does not exist yet")
    page = open_app(context, site_server)
    wait_for_service_worker(page)
    assert fetch_in_page(page, csp.NET_WORKER)["csp"] == csp.egress_policy(())
    ask_service_worker(page, {"type": "egress-origins", "origins": [provider.origin]})
    assert fetch_in_page(page, csp.NET_WORKER)["csp"] == csp.egress_policy([provider.origin])
    assert fetch_in_page(page, "worker/py-worker.js")["csp"] in (csp.page_policy(), None)


def test_the_local_server_never_widens_the_net_worker_policy(site_server):
    request = urllib.request.Request(site_server.url + "tests/egress-probe.js?origins=http://127.0.0.1:1")
    with urllib.request.urlopen(request) as response:
        assert response.headers["Content-Security-Policy"] == csp.egress_policy(())


def test_a_missing_file_is_a_404_not_a_listing(site_server):
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(site_server.url + "vendor/")
    assert raised.value.code == 404
