"""The first run and the phone's chat header in the real page (issue 18, items 1 and 9), at 1280 px and
360 px, axe clean. A new account's chat offers OpenAI, Anthropic, an OpenAI-compatible address or the
offline model (said to be small and slow, downloaded there with its progress); the provider added and
tested becomes the default, the header then names its model and each reply the model that wrote it (the
wire audit: that model, fakes only).
On a phone: the title and the model stay readable, "new conversation" is in the header, the list opens
without focusing a text field (no keyboard), and every place has one name in the bar and in the rail."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import wait_for_service_worker
from test_chat import LAPTOP, PASSPHRASE, create_account, open_app, send, unlock
from test_memory import serious_violations
from test_ui import cut_bar_labels, overflow

from openmasq.testing.model_lists import ollama
from openmasq.testing.upstream import ScriptedUpstream

PHONE_360 = {"width": 360, "height": 780}
SIZES = {"laptop": LAPTOP, "phone": PHONE_360}
NAME = "Marie Dupont"
PLACES = ["chat", "memory", "providers", "settings", "about"]
DOWNLOAD_TIMEOUT_MS = 300_000  # the offline model's 104 MB from the loopback server into Cache Storage


@pytest.fixture
def local_server() -> Iterator[tuple[ScriptedUpstream, list[str]]]:
    """An Ollama-like server on loopback: its /v1/models and /api/tags, chats echoed."""
    models = sorted([f"llama3.2:{secrets.token_hex(2)}", f"qwen2.5:{secrets.token_hex(2)}"])
    with ScriptedUpstream(ollama(models), cors=True) as upstream:
        yield upstream, models


def rail_labels(page: Any) -> list[str]:
    return [page.locator(f"nav.rail [data-route={r}]").inner_text().strip() for r in PLACES]


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_a_first_run_connects_a_provider_that_answers_by_default_and_is_named_in_the_header(
    context: Any, site_server: Any, local_server: tuple[ScriptedUpstream, list[str]], recorder: Any, shoot: Any,
    size: str,
) -> None:
    upstream, models = local_server
    page = open_app(context, site_server.url, SIZES[size])
    create_account(page)
    onboarding = page.locator("[data-testid=onboarding]")
    onboarding.wait_for()
    # It reads from its top: the title and the first choice are on screen, not scrolled past.
    assert page.locator("#onboard-title").evaluate(
        "(el) => el.getBoundingClientRect().top >= el.closest('[data-testid=messages]').getBoundingClientRect().top")
    choices = [b.get_attribute("data-onboard") for b in page.locator(".onboard-choice").all()]
    assert choices == ["openai", "anthropic", "compatible", "offline"]
    honest = page.locator("[data-onboard=offline]").inner_text()
    assert "135" in honest and "lent" in honest and "rien d’autre" in honest
    assert overflow(page) == [] and serious_violations(page, site_server.url) == []
    shoot(page, f"onboarding-{size}", full_page=False)

    # An OpenAI-compatible server: the form opens on that kind, with the local presets.
    wait_for_service_worker(page)  # it widens net-worker's policy to the address typed
    page.click("[data-onboard=compatible]")
    assert page.input_value("#prov-kind") == "compatible"
    assert page.locator("[data-preset]").evaluate_all("(els) => els.map((el) => el.dataset.preset)") == [
        "ollama", "lmstudio", "llamacpp"]
    page.fill("#prov-label", "Ollama")
    page.fill("#prov-url", upstream.base_url)
    page.click("[data-action=list-models]")
    page.wait_for_selector("#prov-model-pick")
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"onboarding-form-{size}", full_page=False)
    page.click("[data-action=save-provider]")
    page.locator(".toast", has_text="Ollama").wait_for()
    assert "par défaut" in page.locator(".toast", has_text="Ollama").inner_text()
    onboarding.wait_for(state="detached")

    # The header names the model that will answer; the reply names the model that wrote it.
    header = page.locator("[data-testid=answering-model]")
    assert header.locator(".model-name").inner_text() == models[0]
    assert header.locator(".model-provider").inner_text() == "Ollama"
    send(page, f"Écris à {NAME} pour jeudi.")
    page.wait_for_selector("[data-role=assistant]:not([aria-busy]) .message-actions")
    assert page.locator("[data-testid=reply-model]").inner_text() == models[0]
    chat = [r for r in upstream.received if r.method == "POST"][-1]
    assert chat.json()["model"] == models[0]
    assert NAME not in upstream.wire_text() and NAME not in recorder.wire_text()
    assert overflow(page) == [] and serious_violations(page, site_server.url) == []
    shoot(page, f"header-{size}", full_page=False)

    if size == "phone":
        # The title and the model are both readable on one screen width: neither is squeezed out.
        title = page.locator(".chat-title").bounding_box()
        model = page.locator("[data-testid=answering-model] .model-name")
        assert title["width"] >= 0.55 * PHONE_360["width"]
        assert model.evaluate("(el) => el.scrollWidth <= el.clientWidth"), "the model's name is cut"
        # "New conversation" is in the header, not only in the drawer.
        new = page.locator("[data-action=new-conversation-head]")
        assert new.is_visible()
        before = page.locator(".chat-side .conv").count()
        new.click()
        page.wait_for_function(f"() => document.querySelectorAll('.chat-side .conv').length === {before + 1}"
                               " && !document.querySelector('[data-testid=messages] article')")
        assert page.locator(".chat-title").inner_text() in ("Sans titre", "Nouvelle conversation")
        # The drawer opens on the list, not on a text field: no keyboard pops up over it.
        page.click(".drawer-toggle")
        page.locator(".chat.drawer-open").wait_for()
        focused = page.evaluate("({tag: document.activeElement.tagName,"
                                " inDrawer: !!document.activeElement.closest('.chat-side')})")
        assert focused == {"tag": "BUTTON", "inDrawer": True}
        page.locator(".chat-side").evaluate("(el) => Promise.all(el.getAnimations().map((a) => a.finished))")
        assert serious_violations(page, site_server.url) == []
        shoot(page, f"drawer-{size}", full_page=False)
        page.keyboard.press("Escape")
        page.locator(".chat.drawer-open").wait_for(state="detached")
        # One name per place: the bottom bar says what the rail says on a laptop, whole.
        on_phone = rail_labels(page)
        assert cut_bar_labels(page) == []
        page.set_viewport_size(LAPTOP)
        page.wait_for_function(f"() => document.documentElement.clientWidth === {LAPTOP['width']}")
        assert rail_labels(page) == on_phone == ["Messages", "Mémoire", "Modèles", "Réglages", "À propos"]
        page.set_viewport_size(PHONE_360)

    page.click("[data-route=providers]")
    card = page.locator(".provider", has_text="Ollama")
    assert card.locator(".badge").count() == 1
    assert page.locator(".provider .badge").count() == 1  # the offline model is no longer the default
    assert page.ui_errors == []


@pytest.mark.parametrize(("size", "pick"), [("laptop", "offline"), ("phone", "later")])
def test_the_offline_model_or_a_later_choice_ends_the_first_run_and_the_offline_model_answers(
    context: Any, site_server: Any, shoot: Any, size: str, pick: str
) -> None:
    page = open_app(context, site_server.url, SIZES[size])
    create_account(page)
    page.locator("[data-testid=onboarding]").wait_for()
    page.click(f"[data-onboard={pick}]")
    if pick == "offline":
        # The model is downloaded there, its progress shown, before the first run ends.
        page.locator("[data-testid=onboard-download] progress").wait_for()
        assert serious_violations(page, site_server.url) == []
        shoot(page, f"onboarding-downloading-{size}", full_page=False)
    page.locator("[data-testid=onboarding]").wait_for(state="detached", timeout=DOWNLOAD_TIMEOUT_MS)
    header = page.locator("[data-testid=answering-model]")
    assert "SmolLM2" in header.inner_text()
    if pick == "offline":
        page.locator(".toast", has_text="hors ligne").wait_for()
        page.click("[data-route=settings]")
        page.locator("[data-model=smollm2][data-state=ready]").wait_for()
        page.click("[data-route=chat]")
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"onboarding-{pick}-{size}", full_page=False)
    # The choice is kept with the account: a reload and unlock do not ask again.
    page.reload()
    unlock(page, "Perso", PASSPHRASE)
    page.wait_for_selector(".shell .chat")
    page.locator("[data-testid=answering-model]").wait_for()
    assert page.locator("[data-testid=onboarding]").count() == 0
    assert page.ui_errors == []
