"""Attached images in the send flow (issue 20, item 2): an image goes as the masked PNG the user saw (an image
part, its exact bytes, with a text part naming it) or as its OCR'd text redacted like a document, never both;
its OCR'd text is redacted with the turn's vault either way, a later turn replays the same bytes and nothing of
the OCR'd text, the Mémoire's extraction does not read the text of an image sent as an image, and an image with
neither form is refused before anything leaves."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from openmasq.attach import Extracted
from openmasq.chat.attachments import IMAGE_NOTE, ImageNeedsOcr, TurnAttachment, replay_text, wire_part
from openmasq.chat.codecs import ChatRequest, Message, WireImage, anthropic, openai
from openmasq.chat.conversation import conversation_from_dict, conversation_to_dict
from openmasq.chat.send import SendInput, preview_turn
from openmasq.testing import ScriptedModel, Workspace, appears_in

IMAGES = Path(__file__).resolve().parent.parent / "data" / "images"
MASKED = (IMAGES / "photo.png").read_bytes()  # stands for the PNG the page masked: any real PNG's bytes
OCR_TEXT = ("Attestation de paiement\n\nJe soussignée Héloïse Marchetti, gérante de la société Atelier Verrand SARL\n"
            "heloise.marchetti@marchetti-conseil.fr ou +33 6 47 28 91 35")
REAL = ["Héloïse Marchetti", "Marchetti", "heloise.marchetti@marchetti-conseil.fr", "+33 6 47 28 91 35",
        "Atelier Verrand"]


def image(*, masked: bytes | None, text: str = OCR_TEXT, name: str = "scan.png") -> TurnAttachment:
    """An image as the review stages it: its boxes cover every value the engine masks in its text."""
    covered = (*REAL, "Atelier Verrand SARL", "Marchetti Conseil") if masked is not None else ()
    return TurnAttachment(name, Extracted(text, "image"), 120_000, kind="image", image=masked, covered=covered)


def user_turns(body: str) -> list[dict[str, Any]]:
    return [m for m in json.loads(body)["messages"] if m["role"] == "user"]


def test_a_masked_image_goes_as_its_exact_bytes_with_a_part_naming_it_and_none_of_its_text() -> None:
    ws = Workspace(ScriptedModel("Bien reçu."))
    chat = ws.conversation()
    ws.send(chat, "Que dit cette attestation ?", attachments=[image(masked=MASKED)])
    [user] = user_turns(ws.wire[0].body)
    assert [part["type"] for part in user["content"]] == ["image_url", "text", "text"]
    url = user["content"][0]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,") and base64.b64decode(url.split(",", 1)[1]) == MASKED
    assert user["content"][1]["text"] == f"[Attachment: scan.png]\n{IMAGE_NOTE}"
    assert user["content"][2]["text"] == "Que dit cette attestation ?"
    wire = ws.wire_text()
    assert [v for v in REAL if appears_in(v, wire)] == []
    assert "Attestation de paiement" not in wire  # the OCR'd text stays on the device, even redacted
    ws.assert_wire_clean()
    # its people are in the turn's vault all the same: a later mention is masked as the same person
    assert chat.vault.substitute_of("Héloïse Marchetti")


def test_the_text_only_choice_goes_as_the_redacted_text_and_no_image() -> None:
    ws = Workspace(ScriptedModel("Bien reçu."))
    chat = ws.conversation()
    ws.send(chat, "Résume.", attachments=[image(masked=None)])
    [user] = user_turns(ws.wire[0].body)
    assert [part["type"] for part in user["content"]] == ["text", "text"]
    assert user["content"][0]["text"].startswith("[Attachment: scan.png]\n")
    assert "Attestation de paiement" in user["content"][0]["text"]
    assert [v for v in REAL if appears_in(v, ws.wire_text())] == []
    ws.assert_wire_clean()


def test_the_turn_keeps_the_masked_image_and_a_later_turn_replays_the_same_bytes_only() -> None:
    ws = Workspace(ScriptedModel("Bien reçu.", "Oui."))
    chat = ws.conversation()
    ws.send(chat, "Lis.", attachments=[image(masked=MASKED)])
    kept = chat.messages[0].attachments[0]
    assert kept.kind == "image" and base64.b64decode(kept.image) == MASKED and kept.wire.endswith(IMAGE_NOTE)
    again = conversation_from_dict(json.loads(json.dumps(conversation_to_dict(chat))))
    assert again.messages[0].attachments == [kept]
    ws.send(chat, "Et la date ?")
    first, _second = user_turns(ws.wire[1].body)
    assert base64.b64decode(first["content"][0]["image_url"]["url"].split(",", 1)[1]) == MASKED
    assert "Attestation" not in ws.wire_text()
    ws.assert_wire_clean()


def test_the_memory_does_not_read_the_text_of_an_image_sent_as_an_image() -> None:
    ws = Workspace(ScriptedModel("Bien reçu."))
    chat = ws.conversation()
    ws.send(chat, "Retiens ceci.", attachments=[image(masked=MASKED)])
    read = replay_text(chat.messages[0])
    assert "Héloïse" not in read and IMAGE_NOTE in read
    ws.send(chat, "Et ceci.", attachments=[image(masked=None, name="note.png")])
    assert "Héloïse Marchetti" in replay_text(chat.messages[2])  # sent as text: read as a document is


def test_an_image_with_neither_form_is_refused_and_nothing_leaves() -> None:
    blank = image(masked=None, text="")
    ws = Workspace(ScriptedModel("Bien reçu."))
    chat = ws.conversation()
    with pytest.raises(ImageNeedsOcr):
        wire_part(blank, preview_turn(SendInput(chat, "", ws.store, "m", ws.now, ws.new_id,
                                                attachments=(blank,))).attachments[0])
    turn = ws.send(chat, "Et cette image ?", attachments=[blank])
    assert turn.outcome.status == "blocked" and ws.wire == []


def test_both_codecs_put_the_images_before_the_text_of_the_turn() -> None:
    turn = Message("user", "Et ça ?", parts=("[Attachment: a.png]\n" + IMAGE_NOTE,),
                   images=(WireImage("image/png", b"\x89PNG-bytes"),))
    request = ChatRequest("m", (turn,), "", (), None, None, stream=True)
    body = anthropic.build_request(request, "https://api.example", "k").body
    assert body["messages"][0]["content"][0] == {
        "type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORy1ieXRlcw=="}}
    assert [b["type"] for b in body["messages"][0]["content"]] == ["image", "text", "text"]
    body = openai.build_request(request, "https://api.example/v1", "k").body
    assert body["messages"][0]["content"][0] == {"type": "image_url",
                                                 "image_url": {"url": "data:image/png;base64,iVBORy1ieXRlcw=="}}
    with pytest.raises(ValueError):
        Message("assistant", "x", images=(WireImage("image/png", b"x"),))


def test_a_masked_image_whose_text_the_send_masks_otherwise_than_reviewed_is_not_sent() -> None:
    """The review covered the person only; by the send the e-mail is masked too (say, a setting changed): the
    boxes the user saw do not cover it, so the image does not go as it is."""
    reviewed = TurnAttachment("scan.png", Extracted(OCR_TEXT, "image"), 120_000, kind="image", image=MASKED,
                              covered=("Héloïse Marchetti",))
    ws = Workspace(ScriptedModel("Bien reçu."))
    chat = ws.conversation()
    turn = ws.send(chat, "Lis.", attachments=[reviewed])
    assert turn.outcome.status == "blocked" and ws.wire == []
    whole = TurnAttachment("scan.png", Extracted(OCR_TEXT, "image"), 120_000, kind="image", image=MASKED,
                           covered=(REAL[0], *REAL[2:4], "Atelier Verrand SARL", "Atelier Verrand"))
    assert ws.send(chat, "Lis.", attachments=[whole]).outcome.status == "done"
