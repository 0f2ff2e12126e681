"""The worker's door to image masking (issue 20, item 2): the words OCR read go through the conversation's
engine and vault, and come back as boxes over the masked values; a person the conversation already named is
known on the image in any spelling; a payload that is not OCR words is refused with its reason."""

from __future__ import annotations

import json

import pytest
from test_worker_app import NAME, TEXT, Rig, run, with_remote

from openmasq.worker import AppError
from openmasq.worker.dispatch import call
from openmasq.worker.ocr_api import OcrApi


def words(*lines: str) -> list[dict[str, object]]:
    out, y = [], 10
    for number, line in enumerate(lines):
        x = 10
        for word in line.split():
            out.append({"text": word, "x0": x, "y0": y, "x1": x + 12 * len(word), "y1": y + 24, "line": number,
                        "block": 0, "conf": 93.0})
            x += 12 * len(word) + 12
        y += 40
    return out


def covered(plan: dict[str, object], payload: list[dict[str, object]]) -> set[str]:
    return {str(payload[i]["text"]) for box in plan["boxes"] for i in box["words"]}  # type: ignore[attr-defined]


def test_the_masked_words_of_an_image_come_back_as_boxes_and_its_text_with_fakes() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        payload = words("Attestation", "Je soussignée Héloïse Marchetti, gérante", "heloise.marchetti@example.fr")
        plan = await OcrApi(r.app).plan_image_mask(conv["id"], payload, 800, 200)
        assert covered(plan, payload) == {"Héloïse", "Marchetti,", "heloise.marchetti@example.fr"}
        assert plan["has_text"] is True and "Héloïse Marchetti" in plan["ocr_text"]
        assert "Marchetti" not in plan["text"] and all(m["fake"] and m["fake"] in plan["text"] for m in plan["masked"])

    run(body)


def test_a_person_the_conversation_named_is_masked_on_the_image_alone_by_the_surname() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        await r.app.send(conv["id"], TEXT, r.on_event)
        surname = NAME.split()[-1]
        payload = words(f"Reçu de {surname} pour le dossier")
        plan = await OcrApi(r.app).plan_image_mask(conv["id"], payload, 800, 100)
        assert surname in covered(plan, payload)

    run(body)


def test_before_the_conversation_exists_no_fake_is_shown() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        plan = await OcrApi(r.app).plan_image_mask(None, words("Héloïse Marchetti"), 400, 60)
        assert plan["boxes"] and all(m["fake"] is None for m in plan["masked"]) and plan["text"] is None

    run(body)


def test_an_image_without_text_says_so() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        plan = await OcrApi(r.app).plan_image_mask(None, [], 640, 480)
        assert plan == {"boxes": [], "text": None, "masked": [], "has_text": False, "ocr_text": "", "width": 640,
                        "height": 480}

    run(body)


def test_words_outside_the_image_are_refused_with_the_reason_through_the_page_door() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        with pytest.raises(AppError) as raised:
            await OcrApi(r.app).plan_image_mask(None, words("Héloïse Marchetti"), 50, 20)
        assert raised.value.name == "AttachmentRefused" and json.loads(raised.value.message)["reason"] == "corrupt"
        answer = json.loads(await call(r.app, "imageLimits", "[]"))
        assert answer["ok"]["max_side"] == 4000 and answer["ok"]["langs"][-1] == "eng"
        assert answer["ok"]["languages"]["fr"] == "fra"

    run(body)
