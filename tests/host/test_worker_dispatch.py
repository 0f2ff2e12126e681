"""The App API at the JS boundary (worker/dispatch.py): page method names, JSON in and out, errors
with a name the page can test, and a send's events as JSON texts in order."""

from __future__ import annotations

import json
from typing import Any

from test_worker_app import TEXT, Rig, in_fresh_loop, rig, run, with_remote

from openmasq.worker import dispatch


async def call(r: Rig, method: str, *args: Any, events: list[str] | None = None) -> Any:
    emit = events.append if events is not None else None
    return json.loads(await dispatch.call(r.app, method, json.dumps(list(args)), emit))


def test_every_page_method_names_an_app_method() -> None:
    r = rig()
    assert [name for name, (method, _) in dispatch.METHODS.items() if not hasattr(r.app, method)] == []


def test_results_come_back_as_ok_json() -> None:
    async def body(r: Rig) -> None:
        created = (await call(r, "createConversation", {"title": "Voyage"}))["ok"]
        assert (await call(r, "listConversations", "voy"))["ok"][0]["id"] == created["id"]

    run(body)


def test_errors_come_back_with_their_name() -> None:
    async def body(r: Rig) -> None:
        assert await call(r, "getConversation", "nope") == {
            "error": {"name": "NotFound", "message": "no conversation 'nope'"}}
        assert (await call(r, "noSuchMethod"))["error"]["name"] == "BadRequest"
        assert (await call(r, "renameConversation"))["error"]["name"] == "BadRequest"  # missing arguments

    run(body)


def test_a_locked_app_answers_locked() -> None:
    async def body() -> Any:
        return await call(rig(), "getSettings")

    assert in_fresh_loop(body())["error"]["name"] == "Locked"


def test_a_send_streams_its_events_as_json_texts() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = (await call(r, "createConversation", {}))["ok"]
        events: list[str] = []
        assert await call(r, "send", conv["id"], TEXT, events=events) == {"ok": {"status": "done"}}
        kinds = [json.loads(e)["type"] for e in events]
        assert kinds[0] == "saved" and kinds[-1] == "done" and kinds.count("delta") >= 1

    run(body)
