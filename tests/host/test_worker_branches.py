"""The worker's versions of a turn (issue 18): an edit and a regeneration keep the earlier turns as a
version, stored and back after a reload; only the active branch reaches the provider (through the
send's redaction: the other branches' words never leave); a failed turn is never replayed before the
next one; the list previews plain text; "new conversation" reuses an empty untitled one."""

from __future__ import annotations

import json
from typing import Any

from test_worker_app import NAME, REALS, Rig, leaked, openai_ok, run, stored, with_remote

from openmasq.store.migrations import LATEST_VERSION
from openmasq.worker import AppError, Head

NEW_CLIENT = "Romain Berthelot"  # a real name only the edited message says


def requests(r: Rig) -> list[list[dict[str, Any]]]:
    """The messages of every chat request that left, in order."""
    return [s.body["messages"] for s in r.egress.sent if s.body.get("messages")]


def wire_of(r: Rig, index: int) -> str:
    return json.dumps(requests(r)[index], ensure_ascii=False)


async def two_turns(r: Rig) -> tuple[str, list[dict[str, Any]]]:
    await with_remote(r)
    conv = await r.app.create_conversation()
    r.egress.then(openai_ok(["Première réponse."]), openai_ok(["Seconde réponse."]))
    await r.app.send(conv["id"], f"Écris à {NAME} pour le devis banane.", r.on_event)
    await r.app.send(conv["id"], "Ajoute le prix cerise.", r.on_event)
    view = await r.app.get_conversation(conv["id"])
    return conv["id"], view["message_list"]


def texts(view: dict[str, Any]) -> list[str]:
    return [m["text"] for m in view["message_list"]]


def test_an_edited_message_sends_only_its_branch_and_the_old_turns_stay_a_version() -> None:
    async def body(r: Rig) -> None:
        conv_id, messages = await two_turns(r)
        r.egress.then(openai_ok(["Réponse éditée."]))
        result = await r.app.edit_message(conv_id, messages[0]["id"], f"Écris à {NEW_CLIENT} pour le devis kiwi.",
                                          r.on_event)
        assert result == {"status": "done"}
        sent = requests(r)[-1]
        # The edited first turn goes alone: nothing of the earlier branch (its words, its replies, its person).
        assert [m["role"] for m in sent] == ["user"]
        wire = wire_of(r, -1)
        assert "banane" not in wire and "cerise" not in wire and "Première" not in wire and "kiwi" in wire
        assert NEW_CLIENT not in wire and "Berthelot" not in wire and leaked(wire) == []
        view = await r.app.get_conversation(conv_id)
        assert texts(view) == [f"Écris à {NEW_CLIENT} pour le devis kiwi.", "Réponse éditée."]
        assert view["message_list"][0]["version"] == {"number": 2, "count": 2, "previous": messages[0]["id"],
                                                      "next": None}

        # Back to the first version: the whole branch after it comes back, and the next send replays it only.
        back = await r.app.switch_version(conv_id, view["message_list"][0]["id"], -1)
        assert texts(back) == [m["text"] for m in messages]
        r.egress.then(openai_ok(["Suite."]))
        await r.app.send(conv_id, "Et la date ?", r.on_event)
        wire = wire_of(r, -1)
        assert "banane" in wire and "cerise" in wire and "kiwi" not in wire and "Réponse éditée" not in wire
        assert [m["role"] for m in requests(r)[-1]] == ["user", "assistant", "user", "assistant", "user"]
        assert leaked(wire) == [] and NEW_CLIENT not in r.egress.wire().split("kiwi")[-1]

    run(body)


def test_regenerate_adds_a_version_and_the_switcher_goes_through_them() -> None:
    async def body(r: Rig) -> None:
        conv_id, messages = await two_turns(r)
        last = messages[-1]
        r.egress.then(openai_ok(["Autre réponse."]), openai_ok(["Troisième réponse."]))
        assert (await r.app.regenerate(conv_id, last["id"], r.on_event)) == {"status": "done"}
        view = await r.app.get_conversation(conv_id)
        newest = view["message_list"][-1]
        assert newest["text"] == "Autre réponse." and newest["version"]["number"] == 2
        # The user turn answered again keeps its place and id; the request is the same history and turn.
        assert [m["id"] for m in view["message_list"][:-1]] == [m["id"] for m in messages[:-1]]
        assert requests(r)[-1] == requests(r)[1]
        await r.app.regenerate(conv_id, newest["id"], r.on_event)
        view = await r.app.get_conversation(conv_id)
        assert view["message_list"][-1]["version"] == {
            "number": 3, "count": 3, "previous": newest["id"], "next": None}
        third = view["message_list"][-1]
        second = await r.app.switch_version(conv_id, third["id"], -1)
        assert second["message_list"][-1]["text"] == "Autre réponse."
        first = await r.app.switch_version(conv_id, newest["id"], -1)
        assert first["message_list"][-1]["text"] == "Seconde réponse."
        assert first["message_list"][-1]["version"]["number"] == 1
        back = await r.app.switch_version(conv_id, first["message_list"][-1]["id"], +1)
        assert back["message_list"][-1]["text"] == "Autre réponse."

        # The versions are stored: a new worker on the same records shows and switches them.
        app = await r.reopen()
        view = await app.get_conversation(conv_id)
        shown = view["message_list"][-1]
        assert shown["text"] == "Autre réponse." and shown["version"]["count"] == 3
        assert stored(r, f"conv:{conv_id}")["version"] == LATEST_VERSION  # 3 brought the versions

    run(body)


def test_a_failed_reply_is_replaced_by_regenerate_and_never_replayed_before_a_new_turn() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.then([Head(500, {"content-type": "application/json"}), ])
        await r.app.send(conv["id"], "Première question.", r.on_event)
        r.egress.then(openai_ok(["Réponse."]))
        await r.app.send(conv["id"], "Deuxième question.", r.on_event)
        # The failed turn is not replayed: the provider never gets two user turns in a row.
        assert [m["content"] for m in requests(r)[-1]] == ["Deuxième question."]

        failed = await r.app.create_conversation()
        r.egress.then([Head(500, {"content-type": "application/json"}), ])
        await r.app.send(failed["id"], "Une question.", r.on_event)
        reply = (await r.app.get_conversation(failed["id"]))["message_list"][-1]
        assert reply["error"] and not reply["text"]
        r.egress.then(openai_ok(["Enfin."]))
        await r.app.regenerate(failed["id"], reply["id"], r.on_event)
        view = await r.app.get_conversation(failed["id"])
        assert texts(view) == ["Une question.", "Enfin."] and "version" not in view["message_list"][-1]

    run(body)


def test_a_refused_regenerate_leaves_the_reply_shown() -> None:
    async def body(r: Rig) -> None:
        conv_id, messages = await two_turns(r)
        r.egress.is_online = False
        try:
            await r.app.regenerate(conv_id, messages[-1]["id"], r.on_event)
        except AppError as error:
            assert error.name == "Offline"
        else:
            raise AssertionError("an offline regenerate must be refused")
        view = await r.app.get_conversation(conv_id)
        assert texts(view) == [m["text"] for m in messages]
        r.egress.is_online = True
        try:
            await r.app.regenerate(conv_id, messages[0]["id"], r.on_event)
        except AppError as error:
            assert error.name == "BadRequest"  # a user turn is edited, not regenerated
        else:
            raise AssertionError("a user turn cannot be regenerated")

    run(body)


def test_the_list_previews_plain_text() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.then(openai_ok(["## Plan\n\n- **Lundi** : voir [la doc](https://example.org) et `make`\n"]))
        await r.app.send(conv["id"], "Un plan ?", r.on_event)
        listed = await r.app.list_conversations()
        assert listed[0]["preview"] == "Plan Lundi : voir la doc et make"

    run(body)


def test_new_conversation_reuses_an_empty_untitled_one_of_the_same_space() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        empty = await r.app.create_conversation({"reuse_empty": True})
        again = await r.app.create_conversation({"reuse_empty": True})
        assert again["id"] == empty["id"]
        elsewhere = await r.app.create_conversation({"reuse_empty": True, "space": "Norvik"})
        assert elsewhere["id"] != empty["id"]
        r.egress.then(openai_ok(["Oui."]))
        await r.app.send(empty["id"], "Bonjour", r.on_event)
        fresh = await r.app.create_conversation({"reuse_empty": True})
        assert fresh["id"] not in (empty["id"], elsewhere["id"])
        assert len(await r.app.list_conversations()) == 3
        assert not [value for value in REALS if value in r.egress.wire()]

    run(body)
