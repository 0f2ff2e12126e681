"""The page's door to instructions and usage (worker/instructions_api.py, issue 18 items 4 and 6): personas
stored with the settings, a conversation's system prompt and persona on the wire only as fakes, the
persona's provider and model, and the tokens and cost of a conversation's replies."""

from __future__ import annotations

import json
from typing import Any

from test_worker_app import EMAIL, NAME, Rig, leaked, run, stored, with_remote
from test_worker_dispatch import call

from openmasq.store import DOCUMENT_VERSION
from openmasq.worker import records as rec

PROMPT = f"Tu assistes {NAME} ({EMAIL}). Signe de son nom."


def system_of(r: Rig, index: int = -1) -> str:
    body = json.loads(r.egress.sent[index].spec["body"])
    return next(m["content"] for m in body["messages"] if m["role"] == "system")


def test_a_system_prompt_and_a_persona_leave_only_as_fakes() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        persona = (await call(r, "savePersona", {"name": "Secrétaire", "instructions": f"Écris comme {NAME}."}))["ok"]
        conv = (await call(r, "createConversation", {}))["ok"]
        view = (await call(r, "setInstructions", conv["id"], {"system_prompt": PROMPT, "persona": persona["id"]}))["ok"]
        assert view["system_prompt"] == PROMPT and view["persona"] == persona["id"]
        assert (await call(r, "send", conv["id"], "Bonjour", events=[]))["ok"]["status"] == "done"
        system = system_of(r)
        assert leaked(r.egress.wire()) == [] and "Écris comme" in system and "Signe de son nom." in system
        preview = (await call(r, "previewInstructions", conv["id"]))["ok"]
        assert preview["wire"] in system and {s["value"] for s in preview["spans"]} >= {NAME, EMAIL}

    run(body)


def test_personas_are_kept_with_the_settings_and_a_deleted_one_leaves_its_conversations() -> None:
    async def body(r: Rig) -> None:
        persona = (await call(r, "savePersona", {"name": "Juriste", "instructions": "Cite le Code civil."}))["ok"]
        assert stored(r, rec.SETTINGS)["personas"] == [persona]
        conv = (await call(r, "createConversation", {}))["ok"]
        await call(r, "setInstructions", conv["id"], {"persona": persona["id"]})
        reopened = await r.reopen()
        assert [p.name for p in reopened.opened.document.personas] == ["Juriste"]
        await call(r, "deletePersona", persona["id"])
        assert (await call(r, "getConversation", conv["id"]))["ok"]["persona"] is None
        assert (await call(r, "savePersona", {"name": " "}))["error"]["name"] == "BadRequest"

    run(body)


def test_choosing_a_persona_moves_the_conversation_to_its_model() -> None:
    async def body(r: Rig) -> None:
        provider = await with_remote(r)
        persona = (await call(r, "savePersona", {"name": "Codeur", "instructions": "Réponds en Python.",
                                                  "provider": provider, "model": "coder-1"}))["ok"]
        assert (persona["provider"], persona["model"]) == (provider, "coder-1")
        conv = (await call(r, "createConversation", {}))["ok"]
        view = (await call(r, "setInstructions", conv["id"], {"persona": persona["id"]}))["ok"]
        assert (view["provider_id"], view["model"]) == (provider, "coder-1")
        await call(r, "send", conv["id"], "Bonjour", events=[])
        assert json.loads(r.egress.sent[-1].spec["body"])["model"] == "coder-1"

    run(body)


def test_a_conversations_usage_is_per_reply_and_priced_by_the_users_prices() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = (await call(r, "createConversation", {}))["ok"]
        await call(r, "send", conv["id"], "Bonjour", events=[])
        await call(r, "send", conv["id"], "Encore", events=[])
        usage: dict[str, Any] = (await call(r, "conversationUsage", conv["id"]))["ok"]
        replies = [m for m in (await call(r, "getConversation", conv["id"]))["ok"]["message_list"]
                   if m["role"] == "assistant"]
        assert set(usage["replies"]) == {m["id"] for m in replies}
        first = usage["replies"][replies[0]["id"]]
        assert first["input"] > 0 and first["output"] > 0 and first["cost"] is None
        assert usage["total"]["input"] == sum(u["input"] for u in usage["replies"].values())
        saved = (await call(r, "setPrices", {"scripted-model": {"input": 2.0, "output": 8.0}}, "eur"))["ok"]
        assert saved["currency"] == "EUR"
        priced = (await call(r, "conversationUsage", conv["id"]))["ok"]
        total = priced["total"]
        assert abs(total["cost"] - (total["input"] * 2.0 + total["output"] * 8.0) / 1e6) < 1e-12
        assert total["unpriced"] == 0 and priced["currency"] == "EUR"
        assert (await call(r, "setPrices", {"m": {"input": -1, "output": 0}}))["error"]["name"] == "BadRequest"

    run(body)


def test_records_written_by_a_version_4_build_open_and_are_saved_back_at_the_latest_version() -> None:
    async def body(r: Rig) -> None:
        conv = (await call(r, "createConversation", {"title": "Ancienne"}))["ok"]
        # What a version 4 build stored: no personas, no instructions in the conversation.
        for key in list(r.records.data):
            doc = json.loads(r.records.data[key])
            doc["version"] = 4
            doc.pop("personas", None)
            if "conversation" in doc:
                doc["conversation"].pop("system_prompt", None)
                doc["conversation"].pop("persona", None)
            r.records.data[key] = json.dumps(doc)
        app = await r.reopen()
        assert app.opened.document.personas == [] and app.opened.unreadable == []
        assert app._conversation(conv["id"]).title == "Ancienne"
        r.app = app
        await call(r, "setInstructions", conv["id"], {"system_prompt": PROMPT})
        await call(r, "savePersona", {"name": "Juriste", "instructions": "Cite le Code civil."})
        assert stored(r, rec.conv_key(conv["id"]))["version"] == DOCUMENT_VERSION
        assert stored(r, rec.conv_key(conv["id"]))["conversation"]["system_prompt"] == PROMPT
        settings = stored(r, rec.SETTINGS)
        assert settings["version"] == DOCUMENT_VERSION and settings["personas"][0]["name"] == "Juriste"

    run(body)


def test_one_model_id_at_two_providers_is_priced_at_the_provider_that_wrote_each_reply() -> None:
    async def body(r: Rig) -> None:
        direct = await with_remote(r)
        gateway = await with_remote(r, base_url="http://127.0.0.1:8/v1")  # the same "scripted-model" id
        conv = (await call(r, "createConversation", {}))["ok"]
        await call(r, "send", conv["id"], "Bonjour", events=[])  # answered at the gateway (the default now)
        await call(r, "updateConversation", conv["id"], {"provider_id": direct})
        await call(r, "send", conv["id"], "Encore", events=[])
        prices = [{"provider": direct, "model": "scripted-model", "input": 1.0, "output": 2.0},
                  {"provider": gateway, "model": "scripted-model", "input": 10.0, "output": 20.0}]
        saved = (await call(r, "setPrices", prices, "EUR"))["ok"]
        assert {(p["provider"], p["input"]) for p in saved["prices"]} == {(direct, 1.0), (gateway, 10.0)}
        usage = (await call(r, "conversationUsage", conv["id"]))["ok"]
        messages = [m for m in (await call(r, "getConversation", conv["id"]))["ok"]["message_list"]
                    if m["role"] == "assistant"]
        at_gateway, at_direct = (usage["replies"][m["id"]] for m in messages)
        assert at_gateway["cost"] == (at_gateway["input"] * 10.0 + at_gateway["output"] * 20.0) / 1e6
        assert at_direct["cost"] == (at_direct["input"] * 1.0 + at_direct["output"] * 2.0) / 1e6
        assert usage["total"]["cost"] == at_gateway["cost"] + at_direct["cost"]
        # A price for any provider holds where none of the provider's own is given.
        anywhere = {"provider": "", "model": "scripted-model", "input": 5.0, "output": 5.0}
        await call(r, "setPrices", [prices[0], anywhere])
        usage = (await call(r, "conversationUsage", conv["id"]))["ok"]
        assert usage["replies"][messages[0]["id"]]["cost"] == (at_gateway["input"] + at_gateway["output"]) * 5.0 / 1e6
        assert (await call(r, "setPrices", [{"provider": "nope", "model": "m", "input": 1, "output": 1}]))[
            "error"]["name"] == "NotFound"
        twice = [prices[0], prices[0]]
        assert (await call(r, "setPrices", twice))["error"]["name"] == "BadRequest"

    run(body)


def test_the_accounts_system_prompt_is_previewed_masked_and_leaves_only_as_fakes() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        preview = (await call(r, "previewAccountPrompt", PROMPT))["ok"]
        assert {s["value"] for s in preview["spans"]} >= {NAME, EMAIL} and leaked(preview["wire"]) == []
        assert "Signe de son nom." in preview["wire"]
        await call(r, "updateSettings", {"system_prompt": PROMPT})
        conv = (await call(r, "createConversation", {}))["ok"]
        await call(r, "send", conv["id"], "Bonjour", events=[])
        assert "Signe de son nom." in system_of(r) and leaked(r.egress.wire()) == []
        assert (await call(r, "previewAccountPrompt", ""))["ok"]["wire"] == ""
        too_long = "x" * 20_001
        assert (await call(r, "updateSettings", {"system_prompt": too_long}))["error"]["name"] == "BadRequest"
        assert (await call(r, "previewAccountPrompt", too_long))["error"]["name"] == "BadRequest"

    run(body)
