"""A browser that gives the page no service worker (a private window in some browsers, a policy, an extension:
issue 24's "disables service workers in private mode"), in the real page: the app still boots and makes an
account; a remote provider cannot be reached (the service worker is what allows a provider's address in
net-worker's connection policy), and the app says so, with what to do, instead of blaming the provider;
Settings says the app cannot work offline instead of showing an offline copy "in progress". Playwright's
`service_workers="block"` refuses the page's registration, as such a browser does."""

from __future__ import annotations

from typing import Any

from test_chat import create_account, open_app

from openmasq.testing.upstream import ScriptedUpstream


def test_without_a_service_worker_the_app_says_why_no_provider_is_reached_and_that_it_cannot_work_offline(
    new_context: Any, site_server: Any, provider: ScriptedUpstream
) -> None:
    page = open_app(new_context(service_workers="block"), site_server.url)
    create_account(page)
    # A remote provider: its address is allowed by the service worker (it widens net-worker's connection
    # policy), so without one it cannot be reached, and the app says why and what works instead.
    page.click("[data-route=providers]")
    page.click("[data-action=add-provider]")
    page.select_option("#prov-kind", "compatible")
    page.fill("#prov-label", "Scripted")
    page.fill("#prov-url", provider.base_url)
    page.click("[data-action=list-models]")
    said = page.locator(".field-error", has_text="service worker")
    said.wait_for()
    assert "fenêtre normale" in said.inner_text() and "modèle intégré" in said.inner_text()
    assert provider.received == []  # nothing reached it
    page.keyboard.press("Escape")
    page.click("[data-route=settings]")
    refused = page.locator("[data-model=app][data-state=refused]")
    refused.wait_for()
    assert "service worker" in refused.inner_text() and "hors ligne" in refused.inner_text()
    assert page.ui_errors == [], page.ui_errors
