"""Sync in the real app (issue 21): two browser profiles, each with its own account, the built site,
and the CouchDB-protocol server of sync-server/ on loopback. A card written on the first device reaches
the second through Settings → Sync (sync-worker, py-worker's syncRecords/syncMerge/syncApply), the
server's stored documents hold none of its values, and another device's sync code and a wrong password are
each said plainly."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import DEFAULT_TIMEOUT_MS, LOCALE, wait_for_service_worker
from test_chat import create_account, open_app
from test_memory import go_memory, list_view, new_card

from openmasq.site.serve import BackgroundServer
from openmasq.testing.syncserver import SyncServer, running_sync_server

ENTITY = "Hélène Marchetti"
FACTS = "Avocate chez Cabinet Oréal-Brisset, joignable au 06 71 42 88 19."
PASSWORD = "server-password-1"


@pytest.fixture
def sync_server(site_server: BackgroundServer) -> Iterator[SyncServer]:
    with running_sync_server(origins=(site_server.url.rstrip("/"),)) as server:
        yield server


def device(browser: Any, url: str) -> Any:
    context = browser.new_context(locale=LOCALE)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    page = open_app(context, url)
    create_account(page)
    wait_for_service_worker(page)
    return page


def fill_sync(page: Any, remote: str, password: str, code: str | None) -> str:
    page.click("[data-route=settings]")
    panel = page.locator("[data-testid=sync-settings]")
    panel.wait_for()
    page.fill("#sync-url", remote)
    page.fill("#sync-user", "alice")
    page.fill("#sync-password", password)
    if code is None:
        page.click("[data-action=sync-new-code]")
        page.wait_for_function("() => document.querySelector('#sync-code').value.length > 50")
    else:
        page.fill("#sync-code", code)
    return str(page.input_value("#sync-code"))


def sync_now(page: Any) -> str:
    page.click("[data-action=sync-now]")
    page.wait_for_function(
        "() => ['ok', 'error'].includes(document.querySelector('[data-testid=sync-status]').dataset.state)"
        " && !document.querySelector('[data-action=sync-now]').disabled")
    return str(page.locator("[data-testid=sync-status]").get_attribute("data-state"))


def test_a_card_written_on_one_device_reaches_the_other_and_the_server_holds_none_of_it(
    browser: Any, site_server: BackgroundServer, sync_server: SyncServer,
) -> None:
    remote = sync_server.add_user("alice", PASSWORD)
    first = device(browser, site_server.url)
    second = device(browser, site_server.url)
    try:
        go_memory(first)
        new_card(first, ENTITY, "personne", FACTS)
        code = fill_sync(first, remote, PASSWORD, None)
        assert sync_now(first) == "ok", first.locator("[data-testid=sync-error]").all_inner_texts()

        held = len(sync_server.documents("openmasq-alice"))
        fill_sync(second, remote, PASSWORD, None)  # a code of its own: not the one the server's data has
        assert sync_now(second) == "error"
        assert "n’est pas celui des données du serveur" in second.locator("[data-testid=sync-error]").inner_text()
        assert len(sync_server.documents("openmasq-alice")) == held  # nothing was sent
        fill_sync(second, remote, PASSWORD, code)
        assert sync_now(second) == "ok", second.locator("[data-testid=sync-error]").all_inner_texts()
        assert int(second.locator("[data-testid=sync-applied]").inner_text()) >= 1
        go_memory(second)
        list_view(second)
        second.locator(".mem-row", has_text=ENTITY).first.wait_for()

        stored = sync_server.raw_dump("openmasq-alice")
        for clear in (ENTITY, "Marchetti", "Oréal", "06 71 42", "card:"):
            assert clear not in stored, f"{clear!r} is on the server in clear"

        fill_sync(second, remote, "not-the-password", code)
        assert sync_now(second) == "error"
        assert "refuse cet utilisateur" in second.locator("[data-testid=sync-error]").inner_text()
        assert first.ui_errors == []
    finally:
        first.context.close()
        second.context.close()
