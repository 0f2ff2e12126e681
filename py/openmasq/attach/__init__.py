"""Attachments read on the device and redacted before they leave (issue 20): text files, Markdown,
CSV, JSON, source code, e-mails, PDF text layers, DOCX, ODT, XLSX, ODS and PPTX, each read with
the standard library (zipfile, xml.etree, email) or pypdf, pure Python on CPython and in Pyodide.

    extracted = extract(data, name="Contrat Dupont.pdf", media_type="application/pdf")
    result = redact_with_attachments([Attachment(name, extracted)], typed_text, vault, options)
    result.parts  # ["[Attachment: Contrat Lemoine.pdf]\\n<redacted text>", "<redacted message>"]

A file that cannot be read raises AttachmentError, whose `reason` is one of REASONS; the bounds are
in limits.py."""

from __future__ import annotations

from . import limits
from .extract import check_message, extract, extract_steps
from .formats import FORMATS, detect
from .model import REASONS, AttachmentError, Extracted, Part
from .redaction import (
    Attachment,
    Redacted,
    RedactedAttachment,
    attachment_part,
    redact_attachment,
    redact_file_name,
    redact_with_attachments,
)

__all__ = [
    "FORMATS",
    "REASONS",
    "Attachment",
    "AttachmentError",
    "Extracted",
    "Part",
    "Redacted",
    "RedactedAttachment",
    "attachment_part",
    "check_message",
    "detect",
    "extract",
    "extract_steps",
    "limits",
    "redact_attachment",
    "redact_file_name",
    "redact_with_attachments",
]
