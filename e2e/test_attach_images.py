"""Attached images in the real page (issue 20, item 2), against the scripted loopback provider: a scanned letter
(LibreOffice's JPEG, with an EXIF block naming its client) is read by on-device OCR (tesseract.js from the site:
downloaded from the app's own origin, no request leaves 127.0.0.1), the user sees it masked and chooses; the
provider receives exactly the masked PNG the page showed, every word of a personal value black in it, no value
readable by OCR in it again, no metadata and no real value anywhere on the wire; or only the text read, masked;
a photo without text goes only after its consent; a reading can be cancelled; laptop and phone, axe clean."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
from test_chat import LAPTOP, add_provider, create_account, new_conversation, open_app, send, wait_for_reply
from test_memory import serious_violations

from openmasq.attach.ocr import METADATA_CHUNKS, SEND_MAX_SIDE, png_chunks
from openmasq.testing.upstream import ScriptedUpstream

NARROW_PHONE = {"width": 360, "height": 740}
IMAGES = Path(__file__).resolve().parents[1] / "tests" / "data" / "images"
MANIFEST = json.loads((IMAGES / "manifest.json").read_text(encoding="utf-8"))
LETTER = IMAGES / "letter-exif.jpg"
# The letter's values the engine masks (company: "Atelier Verrand" is the organisation; "SARL" on the next line
# is its legal form, left readable like any other word).
VALUES = [v for v in MANIFEST["files"]["letter-exif.jpg"]["values"] if "SARL" not in v] + ["Atelier Verrand"]
EVERYTHING_REAL = [*MANIFEST["files"]["letter-exif.jpg"]["values"],
                   *MANIFEST["files"]["letter-exif.jpg"]["metadata_values"]]

OCR_JS = """async ([b64, langs]) => {
  const Comlink = await import(new URL("vendor/comlink.mjs", document.baseURI).href);
  const worker = new Worker(new URL("worker/ocr-worker.js", document.baseURI), { type: "module" });
  try {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return await Comlink.wrap(worker).recognize(bytes.buffer, langs);
  } finally { worker.terminate(); }
}"""
# The share of near-black pixels inside each box of a PNG.
DARK_JS = """async ([b64, boxes]) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext("2d");
  ctx.drawImage(bitmap, 0, 0);
  const dark = boxes.map((b) => {
    const w = Math.max(1, b.x1 - b.x0), h = Math.max(1, b.y1 - b.y0);
    const d = ctx.getImageData(b.x0, b.y0, w, h).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] < 48 && d[i + 1] < 48 && d[i + 2] < 48) n += 1;
    return n / (w * h);
  });
  return { width: bitmap.width, height: bitmap.height, dark };
}"""


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def squeezed(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).casefold()


def posts(upstream: ScriptedUpstream) -> list[Any]:
    return [r for r in upstream.received if r.method == "POST"]


def user_content(received: Any) -> list[dict[str, Any]]:
    body = json.loads(received.body)
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


def chat_ready(context: Any, url: str, provider: ScriptedUpstream) -> Any:
    """The app open, a new account, `provider` added and a new conversation on screen."""
    page = open_app(context, url)
    create_account(page)
    add_provider(page, provider.base_url)
    page.click("[data-route=chat]")
    new_conversation(page)
    return page


def attach(page: Any, path: Path) -> Any:
    """Attaches a file by the composer's file input, as the clip button does; returns the review dialog."""
    page.set_input_files("[data-testid=attach-input]", str(path))
    review = page.locator("[data-testid=image-review]")
    review.wait_for()
    download = page.locator("[data-action=image-download]")
    # OCR is an on-demand download (docs/install.md): the first image asks for it, in the dialog.
    page.locator("[data-testid=image-review][data-stage=download], [data-testid=image-review][data-stage=review], "
                 "[data-testid=image-review][data-stage=reading]").first.wait_for()
    if review.get_attribute("data-stage") == "download":
        download.click()
    page.locator("[data-testid=image-review][data-stage=review]").wait_for(timeout=120_000)
    return review


def shown_png(page: Any) -> bytes:
    """The bytes of the masked image the review shows (its data: URL)."""
    src = str(page.locator("[data-testid=masked-image]").get_attribute("src"))
    assert src.startswith("data:image/png;base64,")
    return base64.b64decode(src.split(",", 1)[1])


def value_words(words: list[dict[str, Any]], values: list[str]) -> list[dict[str, Any]]:
    """The OCR words of the original image that belong to one of `values` (each word of a value, compared
    without punctuation: "Marchetti," is the surname)."""
    tokens = {squeezed(t) for v in values for t in v.split() if squeezed(t)}
    return [w for w in words if squeezed(w["text"]) in tokens and len(squeezed(w["text"])) >= 2]


def test_an_attached_scan_goes_as_the_masked_png_the_user_saw_and_nothing_real_leaves(
    context: Any, site_server: Any, provider: ScriptedUpstream, recorder: Any, shoot: Any
) -> None:
    page = chat_ready(context, site_server.url, provider)
    attach(page, LETTER)
    assert posts(provider) == []  # read and masked on the device: nothing left
    masked_kinds = page.locator("[data-testid=image-masked] li").evaluate_all("els => els.map((e) => e.dataset.kind)")
    assert {"person", "email", "phone", "iban"} <= set(masked_kinds)
    shown = shown_png(page)
    shoot(page, "image-review", full_page=False)
    assert serious_violations(page, site_server.url) == []
    page.click("[data-action=image-attach]")
    page.locator("[data-testid=attach-chip][data-status=ready]").wait_for()
    send(page, "Que dit cette attestation ?")
    wait_for_reply(page)

    [request] = posts(provider)
    content = user_content(request)
    assert [part["type"] for part in content] == ["image_url", "text", "text"]
    sent = base64.b64decode(content[0]["image_url"]["url"].split(",", 1)[1])
    assert sent == shown  # exactly the image the user saw
    assert not METADATA_CHUNKS & set(png_chunks(sent))
    assert b"Exif" not in sent and not [v for v in EVERYTHING_REAL if v.encode() in sent]
    wire = "\n".join(r.body.decode("utf-8", "replace") for r in posts(provider))
    assert not [v for v in EVERYTHING_REAL if v in wire or squeezed(v) in squeezed(wire.split("base64,")[0])]
    assert "Attestation de paiement" not in wire  # the text read stays on the device when the image goes
    # No request of the page, its workers (ocr-worker and tesseract's own) or the service worker left loopback.
    assert recorder.off_origin("http://127.0.0.1") == []
    assert any("/vendor/tesseract/lang/fra.traineddata.gz" in u for u in recorder.urls())

    # Every word of a masked value is black in the PNG sent (the original read again by the same OCR, its boxes
    # scaled to the size sent, a margin of 2 px inside), and OCR reads none of the values back from it.
    original = page.evaluate(OCR_JS, [b64(LETTER.read_bytes()), ["fra", "eng"]])
    targets = value_words(original["words"], VALUES)
    assert len(targets) >= 12
    scale = SEND_MAX_SIDE / 1754
    boxes = [{"x0": round(w["x0"] * scale) + 2, "y0": round(w["y0"] * scale) + 2,
              "x1": round(w["x1"] * scale) - 2, "y1": round(w["y1"] * scale) - 2} for w in targets]
    measured = page.evaluate(DARK_JS, [b64(sent), boxes])
    assert (measured["width"], measured["height"]) == (round(1240 * scale), SEND_MAX_SIDE)
    assert [w["text"] for w, dark in zip(targets, measured["dark"], strict=True) if dark < 0.97] == []
    again = page.evaluate(OCR_JS, [b64(sent), ["fra", "eng"]])
    assert "Attestation de paiement" in again["text"]  # the rest of the letter is still readable
    assert [v for v in VALUES if squeezed(v) in squeezed(again["text"])] == []

    # "What the model saw" shows the masked image as it went.
    user = page.locator("[data-role=user]").last
    user.locator("[data-action=wire]").click()
    wired = page.locator("[data-testid=wire-image]").first
    wired.wait_for()
    assert base64.b64decode(str(wired.get_attribute("src")).split(",", 1)[1]) == sent
    assert page.ui_errors == []


def test_the_text_only_choice_sends_the_text_read_masked_and_no_image(
    context: Any, site_server: Any, provider: ScriptedUpstream
) -> None:
    page = chat_ready(context, site_server.url, provider)
    attach(page, IMAGES / "letter.png")
    page.click("[data-testid=choice-text]")
    shown = page.locator("[data-testid=image-text]").inner_text()
    assert "Attestation de paiement" in shown and "Marchetti" not in shown
    page.click("[data-action=image-attach]")
    page.locator("[data-testid=attach-chip][data-status=ready]").wait_for()
    send(page, "Résume.")
    wait_for_reply(page)
    [request] = posts(provider)
    content = user_content(request)
    assert [part["type"] for part in content] == ["text", "text"]
    assert content[0]["text"].startswith("[Attachment: letter.png]\n")
    assert "Attestation de paiement" in content[0]["text"]
    assert not [v for v in EVERYTHING_REAL if v in request.body.decode()]
    assert page.ui_errors == []


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_a_photo_without_text_goes_only_with_its_consent_said_plainly(
    context: Any, site_server: Any, provider: ScriptedUpstream, shoot: Any, size: str
) -> None:
    page = open_app(context, site_server.url, LAPTOP if size == "laptop" else NARROW_PHONE)
    create_account(page)
    add_provider(page, provider.base_url)
    page.click("[data-route=chat]")
    if size == "laptop":  # on a phone the list is a drawer: the chat opens on an empty conversation
        new_conversation(page)
    attach(page, IMAGES / "photo.png")
    page.locator("[data-testid=image-no-text]").wait_for()
    assert page.locator("[data-testid=choice-image]").count() == 0
    attach_button = page.locator("[data-action=image-attach]")
    assert attach_button.is_disabled()
    shoot(page, f"image-consent-{size}", full_page=False)
    assert serious_violations(page, site_server.url) == []
    page.check("[data-testid=image-consent]")
    attach_button.click()
    page.locator("[data-testid=attach-chip][data-status=ready]").wait_for()
    send(page, "Joli paysage ?")
    wait_for_reply(page)
    [request] = posts(provider)
    content = user_content(request)
    assert content[0]["type"] == "image_url"
    sent = base64.b64decode(content[0]["image_url"]["url"].split(",", 1)[1])
    assert png_chunks(sent)[0] == "IHDR" and sent != (IMAGES / "photo.png").read_bytes()  # drawn again, not the file
    assert page.ui_errors == []


def test_a_reading_can_be_cancelled_nothing_is_attached_or_sent_and_settings_lists_the_ocr_download(
    context: Any, site_server: Any, provider: ScriptedUpstream
) -> None:
    page = chat_ready(context, site_server.url, provider)
    attach(page, IMAGES / "photo.png")  # OCR downloaded by a first image
    page.click("[data-action=image-remove]")
    page.locator("[data-testid=image-review]").wait_for(state="detached")
    page.set_input_files("[data-testid=attach-input]", str(IMAGES / "page.png"))
    page.locator("[data-testid=image-review][data-stage=reading]").wait_for()
    page.click("[data-action=image-remove]")  # while the page is being read
    page.locator("[data-testid=image-review]").wait_for(state="detached")
    chips = page.locator("[data-testid=attach-chip]")
    assert chips.evaluate_all("els => els.map((e) => e.dataset.status)") == ["error", "error"]
    assert page.locator("[data-testid=attach-error][data-reason=image_declined]").count() == 2
    assert posts(provider) == []
    # The download the first image asked for is the one Settings lists (and can remove).
    page.click("[data-route=settings]")
    page.locator("[data-model=ocr][data-state=ready]").wait_for()
    assert page.ui_errors == []


def test_a_scanned_pdf_is_read_by_ocr_and_goes_as_its_text_masked(
    context: Any, site_server: Any, provider: ScriptedUpstream, shoot: Any
) -> None:
    scanned = Path(__file__).resolve().parents[1] / "tests" / "data" / "attachments"
    documents = json.loads((scanned / "manifest.json").read_text(encoding="utf-8"))
    page = chat_ready(context, site_server.url, provider)
    attach(page, scanned / "scanned.pdf")  # its reader says: no text layer; the review offers its pages to OCR
    page.locator("[data-testid=scan-read]").wait_for()
    shown = page.locator("[data-testid=image-text]").inner_text()
    assert shown.startswith("[Page 1]\n") and "Attestation" in shown
    shoot(page, "scan-review", full_page=False)
    page.click("[data-action=image-attach]")
    page.locator("[data-testid=attach-chip][data-status=ready]").wait_for()
    send(page, "Que dit ce scan ?")
    wait_for_reply(page)
    [request] = posts(provider)
    content = user_content(request)
    assert [part["type"] for part in content] == ["text", "text"]
    assert content[0]["text"].startswith("[Attachment: scanned.pdf]\n[Page 1]\n")
    body = request.body.decode()
    assert not [v for v in documents["files"]["scanned.pdf"]["values"] if v in body or squeezed(v) in squeezed(body)]
    assert page.ui_errors == []
