"""The worker's side of the composer preview and of "what the model saw" (issue 17): the preview
masks what the send masks, a send of a stale preview sends nothing, the page restores only the
texts it shows, and every request of a conversation (sends and memory extraction) is kept whole."""

from __future__ import annotations

import json

import pytest
from test_worker_app import EMAIL, NAME, TEXT, Rig, extractor_reply, leaked, openai_ok, run, user_wire, with_remote

from openmasq.worker import AppError


def masked(preview: dict[str, object], text: str) -> list[tuple[str, str]]:
    return [(text[s["start"]:s["end"]], s["kind"]) for s in preview["spans"]]  # type: ignore[index, attr-defined]


def test_the_preview_shows_what_the_send_then_masks_with_the_same_fakes() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        preview = await r.app.preview(conv["id"], TEXT)
        assert {value for value, _ in masked(preview, TEXT)} >= {NAME, EMAIL}
        result = await r.app.send_previewed(conv["id"], TEXT, preview["signature"], r.on_event)
        assert result == {"status": "done"}
        wire = user_wire(r.egress.sent[0].spec)
        # Each fake the preview announced is the one the provider received, at the place it showed.
        assert all(span["fake"] and span["fake"] in wire for span in preview["spans"])
        assert leaked(wire) == []

    run(body)


def test_a_send_whose_preview_no_longer_holds_sends_and_saves_nothing() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        preview = await r.app.preview(conv["id"], TEXT)
        # The user keeps the name in clear in this conversation after the preview was computed.
        await r.app.update_conversation(conv["id"], {"keep": [NAME]})
        result = await r.app.send_previewed(conv["id"], TEXT, preview["signature"], r.on_event)
        assert result["status"] == "stale"
        assert r.egress.sent == []
        assert (await r.app.get_conversation(conv["id"]))["message_list"] == []
        error = r.events[-1]
        assert error["type"] == "error" and error["kind"] == "preview_changed"
        # The new preview says what a send would do now: the kept name is shown kept, not masked.
        assert NAME not in [v for v, _ in masked(error["preview"], TEXT)]
        assert [TEXT[k["start"]:k["end"]] for k in error["preview"]["kept"]] == [NAME]

    run(body)


def test_a_preview_before_the_conversation_exists_matches_its_first_send() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        preview = await r.app.preview(None, TEXT)
        assert all(span["fake"] is None for span in preview["spans"])  # its vault does not exist yet
        conv = await r.app.create_conversation()
        assert (await r.app.send_previewed(conv["id"], TEXT, preview["signature"], r.on_event))["status"] == "done"

    run(body)


def test_restore_texts_gives_each_shown_text_its_real_values() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        await r.app.send(conv["id"], TEXT, r.on_event)
        fake = next(s["fake"] for s in (await r.app.preview(conv["id"], TEXT))["spans"] if s["value"] == NAME)
        assert await r.app.restore_texts(conv["id"], [f"Bonjour {fake}", " ", "rien"]) == [
            f"Bonjour {NAME}", " ", "rien"]
        with pytest.raises(AppError):
            await r.app.restore_texts(conv["id"], "not a list")  # type: ignore[arg-type]

    run(body)


def test_the_page_gets_each_request_as_it_leaves_and_the_reply_as_the_model_wrote_it() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        await r.app.send(conv["id"], TEXT, r.on_event)
        requests = [e["entry"] for e in r.events if e["type"] == "request"]
        assert len(requests) == 1 and requests[0]["kind"] == "send"
        # The request the page shows is the one that left: same messages, same system text.
        body_sent = json.loads(r.egress.sent[0].spec["body"])
        shown = requests[0]["request"]
        assert [m["content"] for m in shown["messages"]] == [m["content"] for m in body_sent["messages"]
                                                              if m["role"] != "system"]
        raw = "".join(e["text"] for e in r.events if e["type"] == "wire")
        assert raw == (await r.app.get_conversation(conv["id"]))["message_list"][-1]["wire"]
        assert leaked(raw) == [] and leaked(json.dumps(shown, ensure_ascii=False)) == []

    run(body)


def test_the_wire_log_keeps_the_extraction_requests_with_why_they_were_sent() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.then(openai_ok(["C'est noté."]), extractor_reply)
        await r.app.send(conv["id"], f"Souviens-toi que {NAME} habite à Lyon.", r.on_event)
        r.host.advance(800)
        await r.app.wait_idle()
        log = await r.app.wire_log(conv["id"])
        assert [(e["kind"], e["why"]) for e in log] == [("send", "message"), ("extraction", "explicit")]
        assert leaked(json.dumps(log, ensure_ascii=False)) == []
        r.app.close()
        with pytest.raises(AppError):
            await r.app.wire_log(conv["id"])  # locked: forgotten with the account

    run(body)
