"""One entry for every format: `extract(data, name, media_type)` picks the reader (formats.py),
keeps the bounds of limits.py, and turns any failure of a reader into an AttachmentError (a
reader fed a hostile file must never leak an exception of its own, nor half a text)."""

from __future__ import annotations

from collections.abc import Callable, Generator

from . import limits
from .formats import TEXT_FORMATS, detect
from .model import AttachmentError, Extracted, run_steps


def extract(data: bytes, name: str = "", media_type: str = "") -> Extracted:
    """The text of one attached file. Raises AttachmentError (its `reason` says why) and nothing else."""
    return run_steps(extract_steps(data, name, media_type))


def extract_steps(data: bytes, name: str = "", media_type: str = "") -> Generator[tuple[int, int], None, Extracted]:
    """extract() in steps: yields (done, total) as the reader goes (a PDF's pages; one step for the
    other formats, read at once), so that a shell shows progress and may stop between steps by closing
    the generator. Returns the Extracted; raises AttachmentError and nothing else."""
    if len(data) > limits.MAX_FILE_BYTES:
        raise AttachmentError("too_large", f"This file is {len(data)} bytes; files of up to "
                              f"{limits.MAX_FILE_BYTES // limits.MiB} MB are read.")
    if not data:
        raise AttachmentError("empty", "This file is empty.")
    fmt = detect(data, name, media_type)
    try:
        if fmt == "pdf":
            from .pdf import pdf_steps

            found = yield from pdf_steps(data)
        else:
            found = _reader(fmt)(data)
            yield 1, 1
    except AttachmentError:
        raise
    except MemoryError as error:
        raise AttachmentError("too_large", "This file takes more memory to read than is available.") from error
    except RecursionError as error:
        raise AttachmentError("corrupt", "This file nests its content deeper than is read.") from error
    except Exception as error:  # a reader's own failure on a file it did not expect: said as damage
        raise AttachmentError("corrupt", f"This {fmt.upper()} file cannot be read (damaged or of an unknown "
                              "variant).") from error
    if len(found.text) > limits.MAX_TEXT_CHARS:
        raise AttachmentError("too_large", f"The text of this file is {len(found.text)} characters; up to "
                              f"{limits.MAX_TEXT_CHARS} are read.")
    if not found.text.strip():
        raise AttachmentError("empty", "There is no text in this file.")
    return found


def _reader(fmt: str) -> Callable[[bytes], Extracted]:
    if fmt in TEXT_FORMATS:
        from .textfile import read_text_file

        return lambda data: read_text_file(data, fmt)
    if fmt == "eml":
        from .eml import read_eml

        return read_eml
    if fmt == "pdf":
        from .pdf import read_pdf

        return read_pdf
    return _container_reader(fmt)


def _container_reader(fmt: str) -> Callable[[bytes], Extracted]:
    from . import odf, ooxml
    from .zipsafe import SafeZip

    read = {"docx": ooxml.read_docx, "xlsx": ooxml.read_xlsx, "pptx": ooxml.read_pptx, "odt": odf.read_odt,
            "ods": odf.read_ods}[fmt]
    return lambda data: read(SafeZip(data))


def check_message(sizes: list[int]) -> None:
    """The bounds of one message's files together (their byte sizes), before any is read."""
    if len(sizes) > limits.MAX_FILES_PER_MESSAGE:
        raise AttachmentError("too_large", f"{len(sizes)} files: up to {limits.MAX_FILES_PER_MESSAGE} go with one "
                              "message.")
    if sum(sizes) > limits.MAX_MESSAGE_BYTES:
        raise AttachmentError("too_large", f"These files add up to {sum(sizes)} bytes; up to "
                              f"{limits.MAX_MESSAGE_BYTES // limits.MiB} MB go with one message.")
