"""The on-device models in the real app: py-worker asks ml-worker (spawned by workers.js) for the spans of the typed
text before a send, so a name only the model finds (the rules miss lowercase names) never reaches the provider; and
memory_search finds a card by meaning through the encrypted embedding index."""

from __future__ import annotations

from typing import Any

from e2e_support import download_model
from test_chat import add_provider, create_account, open_app, open_chat, send, wait_for_reply
from test_memory import go_memory, new_card

from openmasq.testing.upstream import (
    SSE_HEADERS,
    Received,
    Reply,
    ScriptedUpstream,
    echo_script,
    last_user_text,
    openai_stream,
)

LOWERCASE = "hier j'ai parlé avec marie dupont de la réunion de jeudi"


def test_a_name_only_the_model_finds_is_redacted_before_the_send(
    context: Any, site_server: Any, provider: Any, recorder: Any
) -> None:
    page = open_chat(context, site_server.url, provider.base_url)
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
    assert any("/models/ner/model.onnx" in url for url in urls)
    assert "marie dupont" not in provider.wire_text().lower()


def search_then_answer(received: Received) -> Reply:
    """The model calls memory_search with words no card contains, then answers once it has the result."""
    if received.method != "POST" or not received.json().get("stream"):
        return echo_script(received)
    doc = received.json()
    if doc["messages"][-1]["role"] == "user" and doc.get("tools"):
        calls = [("call_1", "memory_search", ['{"query": "vols de test', " d'avions\"}"])]
        return Reply(chunks=openai_stream([], calls), headers=SSE_HEADERS)
    return Reply(chunks=openai_stream(["Je vois."]), headers=SSE_HEADERS)


def test_memory_search_in_a_browser_send_is_topped_up_by_the_on_device_index(
    context: Any, site_server: Any, recorder: Any
) -> None:
    with ScriptedUpstream(search_then_answer, cors=True) as provider:
        page = open_app(context, site_server.url)
        create_account(page)
        add_provider(page, provider.base_url)
        download_model(page, "e5")  # on demand since issue 19: the user downloads it from Settings
        go_memory(page)
        new_card(page, "Marie Dupont", "personne", "Pilote d'essai chez Airbus à Toulouse.")
        new_card(page, "Vélo", "autre", "Va au travail à vélo.")
        # ml-worker embedded both cards into the encrypted index; the page says so.
        page.locator("[data-testid=semantic-status]", has_text="2").wait_for()
        page.click("[data-route=chat]")
        send(page, "Qui connais-je dans l'aéronautique ?")
        wait_for_reply(page)
        follow_up = provider.received[-1].json()
        [tool] = [m for m in follow_up["messages"] if m["role"] == "tool"]
        # Only the index can find her (no word of the query is on the card), and she goes out as her fake.
        assert "Pilote d'essai chez Airbus à" in tool["content"]  # her card, her town faked with her
        assert "vélo" not in tool["content"].lower()
        wire = provider.wire_text()
        assert "Marie" not in wire and "Dupont" not in wire and "Toulouse" not in wire
