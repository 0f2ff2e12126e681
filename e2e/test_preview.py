"""The composer's preview and "what the model saw" in the real page (issue 17): while the user types, the
composer shows what will be masked (py-worker, the send's own engine) before anything leaves; a click on a
span keeps that value in clear for the conversation; the send carries exactly what the preview showed;
while a request is in flight its whole text is shown, and the conversation's request log lists it."""

from __future__ import annotations

import re
from typing import Any

from test_chat import GatedEcho, add_provider, create_account, new_conversation, open_app, send, wait_for_reply

from openmasq.testing.upstream import ScriptedUpstream, last_user_text

NAME, EMAIL, PHONE = "Marie Dupont", "marie.dupont@example.fr", "06 12 34 56 78"
MESSAGE = f"Peux-tu écrire à {NAME} ({EMAIL}, {PHONE}) pour confirmer jeudi ?"


def preview_marks(page: Any) -> dict[str, str]:
    """The preview once it is for the composer's text: each span's text -> masked | kept."""
    page.locator("[data-testid=composer-preview][data-state=current]").wait_for()
    return {b.inner_text(): str(b.get_attribute("data-preview"))
            for b in page.locator("[data-testid=composer-preview] button").all()}


def chat_posts(upstream: ScriptedUpstream) -> list[Any]:
    return [r for r in upstream.received if r.method == "POST"]


def test_the_preview_shows_what_will_be_masked_before_sending_and_the_send_matches_it(
    context: Any, site_server: Any, provider: ScriptedUpstream, shoot: Any
) -> None:
    page = open_app(context, site_server.url)
    create_account(page)
    add_provider(page, provider.base_url)
    page.click("[data-route=chat]")
    new_conversation(page)
    page.fill("#composer-input", MESSAGE)
    assert preview_marks(page) == {NAME: "masked", EMAIL: "masked", PHONE: "masked"}
    assert chat_posts(provider) == []  # the preview is computed on the device: nothing left
    fakes = [re.search(r"« (.+) »", str(b.get_attribute("title"))).group(1)  # type: ignore[union-attr]
             for b in page.locator("[data-testid=composer-preview] button[data-preview=masked]").all()]
    shoot(page, "composer-preview", full_page=False)

    # A click keeps the phone number in clear in this conversation; the preview says so at once.
    page.locator("[data-testid=composer-preview] button", has_text=PHONE).click()
    page.locator("[data-testid=composer-preview] button[data-preview=kept]", has_text=PHONE).wait_for()
    assert preview_marks(page) == {NAME: "masked", EMAIL: "masked", PHONE: "kept"}

    page.click("[data-action=send]")
    wait_for_reply(page)
    sent = last_user_text(chat_posts(provider)[-1])
    assert PHONE in sent and NAME not in sent and EMAIL not in sent  # exactly what the preview showed
    assert [fake for fake in fakes if fake in sent] == fakes[:2]  # the name's and the e-mail's announced fakes
    marks = page.locator("[data-role=user]").last.locator("mark.redacted").all_inner_texts()
    assert sorted(marks) == sorted([NAME, EMAIL])
    assert page.ui_errors == []


def test_what_the_model_saw_shows_the_request_in_flight_and_the_log_lists_every_request(
    context: Any, site_server: Any
) -> None:
    script = GatedEcho()
    with ScriptedUpstream(script, cors=True) as upstream:
        try:
            page = open_app(context, site_server.url)
            create_account(page)
            add_provider(page, upstream.base_url)
            page.click("[data-route=chat]")
            send(page, MESSAGE)
            script.started.wait(60)
            user = page.locator("[data-role=user]").last
            user.locator("[data-action=wire]").click()
            pending = user.locator("[data-testid=wire-pending]")
            pending.wait_for()
            shown = pending.inner_text()
            sent = last_user_text(upstream.received[-1])
            assert sent in shown and not [v for v in (NAME, EMAIL, PHONE) if v in shown]
        finally:
            script.release()
        wait_for_reply(page)
        page.click("[data-action=wire-log]")
        entries = page.locator("[data-testid=wire-log-entry]")
        entries.first.wait_for()
        assert entries.count() == 1 and entries.first.get_attribute("data-kind") == "send"
        logged = entries.first.inner_text()
        assert sent in logged and not [v for v in (NAME, EMAIL, PHONE) if v in logged]
        assert page.ui_errors == []
