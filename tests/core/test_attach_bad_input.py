"""Files the readers must refuse with a clear reason and nothing else: encrypted, truncated,
corrupt, scanned, binary, too large, zip bombs, DTD tricks, and the real documents with bytes
flipped at random (every outcome is a text or an AttachmentError, never another exception)."""

from __future__ import annotations

import io
import random
import zipfile
from pathlib import Path

import pytest

from openmasq.attach import AttachmentError, check_message, extract, limits

DATA = Path(__file__).resolve().parent.parent / "data" / "attachments"


def refused(data: bytes, name: str, media_type: str = "") -> AttachmentError:
    with pytest.raises(AttachmentError) as caught:
        extract(data, name, media_type)
    return caught.value


def contract_pdf() -> bytes:
    return (DATA / "contract.pdf").read_bytes()


def test_a_pdf_with_a_user_password_is_refused_as_encrypted():
    error = refused((DATA / "encrypted.pdf").read_bytes(), "encrypted.pdf")
    assert error.reason == "encrypted" and "password" in error.message


def test_a_pdf_encrypted_by_pypdf_here_is_refused_as_encrypted():
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(contract_pdf())))
    writer.encrypt(user_password="Marchetti-2026", algorithm="RC4-128")  # RC4: pure Python, Pyodide too
    out = io.BytesIO()
    writer.write(out)
    assert refused(out.getvalue(), "locked.pdf").reason == "encrypted"


def test_a_scanned_pdf_says_ocr_is_needed():
    error = refused((DATA / "scanned.pdf").read_bytes(), "scanned.pdf")
    assert error.reason == "no_text_layer" and "OCR" in error.message


@pytest.mark.parametrize("fraction", [0.02, 0.5, 0.97])
def test_a_truncated_pdf_is_corrupt(fraction: float):
    data = contract_pdf()
    assert refused(data[: int(len(data) * fraction)], "contract.pdf").reason == "corrupt"


@pytest.mark.parametrize("name", ["contract.docx", "clients.xlsx", "review.pptx", "contract.odt", "clients.ods"])
@pytest.mark.parametrize("fraction", [0.01, 0.5, 0.99])
def test_a_truncated_office_file_is_corrupt(name: str, fraction: float):
    data = (DATA / name).read_bytes()
    assert refused(data[: max(4, int(len(data) * fraction))], name).reason == "corrupt"


def rezipped(name: str, replace: dict[str, bytes], extra: int = 0) -> bytes:
    """A real document with some members replaced (and `extra` empty members added)."""
    out = io.BytesIO()
    with zipfile.ZipFile(DATA / name) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(info.filename, replace.get(info.filename, source.read(info.filename)))
        for index in range(extra):
            target.writestr(f"padding/{index}.xml", b"")
    return out.getvalue()


def test_a_zip_bomb_is_refused_before_it_inflates():
    # 8 MiB of spaces deflate to ~8 kB: a ratio of 1000, five times the one read.
    bomb = b'<?xml version="1.0"?><w:document xmlns:w="x">' + b" " * (8 * limits.MiB) + b"</w:document>"
    data = rezipped("contract.docx", {"word/document.xml": bomb})
    assert len(data) < 8 * limits.MiB // limits.MAX_COMPRESSION_RATIO
    error = refused(data, "contract.docx")
    assert error.reason == "zip_bomb"


def test_a_container_of_too_many_members_is_refused():
    data = rezipped("contract.docx", {}, extra=limits.MAX_ZIP_MEMBERS)
    assert refused(data, "contract.docx").reason == "zip_bomb"


def test_an_office_file_with_a_dtd_is_refused_before_parsing():
    laughs = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>'
              b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p>'
              b"<w:r><w:t>&lol2;</w:t></w:r></w:p></w:body></w:document>")
    assert refused(rezipped("contract.docx", {"word/document.xml": laughs}), "contract.docx").reason == "corrupt"


def test_a_sheet_that_repeats_a_cell_a_million_times_is_too_large():
    content = (b'<?xml version="1.0" encoding="UTF-8"?><office:document-content '
               b'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               b'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
               b'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>'
               b'<table:table table:name="A"><table:table-row table:number-rows-repeated="1048576">'
               b'<table:table-cell table:number-columns-repeated="16384"><text:p>x</text:p></table:table-cell>'
               b"</table:table-row></table:table></office:spreadsheet></office:body></office:document-content>")
    assert refused(rezipped("clients.ods", {"content.xml": content}), "clients.ods").reason == "too_large"


def test_empty_repeated_cells_of_a_sheet_cost_nothing():
    content = (b'<?xml version="1.0" encoding="UTF-8"?><office:document-content '
               b'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               b'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
               b'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>'
               b'<table:table table:name="A"><table:table-row><table:table-cell><text:p>Marchetti</text:p>'
               b'</table:table-cell><table:table-cell table:number-columns-repeated="16383"/></table:table-row>'
               b'<table:table-row table:number-rows-repeated="1048575"><table:table-cell '
               b'table:number-columns-repeated="16384"/></table:table-row></table:table></office:spreadsheet>'
               b"</office:body></office:document-content>")
    assert extract(rezipped("clients.ods", {"content.xml": content}), "clients.ods").text == "[Sheet: A]\nMarchetti"


def test_a_binary_file_named_txt_is_refused_as_binary():
    data = bytes(range(256)) * 64
    error = refused(data, "notes.txt", "text/plain")
    assert error.reason == "binary"


def test_text_in_no_known_encoding_is_refused():
    assert refused(b"caf\xe9 \x81\x8d au lait", "notes.txt").reason == "undecodable"
    assert refused(b"\xef\xbb\xbfcaf\xe9", "notes.txt").reason == "undecodable"  # a UTF-8 BOM, then Latin-1


def test_a_huge_text_is_too_large_and_says_the_bound():
    error = refused(b"Marchetti " * (limits.MAX_TEXT_CHARS // 10 + 1), "notes.txt")
    assert error.reason == "too_large" and str(limits.MAX_TEXT_CHARS) in error.message


def test_a_file_past_the_size_bound_is_refused_before_reading():
    error = refused(b"%PDF-" + b"0" * limits.MAX_FILE_BYTES, "big.pdf")
    assert error.reason == "too_large" and "MB" in error.message


def test_the_files_of_one_message_are_bounded_together():
    check_message([limits.MAX_FILE_BYTES] * 2)
    with pytest.raises(AttachmentError) as caught:
        check_message([limits.MAX_FILE_BYTES] * 3)
    assert caught.value.reason == "too_large"
    with pytest.raises(AttachmentError):
        check_message([1] * (limits.MAX_FILES_PER_MESSAGE + 1))


@pytest.mark.parametrize(("data", "name", "media_type", "reason"), [
    (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "scan.png", "image/png", "unsupported"),
    (b"\xff\xd8\xff\xe0" + b"\x00" * 64, "photo", "", "unsupported"),
    (b"ID3" + b"\x00" * 64, "voice.mp3", "audio/mpeg", "unsupported"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "old.doc", "application/msword", "unsupported"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "locked.docx", "", "encrypted"),
    (b"", "empty.txt", "text/plain", "empty"),
    (b"   \n\n", "blank.txt", "text/plain", "empty"),
])
def test_formats_not_read_are_refused_with_their_reason(data: bytes, name: str, media_type: str, reason: str):
    assert refused(data, name, media_type).reason == reason


def test_a_plain_zip_is_not_read():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("contrat.txt", "Héloïse Marchetti")
    assert refused(out.getvalue(), "archive.zip", "application/zip").reason == "unsupported"


@pytest.mark.parametrize("name", ["contract.pdf", "contract.docx", "clients.xlsx", "review.pptx", "contract.odt",
                                  "clients.ods"])
def test_a_damaged_document_gives_a_text_or_an_attachment_error_and_nothing_else(name: str):
    original = (DATA / name).read_bytes()
    rng = random.Random(name)  # the same damage on every run
    outcomes = set()
    for _ in range(12):
        data = bytearray(original)
        for _ in range(rng.choice((1, 8, 64))):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            extract(bytes(data), name)
            outcomes.add("read")
        except AttachmentError as error:
            outcomes.add(error.reason)
    assert outcomes  # 12 damaged copies, each read or refused with a reason (any other exception fails here)
