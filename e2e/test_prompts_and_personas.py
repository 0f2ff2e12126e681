"""Instructions and usage in the real page (issue 18, items 4 and 6), at laptop and phone sizes, axe clean.

Item 4: a persona made in Settings (its instructions name a real person and her e-mail, its default model
typed) and a conversation's own system prompt (another real person and e-mail) reach the loopback provider
only as fakes: the wire audit reads every request the provider received and every request the browser made.
The conversation moves to the persona's model; "see what the model will receive" shows the masking.

Item 6: the provider reports token counts drawn per run (OpenAI's usage chunk, sent because the request
asks `stream_options.include_usage`); each reply shows them, the conversation its total, and once the user
gives the model's prices in Settings, the estimated cost."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import wait_for_service_worker
from test_chat import EMPTY_CURRENT, LAPTOP, create_account, open_app, pick_model, send, wait_for_reply
from test_memory import serious_violations
from test_models import connect

from openmasq.testing.model_lists import anthropic_models
from openmasq.testing.upstream import (
    SSE_HEADERS,
    Received,
    Reply,
    ScriptedUpstream,
    echo_script,
    last_user_text,
    openai_stream,
    sse,
)

SIZES = {"laptop": LAPTOP, "phone": {"width": 360, "height": 780}}
PERSONA_REAL = ("Jacques Lemoine", "j.lemoine@cabinet-lemoine.fr")
PROMPT_REAL = ("Hélène Marchal", "helene.marchal@atelier-brume.fr")
PERSONA_TEXT = (f"Tu rédiges pour {PERSONA_REAL[0]} ({PERSONA_REAL[1]}), avocat à Lyon. "
                "Réponds toujours en trois phrases.")
PROMPT_TEXT = f"La cliente s'appelle {PROMPT_REAL[0]}, son adresse est {PROMPT_REAL[1]}. Sois cordial."
REALS = (*PERSONA_REAL, *PROMPT_REAL, "Lemoine", "Marchal", "cabinet-lemoine", "atelier-brume")


def new_conversation(page: Any, size: str) -> None:
    """A new conversation from the list (laptop) or the header's button (phone: the list is in the drawer)."""
    page.click("[data-action=new-conversation]" if size == "laptop" else "[data-action=new-conversation-head]")
    page.wait_for_function(EMPTY_CURRENT)


def posts(upstream: ScriptedUpstream) -> list[Received]:
    return [r for r in upstream.received if r.method == "POST"]


def system_of(received: Received) -> str:
    return next(m["content"] for m in received.json()["messages"] if m["role"] == "system")


def add_persona(page: Any, name: str, instructions: str, provider: str, model: str) -> None:
    page.click("[data-route=settings]")
    panel = page.locator("[data-testid=personas]")
    panel.locator("[data-action=add-persona]").click()
    form = page.locator("[data-testid=persona-form]")
    form.wait_for()
    page.fill("#persona-name", name)
    page.fill("#persona-instructions", instructions)
    page.select_option("#persona-provider", provider)
    page.fill("#persona-model", model)
    page.click("[data-action=save-persona]")
    panel.locator(".persona", has_text=name).wait_for()


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_a_persona_and_a_system_prompt_reach_the_provider_only_as_fakes(
    context: Any, site_server: Any, provider: ScriptedUpstream, recorder: Any, shoot: Any, size: str
) -> None:
    page = open_app(context, site_server.url, SIZES[size])
    create_account(page)
    wait_for_service_worker(page)
    connect(page, "compatible", provider.base_url, "Scripted")
    provider_id = str(page.locator(".provider", has_text="Scripted").first.get_attribute("data-provider-id"))
    persona_model = f"persona-{secrets.token_hex(3)}"
    add_persona(page, "Secrétariat", PERSONA_TEXT, provider_id, persona_model)
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"personas-{size}")

    page.click("[data-route=chat]")
    new_conversation(page, size)
    page.click("[data-action=conversation-settings]")
    page.select_option("#conv-persona", label="Secrétariat")
    page.fill("#conv-system-prompt", PROMPT_TEXT)
    page.click("[data-action=preview-instructions]")
    preview = page.locator("[data-testid=instructions-preview]")
    preview.locator("mark").first.wait_for()
    masked = {m.inner_text() for m in preview.locator("mark").all()}
    assert set(PERSONA_REAL) | set(PROMPT_REAL) <= masked
    shown_wire = page.locator("[data-testid=instructions-wire]").inner_text()
    assert not [value for value in REALS if value in shown_wire] and "trois phrases" in shown_wire
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"instructions-{size}")
    page.click("#conv-settings-form button[type=submit]")
    page.locator("#conv-settings-form").wait_for(state="detached")
    # The persona's model answers this conversation now.
    page.locator("[data-testid=answering-model] .model-name", has_text=persona_model).wait_for()

    send(page, f"Prépare un courrier pour {PROMPT_REAL[0]}.")
    wait_for_reply(page)
    sent = posts(provider)[-1]
    system = system_of(sent)
    assert sent.json()["model"] == persona_model
    assert "trois phrases" in system and "Sois cordial." in system
    assert system.index("trois phrases") < system.index("Sois cordial.")  # the persona's first
    assert [value for value in REALS if value in provider.wire_text()] == []
    assert [value for value in REALS if value in recorder.wire_text()] == []
    # The fake of the system prompt's person is the one the typed text got: one vault.
    reopened = page.locator("[data-testid=instructions-wire]")
    page.click("[data-action=conversation-settings]")
    page.click("[data-action=preview-instructions]")
    reopened.wait_for()
    assert reopened.inner_text() == system
    page.keyboard.press("Escape")
    page.locator("#conv-settings-form").wait_for(state="detached")

    # The command palette starts a new conversation with the persona: its model answers there too.
    first = page.locator(".conv.current").get_attribute("data-conv-id")
    page.keyboard.press("Control+K")
    page.locator("[data-testid=palette]").wait_for()
    page.keyboard.type("secretariat")  # accents and case do not matter
    page.locator("[data-testid=palette] [aria-selected=true][data-command^=persona-]").wait_for()
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.querySelector('.conv.current')?.dataset.convId !== '{first}'")
    page.wait_for_function(EMPTY_CURRENT)
    page.locator("[data-testid=answering-model] .model-name", has_text=persona_model).wait_for()
    page.click("[data-action=conversation-settings]")
    assert page.locator("#conv-persona option:checked").inner_text() == "Secrétariat"
    page.keyboard.press("Escape")
    assert page.ui_errors == []


def counted(tokens: dict[str, int]) -> Any:
    """Echoes, streamed, with the token counts of `tokens` (drawn per test) in OpenAI's usage chunk."""
    def script(received: Received) -> Reply:
        if received.method != "POST" or received.json().get("stream") is not True:
            return echo_script(received)
        assert received.json().get("stream_options") == {"include_usage": True}
        text = "Reçu : " + last_user_text(received)
        pieces = openai_stream([text[i: i + 4] for i in range(0, len(text), 4)])[:-2]
        usage = {"prompt_tokens": tokens["in"], "completion_tokens": tokens["out"],
                 "total_tokens": tokens["in"] + tokens["out"]}
        pieces += [sse({"id": "c", "object": "chat.completion.chunk", "choices": [], "usage": usage}), sse("[DONE]")]
        return Reply(chunks=pieces, headers=SSE_HEADERS)
    return script


@pytest.fixture
def counting() -> Iterator[tuple[ScriptedUpstream, dict[str, int]]]:
    tokens = {"in": 1_000 + secrets.randbelow(90_000), "out": 10 + secrets.randbelow(900)}
    with ScriptedUpstream(counted(tokens), cors=True) as upstream:
        yield upstream, tokens


def digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_each_reply_shows_its_tokens_the_conversation_its_total_and_a_cost_once_priced(
    context: Any, site_server: Any, counting: tuple[ScriptedUpstream, dict[str, int]], shoot: Any, size: str
) -> None:
    upstream, tokens = counting
    page = open_app(context, site_server.url, SIZES[size])
    create_account(page)
    wait_for_service_worker(page)
    connect(page, "compatible", upstream.base_url, "Scripted")
    page.click("[data-route=chat]")
    new_conversation(page, size)
    send(page, "Bonjour")
    reply = wait_for_reply(page)
    line = reply.locator("[data-testid=reply-usage]")
    line.wait_for()
    assert line.get_attribute("data-input") == str(tokens["in"])
    assert line.get_attribute("data-output") == str(tokens["out"])
    assert digits(line.inner_text()).startswith(str(tokens["in"]))
    assert reply.locator("[data-testid=reply-cost]").count() == 0
    send(page, "Encore")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=reply-usage]').length === 2")
    total = page.locator("[data-testid=conversation-usage]")
    page.wait_for_function("() => document.querySelector('[data-testid=conversation-usage]')?.dataset.input"
                           f" === '{2 * tokens['in']}'")
    assert total.get_attribute("data-output") == str(2 * tokens["out"])

    # Prices in Settings: the reply's model (the provider's first listed) at 3 and 15 per million, in euros.
    model = page.locator("[data-testid=reply-model]").last.inner_text()
    page.click("[data-route=settings]")
    prices = page.locator("[data-testid=prices]")
    prices.locator("[data-action=add-price]").click()
    page.fill("#price-currency", "EUR")
    page.fill("#price-model-0", model)
    page.fill("#price-in-0", "3")
    page.fill("#price-out-0", "15")
    prices.locator("[data-action=save-prices]").click()
    page.locator(".toast", has_text="Prix enregistrés").wait_for()
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"prices-{size}")
    page.click("[data-route=chat]")
    cost = page.locator("[data-testid=reply-cost]").last
    cost.wait_for()
    expected = (tokens["in"] * 3 + tokens["out"] * 15) / 1_000_000
    assert "€" in cost.inner_text()
    shown = float(re.sub(r"[^0-9,.]", "", cost.inner_text()).replace(",", "."))
    assert abs(shown - expected) <= 0.005 + 1e-9  # rounded to the cent (or to 4 digits under one)
    assert "€" in page.locator("[data-testid=conversation-cost]").inner_text()
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"usage-{size}", full_page=False)
    assert page.ui_errors == []


def anthropic_counted(tokens: dict[str, int], key: str) -> Any:
    """Anthropic's list behind its key, and a streamed message whose counts are drawn per test: input and a
    first output count in message_start, the output count grown in message_delta (as Anthropic streams)."""
    listing = anthropic_models([("claude-counted", "Claude counted")], key)

    def script(received: Received) -> Reply:
        if received.method != "POST" or not received.path.endswith("/messages"):
            return listing(received)
        text = "Reçu : " + last_user_text(received)
        start = {"type": "message_start", "message": {"id": "msg", "type": "message", "role": "assistant",
                 "content": [], "usage": {"input_tokens": tokens["in"], "output_tokens": 1}}}
        chunks = [sse(start, "message_start"),
                  sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                      "content_block_start"),
                  *(sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}},
                        "content_block_delta") for p in (text[:5], text[5:])),
                  sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
                  sse({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                       "usage": {"output_tokens": tokens["out"]}}, "message_delta"),
                  sse({"type": "message_stop"}, "message_stop")]
        return Reply(chunks=chunks, headers=SSE_HEADERS)
    return script


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_an_anthropic_reply_counts_its_input_from_message_start_and_its_output_once(
    context: Any, site_server: Any, shoot: Any, size: str
) -> None:
    tokens = {"in": 500 + secrets.randbelow(50_000), "out": 2 + secrets.randbelow(2_000)}
    key = "sk-ant-" + secrets.token_hex(8)
    with ScriptedUpstream(anthropic_counted(tokens, key), cors=True) as upstream:
        page = open_app(context, site_server.url, SIZES[size])
        create_account(page)
        wait_for_service_worker(page)
        connect(page, "anthropic", upstream.base_url, "Anthropic", key)
        page.click("[data-route=chat]")
        new_conversation(page, size)
        send(page, "Bonjour")
        line = wait_for_reply(page).locator("[data-testid=reply-usage]")
        line.wait_for()
        assert line.get_attribute("data-input") == str(tokens["in"])
        assert line.get_attribute("data-output") == str(tokens["out"])  # not 1 + out
        assert serious_violations(page, site_server.url) == []
        shoot(page, f"usage-anthropic-{size}", full_page=False)
        assert page.ui_errors == []


ACCOUNT_REAL = ("Odile Ferrand", "odile.ferrand@ferrand-avocats.fr")
ACCOUNT_TEXT = f"Je suis {ACCOUNT_REAL[0]}, joignable à {ACCOUNT_REAL[1]}. Vouvoie-moi toujours."
ACCOUNT_REALS = (*ACCOUNT_REAL, "Ferrand", "ferrand-avocats")


def set_account_prompt(page: Any, text: str) -> Any:
    """Settings → the account's system prompt: typed and saved; the panel is returned."""
    page.click("[data-route=settings]")
    panel = page.locator("[data-testid=account-prompt]")
    page.fill("#account-system-prompt", text)
    panel.locator("[data-action=save-account-prompt]").click()
    page.locator(".toast", has_text="Prompt système du compte enregistré").wait_for()
    return panel


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_the_accounts_system_prompt_is_set_in_settings_shown_masked_and_leaves_only_as_fakes(
    context: Any, site_server: Any, provider: ScriptedUpstream, recorder: Any, shoot: Any, size: str
) -> None:
    page = open_app(context, site_server.url, SIZES[size])
    create_account(page)
    wait_for_service_worker(page)
    connect(page, "compatible", provider.base_url, "Scripted")
    page.click("[data-route=settings]")
    panel = page.locator("[data-testid=account-prompt]")
    page.fill("#account-system-prompt", ACCOUNT_TEXT)
    panel.locator("[data-action=preview-account-prompt]").click()
    preview = panel.locator("[data-testid=instructions-preview]")
    preview.locator("mark").first.wait_for()
    assert set(ACCOUNT_REAL) <= {m.inner_text() for m in preview.locator("mark").all()}
    shown_wire = panel.locator("[data-testid=instructions-wire]").inner_text()
    assert [v for v in ACCOUNT_REALS if v in shown_wire] == [] and "Vouvoie-moi toujours." in shown_wire
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"account-prompt-{size}")
    set_account_prompt(page, ACCOUNT_TEXT)

    page.click("[data-route=chat]")
    new_conversation(page, size)
    send(page, "Bonjour, peux-tu m'aider ?")
    wait_for_reply(page)
    system = system_of(posts(provider)[-1])
    assert "Vouvoie-moi toujours." in system and "Je suis " in system
    assert [v for v in ACCOUNT_REALS if v in provider.wire_text()] == []
    assert [v for v in ACCOUNT_REALS if v in recorder.wire_text()] == []
    # Kept: Settings shows it again after the chat screen, and the page asked nothing of it to leave.
    page.click("[data-route=settings]")
    assert page.input_value("#account-system-prompt") == ACCOUNT_TEXT
    assert page.ui_errors == []


def test_one_model_id_at_two_providers_is_priced_at_the_provider_of_each_reply(
    context: Any, site_server: Any, shoot: Any
) -> None:
    tokens = {"in": 100_000, "out": 1_000}
    with (ScriptedUpstream(counted(tokens), cors=True) as direct,
          ScriptedUpstream(counted(tokens), cors=True) as gateway):
        page = open_app(context, site_server.url)
        create_account(page)
        connect(page, "compatible", direct.base_url, "Direct")
        connect(page, "compatible", gateway.base_url, "Passerelle")  # tested last: the default
        direct_id = str(page.locator(".provider", has_text="Direct").first.get_attribute("data-provider-id"))
        gateway_id = str(page.locator(".provider", has_text="Passerelle").first.get_attribute("data-provider-id"))
        page.click("[data-route=chat]")
        new_conversation(page, "laptop")
        send(page, "Bonjour")
        wait_for_reply(page)
        model = page.locator("[data-testid=reply-model]").last.inner_text()
        pick_model(page, direct_id)
        send(page, "Encore")
        page.wait_for_function("() => document.querySelectorAll('[data-testid=reply-usage]').length === 2")
        assert page.locator("[data-testid=reply-model]").last.inner_text() == model  # the same model id
        assert (len(posts(gateway)), len(posts(direct))) == (1, 1)

        page.click("[data-route=settings]")
        prices = page.locator("[data-testid=prices]")
        page.fill("#price-currency", "EUR")
        for row, (provider_id, price) in enumerate(((direct_id, "1"), (gateway_id, "10"))):
            prices.locator("[data-action=add-price]").click()
            page.select_option(f"#price-provider-{row}", provider_id)
            page.fill(f"#price-model-{row}", model)
            page.fill(f"#price-in-{row}", price)
            page.fill(f"#price-out-{row}", price)
        prices.locator("[data-action=save-prices]").click()
        page.locator(".toast", has_text="Prix enregistrés").wait_for()
        assert serious_violations(page, site_server.url) == []
        page.click("[data-route=chat]")
        page.wait_for_function("() => document.querySelectorAll('[data-testid=reply-cost]').length === 2")
        costs = [float(re.sub(r"[^0-9,.]", "", c.inner_text()).replace(",", "."))
                 for c in page.locator("[data-testid=reply-cost]").all()]
        per_million = (tokens["in"] + tokens["out"]) / 1_000_000
        assert costs == [round(10 * per_million, 2), round(1 * per_million, 2)]  # the gateway's, then direct's
        shoot(page, "two-providers-priced", full_page=False)
        assert page.ui_errors == []
