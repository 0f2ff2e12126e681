"""llm-worker in headless Chromium: the bundled SmolLM2 answers OpenAI-style requests over the port protocol.

A temp site holds the worker, the wllama vendor files and the GGUF in the built site's layout, served with the
site's own Content-Security-Policies (openmasq.site.csp); the page talks to the worker as py-worker does.
"""

from __future__ import annotations

import json
import mimetypes
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from openmasq.site.csp import policy_for

REPO = Path(__file__).resolve().parent.parent
WLLAMA_ESM = REPO / "node_modules" / "@wllama" / "wllama" / "esm"
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_BYTES = 98_362_432
MIME_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
              ".wasm": "application/wasm", ".gguf": "application/octet-stream"}
# What the built site must hold for llm-worker, site-relative, and where each comes from.
VENDOR_FILES = {"vendor/wllama/index.js": WLLAMA_ESM / "index.js",
                "vendor/wllama/wllama.wasm": WLLAMA_ESM / "wasm" / "wllama.wasm"}
# The worker and the module it imports, copied next to each other (web/worker/).
WORKER_FILES = ("llm-worker.js", "wasm-features.js")
# A generous bound for one browser round trip (a cold load is about 3 s, generation about 1 s on 2 cores).
REQUEST_TIMEOUT_MS = 120_000

PAGE = """<!doctype html><meta charset="utf-8"><title>llm-worker probe</title>
<script type="module" src="probe.js"></script>"""

# The page side of the port protocol, as py-worker speaks it; chunk bytes come back decoded for the test.
PROBE = """
const decoder = new TextDecoder();
let port = null;
const pending = new Map();
let nextId = 1;

function connect(workerPath) {
  const worker = new Worker(new URL(workerPath, location.href), { type: "module" });
  // A worker that cannot start (a module it imports is missing) ends every pending send with its error.
  worker.onerror = (event) => {
    for (const [id, entry] of pending) {
      pending.delete(id);
      entry.resolve([...entry.events, { id, type: "worker-error", message: event.message || "worker error" }]);
    }
  };
  const channel = new MessageChannel();
  worker.postMessage({ type: "port", port: channel.port2 }, [channel.port2]);
  channel.port1.onmessage = (event) => {
    const m = event.data;
    const entry = pending.get(m.id);
    if (!entry) return;
    const record = { ...m, t: performance.now() - entry.started };
    if (m.type === "chunk") record.bytes = decoder.decode(m.bytes);
    entry.events.push(record);
    if (m.type === "chunk" && entry.abortAfterChunks && ++entry.chunks === entry.abortAfterChunks) {
      channel.port1.postMessage({ id: m.id, type: "abort" });
    }
    if (m.type === "end" || m.type === "error" || m.type === "info") {
      pending.delete(m.id);
      entry.resolve(entry.events);
    }
  };
  return channel.port1;
}

window.llm = {
  ports: {},
  send(workerPath, message, abortAfterChunks = 0) {
    const p = this.ports[workerPath] || (this.ports[workerPath] = connect(workerPath));
    const id = nextId++;
    return new Promise((resolve) => {
      pending.set(id, { started: performance.now(), events: [], resolve, abortAfterChunks, chunks: 0 });
      p.postMessage({ id, ...message });
    });
  },
};
window.probeReady = true;
"""


@dataclass
class Site:
    root: Path
    url: str
    requests: list[str]


class Handler(BaseHTTPRequestHandler):
    root: Path
    requests: list[str]

    def do_GET(self) -> None:
        path = unquote(urlsplit(self.path).path).lstrip("/") or "index.html"
        self.requests.append(path)
        file = (self.root / path).resolve()
        if not file.is_file() or not (file == self.root or self.root in file.parents or file.name == GGUF):
            self.send_error(404)
            return
        data = file.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", MIME_TYPES.get(file.suffix, mimetypes.guess_type(file.name)[0] or "x/x"))
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Security-Policy", policy_for(path))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def built_gguf() -> Path:
    """The GGUF from the models recipe (built, or found up to date, by the framework itself)."""
    done = subprocess.run([sys.executable, str(REPO / "models" / "build.py"), "smollm2"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    cache = Path(os.environ.get("OPENMASQ_CACHE") or Path.home() / ".cache" / "openmasq")
    return cache / "models" / "smollm2" / GGUF


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("llm-site").resolve()
    (root / "index.html").write_text(PAGE, encoding="utf-8")
    (root / "probe.js").write_text(PROBE, encoding="utf-8")
    worker = {name: REPO / "web" / "worker" / name for name in WORKER_FILES}
    for target, source in {**{f"worker/{n}": p for n, p in worker.items()},
                           **{f"broken/worker/{n}": p for n, p in worker.items()}, **VENDOR_FILES}.items():
        (root / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, root / target)
    (root / "models" / "smollm2").mkdir(parents=True)
    (root / "models" / "smollm2" / GGUF).symlink_to(built_gguf())
    requests: list[str] = []
    handler = type("SiteHandler", (Handler,), {"root": root, "requests": requests})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(root, f"http://127.0.0.1:{server.server_address[1]}/", requests)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def page(site: Site, browser: Any) -> Iterator[Any]:
    context = browser.new_context()
    tab = context.new_page()
    tab.set_default_timeout(REQUEST_TIMEOUT_MS)
    tab.goto(site.url)
    tab.wait_for_function("window.probeReady === true")
    try:
        yield tab
    finally:
        context.close()


def send(page: Any, message: dict[str, Any], worker: str = "worker/llm-worker.js",
         abort_after_chunks: int = 0) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = page.evaluate(
        "([w, m, n]) => window.llm.send(w, m, n)", [worker, message, abort_after_chunks]
    )
    return events


def chat(content: str, **extra: Any) -> dict[str, Any]:
    body = {"model": "smollm2-135m-instruct", "stream": True, "messages": [{"role": "user", "content": content}],
            **extra}
    return {"url": "llm://local/v1/chat/completions", "method": "POST",
            "headers": {"content-type": "application/json"}, "body": json.dumps(body)}


def sse_docs(events: list[dict[str, Any]]) -> list[Any]:
    """The `data:` payloads of the streamed chunks, JSON-decoded ("[DONE]" kept as the string)."""
    text = "".join(e["bytes"] for e in events if e["type"] == "chunk")
    docs: list[Any] = []
    for block in text.split("\n\n"):
        if block.startswith("data: "):
            payload = block[len("data: "):]
            docs.append(payload if payload == "[DONE]" else json.loads(payload))
    return docs


def answer_of(docs: list[Any]) -> str:
    return "".join(d["choices"][0]["delta"].get("content") or "" for d in docs if isinstance(d, dict))


def first_content_time(events: list[dict[str, Any]]) -> float:
    return next(e["t"] for e in events if e["type"] == "chunk" and '"content"' in e["bytes"])


def test_the_offline_model_says_paris_is_the_capital_of_france(page: Any) -> None:
    # temperature 0: the request's own sampling settings win over the worker's default of 0.7
    cold = send(page, chat("What is the capital of France?", temperature=0))
    kinds = [e["type"] for e in cold]
    assert "error" not in kinds, cold[-1]
    head = next(e for e in cold if e["type"] == "head")
    assert head["status"] == 200 and head["headers"]["content-type"] == "text/event-stream"
    assert kinds[-1] == "end"
    downloads = [e for e in cold if e["type"] == "progress" and e["stage"] == "download"]
    assert downloads and downloads[-1]["loaded"] == downloads[-1]["total"] == GGUF_BYTES
    assert any(e["type"] == "progress" and e["stage"] == "ready" for e in cold)
    docs = sse_docs(cold)
    assert docs[-1] == "[DONE]"
    assert docs[-2]["choices"][0]["finish_reason"] == "stop" and docs[-2]["choices"][0]["delta"] == {}
    assert docs[0]["choices"][0]["delta"]["role"] == "assistant"
    answer = answer_of(docs)
    assert "Paris" in answer, answer

    warm = send(page, chat("What is the capital of France?", temperature=0))
    assert answer_of(sse_docs(warm)) == answer  # greedy decoding: the same words again, from the loaded model
    assert not any(e["type"] == "progress" for e in warm)
    # a new question pays for its prompt (the repeated one above reused the cached prompt)
    fresh = send(page, chat("What is the capital of Italy?", temperature=0))
    assert answer_of(sse_docs(fresh)).strip()
    ready = next(e["t"] for e in cold if e["type"] == "progress" and e["stage"] == "ready")
    info = send(page, {"type": "info"})[-1]
    print(f"\n[llm-worker] cold: model ready {ready / 1000:.2f} s (worker's own load {info['load_ms'] / 1000:.2f} s),"
          f" first token {first_content_time(cold) / 1000:.2f} s, done {cold[-1]['t'] / 1000:.2f} s;"
          f" warm, same prompt: first token {first_content_time(warm) / 1000:.2f} s, done {warm[-1]['t'] / 1000:.2f} s;"
          f" warm, new prompt: first token {first_content_time(fresh) / 1000:.2f} s, done {fresh[-1]['t'] / 1000:.2f} s"
          f" ({chunk_count(fresh)} chunks); answer {answer!r}")


def chunk_count(events: list[dict[str, Any]]) -> int:
    return sum(e["type"] == "chunk" for e in events)


def test_without_cross_origin_isolation_the_model_runs_single_threaded(page: Any) -> None:
    send(page, chat("Hi", max_tokens=4))
    info = send(page, {"type": "info"})[-1]
    assert page.evaluate("crossOriginIsolated") is False
    assert info["loaded"] is True and info["multithread"] is False and info["threads"] == 1
    assert info["chat_template"] is True  # the GGUF carries its template; wllama applies it


def test_models_endpoint_lists_the_bundled_model(page: Any) -> None:
    events = send(page, {"url": "llm://local/v1/models", "method": "GET", "headers": {}, "body": None})
    assert [e["type"] for e in events] == ["head", "chunk", "end"]
    assert events[0]["status"] == 200
    assert json.loads(events[1]["bytes"])["data"] == [{"id": "smollm2-135m-instruct", "object": "model",
                                                       "owned_by": "local"}]


def test_abort_stops_the_stream_and_the_next_request_still_answers(page: Any) -> None:
    story = chat("Write a long story about a dragon who learns to cook.", max_tokens=400)
    events = send(page, story, abort_after_chunks=3)
    assert events[-1]["type"] == "error" and events[-1]["kind"] == "aborted"
    assert not any(e["type"] == "end" for e in events)
    assert sum(e["type"] == "chunk" for e in events) < 20  # far fewer than the 400 tokens asked for
    after = send(page, chat("What is the capital of France?", temperature=0))
    assert "Paris" in answer_of(sse_docs(after))


def test_tools_and_tool_turns_are_ignored_not_refused(page: Any) -> None:
    tools = [{"type": "function", "function": {"name": "memory_search", "parameters": {"type": "object"}}}]
    call = {"id": "c1", "type": "function", "function": {"name": "memory_search", "arguments": "{}"}}
    body = {"stream": True, "tools": tools, "tool_choice": "auto", "max_tokens": 16, "messages": [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": [{"type": "text", "text": "What is 2 + 2?"}]},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "no result"},
    ]}
    events = send(page, {"url": "llm://local/v1/chat/completions", "method": "POST", "headers": {},
                         "body": json.dumps(body)})
    assert events[-1]["type"] == "end", events[-1]
    docs = sse_docs(events)
    assert answer_of(docs).strip()
    assert all("tool_calls" not in d["choices"][0]["delta"] for d in docs if isinstance(d, dict))


def test_bad_requests_get_openai_style_errors(page: Any) -> None:
    unknown = send(page, {"url": "llm://local/v1/embeddings", "method": "POST", "headers": {}, "body": "{}"})
    assert unknown[0]["status"] == 404 and unknown[-1]["type"] == "end"
    broken = send(page, {"url": "llm://local/v1/chat/completions", "method": "POST", "headers": {}, "body": "{"})
    assert broken[0]["status"] == 400
    assert json.loads(broken[1]["bytes"])["error"]["code"] == "invalid_json"
    # one turn longer than the whole context cannot be trimmed: the model server's refusal, OpenAI-style
    huge = send(page, chat("Paris is big. " * 3000))
    assert huge[0]["status"] == 400 and huge[-1]["type"] == "end"
    error = json.loads(huge[1]["bytes"])["error"]
    assert error["code"] == "context_length_exceeded" and "exceeds the available context size" in error["message"]


def test_a_missing_model_reports_a_load_error_instead_of_hanging(page: Any) -> None:
    # broken/worker/llm-worker.js finds neither ../vendor/wllama nor ../models next to it
    events = send(page, chat("Hello"), worker="broken/worker/llm-worker.js")
    assert events[-1]["type"] == "error" and events[-1]["kind"] == "model_load"
    assert "did not load" in events[-1]["message"]
    assert not any(e["type"] == "head" for e in events)
    preload = send(page, {"type": "load"}, worker="broken/worker/llm-worker.js")  # and it tries again
    assert preload[-1]["type"] == "error" and preload[-1]["kind"] == "model_load"


def test_load_preloads_the_model_and_ends(page: Any) -> None:
    events = send(page, {"type": "load"})
    assert events[-1]["type"] == "end"
    assert send(page, {"type": "info"})[-1]["loaded"] is True


def test_the_worker_only_fetched_same_origin_site_files(page: Any, site: Site) -> None:
    send(page, chat("Hi", max_tokens=2))
    fetched = set(site.requests)
    assert {"worker/llm-worker.js", "vendor/wllama/index.js", "vendor/wllama/wllama.wasm",
            f"models/smollm2/{GGUF}"} <= fetched
    assert fetched <= {"index.html", "probe.js", "favicon.ico", *(f"worker/{n}" for n in WORKER_FILES),
                       *(f"broken/worker/{n}" for n in WORKER_FILES), "broken/vendor/wllama/index.js",
                       f"broken/models/smollm2/{GGUF}", *VENDOR_FILES, f"models/smollm2/{GGUF}"}


def test_the_built_site_serves_a_working_llm_worker(built_site: Any, site_server: Any, context: Any) -> None:
    """The same question through `openmasq build` + `openmasq serve`: their layout, vendor copies and policies."""
    assert (built_site.out / "models" / "smollm2" / GGUF).is_file(), "build the models before the site"
    for target in VENDOR_FILES:
        assert (built_site.out / target).read_bytes() == VENDOR_FILES[target].read_bytes()
    context.route("**/app/**", lambda route: route.abort())  # a bare document of the origin, no app boot
    tab = context.new_page()
    tab.set_default_timeout(REQUEST_TIMEOUT_MS)
    tab.goto(site_server.url + "index.html")
    tab.evaluate(f"(() => {{ {PROBE} }})()")
    events = send(tab, chat("What is the capital of France?", temperature=0))
    assert events[-1]["type"] == "end", events[-1]
    assert "Paris" in answer_of(sse_docs(events))
