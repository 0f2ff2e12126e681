"""The chat through the real UI and the real workers, against the scripted loopback provider: first
run (account, provider, a message with personal data streamed back restored, spans highlighted, the
wire view showing the fakes the server received), reload persistence with the passphrase, and the
conversation list (rename, delete, undo). The shared UI steps live here; test_ui.py imports them."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import DEFAULT_TIMEOUT_MS, wait_for_service_worker

from openmasq.testing.upstream import (
    SSE_HEADERS,
    Received,
    Reply,
    ScriptedUpstream,
    echo_script,
    json_reply,
    last_user_text,
    openai_stream,
)

PASSPHRASE = "tapis cerise volcan 42"
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def open_app(context: Any, url: str, viewport: dict[str, int] = LAPTOP) -> Any:
    page = context.new_page()
    page.set_viewport_size(viewport)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.ui_errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    return page


def wait_for_gate(page: Any) -> None:
    """The boot screen is gone: the account gate (create or pick) is shown."""
    page.wait_for_selector("#acct-label, .account-list", timeout=DEFAULT_TIMEOUT_MS)


def create_account(page: Any, label: str = "Perso", passphrase: str = PASSPHRASE, remember: bool = False) -> None:
    wait_for_gate(page)
    if page.locator(".account-list").count():
        page.click(".gate-card button.primary.wide")
    page.fill("#acct-label", label)
    page.fill("#acct-pass", passphrase)
    page.fill("#acct-confirm", passphrase)
    if remember:
        page.check("#acct-remember")
    page.click("form button[type=submit]")
    page.wait_for_selector(".shell .chat")


def unlock(page: Any, label: str, passphrase: str) -> None:
    wait_for_gate(page)
    if not page.locator("#unlock-pass").count():
        page.click(f"[data-account='{label}']")
    page.fill("#unlock-pass", passphrase)
    page.click("form button[type=submit]")


def add_provider(page: Any, base_url: str, label: str = "Scripted") -> None:
    """Adds an OpenAI-compatible provider, lists its models, picks the first; added after a test that
    worked, it becomes the default (issue 18)."""
    # The service worker must control the page before it can widen net-worker's policy.
    wait_for_service_worker(page)
    page.click("[data-route=providers]")
    page.click("[data-action=add-provider]")
    page.select_option("#prov-kind", "compatible")
    page.fill("#prov-label", label)
    page.fill("#prov-url", base_url)
    page.click("[data-action=list-models]")
    page.wait_for_selector("#prov-model-pick")
    page.click("[data-action=save-provider]")
    card = page.locator(".provider", has_text=label)
    card.wait_for()
    card.locator(".badge").wait_for()


def open_chat(context: Any, url: str, provider_url: str, label: str = "Perso") -> Any:
    """The app with a new account, a provider at `provider_url`, and the chat screen open."""
    page = open_app(context, url)
    create_account(page, label)
    add_provider(page, provider_url)
    page.click("[data-route=chat]")
    return page


def pick_model(page: Any, provider_id: str, model: str | None = None) -> None:
    """The header's model button: another provider (and one of its models, or a typed name) for the
    conversation shown."""
    page.click("[data-action=pick-model]")
    dialog = page.locator("[data-testid=model-dialog]")
    dialog.wait_for()
    page.select_option("#model-provider", provider_id)
    if model is not None:
        page.fill("#model-typed", model)
    page.click("[data-action=use-model]")
    dialog.wait_for(state="detached")


def send(page: Any, text: str) -> None:
    page.fill("#composer-input", text)
    page.click("[data-action=send]")


# A conversation is current in the list and nothing is written in it yet.
EMPTY_CURRENT = """() => !!document.querySelector('.conv.current')
    && !!document.querySelector('[data-testid=answering-model]:not([data-for=""])')
    && !document.querySelector('[data-testid=messages] article')"""


def new_conversation(page: Any) -> str:
    """Starts a conversation and waits until the worker has it (current in the list, empty): a new one,
    or the empty untitled one shown, which "new conversation" reuses (issue 18)."""
    page.click("[data-action=new-conversation]")
    page.wait_for_function(EMPTY_CURRENT)
    return str(page.locator(".conv.current").get_attribute("data-conv-id"))


def wait_for_reply(page: Any) -> Any:
    """The last assistant message once it stopped streaming."""
    page.wait_for_selector("[data-role=assistant]:not([aria-busy]) .message-actions")
    return page.locator("[data-role=assistant]").last


# ---------------------------------------------------------------- tests

REAL_VALUES = ("Marie Dupont", "marie.dupont@example.fr", "06 12 34 56 78")
MESSAGE = "Peux-tu écrire à Marie Dupont (marie.dupont@example.fr, 06 12 34 56 78) pour confirmer jeudi ?"


class GatedEcho:
    """The echo script, except that a streamed reply stops after its first pieces until `release()`:
    the test sees the partial reply on screen before the rest arrives (no sleeps)."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.started = threading.Event()

    def release(self) -> None:
        self.gate.set()

    def __call__(self, received: Received) -> Reply:
        if received.method != "POST" or received.json().get("stream") is not True:
            return echo_script(received)
        text = "Reçu : " + last_user_text(received)
        pieces = openai_stream([text[i: i + 3] for i in range(0, len(text), 3)])
        return Reply(chunks=self._paced(pieces), headers=SSE_HEADERS)  # type: ignore[arg-type]

    def _paced(self, pieces: list[bytes]) -> Iterator[bytes]:
        for index, piece in enumerate(pieces):
            if index == 4:
                self.started.set()
                self.gate.wait(DEFAULT_TIMEOUT_MS / 1000)
            yield piece


@pytest.fixture
def gated_provider() -> Iterator[tuple[ScriptedUpstream, GatedEcho]]:
    script = GatedEcho()
    with ScriptedUpstream(script, cors=True) as upstream:
        try:
            yield upstream, script
        finally:
            script.release()


def test_first_run_streams_a_restored_reply_and_shows_what_the_model_saw(
    context: Any, site_server: Any, gated_provider: tuple[ScriptedUpstream, GatedEcho], recorder: Any, shoot: Any
) -> None:
    upstream, script = gated_provider
    page = open_app(context, site_server.url)
    create_account(page)
    add_provider(page, upstream.base_url)
    page.click("[data-route=chat]")
    send(page, MESSAGE)

    # Streaming: part of the reply is on screen, restored, while the server holds the rest back.
    streaming = page.locator("article.streaming[data-role=assistant]")
    streaming.wait_for()
    page.wait_for_function("() => document.querySelector('article.streaming .markdown')?.textContent.length > 0")
    assert page.locator("[data-action=stop]").is_visible()
    script.release()
    reply = wait_for_reply(page)

    # The model answered about the fakes; the page shows the real values back.
    assert reply.locator(".markdown").inner_text().strip() == "Reçu : " + MESSAGE
    # Not an explicit ask and no memory used: the reply carries no memory caption at all (no
    # "Nothing new to remember" under every ordinary reply).
    assert reply.locator("[data-testid=memory-caption]").count() == 0
    user = page.locator("[data-role=user]").last
    marks = {m.inner_text(): m.get_attribute("data-kind") for m in user.locator("mark.redacted").all()}
    assert marks == {"Marie Dupont": "person", "marie.dupont@example.fr": "email", "06 12 34 56 78": "phone"}

    # "What the model saw" is the exact text the provider received for this turn.
    user.locator("[data-action=wire]").click()
    wire = user.locator(".wire-text").first.inner_text()
    sent = last_user_text(upstream.received[-1])
    assert wire.strip() == sent.strip()
    assert not any(value in wire for value in REAL_VALUES)
    shoot(page, "chat-laptop", full_page=False)

    # Wire audit: neither the server nor any request of the page or its workers carried a real value.
    for text in (upstream.wire_text(), recorder.wire_text()):
        assert not [value for value in REAL_VALUES if value in text]
    assert page.ui_errors == []


def test_a_reload_asks_for_the_passphrase_refuses_a_wrong_one_and_keeps_the_conversation(
    context: Any, site_server: Any, provider: ScriptedUpstream
) -> None:
    page = open_chat(context, site_server.url, provider.base_url, "Travail")
    send(page, MESSAGE)
    wait_for_reply(page)

    page.reload()
    unlock(page, "Travail", "not the passphrase")
    error = page.locator("#unlock-pass-error")
    error.wait_for()
    assert re.search(r"Wrong passphrase|Phrase secrète incorrecte", error.inner_text())
    assert page.locator(".shell").count() == 0
    page.fill("#unlock-pass", PASSPHRASE)
    page.click("form button[type=submit]")
    reply = wait_for_reply(page)
    assert reply.locator(".markdown").inner_text().strip() == "Reçu : " + MESSAGE
    names = page.locator("[data-role=user] mark[data-kind=person]").all_inner_texts()
    assert names == ["Marie Dupont"]


# Whether focus is on an element matching the selector, inside the conversation item that says `text`.
FOCUS_ON = """([selector, text]) => { const el = document.activeElement;
    return !!el && el.matches(selector) && el.closest('.conv')?.textContent.includes(text); }"""


def test_a_provider_error_is_told_in_the_users_language_with_the_providers_own_words_as_detail(
    context: Any, site_server: Any, provider: ScriptedUpstream
) -> None:
    page = open_chat(context, site_server.url, provider.base_url)

    def limited(received: Received) -> Reply:
        if received.method != "POST":
            return echo_script(received)  # the model list
        return json_reply({"error": {"message": "slow down", "type": "rate_limit_error"}}, 429,
                          {"retry-after": "20"})

    provider.script = limited
    send(page, "Bonjour")
    note = page.locator(".inline-error[data-error-kind=rate_limit]")
    note.wait_for()
    said = note.inner_text()
    assert "Trop de requêtes" in said and "Réessayez dans 20 s." in said and "Détail : slow down" in said
    assert "HTTP 429" not in said and "this key" not in said  # the worker's English sentence is not repeated


def test_conversations_can_be_searched_renamed_deleted_and_restored(
    context: Any, site_server: Any, provider: ScriptedUpstream
) -> None:
    page = open_chat(context, site_server.url, provider.base_url)
    send(page, "Premier sujet : le budget du salon.")
    wait_for_reply(page)
    new_conversation(page)
    send(page, "Second sujet : les billets de train.")
    wait_for_reply(page)
    items = page.locator(".convlist-items .conv")
    assert items.count() == 2

    page.fill("#conv-search", "billets")
    page.wait_for_function("() => document.querySelectorAll('.convlist-items .conv').length === 1")
    page.fill("#conv-search", "")
    page.wait_for_function("() => document.querySelectorAll('.convlist-items .conv').length === 2")

    first = page.locator(".conv", has_text="budget")
    first.locator("[data-action=rename]").click()
    page.fill("#rename-input", "Salon 2025")
    page.press("#rename-input", "Enter")
    page.locator(".conv-title", has_text="Salon 2025").wait_for()
    # Focus is not dropped when the control that had it goes: back on the rename button, then on the
    # conversation that takes the deleted one's place.
    page.wait_for_function(FOCUS_ON, arg=["[data-action=rename]", "Salon 2025"])

    page.locator(".conv", has_text="Salon 2025").locator("[data-action=delete]").click()
    page.wait_for_function("() => document.querySelectorAll('.convlist-items .conv').length === 1")
    page.wait_for_function(FOCUS_ON, arg=[".conv-open", "billets"])
    # The deletion's toast (an earlier one, "Fournisseur enregistré", may still be shown on a slow machine).
    deleted = page.locator(".toast", has_text="Salon 2025")
    toast, composer = deleted.bounding_box(), page.locator(".composer").bounding_box()
    assert toast["y"] + toast["height"] <= composer["y"], "the toast hides the composer"
    deleted.locator("button.button").click()  # Undo
    page.locator(".conv-title", has_text="Salon 2025").wait_for()
    page.locator(".conv", has_text="Salon 2025").locator(".conv-open").click()
    assert "le budget du salon" in page.locator("[data-role=user]").first.inner_text()

    page.reload()
    unlock(page, "Perso", PASSPHRASE)
    page.locator(".conv-title", has_text="Salon 2025").wait_for()
    assert page.locator(".convlist-items .conv").count() == 2


def set_space(page: Any, name: str) -> None:
    page.click("[data-action=conversation-settings]")
    page.fill("#space", name)
    page.click("#conv-settings-form button[type=submit]")
    page.locator("#conv-settings-form").wait_for(state="detached")


def listed(page: Any) -> list[str]:
    return [title.strip() for title in page.locator(".convlist-items .conv-title").all_inner_texts()]


def test_the_list_filters_by_space_and_a_new_conversation_joins_the_space_shown(
    context: Any, site_server: Any, provider: ScriptedUpstream
) -> None:
    page = open_chat(context, site_server.url, provider.base_url)
    for topic, space in (("Budget", "Norvik"), ("Billets", "Perso"), ("Recette", "")):
        if topic != "Budget":
            new_conversation(page)
        send(page, f"{topic} : une question.")
        wait_for_reply(page)
        page.locator(".conv.current [data-action=rename]").click()
        page.fill("#rename-input", topic)
        page.press("#rename-input", "Enter")
        # The title given, whole: the one made from the first message ("Recette : une question.")
        # already contains it.
        page.locator(".conv-title", has_text=re.compile(f"^\\s*{re.escape(topic)}\\s*$")).wait_for()
        if space:
            set_space(page, space)
    assert sorted(listed(page)) == ["Billets", "Budget", "Recette"]
    options = page.locator("#conv-space option").all_inner_texts()
    assert options == ["Tous les espaces", "Hors espace", "Norvik", "Perso"]

    page.select_option("#conv-space", "Norvik")
    page.wait_for_function("() => document.querySelectorAll('.convlist-items .conv').length === 1")
    assert listed(page) == ["Budget"]
    page.select_option("#conv-space", "")
    page.wait_for_function("() => document.querySelectorAll('.convlist-items .conv').length === 1")
    assert listed(page) == ["Recette"]

    # A conversation started while one space is shown belongs to it, and the filter outlives a
    # visit to another screen.
    page.select_option("#conv-space", "Perso")
    new_conversation(page)
    send(page, "Un nouveau sujet.")
    wait_for_reply(page)
    page.wait_for_function("() => document.querySelectorAll('.convlist-items .conv').length === 2")
    page.click("[data-route=settings]")
    page.click("[data-route=chat]")
    page.locator(".convlist-items .conv").first.wait_for()
    assert page.input_value("#conv-space") == "Perso"
    assert page.locator(".convlist-items .conv .badge", has_text="Perso").count() == 2
    page.click("[data-action=conversation-settings]")
    assert page.input_value("#space") == "Perso"
    page.keyboard.press("Escape")
    page.select_option("#conv-space", "*")
    page.wait_for_function("() => document.querySelectorAll('.convlist-items .conv').length === 4")
    assert page.ui_errors == []


REPLIED = "[data-role=assistant]:not([aria-busy]) .message-actions"
AT_BOTTOM = """() => { const el = document.querySelector('[data-testid=messages]');
                        return el.scrollHeight - el.scrollTop - el.clientHeight < 80; }"""


# Resolves once the saved reply has replaced the streamed one and the view has not moved for three frames
# (the swap's render and any scroll it causes are done).
SETTLED = """() => new Promise((resolve) => {
  const el = document.querySelector('[data-testid=messages]');
  let last = el.scrollTop, still = 0;
  const tick = () => {
    if (el.scrollTop === last && !document.querySelector('[data-message-id=pending-reply]')) still += 1;
    else { still = 0; last = el.scrollTop; }
    if (still >= 3) resolve(); else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})"""


def distance_to_bottom(page: Any) -> float:
    return float(page.evaluate("""() => { const el = document.querySelector('[data-testid=messages]');
                                         return el.scrollHeight - el.scrollTop - el.clientHeight; }"""))


def test_the_view_follows_the_conversation_until_the_user_scrolls_up_and_a_message_sent_brings_it_back(
    context: Any, site_server: Any, provider: ScriptedUpstream
) -> None:
    page = open_chat(context, site_server.url, provider.base_url)
    long = "Une phrase assez longue pour prendre de la place dans la conversation. " * 4
    for turn in range(1, 6):
        send(page, f"Message {turn}. {long}")
        page.wait_for_function(f"() => document.querySelectorAll({REPLIED!r}).length === {turn}")
        page.wait_for_function(AT_BOTTOM)
        page.evaluate(SETTLED)  # the saved reply replaces the streamed one: the view must stay down
        assert distance_to_bottom(page) < 80, f"turn {turn}: the newest messages are below the fold"
    assert page.evaluate("document.querySelector('[data-testid=messages]').scrollHeight") > 2 * 720

    page.hover("[data-testid=messages]")
    page.mouse.wheel(0, -1500)
    page.wait_for_function(f"() => !({AT_BOTTOM})()")
    page.evaluate(SETTLED)
    assert distance_to_bottom(page) > 80  # the user reads higher up: the view stays there

    send(page, "Message 6.")
    page.wait_for_function(f"() => document.querySelectorAll({REPLIED!r}).length === 6")
    page.wait_for_function(AT_BOTTOM)
    assert page.ui_errors == []


def remembering_script(received: Received) -> Reply:
    """Echoes chat turns; answers an extraction request (temperature 0) with one fact about the person
    named before "habite" in what it received (a fake: the real name never reaches the server)."""
    if received.method != "POST" or received.json().get("temperature") != 0:
        return echo_script(received)
    found = re.search(r"(\S+ \S+) habite", last_user_text(received))
    facts = {"profil": None, "faits": [] if found is None else [
        {"entite": found.group(1), "fait": "habite à Lyon", "cat": "personne", "alias": None}]}
    return Reply(chunks=openai_stream([json.dumps(facts, ensure_ascii=False)]), headers=SSE_HEADERS)


def test_only_an_explicit_ask_gets_a_memory_caption(context: Any, site_server: Any) -> None:
    with ScriptedUpstream(remembering_script, cors=True) as upstream:
        page = open_app(context, site_server.url)
        create_account(page)
        add_provider(page, upstream.base_url)
        page.click("[data-route=chat]")
        send(page, MESSAGE)
        wait_for_reply(page)
        send(page, "Souviens-toi que Marie Dupont habite à Lyon.")
        settled = "[data-testid=memory-caption]:not(:has(.caption-pending))"
        page.wait_for_selector(f"[data-role=assistant] >> nth=1 >> {settled}")
        caption = page.locator("[data-role=assistant]").last.locator("[data-testid=memory-caption]")
        assert re.search(r"Retenu : 1 élément|Remembered: 1 item", caption.inner_text()), caption.inner_text()
        ordinary = page.locator("[data-role=assistant]").first
        assert ordinary.locator("[data-testid=memory-caption]").count() == 0
        assert "Marie Dupont" not in upstream.wire_text()
