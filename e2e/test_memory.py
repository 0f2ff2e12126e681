"""The Mémoire through the real UI and workers, against a scripted loopback provider that echoes chat
turns and answers extraction requests with facts about the (fake) name it was given: an explicit
"retiens ..." gives a proposed card in the inbox, injected only on a direct mention; Confirm makes it
inject on every tier; edit, attribute update to history, restore; delete with undo; delete for real,
and the next silent extraction does not bring it back; the refusal lifted. A wire audit at each step."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from test_chat import (
    LAPTOP,
    PASSPHRASE,
    PHONE,
    add_provider,
    create_account,
    new_conversation,
    open_app,
    send,
    unlock,
)

from openmasq.testing.upstream import (
    SSE_HEADERS,
    Received,
    Reply,
    ScriptedUpstream,
    echo_script,
    openai_stream,
)

REAL = ("Claire Vasseur", "Vasseur")
HEADER = "Mémoire de l'utilisateur"
# A fake full name on the wire: two or more capitalised words in a row ("Utilisateur : Retiens" has a colon).
FULL_NAME = re.compile(r"\b[A-ZÀ-Ý][a-zà-ÿ'’-]+(?: [A-ZÀ-Ý][a-zà-ÿ'’-]+)+")
# Silent runs need 400 characters naming a person (memory/extract/gate.py).
LONG = ("Claire Vasseur a déplacé le rendez-vous de contrôle de mardi à jeudi matin, et elle voudrait que "
        "j'apporte les anciennes radios ainsi que la carte de mutuelle mise à jour. Son cabinet a changé "
        "d'adresse au début du mois, il faudra vérifier l'itinéraire avant de partir, et prévoir un peu de "
        "marge parce que le parking est souvent complet le jeudi. Elle a aussi demandé qu'on confirme la "
        "veille par message, sinon le créneau est rendu à quelqu'un d'autre sur la liste d'attente.")


class MemoryModel:
    """Echoes chat turns; answers an extraction (its system prompt asks for DURABLE facts) with the
    next scripted fact about the last full name (a fake) on the wire. Keeps every
    extraction request it saw."""

    def __init__(self) -> None:
        self.facts: list[str] = []
        self.extractions: list[str] = []
        self.lock = threading.Condition()  # notified at each extraction request: waiters wake on it

    def __call__(self, received: Received) -> Reply:
        if received.method != "POST":
            return echo_script(received)
        body = received.json()
        system = "\n".join(m.get("content", "") for m in body.get("messages", []) if m.get("role") == "system")
        if "DURABLE" not in system:
            return echo_script(received)
        wire = "\n".join(m.get("content", "") for m in body["messages"] if m.get("role") == "user")
        names = FULL_NAME.findall(wire)
        with self.lock:
            self.extractions.append(wire)
            self.lock.notify_all()
            fact = self.facts.pop(0) if self.facts else "Est ma dentiste."
        doc = {"profil": None, "faits": [{"entite": names[-1], "alias": None, "cat": "personne", "fait": fact}]
               if names else []}
        return Reply(chunks=openai_stream([json.dumps(doc, ensure_ascii=False)]), headers=SSE_HEADERS)

    def wait_for_extractions(self, count: int, timeout_s: float = 60) -> None:
        """Returns at the `count`th extraction request (the timeout bounds a run that never comes)."""
        with self.lock:
            if self.lock.wait_for(lambda: len(self.extractions) >= count, timeout=timeout_s):
                return
        raise AssertionError(f"expected {count} extraction requests, saw {len(self.extractions)}: "
                             + " | ".join(e[:80] for e in self.extractions))


@pytest.fixture
def memory_model() -> Iterator[tuple[ScriptedUpstream, MemoryModel]]:
    model = MemoryModel()
    with ScriptedUpstream(model, cors=True) as upstream:
        yield upstream, model


# ---------------------------------------------------------------- UI steps


def audit(upstream: ScriptedUpstream, recorder: Any) -> None:
    """No real value in anything that reached the provider or left the page."""
    for text in (upstream.wire_text(), recorder.wire_text()):
        assert not [value for value in REAL if value in text]


def system_text(received: Received) -> str:
    return "\n".join(m.get("content", "") for m in received.json()["messages"] if m.get("role") == "system")


def last_chat(upstream: ScriptedUpstream) -> Received:
    return next(r for r in reversed(upstream.received) if r.method == "POST" and "DURABLE" not in system_text(r))


def go_memory(page: Any) -> None:
    page.click("[data-route=memory]")
    page.locator("[data-testid=memory-page]").wait_for()


def list_view(page: Any) -> None:
    page.click("[data-view=list]")
    page.locator("#mem-search").wait_for()


def open_inbox(page: Any) -> Any:
    page.click("[data-action=open-inbox]")
    sheet = page.locator("[data-testid=inbox]")
    sheet.wait_for()
    return sheet


def open_card(page: Any, entity: str) -> Any:
    list_view(page)
    page.locator(".mem-row", has_text=entity).first.click()
    panel = page.locator("[data-testid=card-panel]")
    panel.locator(".sheet-title", has_text=entity).wait_for()
    return panel


def close_sheet(page: Any) -> None:
    page.keyboard.press("Escape")
    page.locator("dialog.sheet").wait_for(state="detached")


def wait_for_text(locator: Any, text: str) -> None:
    locator.filter(has_text=text).first.wait_for()


def say(page: Any, text: str) -> None:
    """Sends `text` in the open conversation and waits for ITS reply: the scripted model echoes it,
    restored ("Reçu : <text>"), so the reply that quotes it is the one."""
    send(page, text)
    reply = page.locator("[data-role=assistant]:not([aria-busy])", has_text=text[-60:]).last
    reply.locator(".message-actions").wait_for()


def explicit_ask(page: Any, model: MemoryModel, text: str, count: int) -> None:
    say(page, text)
    model.wait_for_extractions(count)


# ---------------------------------------------------------------- tests


def test_the_memory_lifecycle_through_the_ui_with_a_wire_audit_at_every_step(
    context: Any, site_server: Any, memory_model: tuple[ScriptedUpstream, MemoryModel], recorder: Any, shoot: Any
) -> None:
    upstream, model = memory_model
    page = open_app(context, site_server.url, LAPTOP)
    create_account(page)
    add_provider(page, upstream.base_url)
    page.click("[data-route=chat]")

    # An explicit ask: a proposed card in the inbox, with the badge on the navigation.
    explicit_ask(page, model, "Retiens que Claire Vasseur est ma dentiste.", 1)
    page.locator("[data-testid=memory-badge]").wait_for()
    audit(upstream, recorder)
    go_memory(page)
    shoot(page, "memory-graph-laptop", full_page=False)
    inbox = open_inbox(page)
    item = inbox.locator(".inbox-item", has_text="Claire Vasseur")
    item.wait_for()
    assert "Est ma dentiste." in item.inner_text()
    shoot(page, "inbox-laptop", full_page=False)
    close_sheet(page)

    # Proposed: injected on a direct mention only.
    page.click("[data-route=chat]")
    say(page, "Vasseur viendra-t-elle jeudi ?")
    assert HEADER not in system_text(last_chat(upstream))
    say(page, "Claire Vasseur viendra-t-elle jeudi ?")
    assert HEADER in system_text(last_chat(upstream)) and "dentiste" in system_text(last_chat(upstream)), (
        last_chat(upstream).text()[:600])
    audit(upstream, recorder)

    # Confirmed: injected on every tier (the surname alone is enough now).
    go_memory(page)
    inbox = open_inbox(page)
    inbox.locator(".inbox-item", has_text="Claire Vasseur").locator("[data-action=inbox-confirm]").click()
    inbox.locator(".mem-empty").wait_for()
    close_sheet(page)
    page.locator("[data-testid=memory-badge]").wait_for(state="detached")
    page.click("[data-route=chat]")
    say(page, "Vasseur viendra-t-elle vendredi ?")
    assert HEADER in system_text(last_chat(upstream))
    audit(upstream, recorder)

    # Edit a sentence: the old wording goes to the history.
    go_memory(page)
    panel = open_card(page, "Claire Vasseur")
    panel.locator("[data-action=edit-sentence]").first.click()
    panel.locator(".mem-sentence textarea").fill("Son délai de rendez-vous : deux semaines.")
    panel.locator("[data-action=save-sentence]").click()
    wait_for_text(panel.locator(".mem-sentence"), "deux semaines")
    wait_for_text(panel.locator(".mem-history-item"), "Est ma dentiste.")
    shoot(page, "card-panel-laptop", full_page=False)
    close_sheet(page)

    # An attribute update by a second explicit ask: the old value moves to the history; restore it.
    model.facts.append("Son délai de rendez-vous : un mois.")
    page.click("[data-route=chat]")
    explicit_ask(page, model, "Retiens que le délai de rendez-vous de Claire Vasseur est maintenant d'un mois.", 2)
    audit(upstream, recorder)
    go_memory(page)
    panel = open_card(page, "Claire Vasseur")
    wait_for_text(panel.locator(".mem-sentence"), "un mois")
    panel.locator(".mem-history-item", has_text="deux semaines").wait_for()
    assert "deux semaines" not in panel.locator(".mem-sentences").inner_text()

    # Evidence: the extracted sentence's source opens the conversation at its message.
    panel.locator(".mem-sentence", has_text="un mois").locator("[data-action=evidence]").click()
    page.locator(".evidence-target").wait_for()
    assert "délai de rendez-vous" in page.locator(".evidence-target").inner_text()
    shoot(page, "evidence-laptop", full_page=False)

    # Restore the superseded value: the newer one goes to the history in turn.
    go_memory(page)
    panel = open_card(page, "Claire Vasseur")
    panel.locator(".mem-history-item", has_text="deux semaines").locator("[data-action=restore]").click()
    wait_for_text(panel.locator(".mem-sentence"), "deux semaines")
    wait_for_text(panel.locator(".mem-history-item"), "un mois")
    close_sheet(page)

    # Delete, then undo within the six seconds.
    panel = open_card(page, "Claire Vasseur")
    panel.locator("[data-action=delete-card]").click()
    page.locator("dialog.sheet").wait_for(state="detached")
    page.locator(".toast", has_text="Claire Vasseur").get_by_role("button", name="Annuler").click()
    page.locator(".mem-row", has_text="Claire Vasseur").wait_for()

    # Delete for real: the undo expires, the refusal is listed.
    panel = open_card(page, "Claire Vasseur")
    panel.locator("[data-action=delete-card]").click()
    page.locator(".toast", has_text="Claire Vasseur").wait_for()
    page.locator(".toast", has_text="Claire Vasseur").wait_for(state="detached", timeout=15_000)
    page.click("[data-view=refusals]")
    page.locator(".mem-refusal", has_text="Claire Vasseur").wait_for()

    # Automatic memory on; a long turn about her, then leaving the conversation flushes a silent run:
    # the model answers with her again, and the refused card is not recreated.
    page.click("[data-route=settings]")
    page.check("#set-auto-extract")
    page.locator("#set-auto-extract:checked").wait_for()
    page.click("[data-route=chat]")
    seen = len(model.extractions)
    say(page, LONG)
    first = page.locator(".conv.current").get_attribute("data-conv-id")
    new_conversation(page)  # left_conversation: the silent run starts
    model.wait_for_extractions(seen + 1)
    page.locator(f".conv[data-conv-id='{first}'] .conv-open").click()
    page.locator("[data-role=user]", has_text="parking est souvent complet").wait_for()
    say(page, "Merci.")  # waits for the conversation's extraction to finish (one lock per conversation)
    go_memory(page)
    list_view(page)
    page.locator(".mem-empty").wait_for()
    assert page.locator(".mem-row", has_text="Claire Vasseur").count() == 0
    audit(upstream, recorder)

    # Lift the refusal.
    page.click("[data-view=refusals]")
    page.locator(".mem-refusal", has_text="Claire Vasseur").locator("[data-action=lift-refusal]").click()
    page.locator("[data-testid=refusals] .mem-refusal").first.wait_for(state="detached")
    page.click("[data-view=journal]")
    page.locator(".mem-journal-entry[data-action=lift]").first.wait_for()
    shoot(page, "journal-laptop", full_page=False)
    # A confirmation shows the statuses in the page's words, not as stored ("proposed", "confirmed").
    confirmed = page.locator(".mem-journal-entry[data-action=confirm]", has_text="Claire Vasseur").first
    assert (confirmed.locator(".mem-before").text_content(), confirmed.locator(".mem-after").text_content()) == (
        "avant : Proposée", "Confirmée")
    audit(upstream, recorder)
    assert page.ui_errors == []


def test_the_inbox_and_card_panel_are_bottom_sheets_on_a_phone(
    context: Any, site_server: Any, memory_model: tuple[ScriptedUpstream, MemoryModel], recorder: Any, shoot: Any
) -> None:
    upstream, model = memory_model
    page = open_app(context, site_server.url, PHONE)
    create_account(page)
    add_provider(page, upstream.base_url)
    page.click("[data-route=chat]")
    explicit_ask(page, model, "Retiens que Claire Vasseur est ma dentiste.", 1)
    go_memory(page)
    page.locator("#mem-search").wait_for()  # the graph degrades to the list on a phone
    shoot(page, "memory-list-phone", full_page=False)

    inbox = open_inbox(page)
    box = inbox.bounding_box()
    assert box["y"] + box["height"] == pytest.approx(PHONE["height"], abs=1) and box["width"] == PHONE["width"]
    confirm = inbox.locator("[data-action=inbox-confirm]")
    assert confirm.bounding_box()["height"] >= 44  # a thumb's target
    shoot(page, "inbox-phone", full_page=False)

    # Focus stays in the sheet.
    for _ in range(12):
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.closest('dialog.sheet') !== null"), page.evaluate(
            "document.activeElement.outerHTML.slice(0, 200)")

    # Swipe down on the head dismisses it.
    head = inbox.locator("[data-testid=sheet-head]").bounding_box()
    x, y = head["x"] + head["width"] / 2, head["y"] + 10
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y + 60, steps=4)
    page.mouse.move(x, y + 200, steps=4)
    page.mouse.up()
    page.locator("dialog.sheet").wait_for(state="detached")

    # Edit from the inbox opens the card panel, a bottom sheet too; Escape closes it.
    inbox = open_inbox(page)
    inbox.locator("[data-action=inbox-edit]").click()
    panel = page.locator("[data-testid=card-panel]")
    panel.locator(".sheet-title", has_text="Claire Vasseur").wait_for()
    box = panel.bounding_box()
    assert box["y"] + box["height"] == pytest.approx(PHONE["height"], abs=1)
    shoot(page, "card-panel-phone", full_page=False)
    panel.locator("[data-action=confirm-card]").click()
    panel.locator(".mem-status-confirmed").wait_for()
    close_sheet(page)
    inbox = open_inbox(page)
    inbox.locator(".mem-empty").wait_for()
    close_sheet(page)
    # The badge reloads its count after the change: it must go, within the locator's timeout.
    page.locator("[data-testid=memory-badge]").wait_for(state="detached")
    audit(upstream, recorder)
    assert page.ui_errors == []


def test_a_project_card_named_in_a_message_is_marked_as_a_project_in_the_organisation_colour(
    context: Any, site_server: Any, memory_model: tuple[ScriptedUpstream, MemoryModel], recorder: Any
) -> None:
    """Issue 23: the page's kind table had no `project`, so a project the memory forced showed as "Donnée
    sensible" in the secret colour. The kinds' labels and colours now come from the engine (app/contract.js)."""
    upstream, _ = memory_model
    page = open_app(context, site_server.url, LAPTOP)
    create_account(page)
    add_provider(page, upstream.base_url)
    go_memory(page)
    page.click("[data-action=proposal-no]")
    new_card(page, "Projet Héron", "projet", "Rénovation de la médiathèque.")
    page.click("[data-route=chat]")
    say(page, "Où en est le Projet Héron ?")
    mark = page.locator("[data-role=user] mark.redacted", has_text="Héron").last
    assert mark.get_attribute("data-kind") == "project"
    assert "fam-org" in (mark.get_attribute("class") or "").split()
    assert mark.get_attribute("title") == "Projet — masqué avant l’envoi"
    assert not [r for r in upstream.received if "Héron" in r.text()]  # the fake went, not the name
    audit(upstream, recorder)
    assert page.ui_errors == []


def new_card(page: Any, entity: str, category: str, facts: str) -> None:
    page.click("[data-action=new-card]")
    page.fill("#new-entity", entity)
    page.select_option("#new-category", category)
    page.fill("#new-facts", facts)
    page.click("[data-action=create-card]")
    page.locator("[data-testid=card-panel] .sheet-title", has_text=entity).wait_for()
    close_sheet(page)


def seed(page: Any, model: MemoryModel) -> None:
    """A proposed card (explicit ask), three written by hand (two of them a likely duplicate, one
    naming another: a graph link), a deletion (a refusal) and a profile."""
    page.click("[data-route=chat]")
    explicit_ask(page, model, "Retiens que Claire Vasseur est ma dentiste.", 1)
    go_memory(page)
    page.click("[data-action=proposal-no]")
    new_card(page, "Atelier Torbel", "organisation", "Menuiserie à Rennes.")
    new_card(page, "Torbel", "organisation", "Livre le vendredi.")
    new_card(page, "Hugo Lambert", "personne", "Travaille chez Atelier Torbel.")
    new_card(page, "Projet Héron", "projet", "Rénovation de la médiathèque.")
    panel = open_card(page, "Projet Héron")
    panel.locator("[data-action=delete-card]").click()
    page.locator("dialog.sheet").wait_for(state="detached")
    page.click("[data-view=profile]")
    page.fill("#profile-text", "Préfère des réponses courtes. Travaille dans l’édition.")
    page.click("[data-action=save-profile]")
    page.locator(".toast", has_text="Profil").wait_for()


def serious_violations(page: Any, site_url: str) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now (axe from npm, served
    by test builds under tests/; a same-origin script, so the page's CSP lets it in)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(url=site_url + "tests/axe.min.js")
    return page.evaluate(
        """async () => {
            const result = await axe.run(document, { resultTypes: ["violations"] });
            return result.violations.filter((v) => ["serious", "critical"].includes(v.impact))
                .map((v) => ({ id: v.id, impact: v.impact,
                               nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
        }"""
    )


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_every_memory_screen_passes_axe_and_is_captured(
    context: Any, site_server: Any, memory_model: tuple[ScriptedUpstream, MemoryModel], shoot: Any, size: str
) -> None:
    upstream, model = memory_model
    page = open_app(context, site_server.url, LAPTOP if size == "laptop" else PHONE)
    create_account(page)
    add_provider(page, upstream.base_url)
    seed(page, model)
    found: dict[str, list[dict[str, Any]]] = {}

    page.click("[data-route=chat]")
    page.locator("[data-role=assistant] .message-actions").first.wait_for()
    found["chat"] = serious_violations(page, site_server.url)
    shoot(page, f"chat-{size}", full_page=False)

    go_memory(page)
    if size == "laptop":
        page.click("[data-view=graph]")
        page.locator("[data-testid=graph][data-settled='1']").wait_for()
        found["graph"] = serious_violations(page, site_server.url)
        shoot(page, f"memory-graph-{size}", full_page=False)
    list_view(page)
    page.locator(".mem-row").first.wait_for()
    found["memory"] = serious_violations(page, site_server.url)
    shoot(page, f"memory-list-{size}", full_page=False)

    inbox = open_inbox(page)
    inbox.locator(".inbox-item").nth(1).wait_for()
    found["inbox"] = serious_violations(page, site_server.url)
    shoot(page, f"inbox-{size}", full_page=False)
    close_sheet(page)

    panel = open_card(page, "Hugo Lambert")
    panel.locator(".mem-sentence").first.wait_for()
    found["card"] = serious_violations(page, site_server.url)
    shoot(page, f"card-panel-{size}", full_page=False)
    close_sheet(page)

    for view in ("refusals", "journal", "profile"):
        page.click(f"[data-view={view}]")
        page.locator(f"#mem-panel-{view} > *").first.wait_for()
        found[view] = serious_violations(page, site_server.url)
        shoot(page, f"memory-{view}-{size}", full_page=False)

    page.click("[data-route=settings]")
    page.locator("[data-testid=memory-settings]").wait_for()
    found["settings"] = serious_violations(page, site_server.url)
    page.locator("[data-testid=memory-settings]").scroll_into_view_if_needed()
    shoot(page, f"settings-{size}", full_page=False)
    assert {name: v for name, v in found.items() if v} == {}
    assert page.ui_errors == []


def test_the_memory_page_search_and_panel_work_offline(
    context: Any, site_server: Any, memory_model: tuple[ScriptedUpstream, MemoryModel], shoot: Any
) -> None:
    upstream, _ = memory_model
    page = open_app(context, site_server.url, LAPTOP)
    create_account(page, "Hors-ligne")
    add_provider(page, upstream.base_url)  # waits for the service worker
    go_memory(page)
    new_card(page, "Élodie Garnier", "personne", "Pédiatre à Lyon.")
    new_card(page, "Atelier Torbel", "organisation", "Menuiserie à Rennes.")
    site_server.stop()
    try:
        page.reload()
        unlock(page, "Hors-ligne", PASSPHRASE)
        page.locator(".shell").wait_for()
        go_memory(page)
        list_view(page)
        page.locator(".mem-row", has_text="Atelier Torbel").wait_for()
        page.fill("#mem-search", "pediatre")
        page.locator(".mem-row", has_text="Atelier Torbel").wait_for(state="detached")
        page.locator(".mem-row", has_text="Élodie Garnier").wait_for()
        assert page.locator(".mem-row").count() == 1
        panel = open_card(page, "Élodie Garnier")
        panel.locator("#add-sentence").fill("Consulte le mercredi.")
        panel.locator("[data-action=add-sentence]").click()
        wait_for_text(panel.locator(".mem-sentence"), "Consulte le mercredi.")
        shoot(page, "offline-card-panel", full_page=False)
        assert [e for e in page.ui_errors if "ERR_CONNECTION_REFUSED" not in e] == []
    finally:
        site_server.start()


def test_remember_on_a_selection_and_the_remember_command(
    context: Any, site_server: Any, memory_model: tuple[ScriptedUpstream, MemoryModel], recorder: Any, shoot: Any
) -> None:
    upstream, model = memory_model
    page = open_app(context, site_server.url, LAPTOP)
    create_account(page)
    add_provider(page, upstream.base_url)
    page.click("[data-route=chat]")
    say(page, "Hugo Lambert dirige la menuiserie depuis 2019.")

    # « Retenir » on a selection inside a message: an explicit extraction of that text only.
    reply = page.locator("[data-role=assistant] .markdown").last
    reply.select_text()
    page.click("[data-action=remember-selection]")
    model.wait_for_extractions(1)
    assert "Hugo Lambert" not in model.extractions[-1] and "menuiserie" in model.extractions[-1]
    page.locator(".toast", has_text="Retenu").wait_for()
    page.locator("[data-testid=memory-badge]").wait_for()

    # /retenir in the composer: nothing is sent as a chat turn.
    chats = len([r for r in upstream.received if r.method == "POST"])
    page.fill("#composer-input", "/retenir Claire Vasseur est ma dentiste.")
    page.press("#composer-input", "Enter")
    model.wait_for_extractions(2)
    assert page.locator("#composer-input").input_value() == ""
    assert len([r for r in upstream.received if r.method == "POST"]) == chats + 1  # the extraction only
    go_memory(page)
    list_view(page)
    page.locator(".mem-row", has_text="Hugo Lambert").wait_for()
    page.locator(".mem-row", has_text="Claire Vasseur").wait_for()
    panel = open_card(page, "Hugo Lambert")
    panel.locator("[data-action=evidence]").first.wait_for()
    audit(upstream, recorder)
    for text in (upstream.wire_text(), recorder.wire_text()):
        assert "Hugo Lambert" not in text
    assert page.ui_errors == []
