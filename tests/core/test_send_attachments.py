"""Files sent with a message (issue 20) through the real send flow: each goes as a text part of the
user turn, redacted before the typed text with the same vault, under a faked name when its name holds
personal data; the turn keeps it (real text, encrypted with the conversation) and later turns replay
it through the vault; the Mémoire reads it like the message it came with. Real LibreOffice documents
(tests/data/attachments), a scripted model, every body on the wire checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openmasq.attach import Extracted
from openmasq.chat.attachments import ImageNeedsOcr, TurnAttachment, replay_text, wire_part
from openmasq.chat.conversation import conversation_from_dict, conversation_to_dict
from openmasq.chat.send import SendInput, attachment_signature, preview_turn, send_flow
from openmasq.testing import ScriptedModel, Workspace, appears_in, attached, facts

DATA = Path(__file__).resolve().parent.parent / "data" / "attachments"
MANIFEST = json.loads((DATA / "manifest.json").read_text(encoding="utf-8"))
CLIENT = "Héloïse Marchetti"


def document(name: str, given_name: str | None = None) -> TurnAttachment:
    return attached((DATA / name).read_bytes(), given_name or name)


def values_of(name: str) -> list[str]:
    return list(MANIFEST["files"][name]["values"])


def user_turns(body: str) -> list[dict[str, Any]]:
    return [m for m in json.loads(body)["messages"] if m["role"] == "user"]


def substitute_of(ws: Workspace, real: str) -> str:
    conv = ws.document.conversations[0]
    return next(sub for sub, value in conv.vault.entries.items() if value == real and sub not in conv.vault.aliases)


@pytest.mark.parametrize("name", ["contract.pdf", "contract.docx", "contract.odt", "clients.xlsx", "clients.ods",
                                  "review.pptx"])
def test_a_document_goes_as_a_redacted_text_part_before_the_message_and_no_real_value_leaves(name: str) -> None:
    ws = Workspace(ScriptedModel("Bien reçu."))
    chat = ws.conversation()
    ws.send(chat, f"Peux-tu résumer ce document ? Il concerne {CLIENT}.", attachments=[document(name)])
    [user] = user_turns(ws.wire[0].body)
    assert [part["type"] for part in user["content"]] == ["text", "text"]
    file_part, typed = (part["text"] for part in user["content"])
    assert file_part.startswith(f"[Attachment: {name}]\n")
    assert typed.startswith("Peux-tu résumer ce document ?")
    assert [v for v in values_of(name) if appears_in(v, ws.wire_text())] == []
    ws.assert_wire_clean()
    fake = substitute_of(ws, CLIENT)  # one vault: the client has the same fake in the file and in the text
    assert fake in file_part and fake in typed


def test_a_file_name_holding_a_person_is_sent_under_a_fake_name() -> None:
    ws = Workspace(ScriptedModel("Bien reçu."))
    chat = ws.conversation()
    ws.send(chat, "Voici le contrat.", attachments=[document("contract.pdf", f"Contrat {CLIENT}.pdf")])
    [user] = user_turns(ws.wire[0].body)
    header = user["content"][0]["text"].split("\n", 1)[0]
    assert header == f"[Attachment: Contrat {substitute_of(ws, CLIENT)}.pdf]"
    stored = chat.messages[0].attachments[0]
    assert stored.name == f"Contrat {CLIENT}.pdf" and stored.wire_name == f"Contrat {substitute_of(ws, CLIENT)}.pdf"
    ws.assert_wire_clean()


def test_the_turn_keeps_the_file_as_sent_and_the_document_round_trips_it() -> None:
    ws = Workspace(ScriptedModel("Bien reçu."))
    chat = ws.conversation()
    contract = document("contract.pdf")
    ws.send(chat, "Résume-le.", attachments=[contract])
    [user] = user_turns(ws.wire[0].body)
    kept = chat.messages[0].attachments[0]
    assert kept.text == contract.extracted.text and kept.format == "pdf" and kept.size == contract.size
    assert kept.wire == user["content"][0]["text"]  # what "what the model saw" shows is what went
    assert conversation_from_dict(json.loads(json.dumps(conversation_to_dict(chat)))).messages[0].attachments == [kept]
    assert chat.messages[0].redactions is not None and chat.messages[0].redactions >= len(values_of("contract.pdf"))


def test_a_later_turn_replays_the_file_as_it_was_sent_and_nothing_real() -> None:
    ws = Workspace(ScriptedModel("Bien reçu.", "Le 30e jour."))
    chat = ws.conversation()
    ws.send(chat, "Lis ce contrat.", attachments=[document("contract.docx")])
    ws.send(chat, "Quel est le délai de paiement ?")
    first, second = user_turns(ws.wire[1].body)
    assert first["content"][0]["text"] == chat.messages[0].attachments[0].wire
    assert second["content"] == "Quel est le délai de paiement ?"
    ws.assert_wire_clean()
    assert [v for v in values_of("contract.docx") if appears_in(v, ws.wire_text())] == []


def test_files_without_typed_text_are_sent_alone() -> None:
    ws = Workspace(ScriptedModel("Bien reçu."))
    chat = ws.conversation()
    turn = ws.send(chat, "", attachments=[document("clients.xlsx"), document("review.pptx")])
    assert turn.outcome.status == "done"
    [user] = user_turns(ws.wire[0].body)
    assert [part["text"].split("\n", 1)[0] for part in user["content"]] == [
        "[Attachment: clients.xlsx]", "[Attachment: review.pptx]"]
    assert chat.title  # named after its files
    ws.assert_wire_clean()


def test_the_preview_shows_what_the_send_masks_in_each_file() -> None:
    ws = Workspace(ScriptedModel("Bien reçu."))
    chat = ws.conversation()
    contract = document("contract.odt")
    inp = SendInput(chat, "Résume.", ws.store, "m", ws.now, ws.new_id, options=ws.settings.redact_options(),
                    attachments=(contract,))
    preview = preview_turn(inp)
    masked = {rep.value for rep in preview.attachments[0].text.replacements}
    assert {CLIENT, "Baptiste Quenneville", "FR76 3000 4012 3400 0123 4567 862"} <= masked
    assert chat.messages == [] and not chat.vault.entries  # a preview changes nothing
    inp.expected_attachment_spans = attachment_signature(preview)
    ws.send(chat, "Résume.", attachments=[contract])  # the same masking: sent
    assert len(ws.wire) == 1


def test_a_send_whose_files_would_be_masked_otherwise_than_previewed_sends_nothing() -> None:
    ws = Workspace(ScriptedModel("Bien reçu."))
    chat = ws.conversation()
    contract = document("contract.pdf")
    inp = SendInput(chat, "Résume.", ws.store, "m", ws.now, ws.new_id, options=ws.settings.redact_options(),
                    attachments=(contract,), expected_spans=(), expected_attachment_spans=((),))
    flow = send_flow(inp)
    with pytest.raises(StopIteration) as stop:
        next(flow)
    assert stop.value.value.status == "stale" and chat.messages == []


def test_an_image_without_text_or_masked_bytes_has_no_form_to_send() -> None:
    """The OCR side (tests/core/test_send_images.py) sends an image as its masked PNG or its OCR'd text: with
    neither, the flow fails closed."""
    image = TurnAttachment("scan.png", Extracted("", "image"), 10, kind="image")
    ws = Workspace(ScriptedModel("Bien reçu."))
    chat = ws.conversation()
    with pytest.raises(ImageNeedsOcr):
        wire_part(image, preview_turn(SendInput(chat, "", ws.store, "m", ws.now, ws.new_id,
                                                attachments=(image,))).attachments[0])
    turn = ws.send(chat, "Et cette image ?", attachments=[image])
    assert turn.outcome.status == "blocked" and ws.wire == []  # fail closed: nothing left


def test_a_fact_from_an_attached_document_becomes_a_card_with_nothing_real_on_the_extraction_wire() -> None:
    ws = Workspace(ScriptedModel("C'est noté."))
    chat = ws.conversation()
    seen: list[str] = []

    def extractor(call: Any) -> dict[str, Any]:
        """Notes the accountant only when the replay it reads holds the document's sentence about her."""
        read = json.dumps([m.content for m in call.request.messages], ensure_ascii=False)
        seen.append(read)
        found = "reçoit les relevés" in read
        return facts(("Capucine Vasseur", "Comptable ; reçoit les relevés chaque mois.", "personne")) if found \
            else facts()

    # Capucine Vasseur is named in the document only, never in the typed text.
    ws.model.extractor(extractor)
    ws.send(chat, "Retiens qui est la comptable de ce dossier.", attachments=[document("contract.pdf")])
    card = ws.card("Capucine Vasseur")
    assert card is not None and "relevés" in str(card.sentences)
    [read] = seen
    assert substitute_of(ws, "Capucine Vasseur") in read  # the extractor read the document, masked
    extraction_wire = ws.wire_text("extract")
    assert extraction_wire and [v for v in values_of("contract.pdf") if appears_in(v, extraction_wire)] == []
    ws.assert_wire_clean()


def test_the_extraction_reads_a_turn_s_files_after_its_typed_text() -> None:
    ws = Workspace(ScriptedModel("Bien reçu."))
    chat = ws.conversation()
    ws.send(chat, "Retiens ceci.", attachments=[document("review.pptx")])
    text = replay_text(chat.messages[0])
    assert text.startswith("Retiens ceci.\n\n[Attachment: review.pptx]\n")
