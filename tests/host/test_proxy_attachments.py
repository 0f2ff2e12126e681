"""Documents and media through the real proxy, with a real loopback upstream that records every
byte it receives (issue 20): inlined PDFs, Office files and text files are read, redacted with the
request's vault and forwarded as text (no real value of a test document, nor its bytes, reaches the
upstream); images, audio and remote media URLs are refused with a 415 naming --allow-media, and go
as they came with it; documents that cannot be read are refused with their reason."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_proxy import anthropic_body, chat, openai_body, stream, text_of
from test_proxy_cli import _wait_ready, free_port, run_cli
from test_proxy_upstream import RunningProxy, ScriptedUpstream

from openmasq.proxy.documents import ALLOW_MEDIA_FLAG

DATA = Path(__file__).resolve().parent.parent / "data" / "attachments"
MANIFEST = json.loads((DATA / "manifest.json").read_text(encoding="utf-8"))
MEDIA_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "odt": "application/vnd.oasis.opendocument.text",
    "ods": "application/vnd.oasis.opendocument.spreadsheet",
}
QUESTION = "Résume ce document en trois lignes."


@pytest.fixture
def upstream() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream() as up:
        yield up


@pytest.fixture
def proxy(upstream: ScriptedUpstream) -> Iterator[RunningProxy]:
    with RunningProxy(upstream.base_url) as running:
        yield running


def b64(name: str) -> str:
    return base64.b64encode((DATA / name).read_bytes()).decode()


def data_url(name: str) -> str:
    return f"data:{MEDIA_TYPES[name.rsplit('.', 1)[1]]};base64,{b64(name)}"


def reals(name: str) -> list[str]:
    return MANIFEST["files"][name]["values"] + MANIFEST["people"]


def assert_wire_clean(upstream: ScriptedUpstream, name: str) -> str:
    """Nothing real of the document, and none of its bytes, in anything the upstream received."""
    wire = upstream.wire_text()
    assert upstream.received, "nothing reached the upstream: the audit would be vacuous"
    leaked = [value for value in reals(name) if value.lower() in wire.lower()]
    assert leaked == [], f"{leaked} reached the upstream"
    assert b64(name)[:64] not in wire and "base64," not in wire
    return wire


def user_parts(upstream: ScriptedUpstream, index: int = 0) -> list[dict[str, Any]]:
    return upstream.received[index].json()["messages"][-1]["content"]


# --- OpenAI chat: file parts ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["contract.pdf", "contract.docx", "clients.xlsx", "review.pptx", "contract.odt",
                                  "clients.ods"])
def test_an_openai_file_part_goes_up_as_its_redacted_text(proxy, upstream, name: str):
    body = openai_body({"role": "user", "content": [
        {"type": "text", "text": QUESTION},
        {"type": "file", "file": {"filename": name, "file_data": data_url(name)}}]})
    response = chat(proxy, body)
    assert response.status_code == 200, response.text
    parts = user_parts(upstream)
    assert [part["type"] for part in parts] == ["text", "text"]
    assert parts[0]["text"] == QUESTION
    assert parts[1]["text"].startswith(f"[Attachment: {name}]\n")
    assert_wire_clean(upstream, name)
    # the echo of what the model read comes back restored: the real people, the real values
    answer = response.json()["choices"][0]["message"]["content"]
    assert [value for value in MANIFEST["files"][name]["values"][:4] if value not in " ".join(answer.split())] == []


def test_a_file_name_that_names_someone_is_faked_and_the_document_and_the_message_share_its_fake(proxy, upstream):
    name = "Contrat_Héloïse_Marchetti.docx"
    body = openai_body({"role": "user", "content": [
        {"type": "file", "file": {"filename": name, "file_data": data_url("contract.docx")}},
        {"type": "text", "text": "Que doit payer Héloïse Marchetti ?"}]})
    assert chat(proxy, body).status_code == 200
    wire = assert_wire_clean(upstream, "contract.docx")
    parts = user_parts(upstream)
    header = parts[0]["text"].split("\n", 1)[0]
    fake = header.removeprefix("[Attachment: Contrat_").removesuffix(".docx]").replace("_", " ")
    assert "Marchetti" not in header and fake in parts[0]["text"] and fake in parts[1]["text"]
    assert "Marchetti" not in wire


def test_a_base64_text_file_is_redacted_like_text(proxy, upstream):
    text = "Notes d'appel : Héloïse Marchetti, +33 6 47 28 91 35, IBAN FR76 3000 4012 3400 0123 4567 862.\n"
    encoded = base64.b64encode(text.encode()).decode()
    body = openai_body({"role": "user", "content": [
        {"type": "file", "file": {"filename": "notes.txt", "file_data": f"data:text/plain;base64,{encoded}"}}]})
    response = chat(proxy, body)
    assert response.status_code == 200
    sent = user_parts(upstream)[0]["text"]
    assert sent.startswith("[Attachment: notes.txt]\nNotes d'appel : ")
    for real in ("Héloïse Marchetti", "+33 6 47 28 91 35", "FR76 3000 4012 3400 0123 4567 862", encoded[:40]):
        assert real not in upstream.wire_text()
    assert text.strip() in response.json()["choices"][0]["message"]["content"]


def test_a_responses_style_input_file_part_is_read_too(proxy, upstream):
    body = openai_body({"role": "user", "content": [
        {"type": "input_text", "text": QUESTION},
        {"type": "input_file", "filename": "clients.xlsx", "file_data": data_url("clients.xlsx")}]})
    assert chat(proxy, body).status_code == 200
    assert user_parts(upstream)[1] == {"type": "text", "text": user_parts(upstream)[1]["text"]}
    assert user_parts(upstream)[1]["text"].startswith("[Attachment: clients.xlsx]\n[Sheet: Clients]\nNom\tE-mail")
    assert_wire_clean(upstream, "clients.xlsx")


def test_a_file_the_provider_holds_keeps_its_id_and_has_its_name_faked(proxy, upstream):
    body = openai_body({"role": "user", "content": [
        {"type": "file", "file": {"file_id": "file-6F2ksmvXxt4VdoqmHRw6kL", "filename": "CV_Héloïse_Marchetti.pdf"}}]})
    assert chat(proxy, body).status_code == 200
    sent = user_parts(upstream)[0]["file"]
    assert sent["file_id"] == "file-6F2ksmvXxt4VdoqmHRw6kL"
    assert sent["filename"].startswith("CV_") and "Marchetti" not in sent["filename"]


# --- Anthropic: document blocks ---------------------------------------------------------------------


def test_an_anthropic_pdf_document_goes_up_as_a_text_document_with_its_title_faked(proxy, upstream):
    document = {"type": "document", "title": "Contrat Héloïse Marchetti.pdf", "citations": {"enabled": True},
                "source": {"type": "base64", "media_type": "application/pdf", "data": b64("contract.pdf")}}
    body = anthropic_body({"role": "user", "content": [document, {"type": "text", "text": QUESTION}]})
    events = stream(proxy, body, "messages")
    sent = user_parts(upstream)[0]
    assert sent["source"]["type"] == "text" and sent["source"]["media_type"] == "text/plain"
    assert sent["source"]["data"].startswith("[Page 1]\n")
    assert sent["citations"] == {"enabled": True}
    assert sent["title"].startswith("Contrat ") and sent["title"].endswith(".pdf") and "Marchetti" not in sent["title"]
    assert_wire_clean(upstream, "contract.pdf")
    assert text_of(events) == f"Reçu : {QUESTION}"


def test_a_document_in_an_anthropic_tool_result_is_read_too(proxy, upstream):
    pdf = {"type": "base64", "media_type": "application/pdf", "data": b64("contract.pdf")}
    result = {"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9", "content": [
        {"type": "document", "source": pdf}]}
    body = anthropic_body(
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9",
                                           "name": "fetch_contract", "input": {"id": 7}}]},
        {"role": "user", "content": [result]})
    assert chat(proxy, body, "messages").status_code == 200
    assert_wire_clean(upstream, "contract.pdf")


def test_a_session_gives_the_documents_people_the_same_fakes_in_the_next_turn(proxy, upstream):
    document = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                               "data": b64("contract.pdf")}}
    first = {"role": "user", "content": [document, {"type": "text", "text": QUESTION}]}
    session = {"X-OpenMasq-Session": "attachments-1"}
    assert chat(proxy, anthropic_body(first), "messages", **session).status_code == 200
    follow = anthropic_body(first, {"role": "assistant", "content": "Voici le résumé."},
                            {"role": "user", "content": "Et que doit payer Héloïse Marchetti ?"})
    assert chat(proxy, follow, "messages", **session).status_code == 200
    turns = [received.json()["messages"] for received in upstream.received]
    assert turns[1][0]["content"][0]["source"]["data"] == turns[0][0]["content"][0]["source"]["data"]
    asked = turns[1][-1]["content"]
    fake = asked.removeprefix("Et que doit payer ").removesuffix(" ?")
    assert fake != "Héloïse Marchetti" and fake in turns[0][0]["content"][0]["source"]["data"]
    assert_wire_clean(upstream, "contract.pdf")


# --- what cannot be read ------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "reason", "said"), [
    ("encrypted.pdf", "encrypted", "password"),
    ("scanned.pdf", "no_text_layer", "OCR"),
])
def test_a_document_that_cannot_be_read_is_refused_and_nothing_goes_up(proxy, upstream, name, reason, said):
    document = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": b64(name)}}
    response = chat(proxy, anthropic_body({"role": "user", "content": [document]}), "messages")
    assert response.status_code == 422
    message = response.json()["error"]["message"]
    assert f"({reason})" in message and said in message and "Nothing was sent upstream" in message
    assert upstream.received == []


def test_a_file_part_with_broken_base64_is_refused(proxy, upstream):
    body = openai_body({"role": "user", "content": [
        {"type": "file", "file": {"filename": "a.pdf", "file_data": "data:application/pdf;base64,%%%notbase64"}}]})
    response = chat(proxy, body)
    assert response.status_code == 422 and "base64" in response.json()["error"]["message"]
    assert upstream.received == []


# --- media ------------------------------------------------------------------------------------------

PNG = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 32).decode()


@pytest.mark.parametrize(("path", "part"), [
    ("chat/completions", {"type": "image_url", "image_url": {"url": PNG}}),
    ("chat/completions", {"type": "image_url", "image_url": {"url": "https://photos.example/heloise-marchetti.jpg"}}),
    ("chat/completions", {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}),
    ("chat/completions", {"type": "input_file", "file_url": "https://files.example/contrat-marchetti.pdf"}),
    ("messages", {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG[22:]}}),
    ("messages", {"type": "image", "source": {"type": "url", "url": "https://photos.example/marchetti.jpg"}}),
    ("messages", {"type": "document", "source": {"type": "url", "url": "https://files.example/marchetti.pdf"}}),
    ("messages", {"type": "tool_result", "tool_use_id": "toolu_01", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG[22:]}}]}),
])
def test_media_is_refused_by_default_with_a_415_naming_the_flag(proxy, upstream, path, part):
    body = (openai_body if path == "chat/completions" else anthropic_body)(
        {"role": "user", "content": [{"type": "text", "text": "Qui est-ce ?"}, part]})
    response = chat(proxy, body, path)
    assert response.status_code == 415
    assert ALLOW_MEDIA_FLAG in response.json()["error"]["message"]
    assert upstream.received == []


def test_with_allow_media_an_image_goes_up_as_it_came_and_the_text_is_still_redacted(upstream):
    part = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG[22:]}}
    body = anthropic_body({"role": "user", "content": [{"type": "text", "text": "Qui est Héloïse Marchetti ?"}, part]})
    with RunningProxy(upstream.base_url, allow_media=True) as proxy:
        assert chat(proxy, body, "messages").status_code == 200
    sent = user_parts(upstream)
    assert sent[1] == part
    assert "Marchetti" not in sent[0]["text"]


def test_the_command_line_lists_allow_media_and_lets_media_through_with_it(upstream):
    assert ALLOW_MEDIA_FLAG in run_cli("proxy", "--help").stdout
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "openmasq", "proxy", "--upstream", upstream.base_url, "--port",
                                str(port), "--rules-only", "--detect-workers", "0", ALLOW_MEDIA_FLAG],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        _wait_ready(process)
        body = openai_body({"role": "user", "content": [{"type": "image_url", "image_url": {"url": PNG}}]})
        response = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json=body, timeout=60)
        assert response.status_code == 200
        assert user_parts(upstream)[0]["image_url"]["url"] == PNG
    finally:
        process.terminate()
        process.wait(timeout=20)
