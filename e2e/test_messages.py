"""Messages in the real page (issue 18): edit and resend makes a version of the turn, "Regenerate" adds a
version of a reply, the switcher shows the whole branch after it, and the provider only ever gets the
active branch (the wire audit: the other branches' words never leave, no real value either); copy as
text or as Markdown; Stop is a neutral state, an empty stopped reply has no Copy, and the history sent
after it alternates; the list previews plain text and "new conversation" reuses an empty one.
Against the scripted loopback provider, at laptop and phone sizes, axe clean."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import DEFAULT_TIMEOUT_MS
from test_chat import LAPTOP, PHONE, add_provider, create_account, open_app, send
from test_memory import serious_violations

from openmasq.testing.upstream import (
    SSE_HEADERS,
    Received,
    Reply,
    ScriptedUpstream,
    echo_script,
    last_user_text,
    openai_stream,
)

NAME = "Marie Dupont"
FIRST = f"Écris à {NAME} pour le devis banane."
SECOND = "Ajoute le prix cerise."
EDITED = f"Écris à {NAME} pour le devis kiwi."
SIZES = {"laptop": LAPTOP, "phone": PHONE}


class Numbered:
    """Each chat reply says its number in bold, then quotes the user's last turn (as received: fakes);
    `hold` pieces in, a reply waits for `release()` (None: never), so a test can stop it there."""

    def __init__(self) -> None:
        self.count = 0
        self.hold: int | None = None
        self.gate = threading.Event()
        self.started = threading.Event()

    def chats(self, upstream: ScriptedUpstream) -> list[list[dict[str, Any]]]:
        """The messages of every chat request the provider received, in order."""
        return [r.json()["messages"] for r in upstream.received
                if r.method == "POST" and r.json().get("stream") is True]

    def __call__(self, received: Received) -> Reply:
        if received.method != "POST" or received.json().get("stream") is not True:
            return echo_script(received)
        self.count += 1
        text = f"**Réponse {self.count}** à : {last_user_text(received)}"
        return Reply(chunks=self._paced(openai_stream(re.findall(r"\S+\s*", text))), headers=SSE_HEADERS)  # type: ignore[arg-type]

    def _paced(self, pieces: list[bytes]) -> Iterator[bytes]:
        hold = self.hold
        for index, piece in enumerate(pieces):
            if index == hold:
                self.started.set()
                self.gate.wait(DEFAULT_TIMEOUT_MS / 1000)
            yield piece


@pytest.fixture
def numbered() -> Iterator[tuple[ScriptedUpstream, Numbered]]:
    script = Numbered()
    with ScriptedUpstream(script, cors=True) as upstream:
        try:
            yield upstream, script
        finally:
            script.gate.set()


def chat_page(context: Any, site_url: str, upstream: ScriptedUpstream, size: str) -> Any:
    page = open_app(context, site_url, SIZES[size])
    create_account(page)
    add_provider(page, upstream.base_url)
    page.click("[data-route=chat]")
    return page


def replies(page: Any, count: int) -> Any:
    """Waits until `count` finished replies are shown; the last one."""
    page.wait_for_function(
        "(n) => document.querySelectorAll('[data-role=assistant]:not([aria-busy]) .message-actions').length === n"
        " && !document.querySelector('article.streaming, [data-message-id^=pending]')", arg=count)
    return page.locator("[data-role=assistant]").last


def reply_says(page: Any, start: str) -> Any:
    """Waits until a finished reply begins with `start`; that reply."""
    found = page.locator("[data-role=assistant]:not([aria-busy])", has=page.locator(".message-actions")).filter(
        has=page.locator(".markdown", has_text=re.compile("^" + re.escape(start))))
    found.first.wait_for()
    return found.first


def texts(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("[data-testid=messages] article .bubble").all_inner_texts()]


def show_list(page: Any) -> None:
    """The conversation list: a drawer on a phone."""
    toggle = page.locator(".drawer-toggle")
    if toggle.is_visible():
        toggle.click()
        page.locator(".chat.drawer-open").wait_for()


def clipboard_after(page: Any, button: Any) -> str:
    page.evaluate("navigator.clipboard.writeText('')")
    button.click()
    page.wait_for_function("async () => (await navigator.clipboard.readText()) !== ''")
    return str(page.evaluate("navigator.clipboard.readText()"))


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_edit_and_regenerate_make_versions_and_only_the_active_branch_reaches_the_provider(
    context: Any, site_server: Any, numbered: tuple[ScriptedUpstream, Numbered], recorder: Any, shoot: Any,
    size: str,
) -> None:
    upstream, script = numbered
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_server.url.rstrip("/"))
    page = chat_page(context, site_server.url, upstream, size)
    send(page, FIRST)
    replies(page, 1)
    send(page, SECOND)
    replies(page, 2)

    # Regenerate a good answer: a second version, the first kept; the same history and turn were sent again.
    page.locator("[data-role=assistant]").last.locator("[data-action=regenerate]").click()
    reply_says(page, "Réponse 3")
    last = replies(page, 2)
    assert last.locator("[data-testid=version]").inner_text() == "2/2"
    chats = script.chats(upstream)
    assert chats[-1] == chats[-2]
    last.locator("[data-action=version-previous]").click()
    page.locator("[data-role=assistant] [data-testid=version]", has_text="1/2").wait_for()
    assert page.locator("[data-role=assistant]").last.locator(".markdown").inner_text().startswith("Réponse 2")
    assert page.evaluate("document.activeElement.dataset.action") in ("version-next", "version-previous")

    # Copy as Markdown keeps the syntax; copy as text is what the page shows.
    reply = page.locator("[data-role=assistant]").last
    assert clipboard_after(page, reply.locator("[data-action=copy-markdown]")).startswith("**Réponse 2** à :")
    assert clipboard_after(page, reply.locator("[data-action=copy]")).startswith("Réponse 2 à :")

    # Edit the first message and send it: the later turns leave the screen, kept as version 1.
    page.locator("[data-role=user]").first.locator("[data-action=edit]").click()
    page.locator("[data-testid=edit-box] textarea").fill(EDITED)
    page.click("[data-action=edit-send]")
    reply_says(page, "Réponse 4")
    replies(page, 1)
    assert len(texts(page)) == 2 and texts(page)[0] == EDITED
    assert page.locator("[data-role=user] [data-testid=version]").inner_text() == "2/2"
    edited = script.chats(upstream)[-1]
    assert [m["role"] for m in edited] == ["user"]
    assert "kiwi" in edited[0]["content"]
    shoot(page, f"messages-versions-{size}", full_page=False)
    assert serious_violations(page, site_server.url) == []

    # Back to version 1 of the first turn: its whole branch, with the reply version chosen in it.
    page.locator("[data-role=user]").first.locator("[data-action=version-previous]").click()
    page.locator("[data-role=user] [data-testid=version]", has_text="1/2").wait_for()
    shown = texts(page)
    assert shown[0] == FIRST and shown[2] == SECOND and shown[3].startswith("Réponse 2")
    send(page, "Et la date ?")
    reply_says(page, "Réponse 5")
    replies(page, 3)
    history = script.chats(upstream)[-1]
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant", "user"]
    said = " ".join(m["content"] for m in history)
    assert "banane" in said and "cerise" in said and "Réponse 2" in said
    assert "kiwi" not in said and "Réponse 3" not in said and "Réponse 4" not in said

    # The wire audit: no request carried the real name, whichever branch it was in.
    for wire in (upstream.wire_text(), recorder.wire_text()):
        assert NAME not in wire and "Dupont" not in wire

    # The list: a plain-text preview; a new conversation reuses the empty one instead of piling up.
    show_list(page)
    preview = page.locator(".conv.current .conv-preview").inner_text()
    assert preview.startswith("Réponse 5 à :") and "*" not in preview
    page.click("[data-action=new-conversation]")
    page.wait_for_function("() => document.querySelectorAll('.convlist-items .conv').length === 2"
                           " && !document.querySelector('[data-testid=messages] article')")
    show_list(page)
    empty = page.locator(".conv.current").get_attribute("data-conv-id")
    page.click("[data-action=new-conversation]")
    page.locator("[data-testid=answering-model]:not([data-for=''])").wait_for()
    show_list(page)
    page.locator(f".conv.current[data-conv-id='{empty}']").wait_for()
    assert page.locator(".convlist-items .conv").count() == 2
    assert page.ui_errors == []


@pytest.mark.parametrize("size", ["phone"])
def test_stop_is_a_neutral_state_and_the_history_after_it_alternates(
    context: Any, site_server: Any, numbered: tuple[ScriptedUpstream, Numbered], size: str, shoot: Any
) -> None:
    upstream, script = numbered
    page = chat_page(context, site_server.url, upstream, size)

    # Stopped before any text: "Stopped", no error, nothing to copy; Regenerate is there.
    script.hold = 0
    send(page, "Première question.")
    page.locator("article.streaming[data-role=assistant]").wait_for()
    assert script.started.wait(DEFAULT_TIMEOUT_MS / 1000)
    page.click("[data-action=stop]")
    stopped = page.locator("[data-role=assistant][data-state=stopped]")
    stopped.wait_for()
    script.gate.set()
    assert stopped.locator("[data-testid=stopped]").inner_text().strip() in ("Arrêté", "Stopped")
    assert page.locator(".inline-error").count() == 0
    assert stopped.locator("[data-action=copy], [data-action=copy-markdown]").count() == 0
    assert stopped.locator("[data-action=regenerate]").count() == 1
    shoot(page, f"messages-stopped-{size}", full_page=False)

    # The next turn goes alone: the stopped question is not replayed before it.
    script.hold = None
    send(page, "Deuxième question.")
    replies(page, 2)
    assert [m["content"] for m in script.chats(upstream)[-1]] == ["Deuxième question."]

    # Stopped after some text: kept, copyable, and replayed with its question; the roles alternate.
    script.gate.clear()
    script.started.clear()
    script.hold = 2
    send(page, "Troisième question.")
    assert script.started.wait(DEFAULT_TIMEOUT_MS / 1000)
    page.wait_for_function("() => document.querySelector('article.streaming .markdown')?.textContent.length > 0")
    page.click("[data-action=stop]")
    page.locator("[data-role=assistant][data-state=stopped]").nth(1).wait_for()
    script.gate.set()
    partial = page.locator("[data-role=assistant]").last
    assert partial.locator("[data-action=copy]").count() == 1
    script.hold = None
    send(page, "Quatrième.")
    replies(page, 4)
    roles = [m["role"] for m in script.chats(upstream)[-1]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    assert serious_violations(page, site_server.url) == []
    assert page.ui_errors == []
