"""Images (issue 20, item 2): OCR words become the text the engine reads, and what the engine masks in it
comes back as boxes covering those words, whole, one box per line of a value; an OCR payload that is not
words inside the image is refused."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from openmasq.attach import AttachmentError
from openmasq.attach.ocr import (
    MAX_SIDE,
    Box,
    OcrWord,
    check_masked_png,
    line_joiner,
    mask_plan,
    plan_image,
    read_words,
    uncovered,
    words_from_json,
    words_touched,
)
from openmasq.redact import RedactOptions, Vault, pseudonymise


def vault() -> Vault:
    return Vault.new(b"ocr-tests-key-0123456789abcdefgh")


def line_of(words: list[str], line: int, *, y: int, block: int = 0, conf: float = 92.0) -> list[OcrWord]:
    """Words laid out left to right, 10 px per character and a 10 px gap, 20 px high."""
    out, x = [], 10
    for word in words:
        out.append(OcrWord(word, Box(x, y, x + 10 * len(word), y + 20), line, conf, block))
        x += 10 * len(word) + 10
    return out


LETTER = [
    *line_of(["Objet", ":", "remboursement"], 0, y=10),
    *line_of(["Madame", "Héloïse", "Marchetti,"], 1, y=40),
    *line_of(["écrivez-moi", "à", "heloise.marchetti@marchetti-"], 2, y=70),
    *line_of(["conseil.fr", "ou", "au", "06", "47", "28", "91", "35."], 3, y=100),
    *line_of(["Bien", "à", "vous,", "Baptiste", "Quenneville"], 0, y=160, block=1),
]


def test_words_become_lines_and_blocks_of_text():
    read = read_words(800, 400, LETTER[:6])
    assert read.text == "Objet : remboursement\nMadame Héloïse Marchetti,"
    assert [read.text[s:e] for s, e in read.offsets] == [w.text for w in LETTER[:6]]
    both = read_words(800, 400, [*LETTER[:3], *LETTER[-5:]])
    assert both.text == "Objet : remboursement\n\nBien à vous, Baptiste Quenneville"


def test_an_address_and_a_number_split_by_a_line_wrap_are_read_whole():
    read = read_words(800, 400, LETTER)
    assert "heloise.marchetti@marchetti-conseil.fr ou au 06 47 28 91 35." in read.text
    assert line_joiner("au +33 6", "47 28 91 35") == " "
    assert line_joiner("Madame", "Dupont") == "\n"


def test_every_masked_value_is_covered_by_boxes_over_its_words():
    read = read_words(800, 400, LETTER)
    plan = plan_image(read, vault(), RedactOptions())
    masked = {r.value: r.kind for r in plan.redaction.replacements}
    assert "Héloïse Marchetti" in masked and "Baptiste Quenneville" in masked
    assert "heloise.marchetti@marchetti-conseil.fr" in masked
    assert any("47 28 91 35" in value for value in masked)
    assert uncovered(plan, read) == []
    covered = {i for box in plan.boxes for i in box.words}
    names = [i for i, w in enumerate(LETTER) if w.text in ("Héloïse", "Marchetti,", "Baptiste", "Quenneville")]
    assert set(names) <= covered
    # words no value touches stay readable
    assert not {i for i, w in enumerate(LETTER) if w.text in ("Objet", "remboursement", "Madame", "Bien")} & covered
    # nothing real is left in the text the "text only" choice sends
    for value in masked:
        assert value not in plan.redaction.text


def test_a_value_on_two_lines_gets_one_box_per_line_and_a_value_in_a_line_one_box():
    read = read_words(800, 400, LETTER)
    plan = plan_image(read, vault(), RedactOptions())
    email = [b for b in plan.boxes if b.kind == "email"]
    assert len(email) == 2 and {LETTER[w].line for b in email for w in b.words} == {2, 3}
    person = [b for b in plan.boxes if set(b.words) == {4, 5}]
    assert len(person) == 1  # "Héloïse Marchetti": one box from the first name to the surname, the gap covered
    box = person[0].box
    assert box.x0 <= LETTER[4].box.x0 and box.x1 >= LETTER[5].box.x1


def test_a_value_glued_to_a_label_hides_the_whole_word():
    words = line_of(["Tél:0647289135", "merci"], 0, y=10)
    read = read_words(400, 100, words)
    redaction = pseudonymise(read.text, vault(), RedactOptions())
    assert any(r.kind == "phone" for r in redaction.replacements)
    plan = mask_plan(read, redaction)
    assert [b.words for b in plan.boxes] == [(0,)]
    assert plan.boxes[0].box.x0 <= words[0].box.x0 and plan.boxes[0].box.x1 >= words[0].box.x1


def test_boxes_are_padded_inside_the_image():
    words = [OcrWord("Marchetti", Box(0, 0, 90, 20), 0, 95.0), OcrWord("Héloïse", Box(100, 0, 170, 20), 0, 95.0)]
    read = read_words(170, 20, list(reversed(words)))
    plan = plan_image(read, vault(), RedactOptions())
    assert plan.boxes and all(b.box.x0 >= 0 and b.box.x1 <= 170 and b.box.y0 >= 0 and b.box.y1 <= 20
                              for b in plan.boxes)


def test_a_span_touching_one_character_of_a_word_takes_the_word():
    read = read_words(400, 100, line_of(["ab", "cd", "ef"], 0, y=0))
    assert words_touched(read, 1, 2) == [0]
    assert words_touched(read, 2, 3) == []  # the space between
    assert words_touched(read, 1, 4) == [0, 1]


def test_a_photo_without_sure_text_has_no_text():
    noise = [OcrWord("~", Box(1, 1, 5, 5), 0, 12.0), OcrWord("lI", Box(10, 1, 15, 9), 0, 31.0)]
    assert not read_words(100, 100, noise).has_text
    assert read_words(800, 400, LETTER).has_text
    assert not read_words(100, 100, []).has_text


def test_the_worker_payload_is_read_and_checked():
    payload = [{"text": "Bonjour", "x0": 1, "y0": 2, "x1": 50, "y1": 20, "line": 0, "conf": 91.5, "block": 0}]
    width, height, words = words_from_json(payload, 100, 50)
    assert (width, height) == (100, 50) and words[0].box == Box(1, 2, 50, 20)


@pytest.mark.parametrize(("payload", "width", "height", "reason"), [
    ({"text": "x"}, 10, 10, "corrupt"),
    ([{"text": "x", "x0": 0, "y0": 0, "x1": 20, "y1": 5, "line": 0, "conf": 90}], 10, 10, "corrupt"),
    ([{"text": "x", "x0": 0.5, "y0": 0, "x1": 2, "y1": 5, "line": 0, "conf": 90}], 10, 10, "corrupt"),
    ([{"text": 3, "x0": 0, "y0": 0, "x1": 2, "y1": 5, "line": 0, "conf": 90}], 10, 10, "corrupt"),
    ([{"text": "x", "x0": 0, "y0": 0, "x1": 2, "y1": 5, "conf": 90}], 10, 10, "corrupt"),
    ([], MAX_SIDE + 1, 10, "too_large"),
    ([], "10", 10, "corrupt"),
])
def test_a_payload_that_is_not_words_inside_the_image_is_refused(payload, width, height, reason):
    with pytest.raises(AttachmentError) as raised:
        words_from_json(payload, width, height)
    assert raised.value.reason == reason


def test_the_text_only_choice_is_an_attachment_text():
    read = read_words(800, 400, LETTER)
    extracted = read.extracted()
    assert extracted.text == read.text and extracted.format == "image"


IMAGES = Path(__file__).resolve().parent.parent / "data" / "images"


def with_chunk(png: bytes, kind: bytes, body: bytes) -> bytes:
    """`png` with one more chunk after IHDR (its CRC as a PNG writer computes it)."""
    chunk = len(body).to_bytes(4, "big") + kind + body + zlib.crc32(kind + body).to_bytes(4, "big")
    ihdr_end = 8 + 12 + int.from_bytes(png[8:12], "big")
    return png[:ihdr_end] + chunk + png[ihdr_end:]


def test_a_masked_png_is_sent_only_whole_small_enough_and_without_metadata():
    photo = (IMAGES / "photo.png").read_bytes()
    assert check_masked_png(photo) == (960, 720)
    for kind, body in ((b"tEXt", b"Author\0Heloise Marchetti"), (b"eXIf", b"MM\0*"), (b"iTXt", b"Comment\0\0\0\0\0x")):
        with pytest.raises(AttachmentError) as raised:
            check_masked_png(with_chunk(photo, kind, body))
        assert raised.value.reason == "corrupt" and kind.decode() in raised.value.message
    with pytest.raises(AttachmentError) as raised:
        check_masked_png((IMAGES / "letter.png").read_bytes())  # 1240 x 1754: past the side sent
    assert raised.value.reason == "too_large"
    for broken in (photo[:100], b"GIF89a" + photo[6:], (IMAGES / "letter-exif.jpg").read_bytes()):
        with pytest.raises(AttachmentError):
            check_masked_png(broken)
