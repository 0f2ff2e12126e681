"""Helpers the e2e tests import (conftest.py is not importable by name: tests/pyodide has one too)."""

from __future__ import annotations

from typing import Any

# Playwright's own default (30 s) is short for a first load that precaches ~250 MB and boots Pyodide
# on 2 cores; a test that needs less says so.
DEFAULT_TIMEOUT_MS = 120_000
# The browsers' locale (the app's strings are checked in French unless a test says otherwise).
LOCALE = "fr-FR"


def wait_for_service_worker(page: Any, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> str:
    """Waits until the page is controlled by an activated service worker; returns its build hash.
    (A promise, not wait_for_function with a string: the page's CSP refuses eval.)"""
    page.evaluate(
        """async (timeoutMs) => {
            const deadline = new Promise((_, reject) =>
                setTimeout(() => reject(new Error("no activated service worker in time")), timeoutMs));
            const controlled = (async () => {
                const container = navigator.serviceWorker;
                await container.ready;
                if (!container.controller) {
                    await new Promise((resolve) =>
                        container.addEventListener("controllerchange", resolve, { once: true }));
                }
                const worker = container.controller;
                while (worker.state !== "activated") {
                    await new Promise((resolve) => worker.addEventListener("statechange", resolve, { once: true }));
                }
            })();
            await Promise.race([controlled, deadline]);
        }""",
        timeout_ms,
    )
    return str(ask_service_worker(page, {"type": "status"})["hash"])


def ask_service_worker(page: Any, message: dict[str, Any]) -> Any:
    """Posts `message` to the controlling service worker and returns its reply (over a MessageChannel)."""
    return page.evaluate(
        """message => new Promise((resolve, reject) => {
            const channel = new MessageChannel();
            const timer = setTimeout(() => reject(new Error("no reply from the service worker")), 10000);
            channel.port1.onmessage = (event) => { clearTimeout(timer); resolve(event.data); };
            navigator.serviceWorker.controller.postMessage(message, [channel.port2]);
        })""",
        message,
    )


def download_model(page: Any, group: str, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
    """Downloads an on-demand model ("e5", "smollm2") from Settings, as a user does before its first use
    (issue 19: models are not precached), then goes back to the chat."""
    page.click("[data-route=settings]")
    row = page.locator(f"[data-model={group}]")
    row.wait_for()
    # Chromium has JSPI and memory64: wllama's default build, and no word of the compatible one (WebKit's).
    assert row.locator("[data-testid=model-compat]").count() == 0
    if row.get_attribute("data-state") != "ready":
        row.locator("[data-action=download]").click()
        page.locator(f"[data-model={group}][data-state=ready]").wait_for(timeout=timeout_ms)
    page.click("[data-route=chat]")
