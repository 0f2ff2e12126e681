"""A conversation of 2,000 turns in the real page (issue 18, "Bad input"), at 1280 px and 360 px, axe clean:
it comes in through the backup import, opens on its last turns (the newest reply on screen, 40 turns in
the page, not 2,000), "Show earlier" and a scroll to the top bring earlier turns back without moving the
turns being read, and a message sent there is answered at the bottom. Its speed is bench/render.py's."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from e2e_support import wait_for_service_worker
from test_chat import LAPTOP, add_provider, create_account, open_app, send
from test_memory import serious_violations

from openmasq.chat.backup import export_json
from openmasq.chat.conversation import Conversation, Message
from openmasq.redact import Vault
from openmasq.testing.upstream import ScriptedUpstream

SIZES = {"laptop": LAPTOP, "phone": {"width": 360, "height": 780}}
TURNS = 2_000
SHOWN_FIRST = 40  # chat.js TAIL_TURNS
STEP = 80  # chat.js EARLIER_STEP
ARTICLES = "document.querySelectorAll('[data-testid=messages] article').length"


def long_backup(folder: Path) -> Path:
    rng = random.Random()
    words = ["devis", "réunion", "jeudi", "budget", "livraison", "contrat", "planning", "équipe", "rapport"]
    now = 1_796_000_000_000
    messages = []
    for i in range(TURNS):
        role = "user" if i % 2 == 0 else "assistant"
        text = f"Tour {i} : " + " ".join(rng.choice(words) for _ in range(rng.randint(6, 14)))
        messages.append(Message(f"turn-{i}", role, text, at=now - (TURNS - i) * 60_000,
                                redactions=0 if role == "user" else None, wire=text if role == "assistant" else None))
    conv = Conversation("long-one", Vault.new(rng.randbytes(32), "fake"), title="Longue",
                        created_at=now - TURNS * 60_000, updated_at=now, messages=messages)
    path = folder / "long.json"
    path.write_text(export_json([conv], now), encoding="utf-8")
    return path


def in_view(page: Any, message_id: str) -> bool:
    return bool(page.evaluate("""(id) => {
        const box = document.querySelector(`article[data-message-id="${id}"]`);
        const list = document.querySelector('[data-testid=messages]').getBoundingClientRect();
        if (!box) return false;
        const r = box.getBoundingClientRect();
        return r.bottom > list.top && r.top < list.bottom;
    }""", message_id))


def top_of(page: Any, message_id: str) -> float:
    return float(page.evaluate(
        "(id) => document.querySelector(`article[data-message-id=\"${id}\"]`).getBoundingClientRect().top", message_id))


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_a_2000_turn_conversation_opens_on_its_last_turns_and_gives_back_the_earlier_ones(
    context: Any, site_server: Any, provider: ScriptedUpstream, tmp_path: Path, shoot: Any, size: str
) -> None:
    page = open_app(context, site_server.url, SIZES[size])
    create_account(page)
    wait_for_service_worker(page)
    add_provider(page, provider.base_url)
    page.click("[data-route=settings]")
    page.set_input_files("#backup-file", str(long_backup(tmp_path)))
    page.locator("[data-testid=backup-report]").wait_for()
    page.click("[data-route=chat]")
    if size == "phone":
        page.click(".drawer-toggle")
    page.click(".conv[data-conv-id=long-one] .conv-open")

    last = f"turn-{TURNS - 1}"
    page.locator(f"article[data-message-id={last}] .markdown", has_text=f"Tour {TURNS - 1}").wait_for()
    page.wait_for_function(f"() => {ARTICLES} === {SHOWN_FIRST}")
    assert in_view(page, last), "the newest turn is not on screen"
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"long-conversation-{size}", full_page=False)

    # "Show earlier": 80 more, and the first turn that was shown stays where it was on the screen.
    first_shown = f"turn-{TURNS - SHOWN_FIRST}"
    page.locator("[data-action=show-earlier]").scroll_into_view_if_needed()
    before = top_of(page, first_shown)
    page.click("[data-action=show-earlier]")
    page.wait_for_function(f"() => {ARTICLES} === {SHOWN_FIRST + STEP}")
    assert abs(top_of(page, first_shown) - before) < 60
    # Scrolling up to the top (the user's own scroll) brings the next step.
    page.hover("[data-testid=messages]")
    page.mouse.wheel(0, -200_000)
    page.wait_for_function(f"() => {ARTICLES} === {SHOWN_FIRST + 2 * STEP}")

    # A message sent there is answered at the bottom, in view.
    send(page, "Et la suite ?")
    page.locator("[data-role=assistant]:not([aria-busy]) .markdown", has_text="Et la suite").wait_for()
    reply_id = page.locator("[data-role=assistant]").last.get_attribute("data-message-id")
    page.wait_for_function("""(id) => { const el = document.querySelector('[data-testid=messages]');
        return el.scrollHeight - el.scrollTop - el.clientHeight < 80; }""", arg=reply_id)
    assert in_view(page, str(reply_id))
    assert page.ui_errors == []
