"""E-mails (.eml, RFC 5322) with the standard library's parser: the headers a reader sees (From,
To, Cc, Subject, Date) and the text body, the plain part where there is one, else the HTML part
as text. Attached files are named in a warning, not read (attach them on their own)."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage, Message

from . import limits
from .htmltext import html_to_text
from .model import AttachmentError, Extracted, Part

HEADERS = ("From", "To", "Cc", "Subject", "Date")


def read_eml(data: bytes) -> Extracted:
    try:
        message = email.message_from_bytes(data, policy=email.policy.default)
    except Exception as error:  # the parser is lenient; what it still cannot take is a broken file
        raise AttachmentError("corrupt", "This e-mail cannot be parsed.") from error
    if not isinstance(message, EmailMessage) or not any(message.get(name) for name in (*HEADERS, "Message-ID")):
        raise AttachmentError("corrupt", "This file does not read as an e-mail (no headers).")
    head = "\n".join(f"{name}: {_header(message, name)}" for name in HEADERS if message.get(name))
    body, warnings = _body(message)
    parts = [Part("Headers", head), Part("Body", body)]
    return Extracted(f"{head}\n\n{body}".strip(), "eml", tuple(parts), tuple(warnings))


def _header(message: EmailMessage, name: str) -> str:
    try:
        return " ".join(str(message.get(name, "")).split())
    except Exception:  # a header the policy cannot decode: its raw form
        return " ".join(str(message.get_all(name, [""])[0]).split())


def _body(message: EmailMessage) -> tuple[str, list[str]]:
    plain: list[str] = []
    html: list[str] = []
    attached: list[str] = []
    for count, part in enumerate(message.walk()):
        if count > limits.MAX_EMAIL_PARTS:
            raise AttachmentError("too_large", f"This e-mail has more than {limits.MAX_EMAIL_PARTS} parts.")
        if part.is_multipart():
            continue
        disposition = part.get_content_disposition()
        kind = part.get_content_type()
        if disposition == "attachment" or (part.get_filename() and kind not in ("text/plain", "text/html")):
            attached.append(part.get_filename() or kind)
            continue
        if kind == "text/plain":
            plain.append(_content(part))
        elif kind == "text/html":
            html.append(html_to_text(_content(part)))
        elif kind == "message/rfc822":
            attached.append(part.get_filename() or "an attached e-mail")
    body = "\n\n".join(text.strip() for text in (plain or html) if text.strip())
    warnings = [f"Files attached to the e-mail are not read: {', '.join(attached)}."] if attached else []
    return body.replace("\r\n", "\n"), warnings


def _content(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:  # a charset Python does not know
        return payload.decode("utf-8", errors="replace")
