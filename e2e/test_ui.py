"""The app's screens at a 390x844 phone and a 1280x800 laptop: the layout (bottom bar and conversation
drawer on the phone, nothing wider than the screen), French and English, light and dark, the licences
page with the model attributions, axe clean (no serious or critical violation) on every main screen, and
screenshots of every main screen as artifacts."""

from __future__ import annotations

from typing import Any

import pytest
from ml_probe import PROBE_PAGE
from test_chat import (
    LAPTOP,
    MESSAGE,
    PASSPHRASE,
    PHONE,
    add_provider,
    create_account,
    new_conversation,
    open_app,
    send,
    wait_for_gate,
    wait_for_reply,
)
from test_memory import serious_violations

from openmasq.chat.codecs.models import PRESETS
from openmasq.testing.upstream import ScriptedUpstream

SMALL_PHONE = {"width": 320, "height": 640}
SIZES = {"phone": PHONE, "small-phone": SMALL_PHONE, "laptop": LAPTOP}


def overflow(page: Any) -> list[str]:
    """Elements wider than the viewport (a horizontal scroll on a phone is a layout bug)."""
    return page.evaluate(
        """() => {
            const width = document.documentElement.clientWidth;
            return [...document.querySelectorAll('body *')]
                .filter((el) => el.getClientRects().length && el.getBoundingClientRect().right > width + 1
                    && !el.closest('.chat-side, .table-wrap, .wire-text, pre, .visually-hidden, .offscreen'))
                .map((el) => el.tagName.toLowerCase() + '.' + [...el.classList].join('.'));
        }"""
    )


def spills(page: Any) -> list[str]:
    """Form controls that run out of the box holding them (a fieldset, a dialog, a settings card), with how
    far: the screen may fit while a select sticks out of its frame."""
    return page.evaluate(
        """() => [...document.querySelectorAll('input, select, textarea, button')]
            .filter((el) => el.getClientRects().length && !el.closest('.visually-hidden, .offscreen, .table-wrap'))
            .map((el) => [el, el.parentElement.closest('fieldset, dialog, section')])
            .filter(([el, box]) => box && el.getBoundingClientRect().right > box.getBoundingClientRect().right + 1)
            .map(([el, box]) => `${el.tagName.toLowerCase()}#${el.id} out of ${box.tagName.toLowerCase()} by `
                + Math.round(el.getBoundingClientRect().right - box.getBoundingClientRect().right) + ' px')"""
    )


def cut_bar_labels(page: Any) -> list[str]:
    """The bottom bar's labels shown cut (an ellipsis) rather than whole."""
    return page.evaluate(
        """() => [...document.querySelectorAll('nav.rail .rail-label')]
            .filter((el) => el.getClientRects().length && getComputedStyle(el).position !== 'absolute'
                && el.scrollWidth > el.clientWidth)
            .map((el) => el.textContent)"""
    )


def assert_bar_labels_whole(page: Any, full_labels: list[str], back_to: dict[str, int] = PHONE) -> None:
    """At 320, 360 and 390 px wide, every place of the bottom bar shows its label whole, and keeps its
    full label as its name for screen readers (the bar may show a shorter one)."""
    for width in (320, 360, 390):
        page.set_viewport_size({"width": width, "height": PHONE["height"]})
        page.wait_for_function(f"() => document.documentElement.clientWidth === {width}")
        assert cut_bar_labels(page) == [], f"bar labels cut at {width} px"
        shown = page.locator("nav.rail .rail-label").evaluate_all(
            "(els) => els.filter((el) => el.getClientRects().length).length")
        assert shown >= 6
        for label in full_labels:
            assert page.locator("nav.rail").get_by_role("button", name=label, exact=True).count() == 1, label
    page.set_viewport_size(back_to)


def screen(page: Any, shoot: Any, route: str, name: str, site_url: str) -> None:
    page.click(f"[data-route={route}]")
    page.locator(".page h1, .chat").first.wait_for()
    assert overflow(page) == [], f"{name} is wider than the screen"
    assert spills(page) == [], name
    assert serious_violations(page, site_url) == [], name
    shoot(page, name, full_page=False)


@pytest.mark.parametrize("size", ["phone", "small-phone", "laptop"])
def test_every_main_screen_fits_and_is_captured(
    context: Any, site_server: Any, provider: ScriptedUpstream, shoot: Any, size: str
) -> None:
    page = open_app(context, site_server.url, SIZES[size])
    wait_for_gate(page)
    page.fill("#acct-label", "Perso")
    page.click("form button[type=submit]")  # no passphrase: the field to fix gets focus
    page.wait_for_function("() => document.activeElement.id === 'acct-pass'")
    page.fill("#acct-pass", "tapis")
    page.locator(".strength").wait_for()
    shoot(page, f"account-create-{size}", full_page=False)
    page.fill("#acct-pass", "")
    create_account(page)
    add_provider(page, provider.base_url)
    page.click("[data-route=chat]")
    send(page, MESSAGE)
    wait_for_reply(page)
    page.locator("[data-role=user] [data-action=wire]").click()
    assert overflow(page) == [], "the chat is wider than the screen"
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"chat-{size}", full_page=False)

    rail = page.locator("nav.rail").bounding_box()
    drawer = page.locator(".chat-side")
    if size != "laptop":
        # The navigation is a bottom bar; the conversation list is a drawer, closed until asked for.
        assert rail["y"] > SIZES[size]["height"] / 2 and rail["width"] == SIZES[size]["width"]
        assert_bar_labels_whole(page, ["Messages", "Modèles", "Réglages", "À propos", "Verrouiller"],
                                back_to=SIZES[size])
        assert not drawer.is_visible()
        page.click(".drawer-toggle")
        drawer.wait_for(state="visible")
        # Focus goes to the conversation shown, not to the search field (which pops a phone's keyboard).
        assert page.evaluate("document.activeElement.closest('.conv.current') !== null")
        assert serious_violations(page, site_server.url) == []
        shoot(page, f"conversations-{size}", full_page=False)
        page.keyboard.press("Escape")
        drawer.wait_for(state="hidden")
        assert page.evaluate("document.activeElement.classList.contains('drawer-toggle')"), "focus was lost"
    else:
        assert rail["x"] == 0 and rail["height"] == SIZES[size]["height"]
        assert drawer.is_visible() and not page.locator(".drawer-toggle").is_visible()

    page.click("[data-action=conversation-settings]")
    page.locator("dialog[open]").wait_for()
    assert page.locator("fieldset:disabled #mode-fake").count() == 1  # pinned by the first send
    assert spills(page) == []
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"conversation-settings-{size}", full_page=False)
    stops = page.evaluate("document.querySelectorAll('dialog[open] button, dialog[open] input').length")
    for _ in range(stops + 3):  # past the last control, Tab must come back to the first, never leave
        page.keyboard.press("Tab")
        assert page.evaluate("!!document.activeElement.closest('dialog[open]')"), "focus left the dialog"
    page.keyboard.press("Escape")
    page.locator("dialog[open]").wait_for(state="detached")
    assert page.evaluate("document.activeElement.dataset.action") == "conversation-settings", "focus was lost"

    screen(page, shoot, "providers", f"providers-{size}", site_server.url)
    page.click("[data-action=add-provider]")
    page.select_option("#prov-kind", "compatible")
    page.click("[data-preset=ollama]")
    assert page.input_value("#prov-url") == PRESETS["ollama"].base_url  # the engine's own preset (the contract)
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"provider-form-{size}", full_page=False)
    page.keyboard.press("Escape")
    screen(page, shoot, "settings", f"settings-{size}", site_server.url)
    screen(page, shoot, "about", f"about-{size}", site_server.url)
    assert "OpenMasq NER model, trained by the project" in page.inner_text(".about")
    assert page.ui_errors == []


def test_a_window_widened_past_a_phones_width_gives_the_conversation_list_back_at_once(
    context: Any, site_server: Any, provider: ScriptedUpstream
) -> None:
    """Closed, the phone's drawer is inert; the list must not stay so when the window grows (nothing else
    on the page changes meanwhile, so only the width can make the chat render again)."""
    page = open_app(context, site_server.url, PHONE)
    create_account(page)
    add_provider(page, provider.base_url)
    page.click("[data-route=chat]")
    page.locator(".chat-side[inert]").wait_for(state="attached")
    page.set_viewport_size(LAPTOP)
    page.locator(".chat-side:not([inert])").wait_for(state="attached")
    new_conversation(page)  # the list's own button takes the click
    page.set_viewport_size(PHONE)
    page.locator(".chat-side[inert]").wait_for(state="attached")


def test_language_and_theme_settings_apply_at_once_and_survive_the_lock(
    context: Any, site_server: Any, shoot: Any
) -> None:
    page = open_app(context, site_server.url, PHONE)
    create_account(page)
    page.click("[data-route=settings]")
    page.locator("#set-lang input[value=en]").check()
    page.locator("[data-route=chat] >> text=Chats").wait_for()
    assert page.evaluate("document.documentElement.lang") == "en"
    assert_bar_labels_whole(page, ["Chats", "Memory", "Providers", "Settings", "About", "Lock"])
    page.locator("#set-theme input[value=dark]").check()
    page.wait_for_function("() => document.documentElement.dataset.theme === 'dark'")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(21, 23, 28)"
    shoot(page, "settings-dark-en-phone", full_page=False)

    page.click("[data-action=lock]")
    page.locator(".account-list").wait_for()
    assert "Unlock" in page.inner_text(".gate-card") or "Accounts" in page.inner_text(".gate-card")
    shoot(page, "accounts-locked-dark-phone", full_page=False)


def test_a_memory_caption_says_a_failed_run_once_and_not_also_that_nothing_was_new(
    context: Any, site_server: Any
) -> None:
    page = context.new_page()
    page.goto(site_server.url + PROBE_PAGE)
    said = page.evaluate("""async () => {
        const { captionParts } = await import("../app/components/message.js");
        const text = (caption) => captionParts(caption, false).map((part) => part.text);
        return { failed: text({ noted_count: 0, failed: true }), nothing: text({ noted_count: 0 }),
                 two: text({ noted_count: 2 }) };
    }""")
    assert said["failed"] == ["La mise en mémoire a échoué, réessayez."]
    assert len(said["nothing"]) == 1 and len(said["two"]) == 1 and said["nothing"] != said["two"]


def test_an_account_made_in_english_stays_in_english(browser: Any, site_server: Any) -> None:
    english = browser.new_context(locale="en-US")
    try:
        page = open_app(english, site_server.url, LAPTOP)
        wait_for_gate(page)
        assert page.evaluate("document.documentElement.lang") == "en"
        create_account(page)
        page.locator("[data-route=chat] >> text=Chats").wait_for()
        assert page.evaluate("document.documentElement.lang") == "en"
        page.click("[data-route=settings]")
        assert page.locator("#set-lang input[value=en]").is_checked()
        assert page.ui_errors == []
    finally:
        english.close()


def test_an_account_can_be_renamed_from_the_gate_and_keeps_its_data(context: Any, site_server: Any, shoot: Any) -> None:
    page = open_app(context, site_server.url, PHONE)
    create_account(page, label="Perso")
    page.click("[data-action=lock]")
    page.locator(".account-list").wait_for()
    page.click("[aria-label='Renommer le compte — Perso']")
    field = page.locator("#rename-label")
    confirm = page.locator(".dialog button.primary")
    field.fill("  ")
    assert confirm.is_disabled() and page.locator("#rename-label-error").is_visible()  # a blank label is refused
    field.fill("Travail")
    shoot(page, "rename-account-phone", full_page=False)
    confirm.click()
    page.locator("[data-account=Travail]").wait_for()
    page.reload()  # the new label is stored, not only shown
    page.locator("[data-account=Travail]").wait_for()
    assert page.locator("[data-account=Perso]").count() == 0
    page.click("[data-account=Travail]")
    page.fill("#unlock-pass", PASSPHRASE)  # the same account: its passphrase still opens it
    page.click("form button.primary")
    page.locator("[data-action=lock]").wait_for()
    assert page.ui_errors == []
