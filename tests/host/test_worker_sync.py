"""The page's door to sync (worker/sync_api.py): the account as sync records (API keys only when asked),
another device's records applied and stored so that a reopened worker has them, a change that does not
load refused with nothing applied, and the core's merge reached through the dispatch."""

from __future__ import annotations

import json
from typing import Any

from test_worker_app import KEY, NAME, Rig, rig, run, with_remote
from test_worker_dispatch import call

from openmasq.worker import records as rec


def test_another_devices_records_are_applied_stored_and_survive_a_reopen() -> None:
    async def body(a: Rig) -> None:
        await with_remote(a)
        conv = (await call(a, "createConversation", {"title": f"Dossier {NAME}"}))["ok"]
        card = (await call(a, "createCard", {"entity": NAME, "category": "personne", "facts": "Architecte."}))
        assert "ok" in card, card
        records = (await call(a, "syncRecords"))["ok"]
        assert {"account", "memory", f"conversation:{conv['id']}"} <= set(records)
        assert any(name.startswith("card:") for name in records)
        assert KEY not in json.dumps(records) and KEY in json.dumps((await call(a, "syncRecords", True))["ok"])

        b = rig()
        await b.app.open(b.records)
        applied = (await call(b, "syncApply", records))["ok"]
        assert applied["conversations"] == 1 and applied["cards"] == 1
        assert (await call(b, "getConversation", conv["id"]))["ok"]["title"] == f"Dossier {NAME}"
        reopened = await b.reopen()
        assert [c.entity for c in reopened.opened.document.memory.cards] == [NAME]
        assert rec.conv_key(conv["id"]) in b.records.data

        gone = (await call(b, "syncApply", {f"conversation:{conv['id']}": None}))["ok"]
        assert gone["conversations"] == 0 and rec.conv_key(conv["id"]) not in b.records.data

    run(body)


def test_a_change_that_does_not_load_is_refused_and_nothing_is_applied() -> None:
    async def body(r: Rig) -> None:
        conv = (await call(r, "createConversation", {"title": "Avant"}))["ok"]
        before = dict(r.records.data)
        broken: dict[str, Any] = {f"conversation:{conv['id']}": {"id": conv["id"], "vault": "not a vault"},
                                  "card:new": {"id": "new", "entity": NAME}}
        refused = await call(r, "syncApply", broken)
        assert refused["error"]["name"] == "BadRequest" and "nothing applied" in refused["error"]["message"]
        assert r.records.data == before
        assert (await call(r, "getConversation", conv["id"]))["ok"]["title"] == "Avant"
        assert (await call(r, "syncApply", {"card:x": "text"}))["error"]["name"] == "BadRequest"

    run(body)


def test_the_merge_the_engine_asks_for_is_the_cores() -> None:
    async def body(r: Rig) -> None:
        base = {"id": "c1", "entity": NAME, "sentences": [], "updated_at": 1}
        ours = {**base, "entity": f"{NAME} (Brunet)", "updated_at": 2}
        merged = (await call(r, "syncMerge", "card:c1", base, ours, None))["ok"]
        assert merged == ours  # an edit beats a delete
        assert (await call(r, "syncMerge", "elsewhere", None, {}, {}))["error"]["name"] == "BadRequest"

    run(body)


def test_the_sync_settings_are_kept_with_the_account_and_a_bad_address_is_refused() -> None:
    async def body(r: Rig) -> None:
        assert (await call(r, "syncConfig"))["ok"]["url"] == ""
        saved = (await call(r, "saveSyncConfig", {"url": " http://127.0.0.1:5984/openmasq-alice ", "user": "alice",
                                                   "password": "pw", "code": "ABCD"}))["ok"]
        assert saved["url"] == "http://127.0.0.1:5984/openmasq-alice" and saved["with_api_keys"] is False
        reopened = await r.reopen()
        assert "sync" in r.records.data and reopened.opened.document.conversations == []
        assert (await call(r, "syncConfig"))["ok"]["user"] == "alice"
        assert "sync:" not in json.dumps((await call(r, "syncRecords"))["ok"]) and "pw" not in json.dumps(
            (await call(r, "syncRecords"))["ok"])
        bad = await call(r, "saveSyncConfig", {"url": "ftp://example"})
        assert bad["error"]["name"] == "BadRequest" and (await call(r, "syncConfig"))["ok"]["user"] == "alice"

    run(body)
