"""The worker's attachment door (issue 20) on CPython, over the rig of test_worker_app.py: a file read in
steps with its progress, cancelled between pages, refused with its reason; the preview saying what is
masked in each staged file; a send of staged files (the wire: text parts, nothing real; the records: the
turn keeps its files, encrypted like the rest); a regenerate and an offline draft that keep them; a lock
that forgets what was staged."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from test_worker_app import Rig, openai_ok, run, stored_messages, with_remote

from openmasq.testing import appears_in
from openmasq.worker import AppError
from openmasq.worker.attach_api import AttachApi, AttachmentRefused, limits_view, read_call
from openmasq.worker.dispatch import call

DATA = Path(__file__).resolve().parent.parent / "data" / "attachments"
MANIFEST = json.loads((DATA / "manifest.json").read_text(encoding="utf-8"))


def read_bytes(name: str) -> bytes:
    return (DATA / name).read_bytes()


def real_values(*names: str) -> list[str]:
    return sorted({v for name in names for v in MANIFEST["files"][name]["values"]})


async def stage(r: Rig, key: str, name: str, given: str | None = None) -> dict[str, Any]:
    events: list[dict[str, Any]] = []
    view = await AttachApi(r.app).read(key, given or name, "", read_bytes(name), events.append)
    assert events and events[-1]["done"] == events[-1]["total"]
    return view


def test_a_pdf_is_read_page_by_page_and_staged_without_storing_anything() -> None:
    async def body(r: Rig) -> None:
        before = dict(r.records.data)
        events: list[dict[str, Any]] = []
        view = await AttachApi(r.app).read("k1", "contract.pdf", "application/pdf", read_bytes("contract.pdf"),
                                           events.append)
        assert [(e["done"], e["total"]) for e in events] == [(1, 3), (2, 3), (3, 3)]
        assert (view["key"], view["format"], view["parts"], view["size"]) == (
            "k1", "pdf", 3, len(read_bytes("contract.pdf")))
        assert r.records.data == before  # staged in memory only

    run(body)


def test_a_read_cancelled_between_pages_keeps_nothing() -> None:
    async def body(r: Rig) -> None:
        api = AttachApi(r.app)
        events: list[dict[str, Any]] = []
        cancels: list[asyncio.Future[bool]] = []

        def on_event(event: dict[str, Any]) -> None:
            events.append(event)
            if event["done"] == 1:  # the page's cancel arrives while the second page waits
                cancels.append(asyncio.ensure_future(api.cancel("k1")))

        with pytest.raises(AttachmentRefused) as refused:
            await api.read("k1", "contract.pdf", "", read_bytes("contract.pdf"), on_event)
        assert refused.value.reason == "cancelled"
        assert [e["done"] for e in events] == [1] and cancels[0].result()  # stopped before the second page
        assert r.app.staging.files == {} and r.app.staging.reading == {}

    run(body)


@pytest.mark.parametrize("name, reason", [("encrypted.pdf", "encrypted"), ("scanned.pdf", "no_text_layer")])
def test_an_unreadable_file_is_refused_with_its_reason_at_the_js_boundary(name: str, reason: str) -> None:
    async def body(r: Rig) -> None:
        answer = json.loads(await read_call(r.app, "k1", name, "", read_bytes(name)))
        assert answer["error"]["name"] == "AttachmentRefused"
        assert json.loads(answer["error"]["message"])["reason"] == reason
        assert r.app.staging.files == {}

    run(body)


def test_an_image_is_refused_as_unsupported() -> None:
    async def body(r: Rig) -> None:
        png = b"\x89PNG\r\n\x1a\n" + bytes(64)
        answer = json.loads(await read_call(r.app, "k1", "scan.png", "image/png", png))
        assert json.loads(answer["error"]["message"])["reason"] == "unsupported"

    run(body)


def test_the_limits_the_page_says_come_from_attach_limits() -> None:
    async def body(r: Rig) -> None:
        answer = json.loads(await call(r.app, "attachmentLimits", "[]"))
        assert answer["ok"] == limits_view() and answer["ok"]["max_file_bytes"] == 10 * 1024 * 1024

    run(body)


def test_the_preview_says_what_is_masked_in_each_staged_file_and_changes_nothing() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation({})
        await stage(r, "k1", "contract.docx", "Contrat Héloïse Marchetti.docx")
        before = dict(r.records.data)
        preview = await r.app.preview(conv["id"], "Résume-le.", None, ["k1"])
        [file] = preview["attachments"]
        masked = {m["value"]: m for m in file["masked"]}
        assert {"Héloïse Marchetti", "Baptiste Quenneville", "FR76 3000 4012 3400 0123 4567 862"} <= set(masked)
        assert all(m["fake"] and m["fake"] != m["value"] for m in masked.values())
        assert file["name_changed"] and "Marchetti" not in file["wire_name"]
        assert len(preview["file_signature"]) == 1 and r.records.data == before and r.egress.sent == []
        assert len(r.app.staging.detections) >= 1  # the file's detection is kept for the next preview and the send

    run(body)


def test_a_send_with_staged_files_sends_text_parts_only_and_the_turn_keeps_them() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation({})
        await stage(r, "k1", "contract.pdf")
        await stage(r, "k2", "clients.xlsx")
        preview = await r.app.preview(conv["id"], "Qui doit payer ?", None, ["k1", "k2"])
        r.egress.then(openai_ok(["Bien reçu."]))
        result = await r.app.send_attached(conv["id"], "Qui doit payer ?", ["k1", "k2"], preview["signature"],
                                           preview["file_signature"], r.on_event)
        assert result == {"status": "done"}
        body_sent = r.egress.sent[0].body
        user = body_sent["messages"][-1]
        assert [p["text"].split("\n", 1)[0] for p in user["content"]] == [
            "[Attachment: contract.pdf]", "[Attachment: clients.xlsx]", "Qui doit payer ?"]
        wire = r.egress.wire()
        assert [v for v in real_values("contract.pdf", "clients.xlsx") if appears_in(v, wire)] == []
        assert "JVBERi" not in wire and "%PDF" not in wire  # never the file's bytes (nor their base64)
        [saved_user, _] = stored_messages(r.records, conv["id"])
        assert [a["name"] for a in saved_user["attachments"]] == ["contract.pdf", "clients.xlsx"]
        assert saved_user["attachments"][0]["wire"] == user["content"][0]["text"]
        assert r.app.staging.files == {}  # the turn holds them now
        view = await r.app.get_conversation(conv["id"])
        shown = view["message_list"][0]["attachments"]
        assert [(a["name"], a["format"]) for a in shown] == [("contract.pdf", "pdf"), ("clients.xlsx", "xlsx")]
        assert "text" not in shown[0]  # the page gets what was sent, not the real text again

    run(body)


def test_files_whose_masking_changed_since_the_preview_are_not_sent() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation({})
        await stage(r, "k1", "contract.odt")
        preview = await r.app.preview(conv["id"], "Résume.", None, ["k1"])
        result = await r.app.send_attached(conv["id"], "Résume.", ["k1"], preview["signature"], [[]], r.on_event)
        assert result["status"] == "stale" and r.egress.sent == []
        assert result["preview"]["attachments"][0]["masked"]  # the new preview, files included
        assert "k1" in r.app.staging.files  # still staged: the composer sends it again

    run(body)


def test_a_regenerated_reply_sends_the_turn_s_files_again() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation({})
        await stage(r, "k1", "review.pptx")
        r.egress.then(openai_ok(["Une."]), openai_ok(["Deux."]))
        await r.app.send_attached(conv["id"], "", ["k1"], None, None, r.on_event)
        reply = (await r.app.get_conversation(conv["id"]))["message_list"][-1]
        await r.app.regenerate(conv["id"], reply["id"], r.on_event)
        first, again = (s.body["messages"][-1]["content"] for s in r.egress.sent)
        assert again == first and again[0]["text"].startswith("[Attachment: review.pptx]")
        assert [v for v in real_values("review.pptx") if appears_in(v, r.egress.wire())] == []

    run(body)


def test_offline_the_files_stay_with_the_draft_and_go_when_it_is_sent() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation({})
        await stage(r, "k1", "contract.pdf")
        r.egress.is_online = False
        assert await r.app.send_attached(conv["id"], "Résume.", ["k1"], None, None, r.on_event) == {
            "status": "offline"}
        [draft] = stored_messages(r.records, conv["id"])
        assert draft["attachments"][0]["name"] == "contract.pdf" and draft["attachments"][0]["wire"] == ""
        r.egress.is_online = True
        r.egress.then(openai_ok(["Bien reçu."]))
        await r.app.retry(conv["id"], r.on_event)
        assert r.egress.sent[0].body["messages"][-1]["content"][0]["text"].startswith("[Attachment: contract.pdf]")
        assert [v for v in real_values("contract.pdf") if appears_in(v, r.egress.wire())] == []

    run(body)


def test_a_lock_forgets_the_staged_files() -> None:
    async def body(r: Rig) -> None:
        conv = await r.app.create_conversation({})
        await stage(r, "k1", "contract.pdf")
        await r.app.preview(conv["id"], "Résume.", None, ["k1"])
        r.app.close()
        assert len(r.app.staging.detections) == 0  # nothing read from the account stays after the lock
        await r.app.open(r.records)
        with pytest.raises(AppError) as refused:
            await r.app.preview(conv["id"], "Résume.", None, ["k1"])
        assert refused.value.name == "AttachmentRefused"

    run(body)
