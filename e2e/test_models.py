"""The model of a conversation in the real page (issue 18, item 5), at laptop and phone sizes, axe clean:
the header's model opens a picker fed by the provider's own list, read by net-worker from loopback servers
this test starts, which serve the lists as the real ones do: OpenAI's `/v1/models` behind a Bearer key,
Anthropic's paginated `/v1/models` behind `x-api-key`, an older Ollama with only `/api/tags`, and a
gateway that refuses to list (a typed model name then). Each send goes to the model picked, which the
reply names; the wire audit checks the model and that no real value left."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import wait_for_service_worker
from test_chat import LAPTOP, create_account, open_app, send
from test_memory import serious_violations

from openmasq.testing.model_lists import anthropic_models, no_listing, ollama, openai_models
from openmasq.testing.upstream import ScriptedUpstream

SIZES = {"laptop": LAPTOP, "phone": {"width": 360, "height": 780}}
NAME = "Marie Dupont"


def connect(page: Any, kind: str, base_url: str, label: str, key: str = "", listed: bool = True,
            model: str = "") -> None:
    """Adds a provider from the Providers screen; lists its models first when it lists them."""
    page.click("[data-route=providers]")
    page.click("[data-action=add-provider]")
    page.select_option("#prov-kind", kind)
    page.fill("#prov-label", label)
    page.fill("#prov-url", base_url)
    if key:
        page.fill("#prov-key", key)
    if listed:
        page.click("[data-action=list-models]")
        page.wait_for_selector("#prov-model-pick")
    if model:
        page.fill("#prov-model", model)
    page.click("[data-action=save-provider]")
    page.locator(".provider", has_text=label).wait_for()


def provider_id(page: Any, label: str) -> str:
    return str(page.locator(".provider", has_text=label).first.get_attribute("data-provider-id"))


def posts(upstream: ScriptedUpstream) -> list[Any]:
    return [r for r in upstream.received if r.method == "POST"]


def open_picker(page: Any, provider: str) -> Any:
    page.click("[data-action=pick-model]")
    dialog = page.locator("[data-testid=model-dialog]")
    dialog.wait_for()
    page.select_option("#model-provider", provider)
    return dialog


def use(page: Any) -> None:
    page.click("[data-action=use-model]")
    page.locator("[data-testid=model-dialog]").wait_for(state="detached")


def wait_for_replies(page: Any, n: int) -> Any:
    page.wait_for_function(
        f"() => document.querySelectorAll('[data-role=assistant]:not([aria-busy]) .message-actions').length === {n}")
    return page.locator("[data-role=assistant]").last


@pytest.fixture
def servers() -> Iterator[dict[str, Any]]:
    keys = {"openai": "sk-" + secrets.token_hex(8), "anthropic": "sk-ant-" + secrets.token_hex(8)}
    names = {
        "openai": [f"gpt-{secrets.token_hex(2)}-{i}" for i in range(6)],
        # 130 models: two pages of Anthropic's list, and a filter above the picker's list
        "anthropic": [(f"claude-{secrets.token_hex(3)}-{i:03d}", f"Claude {i:03d}") for i in range(130)],
        "ollama": [f"llama3.2:{secrets.token_hex(2)}", f"mistral-nemo:{secrets.token_hex(2)}"],
    }
    with ScriptedUpstream(openai_models(names["openai"], keys["openai"]), cors=True) as oa, \
            ScriptedUpstream(anthropic_models(names["anthropic"], keys["anthropic"]), cors=True) as an, \
            ScriptedUpstream(ollama(names["ollama"], openai_list=False), cors=True) as ol, \
            ScriptedUpstream(no_listing(403), cors=True) as gw:
        yield {"keys": keys, "names": names, "openai": oa, "anthropic": an, "ollama": ol, "gateway": gw}


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_each_conversation_answers_with_the_model_picked_from_the_provider_s_own_list(
    context: Any, site_server: Any, servers: dict[str, Any], recorder: Any, shoot: Any, size: str
) -> None:
    keys, names = servers["keys"], servers["names"]
    page = open_app(context, site_server.url, SIZES[size])
    create_account(page)
    wait_for_service_worker(page)
    connect(page, "openai", servers["openai"].base_url, "OpenAI", keys["openai"])
    connect(page, "anthropic", servers["anthropic"].base_url, "Anthropic", keys["anthropic"])
    connect(page, "compatible", servers["ollama"].base_url, "Ollama")
    connect(page, "compatible", servers["gateway"].base_url, "Gateway", listed=False, model="house-default")
    ids = {label: provider_id(page, label) for label in ("OpenAI", "Anthropic", "Ollama", "Gateway")}
    # Anthropic's list was read page after page, with its headers.
    pages = [r.path for r in servers["anthropic"].received if r.method == "GET"]
    assert any("after_id=" in p for p in pages) and all(r.headers.get("x-api-key") == keys["anthropic"]
                                                         for r in servers["anthropic"].received if r.method == "GET")
    assert [r.path for r in servers["ollama"].received if r.method == "GET"] == ["/v1/models", "/api/tags"]

    page.click("[data-route=chat]")
    # Anthropic: 130 models from two pages, filtered, with their display names.
    open_picker(page, ids["Anthropic"])
    page.locator("#model-filter").wait_for()
    assert page.locator("[data-testid=model-list] li").count() == 131  # and the provider's own
    wanted, shown_name = names["anthropic"][117]
    page.fill("#model-filter", wanted[-10:])
    page.locator("[data-testid=model-list] li", has_text=shown_name).wait_for()
    assert page.locator("[data-testid=model-list] li").count() == 2
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"model-picker-{size}", full_page=False)
    page.locator("[data-testid=model-list] li", has_text=shown_name).locator("input").check()
    use(page)
    header = page.locator("[data-testid=answering-model]")
    assert header.locator(".model-name").inner_text() == wanted
    assert header.locator(".model-provider").inner_text() == "Anthropic"
    send(page, f"Écris à {NAME} pour jeudi.")
    reply = wait_for_replies(page, 1)
    assert reply.locator("[data-testid=reply-model]").inner_text() == wanted
    chat = posts(servers["anthropic"])[-1]
    assert chat.json()["model"] == wanted and chat.headers["x-api-key"] == keys["anthropic"]
    assert NAME not in chat.text() and "Dupont" not in chat.text()
    shoot(page, f"model-answering-{size}", full_page=False)

    # An older Ollama: its models come from /api/tags.
    open_picker(page, ids["Ollama"])
    choice = names["ollama"][1]
    page.locator("[data-testid=model-list] li", has_text=choice).locator("input").check()
    use(page)
    send(page, "Et vendredi ?")
    reply = wait_for_replies(page, 2)
    assert posts(servers["ollama"])[-1].json()["model"] == choice
    assert reply.locator("[data-testid=reply-model]").inner_text() == choice
    # The first reply still names the model that wrote it.
    assert page.locator("[data-testid=reply-model]").first.inner_text() == wanted

    # A gateway that will not list: it says so, and a typed name is used.
    open_picker(page, ids["Gateway"])
    page.locator("[data-testid=list-failed]").wait_for()
    typed = f"house-{secrets.token_hex(3)}"
    page.fill("#model-typed", typed)
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"model-typed-{size}", full_page=False)
    use(page)
    send(page, "Et samedi ?")
    wait_for_replies(page, 3)
    assert posts(servers["gateway"])[-1].json()["model"] == typed

    # OpenAI: the key went as a Bearer header, and a new conversation starts with the default's model.
    assert servers["openai"].received[0].headers["authorization"] == f"Bearer {keys['openai']}"
    for upstream in servers.values():
        if isinstance(upstream, ScriptedUpstream):
            assert NAME not in upstream.wire_text()
    assert NAME not in recorder.wire_text()
    assert serious_violations(page, site_server.url) == []
    assert page.ui_errors == []
