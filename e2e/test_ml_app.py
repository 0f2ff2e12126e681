"""The on-device NER in the real app: py-worker asks ml-worker (spawned by workers.js) for the spans of the typed
text before a send, so a name only the model finds (the rules miss lowercase names) never reaches the provider."""

from __future__ import annotations

from typing import Any

from test_chat import add_provider, create_account, open_app, send, wait_for_reply

from openmasq.testing.upstream import last_user_text

LOWERCASE = "hier j'ai parlé avec marie dupont de la réunion de jeudi"


def test_a_name_only_the_model_finds_is_redacted_before_the_send(
    context: Any, site_server: Any, provider: Any, recorder: Any
) -> None:
    page = open_app(context, site_server.url)
    create_account(page)
    add_provider(page, provider.base_url)
    page.click("[data-route=chat]")
    send(page, LOWERCASE)
    wait_for_reply(page)
    sent = last_user_text(provider.received[-1])
    assert "marie dupont" not in sent.lower()
    assert "réunion de jeudi" in sent  # the rest of the text went as typed
    user = page.locator("[data-role=user]").last
    marks = {m.inner_text(): m.get_attribute("data-kind") for m in user.locator("mark.redacted").all()}
    assert marks == {"marie dupont": "person"}
    urls = recorder.urls()
    assert any(url.endswith("/worker/ml-worker.js") for url in urls)
    assert any("/models/rampart/onnx/model_q4.onnx" in url for url in urls)
    assert "marie dupont" not in provider.wire_text().lower()
