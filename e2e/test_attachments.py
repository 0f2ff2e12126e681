"""Attachments in the real page (issue 20): files attached by the clip button, dropped on the composer and
pasted into it are read on the device by py-worker (openmasq.attach), the composer shows what will be masked
in each before anything leaves, the provider receives each file as a redacted text part under its name (faked
when it names a person), never its bytes; the turn shows its files as chips, "what the model saw" shows each
as sent, a later turn replays them masked; a password-protected PDF and a scan without text are refused
with a clear error and nothing of them is sent (images: e2e/test_attach_images.py); a long PDF shows its
progress and can be cancelled. Real LibreOffice documents (tests/data/attachments), laptop and phone sizes,
axe clean, and the wire audit: no real value of any document reaches the loopback provider."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from test_chat import LAPTOP, PHONE, open_chat, unlock, wait_for_reply
from test_memory import serious_violations, wait_for_text

from openmasq.testing.upstream import ScriptedUpstream

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data" / "attachments"
MANIFEST = json.loads((DATA / "manifest.json").read_text(encoding="utf-8"))
CLIENT = "Héloïse Marchetti"
SIZES = {"laptop": LAPTOP, "phone": {"width": 360, "height": PHONE["height"]}}
EVERY_VALUE = sorted({v for f in MANIFEST["files"].values() for v in (*f["values"], *f.get("deleted_values", []))}
                     | set(MANIFEST["people"]))
MEDIA = {"pdf": "application/pdf", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
         "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
         "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
         "odt": "application/vnd.oasis.opendocument.text", "ods": "application/vnd.oasis.opendocument.spreadsheet",
         "png": "image/png"}


def media_type(name: str) -> str:
    return MEDIA.get(name.rsplit(".", 1)[-1], "application/octet-stream")


def file_payload(path: Path, name: str | None = None) -> dict[str, str]:
    return {"name": name or path.name, "type": media_type(path.name),
            "data": base64.b64encode(path.read_bytes()).decode("ascii")}


FILES_JS = """(files) => {
    const transfer = new DataTransfer();
    for (const f of files) {
        const bytes = Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0));
        transfer.items.add(new File([bytes], f.name, { type: f.type }));
    }
    return transfer;
}"""


def drop_files(page: Any, files: list[dict[str, str]]) -> None:
    """A drop on the composer, as a file manager's drag ends (the same DataTransfer a real drop carries)."""
    transfer = page.evaluate_handle(FILES_JS, files)
    composer = page.locator("[data-testid=composer]")
    composer.dispatch_event("dragenter", {"dataTransfer": transfer})
    composer.dispatch_event("dragover", {"dataTransfer": transfer})
    composer.dispatch_event("drop", {"dataTransfer": transfer})


def paste_files(page: Any, files: list[dict[str, str]]) -> None:
    """A paste into the composer's text area of copied files."""
    transfer = page.evaluate_handle(FILES_JS, files)
    page.evaluate("""(transfer) => document.querySelector("#composer-input").dispatchEvent(
        new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }))""", transfer)


def chip(page: Any, name: str) -> Any:
    return page.locator(f"[data-testid=attach-chip][data-name='{name}']")


def wait_ready(page: Any, *names: str) -> None:
    for name in names:
        chip(page, name).and_(page.locator("[data-status=ready]")).wait_for()
        chip(page, name).locator("[data-testid=attach-masked][data-state=current]").wait_for()


def posts(upstream: ScriptedUpstream) -> list[Any]:
    return [r for r in upstream.received if r.method == "POST"]


def wire_text(upstream: ScriptedUpstream) -> str:
    """Every body the provider received, decoded (a value escaped as \\u00e9 in JSON is found too)."""
    return "\n".join(r.text() if r.method == "POST" else r.path for r in upstream.received)


def leaked(upstream: ScriptedUpstream) -> list[str]:
    wire = wire_text(upstream)
    return [value for value in EVERY_VALUE if value in wire or value.casefold() in wire.casefold()]


def user_parts(received: Any) -> list[str]:
    last = [m for m in received.json()["messages"] if m["role"] == "user"][-1]
    content = last["content"]
    return [content] if isinstance(content, str) else [p["text"] for p in content if p.get("type") == "text"]


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_files_attached_by_button_drop_and_paste_go_as_redacted_text_and_nothing_real_leaves(
    context: Any, site_server: Any, provider: ScriptedUpstream, shoot: Any, size: str
) -> None:
    page = open_chat(context, site_server.url, provider.base_url)
    page.set_viewport_size(SIZES[size])
    # The limits are said before any file is chosen (py-worker gives them a moment after the note shows).
    wait_for_text(page.locator("[data-testid=attach-limits]"), "10")
    assert "10" in page.locator("[data-testid=attach-limits]").inner_text()
    page.set_input_files("[data-testid=attach-input]", [str(DATA / "contract.pdf")])
    drop_files(page, [file_payload(DATA / "clients.xlsx")])
    paste_files(page, [file_payload(DATA / "contract.docx", f"Contrat {CLIENT}.docx")])
    wait_ready(page, "contract.pdf", "clients.xlsx", f"Contrat {CLIENT}.docx")
    assert posts(provider) == []  # read and masked on the device: nothing has left yet
    pdf = chip(page, "contract.pdf")
    pdf.locator("summary").click()
    masked = pdf.locator("[data-preview=masked]").all_inner_texts()
    assert CLIENT in masked and "FR76 3000 4012 3400 0123 4567 862" in masked
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"attachments-composer-{size}", full_page=False)

    page.fill("#composer-input", f"Résume ces documents : que doit faire {CLIENT} ?")
    page.locator("[data-testid=composer-preview][data-state=current]").wait_for()
    page.click("[data-action=send]")
    wait_for_reply(page)
    [sent] = posts(provider)
    parts = user_parts(sent)
    assert [p.split("\n", 1)[0] for p in parts[:3]] == [
        "[Attachment: contract.pdf]", "[Attachment: clients.xlsx]", parts[2].split("\n", 1)[0]]
    assert parts[2].startswith("[Attachment: Contrat ") and "Marchetti" not in parts[2].split("\n", 1)[0]
    assert parts[3].startswith("Résume ces documents")
    assert "%PDF" not in wire_text(provider) and "JVBERi" not in wire_text(provider)  # never the bytes
    assert leaked(provider) == []

    user = page.locator("[data-role=user]").last
    assert user.locator("[data-testid=sent-attachment]").count() == 3
    user.locator("[data-action=wire]").click()
    shown = user.locator("[data-testid=attachment-wire]")
    assert shown.count() == 3 and shown.first.locator("pre").inner_text() == parts[0]
    assert [v for v in EVERY_VALUE if v in user.locator("[data-testid=wire]").inner_text()] == []
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"attachments-sent-{size}", full_page=False)

    # A later turn replays the files masked (the same parts), and still nothing real.
    page.fill("#composer-input", "Et le délai de paiement ?")
    page.click("[data-action=send]")
    page.locator("[data-role=assistant]").nth(1).locator(".message-actions").wait_for()
    second = posts(provider)[1]
    history = next(m for m in second.json()["messages"] if m["role"] == "user")["content"]
    assert [p["text"] for p in history][:3] == parts[:3]
    assert leaked(provider) == []
    assert page.ui_errors == []


def test_files_stay_with_their_turn_after_a_reload(context: Any, site_server: Any, provider: ScriptedUpstream) -> None:
    page = open_chat(context, site_server.url, provider.base_url)
    page.set_input_files("[data-testid=attach-input]", [str(DATA / "review.pptx")])
    wait_ready(page, "review.pptx")
    page.click("[data-action=send]")  # files alone, no typed text
    wait_for_reply(page)
    assert user_parts(posts(provider)[0])[0].startswith("[Attachment: review.pptx]")
    page.reload()
    unlock(page, "Perso", "tapis cerise volcan 42")
    page.locator("[data-role=user] [data-testid=sent-attachment][data-name='review.pptx']").wait_for()
    assert leaked(provider) == []
    assert page.ui_errors == []


def test_a_protected_pdf_is_refused_clearly_a_declined_scan_is_not_attached_and_nothing_of_them_is_sent(
    context: Any, site_server: Any, provider: ScriptedUpstream, shoot: Any
) -> None:
    page = open_chat(context, site_server.url, provider.base_url)
    page.set_input_files("[data-testid=attach-input]", [str(DATA / "encrypted.pdf"), str(DATA / "scanned.pdf")])
    errors = page.locator("[data-testid=attach-error]")
    # The scan is offered to on-device OCR (e2e/test_attach_images.py reads it): declined here.
    page.locator("[data-testid=image-review]").wait_for()
    page.click("[data-action=image-remove]")
    refused = (("encrypted.pdf", "encrypted"), ("scanned.pdf", "scan_declined"))
    for name, reason in refused:
        chip(page, name).locator(f"[data-testid=attach-error][data-reason={reason}]").wait_for()
    texts = errors.all_inner_texts()
    assert [any(word in t for t in texts) for word in ("mot de passe", "numérisé")] == [True, True]
    assert page.locator("[data-action=send]").is_disabled()  # refused files alone: nothing to send
    assert serious_violations(page, site_server.url) == []
    shoot(page, "attachments-refused", full_page=False)
    page.fill("#composer-input", "Bonjour.")
    page.click("[data-action=send]")
    wait_for_reply(page)
    [sent] = posts(provider)
    assert user_parts(sent) == ["Bonjour."]  # the refused files are not in it
    assert leaked(provider) == []
    assert page.ui_errors == []


def test_a_long_pdf_shows_its_progress_and_a_cancel_keeps_nothing(
    context: Any, site_server: Any, provider: ScriptedUpstream
) -> None:
    page = open_chat(context, site_server.url, provider.base_url)
    page.set_input_files("[data-testid=attach-input]", [str(DATA / "report.pdf")])
    progress = chip(page, "report.pdf").locator("[data-testid=attach-progress]")
    progress.wait_for()
    page.wait_for_selector("[data-testid=attach-progress] progress[max='20']")  # said page by page
    chip(page, "report.pdf").locator("[data-action=attach-cancel], [data-action=attach-remove]").click()
    chip(page, "report.pdf").wait_for(state="detached")
    page.fill("#composer-input", "Bonjour.")
    page.click("[data-action=send]")
    wait_for_reply(page)
    assert user_parts(posts(provider)[0]) == ["Bonjour."]
    assert leaked(provider) == []
    assert page.ui_errors == []
