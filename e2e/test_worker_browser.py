"""py-worker in a real Chromium, driven through its comlink API from a blank same-origin page:
boot with real progress, a send through net-worker to a scripted provider on loopback (what it
received holds no real value), an origin the policy does not allow, and reload persistence."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "pyodide"))
from appsite import HARNESS_PATH, START_WORKERS_JS, AppServer

from openmasq.site.build import BuildResult
from openmasq.testing.upstream import ScriptedUpstream

NAME = "Claire Vasseur"
EMAIL = "claire.vasseur@ateliers-brunet.fr"
TEXT = f"Écris à {NAME} ({EMAIL}) pour confirmer jeudi."
API_KEY = "sk-e2e-4f7c1b2a9d"
PASSPHRASE = "cheval agrafe pile correcte"
# A worker boot on a loaded 2-core machine took up to 35 s; the default 30 s is too tight.
EVALUATE_TIMEOUT_MS = 180_000


@pytest.fixture(scope="session")
def egress_provider() -> Iterator[ScriptedUpstream]:
    """A scripted OpenAI-compatible provider whose origin net-worker may reach (it echoes "Reçu : ...")."""
    with ScriptedUpstream(cors=True) as upstream:
        yield upstream


@pytest.fixture(scope="session")
def unlisted_provider() -> Iterator[ScriptedUpstream]:
    """A provider whose origin net-worker's policy does not allow."""
    with ScriptedUpstream(cors=True) as upstream:
        yield upstream


@pytest.fixture(scope="session")
def app_server(built_site: BuildResult, egress_provider: ScriptedUpstream) -> Iterator[AppServer]:
    with AppServer(built_site.out, [egress_provider.origin]) as server:
        yield server


class WorkerPage:
    """A page of one browser context with py-worker and net-worker started (window.api)."""

    def __init__(self, context: Any, server: AppServer) -> None:
        self.context = context
        self.server = server
        self.requests: list[str] = []
        self.console: list[str] = []
        context.on("request", lambda request: self.requests.append(request.url))
        self.page = context.new_page()
        self.page.set_default_timeout(EVALUATE_TIMEOUT_MS)
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.boot = self.start()

    def start(self) -> dict[str, Any]:
        self.page.goto(self.server.origin + HARNESS_PATH)
        booted: dict[str, Any] = self.page.evaluate(START_WORKERS_JS, True)
        return booted

    def reload(self) -> dict[str, Any]:
        """A new page in the same profile: the workers start again from nothing but IndexedDB."""
        self.page.close()
        self.page = self.context.new_page()
        self.page.set_default_timeout(EVALUATE_TIMEOUT_MS)
        self.boot = self.start()
        return self.boot

    def call(self, script: str, arg: Any = None) -> Any:
        return self.page.evaluate(script, arg)

    def attempt(self, script: str, arg: Any = None) -> Any:
        """The call's result, or {error: {name, message}} when it threw."""
        wrapped = f"async (arg) => {{ try {{ return {{ ok: await ({script})(arg) }}; }} " \
                  "catch (e) { return { error: { name: e.name, message: e.message } }; } }"
        return self.page.evaluate(wrapped, arg)


@pytest.fixture(scope="module")
def worker_page(browser: Any, app_server: AppServer) -> Iterator[WorkerPage]:
    context = browser.new_context()
    try:
        yield WorkerPage(context, app_server)
    finally:
        context.close()


def fresh_account(page: WorkerPage, label: str) -> dict[str, Any]:
    account: dict[str, Any] = page.call("([label, pass]) => api.createAccount(label, pass, false)",
                                        [label, PASSPHRASE])
    return account


def use_provider(page: WorkerPage, provider: ScriptedUpstream) -> str:
    saved = page.call("(spec) => api.saveProvider(spec)", {
        "kind": "compatible", "label": "Scripted", "base_url": provider.base_url, "api_key": API_KEY,
        "model": "scripted-model"})
    page.call("(id) => api.updateSettings({default_provider: id})", saved["id"])
    return str(saved["id"])


SEND_JS = """async ([text]) => {
  const conv = await api.createConversation({});
  const events = [];
  const result = await api.send(conv.id, text, Comlink.proxy((e) => { events.push(e); }));
  return { conv: conv.id, result, events };
}"""


# --- boot ------------------------------------------------------------------------------------------


def test_the_worker_boots_with_real_download_progress(worker_page: WorkerPage) -> None:
    progress = worker_page.boot["progress"]
    stages = [p["stage"] for p in progress]
    assert stages[-2:] == ["import", "ready"]
    downloads = [p for p in progress if p["stage"] == "download"]
    labels = {p["label"] for p in downloads}
    assert {"python_stdlib.zip"} <= labels and any(label.startswith("openmasq-") for label in labels)
    assert any(p["label"] == "pyodide.asm.wasm" for p in progress)
    loaded = [p["loaded"] for p in downloads]
    assert loaded == sorted(loaded) and max(loaded) > 10_000_000  # bytes, counted as they came
    assert "compile" in stages and stages.index("compile") < stages.index("import")
    assert worker_page.boot["boot"]["version"] == "314.0.7"


def test_the_engine_is_imported_from_the_bytecode_the_site_ships(worker_page: WorkerPage) -> None:
    modules = worker_page.boot["boot"]["modules"]
    assert modules["modules"] > 60  # the worker, the redaction engine, the send flow, memory extraction
    assert modules["from_bytecode"] == modules["modules"]


def test_the_workers_load_nothing_from_another_origin(worker_page: WorkerPage) -> None:
    origin = worker_page.server.origin + "/"
    assert [url for url in worker_page.requests if not url.startswith(origin)] == []
    assert [path for status, path in worker_page.server.served if status != 200] == []


# --- sending through net-worker --------------------------------------------------------------------


def test_a_send_reaches_the_provider_through_net_worker_without_real_values(
    worker_page: WorkerPage, egress_provider: ScriptedUpstream
) -> None:
    fresh_account(worker_page, "Envoi")
    use_provider(worker_page, egress_provider)
    before = len(egress_provider.received)
    sent = worker_page.call(SEND_JS, [TEXT])
    assert sent["result"] == {"status": "done"}
    received = egress_provider.received[before:]
    assert [r.method for r in received] == ["POST"]
    wire = received[0].text()
    assert NAME not in wire and "Vasseur" not in wire and EMAIL not in wire
    assert {k.lower(): v for k, v in received[0].headers.items()}["authorization"] == f"Bearer {API_KEY}"
    types = [e["type"] for e in sent["events"]]
    assert types[0] == "saved" and types[-1] == "done"
    reply = sent["events"][-1]["message"]["text"]
    assert NAME in reply and EMAIL in reply  # the fakes the provider quoted came back restored
    # Nothing the page or its workers requested carried a real value either.
    assert [url for url in worker_page.requests if "Vasseur" in url or "claire" in url] == []


def test_listing_models_goes_through_net_worker(worker_page: WorkerPage, egress_provider: ScriptedUpstream) -> None:
    fresh_account(worker_page, "Modèles")
    provider_id = use_provider(worker_page, egress_provider)
    listed = worker_page.call("(id) => api.listModels(id)", provider_id)
    assert listed == {"ok": True, "models": ["scripted-1"], "names": {}}


def test_an_origin_the_policy_does_not_allow_is_blocked(
    worker_page: WorkerPage, unlisted_provider: ScriptedUpstream
) -> None:
    fresh_account(worker_page, "Bloqué")
    use_provider(worker_page, unlisted_provider)
    sent = worker_page.call(SEND_JS, ["Bonjour"])
    assert sent["result"] == {"status": "interrupted", "kind": "blocked"}
    assert sent["events"][-1]["kind"] == "blocked"
    assert unlisted_provider.received == []


def test_a_conversation_survives_a_reload(worker_page: WorkerPage, egress_provider: ScriptedUpstream) -> None:
    account = fresh_account(worker_page, "Relecture")
    use_provider(worker_page, egress_provider)
    sent = worker_page.call(SEND_JS, [TEXT])
    worker_page.reload()
    worker_page.call("([id, pass]) => api.unlock(id, pass, false)", [account["id"], PASSPHRASE])
    conv = worker_page.call("(id) => api.getConversation(id)", sent["conv"])
    assert [(m["role"], m["text"]) for m in conv["message_list"]] == [("user", TEXT), ("assistant", "Reçu : " + TEXT)]
    assert NAME in conv["message_list"][1]["text"]
    providers = worker_page.call("() => api.listProviders()")
    assert [p["has_key"] for p in providers if p["kind"] == "compatible"] == [True]
