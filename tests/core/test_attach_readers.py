"""The attachment readers on real files: the documents LibreOffice wrote (tests/data/attachments,
scripts/build_test_documents.py), e-mails written by the standard library's generator, and text
files in the encodings people send. Runs on the host and inside Pyodide (pypdf included)."""

from __future__ import annotations

import hashlib
import json
from email.message import EmailMessage
from pathlib import Path

import pytest

from openmasq.attach import AttachmentError, detect, extract
from openmasq.attach.pdf import rejoin_wrapped

# Relative to this file: the same test runs inside Pyodide, where tests/data ships next to tests/core.
DATA = Path(__file__).resolve().parent.parent / "data" / "attachments"
MANIFEST = json.loads((DATA / "manifest.json").read_text(encoding="utf-8"))
FILES = MANIFEST["files"]
READABLE = sorted(name for name in FILES if name not in ("encrypted.pdf", "scanned.pdf"))


def read(name: str):
    return extract((DATA / name).read_bytes(), name)


@pytest.mark.parametrize("name", sorted(FILES))
def test_each_document_is_the_one_the_recipe_built(name: str):
    data = (DATA / name).read_bytes()
    assert hashlib.sha256(data).hexdigest() == FILES[name]["sha256"]


@pytest.mark.parametrize("name", READABLE)
def test_every_real_value_of_a_document_is_in_its_text(name: str):
    text = read(name).text
    assert [value for value in FILES[name]["values"] if value not in text] == []


@pytest.mark.parametrize("name", ["contract.docx", "contract.odt"])
def test_a_text_document_gives_its_header_footer_comments_and_tracked_insertion(name: str):
    found = read(name)
    labels = [part.label for part in found.parts]
    assert labels == ["Document", "Header", "Footer", "Comments"]
    parts = {part.label: part.text for part in found.parts}
    assert "Confidentiel — dossier Héloïse Marchetti" in parts["Header"]
    assert "14 rue des Tanneurs, 69002 Lyon" in parts["Footer"]
    assert parts["Comments"] == "Solène Drouard: Vérifier cet IBAN avec Héloïse Marchetti avant la signature."
    assert "Le paiement est dû sous 30 jours, par virement à l'ordre de Baptiste Quenneville." in parts["Document"]


@pytest.mark.parametrize("name", ["contract.docx", "contract.odt"])
def test_a_tracked_deletion_is_left_out(name: str):
    text = read(name).text
    assert FILES[name]["deleted_values"] and not [v for v in FILES[name]["deleted_values"] if v in text]
    assert "Ancienne ligne directe" not in text


@pytest.mark.parametrize("name", ["contract.docx", "contract.odt"])
def test_a_table_of_a_text_document_is_rows_of_tab_separated_cells(name: str):
    rows = read(name).parts[0].text.splitlines()
    assert "Nom\tE-mail\tTéléphone" in rows
    assert "Héloïse Marchetti\theloise.marchetti@marchetti-conseil.fr\t+33 6 47 28 91 35" in rows


@pytest.mark.parametrize(("name", "birth"), [("clients.xlsx", "1987-03-14"), ("clients.ods", "14/03/1987")])
def test_every_sheet_is_rows_of_cells_with_dates_as_dates(name: str, birth: str):
    found = read(name)
    assert [part.label for part in found.parts] == ["Sheet: Clients", "Sheet: Paiements"]
    clients = found.parts[0].text.splitlines()
    assert clients[0] == "Nom\tE-mail\tTéléphone\tIBAN\tDate de naissance\tVille"
    assert clients[1].split("\t") == ["Héloïse Marchetti", "heloise.marchetti@marchetti-conseil.fr",
                                      "+33 6 47 28 91 35", "FR76 3000 4012 3400 0123 4567 862", birth, "Lyon"]
    assert len(clients) == 4
    assert found.parts[1].text.splitlines()[1].split("\t")[1:3] == ["Héloïse Marchetti", "1250.5"]


def test_a_presentation_gives_each_slide_then_its_notes():
    found = read("review.pptx")
    assert [part.label for part in found.parts] == ["Slide 1", "Slide 2", "Slide 3"]
    first = found.parts[0].text
    assert first.startswith("Revue du dossier Marchetti\nCliente : Héloïse Marchetti")
    assert first.endswith("Notes:\nRappeler Héloïse Marchetti au +33 6 47 28 91 35 avant vendredi.")


@pytest.mark.parametrize("name", ["contract.pdf", "owner-only.pdf"])
def test_a_pdf_gives_its_pages_with_their_footers(name: str):
    found = read(name)
    assert [part.label for part in found.parts] == ["Page 1", "Page 2", "Page 3"]
    for number, part in enumerate(found.parts, start=1):
        assert part.text.endswith(f"contact@atelier-verrand.fr — page {number}")
    assert found.warnings == ()


def test_a_pdf_table_cell_wrapped_inside_an_email_is_joined_back():
    lines = read("contract.pdf").parts[0].text.splitlines()
    page = "\n".join(lines)
    # The table's cells are too narrow for the e-mails: the text layer breaks each in two lines.
    assert "Héloïse Marchetti heloise.marchetti@marchetti-conseil.fr" in lines
    assert "Baptiste Quenneville baptiste.quenneville@atelier-verrand.fr" in lines
    assert "par Baptiste Quenneville, et Madame Héloïse Marchetti, joignable au +33 6 47 28 91 35 ou" in page


@pytest.mark.parametrize(("lines", "joined"), [
    (["écrire à marie.dupont@exam", "ple.fr demain"], "écrire à marie.dupont@example.fr demain"),
    (["contact@atelier-", "verrand.fr"], "contact@atelier-verrand.fr"),
    (["appeler le +33 6", "12 34 56 78."], "appeler le +33 6 12 34 56 78."),
    (["IBAN FR76 3000 4012 3400 0123 4567", "862."], "IBAN FR76 3000 4012 3400 0123 4567 862."),
    (["écrire à marie@example.fr.", "Merci."], "écrire à marie@example.fr.\nMerci."),  # a sentence's end
    (["Montant 1250.5", "830"], "Montant 1250.5\n830"),  # one number per line stays so
    (["voir https://example.fr/docs/", "guide.html"], "voir https://example.fr/docs/guide.html"),
])
def test_a_pdf_line_wrap_inside_a_value_is_undone_and_others_are_kept(lines: list[str], joined: str):
    assert rejoin_wrapped(lines) == joined


def _email(html_only: bool = False, attached: bool = False) -> bytes:
    message = EmailMessage()
    message["From"] = "Héloïse Marchetti <heloise.marchetti@marchetti-conseil.fr>"
    message["To"] = "Baptiste Quenneville <baptiste.quenneville@atelier-verrand.fr>"
    message["Cc"] = "compta@atelier-verrand.fr"
    message["Subject"] = "Facture de mars – IBAN modifié"
    message["Date"] = "Mon, 02 Mar 2026 10:15:00 +0100"
    html = ("<html><head><style>p{color:red}</style></head><body><p>Bonjour Baptiste,</p>"
            "<p>Mon nouvel IBAN : <b>FR76 3000 4012 3400 0123 4567 862</b>.</p>"
            "<table><tr><td>Tél.</td><td>+33 6 47 28 91 35</td></tr></table><script>x()</script></body></html>")
    if html_only:
        message.set_content(html, subtype="html")
    else:
        message.set_content("Bonjour Baptiste,\n\nMon nouvel IBAN : FR76 3000 4012 3400 0123 4567 862.\n")
        message.add_alternative(html, subtype="html")
    if attached:
        message.add_attachment(b"%PDF-1.4 ...", maintype="application", subtype="pdf", filename="RIB Marchetti.pdf")
    return bytes(message)


def test_an_email_gives_its_headers_and_its_plain_body():
    found = extract(_email(), "message.eml")
    assert found.format == "eml"
    head, body = found.parts[0].text, found.parts[1].text
    assert head.splitlines() == [
        "From: Héloïse Marchetti <heloise.marchetti@marchetti-conseil.fr>",
        "To: Baptiste Quenneville <baptiste.quenneville@atelier-verrand.fr>",
        "Cc: compta@atelier-verrand.fr",
        "Subject: Facture de mars – IBAN modifié",
        "Date: Mon, 02 Mar 2026 10:15:00 +0100",
    ]
    assert body == "Bonjour Baptiste,\n\nMon nouvel IBAN : FR76 3000 4012 3400 0123 4567 862."


def test_an_html_only_email_is_read_as_text_without_its_style_or_script():
    body = extract(_email(html_only=True), "message.eml").parts[1].text
    assert body.splitlines() == ["Bonjour Baptiste,", "", "Mon nouvel IBAN : FR76 3000 4012 3400 0123 4567 862.",
                                 "", "Tél.\t+33 6 47 28 91 35"]


def test_files_attached_to_an_email_are_named_not_read():
    found = extract(_email(attached=True), "message.eml")
    assert found.warnings == ("Files attached to the e-mail are not read: RIB Marchetti.pdf.",)
    assert "%PDF" not in found.text


@pytest.mark.parametrize(("data", "text", "warned"), [
    ("Prénom;Nom\nHéloïse;Marchetti\n".encode(), "Prénom;Nom\nHéloïse;Marchetti\n", False),
    (b"\xef\xbb\xbf" + "Prénom,Nom\r\nHéloïse,Marchetti\r\n".encode(), "Prénom,Nom\nHéloïse,Marchetti\n", False),
    ("Prénom,Nom\nHéloïse,Marchetti\n".encode("utf-16"), "Prénom,Nom\nHéloïse,Marchetti\n", False),
    ("Prénom,Nom\nHéloïse,Marchetti\n".encode("cp1252"), "Prénom,Nom\nHéloïse,Marchetti\n", True),
])
def test_a_csv_is_read_in_the_encodings_spreadsheets_write(data: bytes, text: str, warned: bool):
    found = extract(data, "clients.csv", "text/csv")
    assert (found.format, found.text, bool(found.warnings)) == ("csv", text, warned)


def test_json_markdown_and_code_are_read_as_text_and_invalid_json_is_said():
    assert extract(b'{"client": "Marchetti"}', "a.json").warnings == ()
    assert extract(b'{"a": 1}\n{"b": 2}\n', "a.jsonl").warnings == ()
    assert extract(b'{"client": ', "a.json").warnings == ("The file is not valid JSON: it was read as plain text.",)
    assert extract(b"# Compte rendu\n", "notes.md").format == "markdown"
    assert extract(b"def f():\n    return 1\n", "tool.py").format == "code"
    assert extract(b"FROM debian\n", "Dockerfile").format == "code"


@pytest.mark.parametrize(("name", "media_type", "fmt"), [
    ("contract.pdf.txt", "text/plain", "pdf"),  # the bytes say PDF
    ("contract", "", "pdf"),
    ("clients.xlsx", "application/octet-stream", "xlsx"),
    ("renamed.zip", "application/zip", "odt"),
])
def test_the_format_is_read_from_the_bytes_before_the_name(name: str, media_type: str, fmt: str):
    source = {"pdf": "contract.pdf", "xlsx": "clients.xlsx", "odt": "contract.odt"}[fmt]
    assert detect((DATA / source).read_bytes(), name, media_type) == fmt


def test_a_mislabelled_file_says_so():
    with pytest.raises(AttachmentError) as caught:
        extract(b"Ceci n'est pas un PDF", "contract.pdf", "application/pdf")
    assert caught.value.reason == "corrupt" and "PDF" in caught.value.message
