"""A scanned PDF (issue 20, item 4): its pages are images without a text layer, so they are taken out of the
file (pypdf, pure Python) for the page to read with on-device OCR, like an attached image. Pure.

Each page gives its largest image as a file the browser decodes: a JPEG as it is stored (DCTDecode), or 8-bit
grey or RGB samples (Flate or uncompressed) written as a PNG here. A page whose image is in another form (a fax
scan's CCITT or JBIG2, JPEG 2000, 1-bit or CMYK samples) is listed as not read, and a PDF with no page left is
refused with that reason: the user is told plainly it cannot be read."""

from __future__ import annotations

import io
import logging
import zlib
from dataclasses import dataclass
from typing import Any

from . import limits
from .model import AttachmentError

# Pages of a scan read by OCR in one attachment: about 2 s each in the browser (bench/ocr.py), so 20 pages is
# under a minute with progress; a longer scan is cut there and the user told.
MAX_SCAN_PAGES = 20
MAX_IMAGE_PIXELS = 40_000_000  # a 600 dpi A3 page is ~70 M px: larger images are not scans of a document


@dataclass(frozen=True)
class PageImage:
    """One page's image as a file the browser can decode."""

    page: int  # 1-based
    media_type: str  # "image/jpeg" | "image/png"
    data: bytes
    width: int
    height: int


@dataclass(frozen=True)
class ScannedPages:
    images: tuple[PageImage, ...]
    unread: tuple[int, ...]  # pages whose image is in a form not read here, or that hold none
    pages: int  # the PDF's page count


def png_bytes(width: int, height: int, channels: int, samples: bytes) -> bytes:
    """8-bit grey (1 channel) or RGB (3) samples, row after row, as a PNG (filter 0 on every row)."""
    row = width * channels
    if len(samples) < row * height:
        raise AttachmentError("corrupt", "A page image of this PDF is shorter than its size says.")
    raw = b"".join(b"\x00" + samples[y * row:(y + 1) * row] for y in range(height))
    colour = {1: 0, 3: 2}[channels]

    def chunk(kind: bytes, body: bytes) -> bytes:
        return len(body).to_bytes(4, "big") + kind + body + zlib.crc32(kind + body).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, colour, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


def _filters(xobject: Any) -> list[str]:
    found = xobject.get("/Filter")
    if found is None:
        return []
    return [str(f) for f in found] if isinstance(found, list) else [str(found)]


def _channels(xobject: Any) -> int | None:
    space = xobject.get("/ColorSpace")
    space = space.get_object() if hasattr(space, "get_object") else space
    if space in ("/DeviceGray", "/CalGray"):
        return 1
    if space in ("/DeviceRGB", "/CalRGB"):
        return 3
    if isinstance(space, list) and space and space[0] == "/ICCBased":
        n = space[1].get_object().get("/N")
        return int(n) if n in (1, 3) else None
    return None


def page_image(xobject: Any, page: int) -> PageImage | None:
    """The image as a browser-decodable file, or None when it is in a form not read here."""
    width, height = int(xobject.get("/Width", 0)), int(xobject.get("/Height", 0))
    if not (width > 0 and height > 0 and width * height <= MAX_IMAGE_PIXELS):
        return None
    filters = _filters(xobject)
    if filters and filters[-1] == "/DCTDecode":
        data = xobject.get_data() if len(filters) > 1 else xobject._data  # the JPEG as stored
        return PageImage(page, "image/jpeg", bytes(data), width, height) if data[:2] == b"\xff\xd8" else None
    if any(f not in ("/FlateDecode", "/Fl") for f in filters) or int(xobject.get("/BitsPerComponent", 0)) != 8:
        return None
    channels = _channels(xobject)
    if channels is None:
        return None
    return PageImage(page, "image/png", png_bytes(width, height, channels, xobject.get_data()), width, height)


def _largest_image(page: Any) -> Any | None:
    resources: Any = page.get("/Resources")
    resources = resources.get_object() if hasattr(resources, "get_object") else resources
    xobjects: Any = (resources or {}).get("/XObject")
    xobjects = xobjects.get_object() if hasattr(xobjects, "get_object") else xobjects
    found: list[Any] = [x.get_object() for x in (xobjects or {}).values() if x is not None]
    images = [x for x in found if x.get("/Subtype") == "/Image"]
    return max(images, key=lambda x: int(x.get("/Width", 0)) * int(x.get("/Height", 0)), default=None)


def scanned_pages(data: bytes) -> ScannedPages:
    """The page images of a scanned PDF, up to MAX_SCAN_PAGES. AttachmentError when none can be read."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    if len(data) > limits.MAX_FILE_BYTES:
        raise AttachmentError("too_large", f"This PDF is larger than {limits.MAX_FILE_BYTES // limits.MiB} MB.")
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise AttachmentError("encrypted", "This PDF is protected by a password.")
        count = len(reader.pages)
    except AttachmentError:
        raise
    except (DependencyError, FileNotDecryptedError) as error:  # AES without `cryptography` (Pyodide): protected
        raise AttachmentError("encrypted", "This PDF is protected by a password.") from error
    except (PyPdfError, ValueError, KeyError, TypeError, IndexError, AttributeError, OSError, NotImplementedError) \
            as error:
        raise AttachmentError("corrupt", "This PDF is damaged or truncated.") from error
    images: list[PageImage] = []
    unread: list[int] = []
    for number in range(1, min(count, MAX_SCAN_PAGES) + 1):
        try:
            found = _largest_image(reader.pages[number - 1])
            image = page_image(found, number) if found is not None else None
        except AttachmentError:
            raise
        except Exception:  # a hostile or odd page: not read, said so
            image = None
        if image is None:
            unread.append(number)
        else:
            images.append(image)
    if not images:
        raise AttachmentError("no_text_layer", "This PDF is scanned, and its page images are in a form not read "
                              "here (fax or JBIG2 compression, JPEG 2000, or no image at all): it cannot be read.")
    return ScannedPages(tuple(images), tuple(unread), count)
