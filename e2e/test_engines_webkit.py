"""The smoke suite in WebKit (Safari's engine): Debian's WebKitGTK MiniBrowser started by its
WebKitWebDriver, driven by Selenium under xvfb-run (scripts/lib.sh's ensure_webkit installs the pinned
packages; pytest is started under xvfb-run by scripts/test, or this module starts its own Xvfb display).
The built site from our own server boots, an account is created, a chat with the scripted provider comes
back restored while the provider received only fakes (wire audit), the embedding model downloaded from
Settings indexes the Mémoire card an explicit ask made, Settings says what this engine lacks and downloads
the offline model (with wllama's compatibility build: WebKit has neither JSPI nor memory64), a reload with
the site's server stopped boots from the service worker's cache, unlocks and shows the conversation, and the
offline model answers a new one. The full suite stays in Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import DEFAULT_TIMEOUT_MS
from test_chat import MESSAGE, PASSPHRASE, REAL_VALUES
from test_engines_firefox import REMEMBER
from test_memory import MemoryModel

from openmasq.testing.upstream import ScriptedUpstream

DRIVER = os.environ.get("OPENMASQ_WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")
MINIBROWSER = os.environ.get("OPENMASQ_MINIBROWSER", "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser")
TIMEOUT_S = DEFAULT_TIMEOUT_MS / 1000
RUN_TIMEOUT_S = 480


@pytest.fixture
def memory_provider() -> Iterator[tuple[ScriptedUpstream, MemoryModel]]:
    model = MemoryModel()
    with ScriptedUpstream(model, cors=True) as upstream:
        yield upstream, model


@pytest.fixture
def display() -> Iterator[str]:
    """An X display for MiniBrowser: the one given (xvfb-run), else an Xvfb of our own."""
    if os.environ.get("DISPLAY"):
        yield os.environ["DISPLAY"]
        return
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.fail("Xvfb is missing: scripts/test installs it (ensure_webkit in scripts/lib.sh)")
    read, write = os.pipe()
    # -displayfd: Xvfb picks a free display and writes its number once it accepts clients.
    server = subprocess.Popen([xvfb, "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as lines:
        number = lines.readline().strip()
    os.environ["DISPLAY"] = f":{number}"
    try:
        yield os.environ["DISPLAY"]
    finally:
        del os.environ["DISPLAY"]
        server.terminate()
        server.wait()


@pytest.fixture
def webkit(display: str) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    for path in (DRIVER, MINIBROWSER):
        if not Path(path).is_file():
            pytest.fail(f"{path} is missing: scripts/test installs it (ensure_webkit in scripts/lib.sh)")
    options = Options()
    options.binary_location = MINIBROWSER
    options.add_argument("--automation")
    # French, as the Chromium suite: WebKitGTK takes navigator.language from the environment.
    service = Service(executable_path=DRIVER, env={**os.environ, "LANG": "fr_FR.UTF-8", "LANGUAGE": "fr"})
    driver = webdriver.WebKitGTK(options=options, service=service)
    driver.set_script_timeout(TIMEOUT_S + 30)  # our own waits end first, saying what the page shows
    driver.set_window_size(1280, 800)
    try:
        yield driver
    finally:
        driver.quit()


# ---------------------------------------------------------------- steps (selectors of e2e/test_chat.py)


def wait_for(driver: Any, selector: str, timeout_s: float = TIMEOUT_S) -> Any:
    """The first element matching `selector`, waited for by a promise in the page (no polling here)."""
    found = driver.execute_async_script(
        """const [selector, timeoutMs, done] = arguments;
        const find = () => document.querySelector(selector);
        if (find()) return done(true);
        const timer = setTimeout(() => { observer.disconnect(); done(false); }, timeoutMs);
        const observer = new MutationObserver(() => {
            if (find()) { clearTimeout(timer); observer.disconnect(); done(true); }
        });
        observer.observe(document, { subtree: true, childList: true, attributes: true });""",
        selector, int(timeout_s * 1000))
    if not found:
        raise AssertionError(f"no {selector} in {timeout_s} s; the page says: {page_text(driver)[:400]!r}")
    return driver.find_element("css selector", selector)


def wait_for_text(driver: Any, selector: str, text: str) -> str:
    """The text of the first `selector` whose text has `text`, once there (its detail may come later)."""
    found = driver.execute_async_script(
        """const [selector, text, timeoutMs, done] = arguments;
        const find = () => [...document.querySelectorAll(selector)].find((el) => el.innerText.includes(text));
        if (find()) return done(find().innerText);
        const timer = setTimeout(() => { observer.disconnect(); done(null); }, timeoutMs);
        const observer = new MutationObserver(() => {
            const el = find();
            if (el) { clearTimeout(timer); observer.disconnect(); done(el.innerText); }
        });
        observer.observe(document, { subtree: true, childList: true, characterData: true });""",
        selector, text, DEFAULT_TIMEOUT_MS)
    assert found is not None, f"no {selector} saying {text!r}; the page says: {page_text(driver)[-600:]!r}"
    return str(found)


def page_text(driver: Any) -> str:
    return str(driver.execute_script("return document.body ? document.body.innerText : ''"))


def fill(driver: Any, selector: str, value: str) -> None:
    element = wait_for(driver, selector)
    element.clear()
    element.send_keys(value)


def click(driver: Any, selector: str) -> None:
    wait_for(driver, selector).click()


def wait_for_service_worker(driver: Any) -> Any:
    """The page is controlled and its service worker answers (its status). Not the worker's `state`:
    WebKitGTK 2.50 kept reporting the active worker as "installing" while it controlled the page and
    answered messages (measured over a minute), so the reply is the proof."""
    status = driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        (async () => {
            const container = navigator.serviceWorker;
            await container.ready;
            if (!container.controller) {
                await new Promise((resolve) => container.addEventListener("controllerchange", resolve, { once: true }));
            }
            const channel = new MessageChannel();
            const reply = new Promise((resolve) => { channel.port1.onmessage = (event) => resolve(event.data); });
            container.controller.postMessage({ type: "status" }, [channel.port2]);
            return await reply;
        })().then(done, (error) => done({ error: String(error) }));""")
    assert isinstance(status, dict) and "hash" in status, status
    return status


def create_account(driver: Any) -> None:
    wait_for(driver, "#acct-label, .account-list")
    if driver.find_elements("css selector", ".account-list"):
        click(driver, ".gate-card button.primary.wide")
    fill(driver, "#acct-label", "Perso")
    fill(driver, "#acct-pass", PASSPHRASE)
    fill(driver, "#acct-confirm", PASSPHRASE)
    click(driver, "form button[type=submit]")
    wait_for(driver, ".shell .chat")


def add_provider(driver: Any, base_url: str) -> None:
    wait_for_service_worker(driver)
    click(driver, "[data-route=providers]")
    click(driver, "[data-action=add-provider]")
    from selenium.webdriver.support.select import Select

    Select(wait_for(driver, "#prov-kind")).select_by_value("compatible")
    fill(driver, "#prov-label", "Scripted")
    fill(driver, "#prov-url", base_url)
    click(driver, "[data-action=list-models]")
    wait_for(driver, "#prov-model-pick")
    click(driver, "[data-action=save-provider]")
    # Added after a test that worked, it is the default (issue 18): its card carries the badge.
    made = driver.execute_async_script(
        """const [timeoutMs, done] = arguments;
        const found = () => {
            const card = [...document.querySelectorAll(".provider")].find((el) => el.innerText.includes("Scripted"));
            return Boolean(card && card.querySelector(".badge"));
        };
        if (found()) return done(true);
        const timer = setTimeout(() => { observer.disconnect(); done(false); }, timeoutMs);
        const observer = new MutationObserver(() => {
            if (found()) { clearTimeout(timer); observer.disconnect(); done(true); }
        });
        observer.observe(document, { subtree: true, childList: true, characterData: true });""",
        DEFAULT_TIMEOUT_MS)
    assert made, f"the provider added and tested is not the default; the page says: {page_text(driver)[:600]!r}"


def send_and_wait(driver: Any, message: str) -> str:
    """Sends `message`; returns the text of the reply that quotes its end, once it stopped streaming."""
    fill(driver, "#composer-input", message)
    click(driver, "[data-action=send]")
    reply = driver.execute_async_script(
        """const [quote, timeoutMs, done] = arguments;
        const find = () => [...document.querySelectorAll("[data-role=assistant]:not([aria-busy])")]
            .find((el) => el.innerText.includes(quote) && el.querySelector(".message-actions"));
        const give = (el) => done(el ? el.querySelector(".markdown").innerText.trim() : null);
        if (find()) return give(find());
        const timer = setTimeout(() => { observer.disconnect(); give(null); }, timeoutMs);
        const observer = new MutationObserver(() => {
            const el = find();
            if (el) { clearTimeout(timer); observer.disconnect(); give(el); }
        });
        observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });""",
        message[-30:], DEFAULT_TIMEOUT_MS)
    assert reply is not None, f"no reply to {message!r}; the page says: {page_text(driver)[-400:]!r}"
    return str(reply)


def download_model(driver: Any, group: str) -> None:
    """Downloads an on-demand model from Settings as a user does, then goes back to the chat."""
    click(driver, "[data-route=settings]")
    click(driver, f"[data-model={group}] [data-action=download]")
    wait_for(driver, f"[data-model={group}][data-state=ready]", timeout_s=RUN_TIMEOUT_S / 4)
    click(driver, "[data-route=chat]")


# ---------------------------------------------------------------- the test


@pytest.mark.timeout(RUN_TIMEOUT_S)
def test_the_app_boots_chats_restored_remembers_and_reloads_offline_in_webkit(
    webkit: Any, site_server: Any, memory_provider: tuple[ScriptedUpstream, MemoryModel], artifacts_dir: Path
) -> None:
    upstream, model = memory_provider
    driver = webkit
    marks: list[tuple[str, float]] = []
    started = time.monotonic()

    def mark(step: str) -> None:  # where the run's time goes, for the report (never asserted on)
        marks.append((step, time.monotonic() - started))
        print(f"webkit: {step} at {marks[-1][1]:.1f} s")

    driver.get(site_server.url)
    wait_for(driver, "#acct-label, .account-list")
    booted = driver.execute_script(
        """return {lang: document.documentElement.lang, cross_origin_isolated: self.crossOriginIsolated,
                   shared_array_buffer: typeof SharedArrayBuffer === "function",
                   jspi: typeof WebAssembly.Suspending === "function",
                   service_worker: "serviceWorker" in navigator,
                   persist: !!(navigator.storage && navigator.storage.persist)};""")
    mark("booted")
    print(f"webkit: {booted}")  # what the README lists as lacking: SharedArrayBuffer, JSPI, persist()
    assert booted["service_worker"] is True, booted
    create_account(driver)
    mark("account")
    add_provider(driver, upstream.base_url)
    click(driver, "[data-route=chat]")
    mark("provider")
    # The embedding model first, so the card the Mémoire step confirms is indexed by it (ml-worker, e5).
    download_model(driver, "e5")
    mark("e5 downloaded")

    # The chat: restored on the page, fakes only on the wire and in "what the model saw".
    reply = send_and_wait(driver, MESSAGE)
    assert reply == "Reçu : " + MESSAGE
    found = driver.execute_script(
        """const users = document.querySelectorAll("[data-role=user]");
        const marks = users[users.length - 1].querySelectorAll("mark.redacted");
        return [...marks].map((m) => [m.innerText, m.dataset.kind]);""")
    assert dict(found) == {"Marie Dupont": "person", "marie.dupont@example.fr": "email", "06 12 34 56 78": "phone"}
    driver.execute_script(
        """const users = document.querySelectorAll("[data-role=user]");
        users[users.length - 1].querySelector("[data-action=wire]").click();""")
    wire = wait_for(driver, "[data-role=user] .wire-text").text.strip()
    assert wire and not [value for value in REAL_VALUES if value in wire]
    assert any(wire in r.text() for r in upstream.received if r.method == "POST")
    driver.save_screenshot(str(artifacts_dir / "webkit--chat.png"))
    mark("chat")

    # The Mémoire: an explicit ask, a proposed card, confirmed, listed with the real name.
    send_and_wait(driver, REMEMBER)
    wait_for(driver, "[data-testid=memory-badge]")
    click(driver, "[data-route=memory]")
    click(driver, "[data-action=open-inbox]")
    assert "Claire Vasseur" in wait_for(driver, "[data-testid=inbox] .inbox-item").text
    click(driver, "[data-testid=inbox] .inbox-item [data-action=inbox-confirm]")
    wait_for(driver, "[data-testid=inbox] .mem-empty")
    driver.execute_script("document.querySelector('dialog.sheet [data-action=close], dialog.sheet .close')?.click()")
    if driver.find_elements("css selector", "dialog.sheet"):
        from selenium.webdriver.common.keys import Keys

        driver.find_element("css selector", "dialog.sheet").send_keys(Keys.ESCAPE)
    click(driver, "[data-view=list]")
    assert "Claire Vasseur" in wait_for(driver, ".mem-row").text
    assert "1" in wait_for(driver, "[data-testid=semantic-status]").text  # e5 indexed the card in WebKit
    driver.save_screenshot(str(artifacts_dir / "webkit--memoire.png"))
    assert model.extractions and "Claire Vasseur" not in model.extractions[0]
    wire_text = upstream.wire_text()
    assert not [value for value in (*REAL_VALUES, "Claire Vasseur", "Vasseur") if value in wire_text]
    mark("memoire")

    # Settings: this engine has no navigator.storage.persist(); the app says the storage is not kept.
    click(driver, "[data-route=settings]")
    storage = wait_for(driver, "[data-testid=storage-persisted]")
    assert storage.get_attribute("data-persisted") == "no" and "Export" in storage.text
    # The offline model, downloaded as a user does: in WebKit (no JSPI, no memory64) its size includes wllama's
    # compatibility build, which this browser alone downloads.
    wait_for(driver, "[data-model=smollm2]")
    wanted = driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        fetch("files.json").then((r) => r.json()).then((doc) => done(doc.files.filter((f) => f.group === "smollm2")
            .map((f) => [f.path, f.only || ""])), (e) => done(String(e)));""")
    assert ["vendor/wllama-compat/wllama.wasm", "wasm-compat"] in wanted, wanted
    assert "JSPI" in wait_for(driver, "[data-model=smollm2] [data-testid=model-compat]").text  # said, slower
    download_model(driver, "smollm2")
    mark("settings, offline model downloaded")

    # Offline: the site's server stopped; a reload boots from the service worker's cache.
    site_server.stop()
    driver.refresh()
    wait_for(driver, "#unlock-pass, .account-list")
    if not driver.find_elements("css selector", "#unlock-pass"):
        click(driver, "[data-account='Perso']")
    fill(driver, "#unlock-pass", PASSPHRASE)
    click(driver, "form button[type=submit]")
    wait_for(driver, "[data-role=assistant]:not([aria-busy]) .message-actions")
    replies = driver.execute_script(
        "return [...document.querySelectorAll('[data-role=assistant] .markdown')].map((el) => el.innerText.trim());")
    assert "Reçu : " + MESSAGE in replies
    driver.save_screenshot(str(artifacts_dir / "webkit--offline.png"))
    mark("offline")

    # The offline model, offline: wllama's compatibility build answers in this engine (no JSPI, no memory64).
    click(driver, "[data-action=new-conversation]")
    from selenium.webdriver.support.select import Select

    wait_for(driver, ".empty-chat")  # the new conversation is shown (its header's model is its own)
    # The model button acts once the worker has the conversation (under load .empty-chat comes first, and a click
    # before then opened nothing: the dialog was waited for in vain).
    wait_for(driver, '[data-testid=answering-model]:not([data-for=""])')
    click(driver, "[data-action=pick-model]")
    Select(wait_for(driver, "#model-provider")).select_by_value("local")
    click(driver, "[data-action=use-model]")
    wait_for_text(driver, "[data-testid=answering-model] .model-name", "SmolLM2")
    fill(driver, "#composer-input", "What is the capital of France?")
    click(driver, "[data-action=send]")
    answered = "[data-role=assistant]:not([aria-busy]) .message-actions, [data-role=assistant] .inline-error"
    answer = wait_for(driver, answered, timeout_s=RUN_TIMEOUT_S / 2)
    said = page_text(driver)
    errors = [e.text for e in driver.find_elements("css selector", "[data-role=assistant] .inline-error")]
    assert not errors, errors
    reply = driver.execute_script(
        "const r = document.querySelectorAll('[data-role=assistant] .markdown');"
        " return r[r.length - 1].innerText.trim();")
    assert reply, said[-600:]
    print(f"webkit: the offline model answered {reply[:120]!r}")
    assert answer is not None
    driver.save_screenshot(str(artifacts_dir / "webkit--offline-model.png"))
    mark("offline model answered")
