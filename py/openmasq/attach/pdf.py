"""PDF text layers with pypdf (pure Python: the same reader on CPython and in Pyodide), page by page.

A PDF with no text on any page but images on them is a scan: it is refused with "no_text_layer"
(OCR is needed). One opened by the empty password (an owner password only: anyone may read it) is
read; any other password refuses it. pypdf bounds what one stream may inflate to (75 MB); the page
count and the text are bounded here (limits.py). pypdf is imported on first use: the app's worker
does not load it at boot."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Generator
from typing import Any

from . import limits
from .model import AttachmentError, Extracted, Part, joined, run_steps


def read_pdf(data: bytes) -> Extracted:
    return run_steps(pdf_steps(data))


def pdf_steps(data: bytes) -> Generator[tuple[int, int], None, Extracted]:
    """read_pdf page by page: yields (pages read, page count) after each page, so that a shell can say
    how far it is and stop between pages (closing the generator); returns what read_pdf returns."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, LimitReachedError, PdfReadError, PyPdfError

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings name objects of the file, not for our logs
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            _open_encrypted(reader)
        pages = reader.pages
        count = len(pages)
    except AttachmentError:
        raise
    except LimitReachedError as error:
        raise AttachmentError("too_large", "This PDF is built past the sizes read (a stream or table too large).") \
            from error
    except (FileNotDecryptedError, DependencyError) as error:
        raise _encrypted() from error
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, IndexError, AttributeError,
            RecursionError, OSError) as error:
        raise AttachmentError("corrupt", "This PDF is damaged or truncated.") from error
    if count > limits.MAX_PDF_PAGES:
        raise AttachmentError("too_large", f"This PDF has {count} pages (at most {limits.MAX_PDF_PAGES} are read).")
    parts: list[Part] = []
    without_text: list[int] = []
    chars = 0
    for number in range(1, count + 1):
        try:
            page = pages[number - 1]
            text = page.extract_text() or ""
        except LimitReachedError as error:
            raise AttachmentError("too_large", f"Page {number} of this PDF is built past the sizes read.") from error
        except (FileNotDecryptedError, DependencyError) as error:
            raise _encrypted() from error
        except Exception as error:  # pypdf on a hostile page: any failure is a damaged file, said so
            raise AttachmentError("corrupt", f"Page {number} of this PDF cannot be read.") from error
        text = _tidy(text)
        chars += len(text)
        if chars > limits.MAX_TEXT_CHARS:
            raise AttachmentError("too_large", f"The text of this PDF is longer than {limits.MAX_TEXT_CHARS} "
                                  "characters.")
        if not text.strip():
            without_text.append(number)
        parts.append(Part(f"Page {number}", text))
        yield number, count
    if count == 0:
        raise AttachmentError("empty", "This PDF has no pages.")
    if len(without_text) == count:
        if any(_has_images(pages[n - 1]) for n in range(1, min(count, 20) + 1)):
            raise AttachmentError("no_text_layer", "This PDF is scanned: its pages are images without a text layer. "
                                  "Its text would need OCR (on the device) to be read.")
        raise AttachmentError("empty", "This PDF holds no text.")
    warnings: tuple[str, ...] = ()
    if without_text:
        listed = ", ".join(str(n) for n in without_text[:20]) + ("…" if len(without_text) > 20 else "")
        warnings = (f"Pages without a text layer (scanned?) were not read: {listed}.",)
    kept = [part for part in parts if part.text.strip()]
    return Extracted(joined(kept), "pdf", tuple(kept), warnings)


def _open_encrypted(reader: Any) -> None:
    """An owner password alone lets anyone read: the empty user password opens it."""
    try:
        opened = reader.decrypt("")
    except NotImplementedError as error:
        raise _encrypted() from error
    if not opened:
        raise _encrypted()


def _encrypted() -> AttachmentError:
    return AttachmentError("encrypted", "This PDF is protected by a password; remove the protection (print it to "
                           "a new PDF, or save a copy without a password) to attach it.")


def _has_images(page: Any) -> bool:
    try:
        resources = page.get("/Resources") or {}
        xobjects = resources.get_object().get("/XObject") if hasattr(resources, "get_object") else None
        if xobjects is None:
            xobjects = resources.get("/XObject") if isinstance(resources, dict) else None
        if not xobjects:
            return False
        return any(xobjects[name].get_object().get("/Subtype") == "/Image" for name in xobjects)
    except Exception:  # an unreadable resource dictionary: not a proof of a scan
        return False


def _tidy(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return rejoin_wrapped(lines).strip("\n")


# A PDF's text layer breaks lines where the layout wrapped them, also inside a value: an e-mail in a
# narrow table cell ("marie.dupont@exam" / "ple.fr"), a phone at the end of a line ("+33 6" / "47 28 91
# 35"). The detectors would see two halves, mask neither, and the halves would leave: such breaks are
# undone before the text goes anywhere.
# An e-mail whose domain has no dot yet or ends with a hyphen, a web address ending with a hyphen or a
# slash (a final period ends a sentence as often as it splits a host: left alone).
_OPEN_ADDRESS = re.compile(r"(?:^|\s)(?:\S*@[^\s.]*|\S*@\S*-|\S*(?:://|www\.)\S*[-/])$")
_OPEN_NUMBER = re.compile(r"(?:^|[\s:])(?:\+\d{1,3}|\d+)(?: \d+)+$|(?:^|[\s:])\+\d{1,3}$")
_CONTINUES = re.compile(r"^[A-Za-z0-9]")
_DIGIT_START = re.compile(r"^\d")


def rejoin_wrapped(lines: list[str]) -> str:
    """Lines joined back where a wrap split an e-mail, a web address or a grouped number (phone, IBAN)."""
    out: list[str] = []
    for line in lines:
        if out and line and _OPEN_ADDRESS.search(out[-1]) and _CONTINUES.match(line):
            out[-1] += line.lstrip()
        elif out and line and _OPEN_NUMBER.search(out[-1]) and _DIGIT_START.match(line):
            out[-1] += " " + line
        else:
            out.append(line)
    return "\n".join(out)
