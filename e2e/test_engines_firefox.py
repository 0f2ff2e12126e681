"""The smoke suite in Firefox (Debian's firefox-esr, headless), driven over WebDriver BiDi by
puppeteer-core (e2e/engines/firefox_smoke.mjs, one node process, steps reported as JSON lines): the
built site from our own server boots, an account is created, a chat with the scripted provider comes
back restored while the provider received only fakes (wire audit), the embedding model downloaded from
Settings indexes the Mémoire card an explicit ask made, the offline model is downloaded, a reload with
the site's server stopped boots from the service worker's cache, unlocks and shows the conversation, and
the offline model answers a new one. The full suite stays in Chromium; scripts/lib.sh's ensure_firefox installs
the pinned firefox-esr."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import DEFAULT_TIMEOUT_MS
from test_chat import MESSAGE, PASSPHRASE, REAL_VALUES
from test_memory import MemoryModel

from openmasq.testing.upstream import ScriptedUpstream

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "engines" / "firefox_smoke.mjs"
FIREFOX = os.environ.get("OPENMASQ_FIREFOX", "/usr/bin/firefox-esr")
REMEMBER = "Retiens que Claire Vasseur est ma dentiste."
# The whole run (launch, first precache, Pyodide boot, two sends, the Mémoire, an offline boot) must end.
RUN_TIMEOUT_S = 420


@pytest.fixture
def memory_provider() -> Iterator[tuple[ScriptedUpstream, MemoryModel]]:
    model = MemoryModel()
    with ScriptedUpstream(model, cors=True) as upstream:
        yield upstream, model


class Driver:
    """The node process: reads its JSON lines, answers its asks."""

    def __init__(self, config: dict[str, Any], site_server: Any) -> None:
        node = shutil.which("node") or "node"
        self.site_server = site_server
        self.process = subprocess.Popen(
            [node, str(DRIVER), json.dumps(config)], cwd=HERE.parent, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
        self.steps: dict[str, dict[str, Any]] = {}

    def run(self) -> dict[str, dict[str, Any]]:
        assert self.process.stdout is not None and self.process.stdin is not None
        for line in self.process.stdout:
            doc = json.loads(line)
            if "error" in doc:
                raise AssertionError(f"the Firefox run failed after {list(self.steps)}: {doc['error']}")
            if doc.get("ask") == "stop-site":
                self.site_server.stop()
                self.process.stdin.write("done\n")
                self.process.stdin.flush()
            elif "step" in doc:
                self.steps[doc["step"]] = doc
                print(f"firefox: {doc['step']} at {doc['at_ms'] / 1000:.1f} s")
        status = self.process.wait(RUN_TIMEOUT_S)
        assert status == 0, self.process.stderr.read() if self.process.stderr else status
        return self.steps

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.mark.timeout(RUN_TIMEOUT_S + 60)
def test_the_app_boots_chats_restored_remembers_and_reloads_offline_in_firefox(
    site_server: Any, memory_provider: tuple[ScriptedUpstream, MemoryModel], artifacts_dir: Path
) -> None:
    if not Path(FIREFOX).is_file():
        pytest.fail(f"{FIREFOX} is missing: scripts/test installs it (ensure_firefox in scripts/lib.sh)")
    upstream, model = memory_provider
    driver = Driver({"firefox": FIREFOX, "site": site_server.url, "provider": upstream.base_url,
                     "passphrase": PASSPHRASE, "message": MESSAGE, "remember": REMEMBER,
                     "shots": str(artifacts_dir), "timeout_ms": DEFAULT_TIMEOUT_MS}, site_server)
    try:
        steps = driver.run()
    finally:
        driver.stop()

    assert steps["launched"]["version"].startswith("firefox/")
    booted = steps["booted"]
    assert booted["lang"] == "fr" and booted["service_worker"] is True
    # Firefox has all the app uses: isolation (wasm threads), JSPI (the offline model's fast build).
    assert booted["cross_origin_isolated"] and booted["shared_array_buffer"] and booted["jspi"], booted

    # The chat: the page shows the real values back, the provider and "what the model saw" had fakes only.
    chat = steps["chat"]
    assert chat["reply"] == "Reçu : " + MESSAGE
    assert dict(chat["marks"]) == {"Marie Dupont": "person", "marie.dupont@example.fr": "email",
                                   "06 12 34 56 78": "phone"}
    assert not [value for value in REAL_VALUES if value in chat["wire"]]
    chats = [r for r in upstream.received if r.method == "POST"]
    assert any(chat["wire"].strip() in r.text() for r in chats)
    wire = upstream.wire_text()
    assert not [value for value in (*REAL_VALUES, "Claire Vasseur", "Vasseur") if value in wire]

    # The Mémoire: the extraction saw a fake; the card shows the real name.
    assert model.extractions and "Claire Vasseur" not in model.extractions[0]
    assert "Claire Vasseur" in steps["memoire"]["inbox"] and "Claire Vasseur" in steps["memoire"]["card"]
    # e5, downloaded before, indexed the card on this device (ml-worker in Firefox).
    assert "1" in steps["memoire"]["indexed"], steps["memoire"]
    assert steps["e5 downloaded"]["compat"] is False

    # Persistence: Firefox's prompt is never answered here, the account was made all the same and
    # Settings says the storage may be cleared (the export is the way to keep it).
    assert steps["storage"]["persisted"] == "no" and "Export" in steps["storage"]["said"], steps["storage"]

    # Offline: booted from the cache with the server stopped, unlocked, the reply restored from the store.
    offline = steps["offline"]
    assert not site_server.running
    assert offline["conversations"] >= 1 and "Reçu : " + MESSAGE in offline["replies"], offline
    # The offline model, offline, on wllama's default build (Firefox has JSPI and memory64: no compat note).
    assert steps["offline model downloaded"]["compat"] is False
    local = steps["offline model"]
    assert local["errors"] == [] and local["reply"], local
    print(f"firefox: the offline model answered {local['reply'][:120]!r}")
    assert steps["errors"]["errors"] == []
