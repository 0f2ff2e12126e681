"""The keyboard layer in the real page (issue 18, item 8), at laptop and phone sizes, axe clean: every
shortcut does what the list says (new conversation, focus the composer, stop a streaming reply, regenerate,
copy the last reply, search), the command palette (Ctrl-K) finds a conversation by what it says and opens
it, goes to a screen, and the list of shortcuts is on screen (Ctrl-/ and Settings). A chat shortcut pressed
on another screen opens the chat and runs there."""

from __future__ import annotations

from typing import Any

import pytest
from e2e_support import wait_for_service_worker
from test_chat import EMPTY_CURRENT, GatedEcho, create_account, gated_provider, open_app
from test_memory import serious_violations
from test_models import connect
from test_prompts_and_personas import SIZES

from openmasq.testing.upstream import ScriptedUpstream

__all__ = ["gated_provider"]  # the fixture, from test_chat

FIRST = "Quel temps fera-t-il à la montagne samedi ?"


def current_conversation(page: Any) -> str:
    return str(page.locator(".conv.current").get_attribute("data-conv-id"))


def posts(upstream: ScriptedUpstream) -> int:
    return len([r for r in upstream.received if r.method == "POST"])


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_the_shortcuts_and_the_command_palette_run_the_chat_from_the_keyboard(
    context: Any, site_server: Any, gated_provider: tuple[ScriptedUpstream, GatedEcho], shoot: Any, size: str
) -> None:
    upstream, script = gated_provider
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_server.url.rstrip("/"))
    page = open_app(context, site_server.url, SIZES[size])
    create_account(page)
    wait_for_service_worker(page)
    connect(page, "compatible", upstream.base_url, "Scripted")

    # From Settings, Ctrl-Shift-O opens the chat on a new conversation; Shift-Esc goes to the composer.
    page.click("[data-route=settings]")
    page.keyboard.press("Control+Shift+O")
    page.wait_for_function(EMPTY_CURRENT)
    first = current_conversation(page)
    page.keyboard.press("Shift+Escape")
    page.wait_for_function("() => document.activeElement?.id === 'composer-input'")
    page.keyboard.type(FIRST)
    page.click("[data-action=send]")

    # Escape stops the reply streaming: "Stopped", a neutral state.
    script.started.wait(60)
    page.locator("[data-role=assistant].streaming").wait_for()
    page.keyboard.press("Escape")
    page.locator("[data-testid=stopped]").wait_for()
    script.release()
    assert posts(upstream) == 1

    # Ctrl-Shift-E regenerates the last reply: a second version, the stopped one kept. (Once the stop has ended
    # the stream: "stopped" can show before, and a shortcut while a reply streams is told there is nothing to
    # regenerate yet; the clean-clone run of b4edfbd pressed it in that moment.)
    page.wait_for_function("() => !document.body.dataset.streaming")
    page.keyboard.press("Control+Shift+E")
    page.locator("[data-role=assistant] [data-testid=version]", has_text="2/2").wait_for()
    page.wait_for_selector("[data-role=assistant]:not([aria-busy]) .message-actions")
    assert posts(upstream) == 2
    reply = page.locator("[data-role=assistant]").last

    # Ctrl-Shift-C copies the last reply (its text as the user reads it: real values, Markdown).
    page.keyboard.press("Control+Shift+C")
    page.locator(".toast", has_text="Dernière réponse copiée").wait_for()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied.startswith("Reçu : ") and "montagne" in copied
    assert copied.strip() == reply.locator(".markdown").inner_text().strip()

    # Ctrl-Shift-F: the search field of the list (in the drawer, opened, on a phone).
    page.keyboard.press("Control+Shift+F")
    page.wait_for_function("() => document.activeElement?.id === 'conv-search'")
    if size == "phone":
        page.keyboard.press("Escape")
        page.wait_for_function("() => !document.querySelector('.chat.drawer-open')")

    # Another conversation, then the palette finds the first one by a word it holds and opens it.
    page.keyboard.press("Control+Shift+O")
    page.wait_for_function(f"() => document.querySelector('.conv.current')?.dataset.convId !== '{first}'")
    page.wait_for_function(EMPTY_CURRENT)
    page.keyboard.press("Control+K")
    palette = page.locator("[data-testid=palette]")
    palette.wait_for()
    page.wait_for_function("() => document.activeElement?.id === 'palette-input'")
    page.keyboard.type("montagne")
    option = palette.locator("[role=option][data-command^=conv-]")
    # Only the first conversation says it (the list is asked again as the query changes).
    page.wait_for_function("() => [...document.querySelectorAll('[data-testid=palette] [data-command^=conv-]')]"
                           f".map((o) => o.dataset.command).join() === 'conv-{first}'")
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"palette-{size}", full_page=False)
    # The arrows move the choice; Enter runs it.
    page.keyboard.press("End")
    chosen = palette.locator("[aria-selected=true]").get_attribute("data-command")
    assert chosen == option.first.get_attribute("data-command")
    page.keyboard.press("Enter")
    palette.wait_for(state="detached")
    page.wait_for_function(f"() => document.querySelector('.conv.current')?.dataset.convId === '{first}'")
    page.locator("[data-role=assistant]").last.wait_for()

    # A screen from the palette; the list of shortcuts there and with Ctrl-/.
    page.keyboard.press("Control+K")
    palette.wait_for()
    page.keyboard.type("réglages")
    palette.locator("[role=option][data-command=screen-settings]").wait_for()
    # "Réglages de cette conversation" (an action) comes first: the arrow goes to the screen.
    assert palette.locator("[aria-selected=true]").get_attribute("data-command") == "action-conversation-settings"
    page.keyboard.press("ArrowDown")
    assert palette.locator("[aria-selected=true]").get_attribute("data-command") == "screen-settings"
    page.keyboard.press("Enter")
    page.locator("[data-testid=keyboard-panel] [data-shortcut=copy]").wait_for()
    page.keyboard.press("Control+/")
    dialog = page.locator(".shortcuts-dialog [data-testid=shortcuts]")
    dialog.wait_for()
    assert dialog.locator("tbody tr").count() == 8
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"shortcuts-{size}", full_page=False)
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    assert page.ui_errors == []
