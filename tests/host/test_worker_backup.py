"""The page's door to conversation backups (worker/backup_api.py, issue 18 item 7) between two accounts: a
whole-account JSON export carries the conversations with their system prompt, persona, usage and versions,
the personas, the providers used (no key) and the account's prompt and prices; imported into a fresh account
that has the same provider, everything comes back (the provider found again by its address), the costs are
the same; the same file again adds nothing; a file of a newer build is refused as such, changing nothing."""

from __future__ import annotations

import json
from typing import Any

from test_worker_app import EMAIL, KEY, NAME, Rig, in_fresh_loop, rig, stored, with_remote
from test_worker_dispatch import call

from openmasq.worker import records as rec

PROMPT = f"Le dossier est celui de {NAME} ({EMAIL})."
ACCOUNT_PROMPT = "Réponds en français, sans formules."


async def opened() -> Rig:
    r = rig()
    await r.app.open(r.records)
    return r


async def source_account(r: Rig) -> dict[str, Any]:
    provider = await with_remote(r)
    persona = (await call(r, "savePersona", {"name": "Notaire", "instructions": "Cite les actes.",
                                              "provider": provider, "model": "notary-1"}))["ok"]
    conv = (await call(r, "createConversation", {"title": "Succession"}))["ok"]
    await call(r, "setInstructions", conv["id"], {"system_prompt": PROMPT, "persona": persona["id"]})
    await call(r, "send", conv["id"], "Bonjour", events=[])
    await call(r, "updateSettings", {"system_prompt": ACCOUNT_PROMPT})
    await call(r, "setPrices", [{"provider": provider, "model": "notary-1", "input": 3.0, "output": 15.0}], "EUR")
    return {"provider": provider, "persona": persona, "conv": conv}


def test_a_whole_account_backup_brings_everything_back_in_a_fresh_account_and_only_once() -> None:
    async def main() -> None:
        source = await opened()
        made = await source_account(source)
        usage_before = (await call(source, "conversationUsage", made["conv"]["id"]))["ok"]["total"]
        file = (await call(source, "exportConversations", None, "json"))["ok"]
        doc = json.loads(file["text"])
        # What the file holds, read as it is.
        conv = doc["conversations"][0]
        assert (conv["system_prompt"], conv["persona"], conv["model"]) == (PROMPT, made["persona"]["id"], "notary-1")
        assert [m["usage"]["input_tokens"] > 0 for m in conv["messages"] if m["role"] == "assistant"] == [True]
        assert doc["personas"][0]["name"] == "Notaire" and doc["account"]["system_prompt"] == ACCOUNT_PROMPT
        assert doc["account"]["prices"][0]["provider"] == made["provider"] and doc["account"]["currency"] == "EUR"
        assert [p["base_url"] for p in doc["providers"]] == ["http://127.0.0.1:9/v1"]
        assert KEY not in file["text"]

        target = await opened()
        await target.app.save_provider({"kind": "compatible", "label": "Autre", "base_url": "http://127.0.0.1:7/v1",
                                        "api_key": KEY, "model": "other"})
        mine = await with_remote(target)  # the same server, another id in this account
        assert mine != made["provider"]
        report = (await call(target, "importConversations", file["text"]))["ok"]
        assert len(report["added"]) == 1 and report["personas"]["added"] == 1 and report["providers_missing"] == []
        assert report["account"]["system_prompt"] == "set" and report["account"]["prices_added"] == 1
        back = (await call(target, "getConversation", report["added"][0]["id"]))["ok"]
        assert (back["system_prompt"], back["provider_id"], back["model"]) == (PROMPT, mine, "notary-1")
        persona = (await call(target, "listPersonas"))["ok"][0]
        assert (persona["id"], persona["provider"], persona["model"]) == (back["persona"], mine, "notary-1")
        settings = (await call(target, "getSettings"))["ok"]
        assert settings["system_prompt"] == ACCOUNT_PROMPT
        prices = (await call(target, "usageSettings"))["ok"]
        assert prices == {"currency": "EUR", "prices": [{"provider": mine, "model": "notary-1",
                                                         "input": 3.0, "output": 15.0}]}
        assert (await call(target, "conversationUsage", back["id"]))["ok"]["total"] == usage_before
        # Kept in the target's records, not only in memory.
        assert stored(target, rec.SETTINGS)["personas"][0]["name"] == "Notaire"
        reopened = await target.reopen()
        assert reopened.opened.document.settings.system_prompt == ACCOUNT_PROMPT

        again = (await call(target, "importConversations", file["text"]))["ok"]
        assert again["added"] == [] and again["skipped"][0]["why"] == "same-id"
        assert again["personas"] == {"added": 0, "same": 1, "unmatched": 0}
        assert again["account"]["system_prompt"] == "same" and again["account"]["prices_added"] == 0
        assert len((await call(target, "listPersonas"))["ok"]) == 1

    in_fresh_loop(main())


def test_a_backup_of_a_newer_build_is_refused_as_such_and_changes_nothing() -> None:
    async def main() -> None:
        source = await opened()
        await source_account(source)
        text = (await call(source, "exportConversations", None, "json"))["ok"]["text"]
        target = await opened()
        before = dict(target.records.data)
        for change in ({"version": 99}, {"state_version": 99}):
            newer = json.dumps(json.loads(text) | change)
            error = (await call(target, "importConversations", newer))["error"]
            assert error["name"] == "NewerBackup" and "newer OpenMasq" in error["message"]
        assert target.records.data == before and (await call(target, "listConversations"))["ok"] == []

    in_fresh_loop(main())


def test_one_conversations_backup_carries_its_persona_but_not_the_accounts_part() -> None:
    async def main() -> None:
        source = await opened()
        made = await source_account(source)
        await call(source, "savePersona", {"name": "Autre", "instructions": "Rien."})
        one = (await call(source, "exportConversations", [made["conv"]["id"]], "json"))["ok"]
        doc = json.loads(one["text"])
        assert [p["name"] for p in doc["personas"]] == ["Notaire"] and "account" not in doc

    in_fresh_loop(main())
