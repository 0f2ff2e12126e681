"""A scanned PDF's pages taken out for on-device OCR (issue 20, item 4): LibreOffice's scan gives its page as the
JPEG it stores; 8-bit grey or RGB samples become a PNG with the same pixels; a PDF with no page image in a form
read here, or protected, is refused with its reason."""

from __future__ import annotations

import io
import zlib
from pathlib import Path

import pytest

from openmasq.attach import AttachmentError
from openmasq.attach.scans import png_bytes, scanned_pages

DATA = Path(__file__).resolve().parent.parent / "data" / "attachments"


def png_rows(png: bytes) -> tuple[int, int, bytes]:
    """Width, height and the raw rows (filter bytes included) of a PNG written by png_bytes."""
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    at, idat = 8, b""
    while at < len(png):
        length = int.from_bytes(png[at:at + 4], "big")
        if png[at + 4:at + 8] == b"IDAT":
            idat += png[at + 8:at + 8 + length]
        at += 12 + length
    return width, height, zlib.decompress(idat)


def pdf_with_image(samples: bytes, width: int, height: int, space: str, *, flate: bool = True) -> bytes:
    """A one-page PDF whose page shows one image XObject, written by pypdf."""
    # Imported here, as openmasq.attach imports it (in Pyodide the wheel is zip-imported on first use).
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject, NumberObject

    writer = PdfWriter()
    page = writer.add_blank_page(width=595, height=842)
    image = DecodedStreamObject()
    image.set_data(zlib.compress(samples) if flate else samples)
    image.update({NameObject("/Type"): NameObject("/XObject"), NameObject("/Subtype"): NameObject("/Image"),
                  NameObject("/Width"): NumberObject(width), NameObject("/Height"): NumberObject(height),
                  NameObject("/BitsPerComponent"): NumberObject(8), NameObject("/ColorSpace"): NameObject(space)})
    if flate:
        image[NameObject("/Filter")] = NameObject("/FlateDecode")
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/XObject"): DictionaryObject({NameObject("/Im1"): writer._add_object(image)})})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_libreoffice_s_scan_gives_its_page_as_the_jpeg_it_stores():
    scan = scanned_pages((DATA / "scanned.pdf").read_bytes())
    [page] = scan.images
    assert (page.page, page.media_type, page.width, page.height) == (1, "image/jpeg", 795, 1124)
    assert page.data.startswith(b"\xff\xd8") and scan.unread == () and scan.pages == 1


@pytest.mark.parametrize(("space", "channels"), [("/DeviceGray", 1), ("/DeviceRGB", 3)])
def test_grey_and_rgb_samples_become_a_png_with_the_same_pixels(space: str, channels: int):
    samples = bytes(range(256))[: 4 * 3 * channels] * 1
    [page] = scanned_pages(pdf_with_image(samples, 4, 3, space)).images
    assert page.media_type == "image/png" and (page.width, page.height) == (4, 3)
    width, height, rows = png_rows(page.data)
    assert (width, height) == (4, 3)
    row = 4 * channels
    assert b"".join(rows[y * (row + 1) + 1:(y + 1) * (row + 1)] for y in range(3)) == samples
    assert png_bytes(4, 3, channels, samples) == page.data


def test_a_pdf_without_a_page_image_read_here_is_refused_plainly():
    with pytest.raises(AttachmentError) as raised:
        scanned_pages((DATA / "contract.pdf").read_bytes())  # text, no images
    assert raised.value.reason == "no_text_layer" and "cannot be read" in raised.value.message
    cmyk = pdf_with_image(bytes(4 * 3 * 4), 4, 3, "/DeviceCMYK")
    with pytest.raises(AttachmentError):
        scanned_pages(cmyk)


def test_a_protected_or_broken_pdf_is_refused_with_its_reason():
    with pytest.raises(AttachmentError) as raised:
        scanned_pages((DATA / "encrypted.pdf").read_bytes())
    assert raised.value.reason == "encrypted"
    with pytest.raises(AttachmentError) as raised:
        scanned_pages(b"%PDF-1.7\n1 0 obj\n<<")
    assert raised.value.reason == "corrupt"
