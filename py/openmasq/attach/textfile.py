"""Text files (plain, Markdown, CSV, JSON, source code): bytes decoded to text, or a clear refusal
when they are binary or in no encoding read here. UTF-8 (with or without BOM) and UTF-16 with a
BOM are read as such; anything else that is not UTF-8 is read as Windows-1252 (what a spreadsheet
program on Windows writes) when that gives text, with a warning."""

from __future__ import annotations

import codecs
import json

from .model import AttachmentError, Extracted

_SAMPLE = 8192
# Control characters a text file has no use for (tab, newline, carriage return, form feed and
# escape are fine): more than 1 % of them in the sample is a binary file.
_CONTROLS = frozenset(range(0, 32)) - {9, 10, 12, 13, 27}
_CP1252_UNDEFINED = frozenset({0x81, 0x8D, 0x8F, 0x90, 0x9D})


def decode(data: bytes) -> tuple[str, tuple[str, ...]]:
    """The text of `data` and the warnings of its decoding."""
    if data.startswith(codecs.BOM_UTF8):
        return _strict(data[3:], "utf-8"), ()
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _strict(data, "utf-16"), ()
    sample = data[:_SAMPLE]
    if b"\x00" in sample or sum(byte in _CONTROLS for byte in sample) > len(sample) // 100:
        raise AttachmentError("binary", "This file holds binary data, not text.")
    try:
        return data.decode("utf-8"), ()
    except UnicodeDecodeError:
        pass
    if any(byte in _CP1252_UNDEFINED for byte in data):
        raise AttachmentError("undecodable", "This file's text is neither UTF-8 nor Windows-1252; save it as "
                              "UTF-8 to attach it.")
    return data.decode("cp1252"), ("The file is not UTF-8: it was read as Windows-1252 (Western European).",)


def _strict(data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        raise AttachmentError("undecodable", f"This file starts as {encoding.upper()} text but is not valid "
                              f"{encoding.upper()}.") from error


def read_text_file(data: bytes, fmt: str) -> Extracted:
    text, warnings = decode(data)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if fmt == "json" and not _is_json(text):
        warnings += ("The file is not valid JSON: it was read as plain text.",)
    return Extracted(text, fmt, warnings=warnings)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        lines = [line for line in text.splitlines() if line.strip()]  # JSON Lines
        try:
            for line in lines:
                json.loads(line)
        except (ValueError, RecursionError):
            return False
        return bool(lines)
    return True
