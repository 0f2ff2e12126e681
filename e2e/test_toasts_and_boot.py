"""Two small things of issue 18, item 10, in the real page. Toasts: at 360 px and at 1280 px, toasts shown
after a reply (two, stacked: the reply copied as text, then as Markdown) sit between the last reply and the
composer, covering neither the reply nor its actions nor the composer (read from the DOM's geometry while both
are shown). A toast under the pointer does not expire until the pointer leaves it, and the same news twice is
one toast. The boot screen: in an English browser it speaks English from its first render (every state the
boot screen took is recorded by a MutationObserver installed before the page's scripts), and its steps tick
forward only, to the last one; axe finds no serious violation on it while it is shown."""

from __future__ import annotations

from typing import Any

import pytest
from test_chat import (
    LAPTOP,
    add_provider,
    create_account,
    new_conversation,
    open_app,
    send,
    wait_for_gate,
    wait_for_reply,
)
from test_memory import serious_violations

from openmasq.testing.upstream import ScriptedUpstream

SIZES = {"laptop": LAPTOP, "phone": {"width": 360, "height": 780}}
LONG_MESSAGE = "\n".join(f"Ligne {n} : le devis de la cuisine, point par point." for n in range(1, 31))

# True while the two toasts are shown and the last reply (its actions included), the toast and the composer are stacked
# in that order without overlapping, the view at the end of the list (which is longer than its window), and the toast
# is centred over the composer (on a laptop, over the conversation, not across the list beside it).
SETTLED = """() => {
  const toast = document.querySelector('.toasts');
  const list = document.querySelector('[data-testid=messages]');
  const replies = [...document.querySelectorAll('[data-testid=messages] article.message')];
  const composer = document.querySelector('[data-testid=composer]');
  if (toast?.childElementCount !== 2 || !list || !replies.length || !composer) return false;
  const last = replies[replies.length - 1].getBoundingClientRect();
  const actions = replies[replies.length - 1].querySelector('.message-actions')?.getBoundingClientRect();
  const t = toast.getBoundingClientRect();
  const c = composer.getBoundingClientRect();
  const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 2;
  const centred = Math.abs((t.left + t.right) / 2 - (c.left + c.right) / 2) < 2 && t.left >= c.left - 48;
  return list.scrollHeight > list.clientHeight && atEnd && Boolean(actions) && actions.bottom <= t.top
    && last.bottom <= t.top && t.bottom <= c.top && t.height > 0 && centred;
}"""


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_a_toast_after_a_reply_covers_neither_the_last_reply_its_actions_nor_the_composer(
    context: Any, site_server: Any, provider: ScriptedUpstream, shoot: Any, size: str
) -> None:
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_server.url.rstrip("/"))
    page = open_app(context, site_server.url, SIZES[size])
    create_account(page)
    add_provider(page, provider.base_url)
    page.click("[data-route=chat]")
    if size == "laptop":
        new_conversation(page)
    else:
        page.click("[data-action=new-conversation-head]")
    send(page, LONG_MESSAGE)
    reply = wait_for_reply(page)
    # Two toasts, stacked (copied as text, then as Markdown): the room grows with them.
    reply.locator("[data-action=copy]").click()
    page.locator(".toasts .toast", has_text="Copié").wait_for()
    reply.locator("[data-action=copy-markdown]").click()
    # The pointer on the toasts holds them (they would expire while a slow machine lays them out).
    page.hover(".toasts .toast >> nth=-1")
    page.wait_for_function("() => document.querySelectorAll('.toasts .toast').length === 2")
    page.wait_for_function(SETTLED, timeout=30_000)
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"toast-{size}", full_page=False)
    # Leaving the chat gives the room back: no space kept for toasts at the end of a list not shown.
    page.click("[data-route=settings]")
    for prop in ("--composer-space", "--composer-middle"):
        assert page.evaluate(f"() => getComputedStyle(document.documentElement).getPropertyValue('{prop}')") == ""
    assert page.ui_errors == []


def test_a_toast_stays_while_the_pointer_is_on_it_and_goes_once_it_leaves(
    context: Any, site_server: Any, provider: ScriptedUpstream
) -> None:
    # The page's clock is Playwright's: it runs on its own, and is moved forward past the toast's time.
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_server.url.rstrip("/"))
    context.clock.install()
    page = open_app(context, site_server.url)
    create_account(page)
    add_provider(page, provider.base_url)
    page.click("[data-route=chat]")
    new_conversation(page)
    send(page, "Bonjour.")
    reply = wait_for_reply(page)
    reply.locator("[data-action=copy]").click()
    toast = page.locator(".toasts .toast", has_text="Copié")
    toast.hover()
    page.clock.fast_forward("00:30")
    assert toast.count() == 1, "a toast under the pointer expired"
    page.mouse.move(5, 5)
    page.clock.fast_forward("00:30")
    toast.wait_for(state="detached")
    # The same news twice is one toast; other news stacks under it (the clock stopped: none expires meanwhile).
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    reply.locator("[data-action=copy]").click()
    reply.locator("[data-action=copy]").click()
    reply.locator("[data-action=copy-markdown]").click()
    page.locator(".toasts .toast", has_text="Copié en Markdown").wait_for()
    assert [text.strip() for text in page.locator(".toasts .toast").all_inner_texts()] == ["Copié", "Copié en Markdown"]
    assert page.ui_errors == []


RECORD_BOOT = """
window.__boot = [];
const record = () => {
  const stage = document.getElementById('boot-stage');
  if (!stage) return;
  const steps = [...document.querySelectorAll('.boot-steps li')];
  const state = { lang: document.documentElement.lang, stage: stage.textContent,
                  steps: steps.map((li) => li.textContent.trim()),
                  done: steps.filter((li) => li.classList.contains('done')).length };
  const prev = window.__boot[window.__boot.length - 1];
  if (!prev || JSON.stringify(prev) !== JSON.stringify(state)) window.__boot.push(state);
};
new MutationObserver(record).observe(document, { subtree: true, childList: true, characterData: true,
                                                 attributes: true });
"""
FRENCH = ("Téléchargement", "Compilation", "Chargement du code", "Démarrage", "Prêt")
# axe-core run once on the page as soon as the boot screen is there (axe itself is injected before the page's
# scripts): the screen lasts the seconds Pyodide takes to load, and whether it was still shown when the scan
# ended is recorded, so the scan is known to have read it.
SCAN_BOOT = """
window.__bootAxe = null;
const scan = () => {
  if (window.__bootAxe || !document.getElementById('boot-stage') || typeof axe === 'undefined') return;
  window.__bootAxe = { pending: true };
  axe.run(document, { resultTypes: ['violations'] }).then((result) => {
    window.__bootAxe = {
      violations: result.violations.filter((v) => ['serious', 'critical'].includes(v.impact))
        .map((v) => ({ id: v.id, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) })),
      booting: !!document.getElementById('boot-stage') };
  }, (error) => { window.__bootAxe = { error: String(error) }; });
};
new MutationObserver(scan).observe(document, { subtree: true, childList: true });
"""


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_the_boot_screen_speaks_the_browsers_english_ticks_forward_and_passes_axe_while_shown(
    browser: Any, built_site: Any, site_server: Any, size: str
) -> None:
    context = browser.new_context(locale="en-US")
    try:
        context.add_init_script(RECORD_BOOT)
        context.add_init_script(path=str(built_site.out / "tests" / "axe.min.js"))
        context.add_init_script(SCAN_BOOT)
        page = open_app(context, site_server.url, SIZES[size])
        wait_for_gate(page)
        states: list[dict[str, Any]] = page.evaluate("() => window.__boot")
        page.wait_for_function("() => window.__bootAxe && !window.__bootAxe.pending")
        scan: dict[str, Any] = page.evaluate("() => window.__bootAxe")
    finally:
        context.close()
    assert "error" not in scan, scan
    assert scan["booting"], "the boot screen was gone before axe finished: the scan read another screen"
    assert scan["violations"] == []
    assert states, "the boot screen was never seen"
    assert {s["lang"] for s in states} == {"en"}
    shown = " ".join(s["stage"] + " " + " ".join(s["steps"]) for s in states)
    assert [word for word in FRENCH if word in shown] == []
    assert states[0]["steps"] == ["Downloading the engine", "Compiling", "Loading the Python code"]
    done = [s["done"] for s in states]
    assert done == sorted(done) and done[-1] == 3  # forward only, to the end
    assert len(set(done)) >= 3  # it ticked on the way, not only at the end
