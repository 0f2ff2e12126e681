"""The app after its first load, with the site's server stopped and the browser offline: it boots from
the service worker's cache, the account unlocks, the conversations are there to read; a send to the
remote provider stays as a draft with a clear error; the bundled model answers through the chat."""

from __future__ import annotations

from typing import Any

from e2e_support import download_model
from test_chat import (
    MESSAGE,
    PASSPHRASE,
    new_conversation,
    open_chat,
    pick_model,
    send,
    unlock,
    wait_for_reply,
)

from openmasq.testing.upstream import ScriptedUpstream

LOCAL = "local"  # the bundled model's provider id (py/openmasq/worker/providers.py)

LOCAL_REPLY_TIMEOUT_MS = 400_000


def go_offline(context: Any, page: Any, site_server: Any) -> None:
    """Nothing answers any more: the site's server is stopped and the browser is told it is offline."""
    site_server.stop()
    context.set_offline(True)
    assert page.evaluate("navigator.onLine") is False


def test_after_the_first_load_the_app_works_offline(
    context: Any, site_server: Any, provider: ScriptedUpstream, recorder: Any, shoot: Any
) -> None:
    page = open_chat(context, site_server.url, provider.base_url)  # add_provider waits for the service worker
    download_model(page, "smollm2")  # on demand since issue 19: downloaded from Settings before going offline
    send(page, MESSAGE)
    answered = wait_for_reply(page).locator(".markdown").inner_text().strip()
    received = len(provider.received)

    go_offline(context, page, site_server)
    failed_before = len(recorder.failed)
    page.reload()
    # The service worker set the isolation headers on what it served: wasm threads are available.
    assert page.evaluate("crossOriginIsolated") is True
    unlock(page, "Perso", PASSPHRASE)
    # The conversation is there, its reply restored from the encrypted store.
    assert wait_for_reply(page).locator(".markdown").inner_text().strip() == answered
    assert page.locator(".convlist-items .conv").count() == 1
    # Nothing of the site was missing from the cache.
    assert [url for url, _ in recorder.failed[failed_before:] if url.startswith(site_server.url)] == []

    # A send to the remote provider: kept as a draft, said so, nothing sent.
    send(page, "Rappelle-moi d'appeler Marie Dupont demain.")
    error = page.locator(".inline-error[data-error-kind=offline]")
    error.wait_for()
    assert "brouillon" in error.inner_text() or "draft" in error.inner_text()
    draft = page.locator("[data-role=user]").last
    assert "Marie Dupont demain" in draft.inner_text() and draft.locator(".badge.warn").count() == 1
    assert len(provider.received) == received
    shoot(page, "offline-draft", full_page=False)

    # The bundled model answers, through the same chat, with nothing but the cache.
    new_conversation(page)
    pick_model(page, LOCAL)
    send(page, "What is the capital of France?")
    # Sampling may ramble up to the 512-token cap at 3-5 tokens/s on 2 busy cores (~170 s): the
    # default 120 s wait failed once in CI while the model was still answering.
    page.wait_for_selector("[data-role=assistant]:not([aria-busy]) .message-actions", timeout=LOCAL_REPLY_TIMEOUT_MS)
    reply = page.locator("[data-role=assistant]").last
    assert reply.locator(".markdown").inner_text().strip()
    assert reply.locator(".inline-error").count() == 0
    shoot(page, "offline-local-model", full_page=False)
    assert len(provider.received) == received
    assert [url for url, _ in recorder.failed[failed_before:] if url.startswith(site_server.url)] == []
    assert page.ui_errors == []
