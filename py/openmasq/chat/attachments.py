"""Files sent with a user turn (issue 20), pure: what the send flow is given for each file, the
text part each becomes on the wire (never its bytes), what the turn keeps of it, and how a later
turn replays it (through the vault, like the typed text).

The seam for images: `wire_part` is where an image's masked form plugs in. Today an image is refused
before it reaches the flow (the app says OCR is coming); once OCR exists, an image comes here as a
TurnAttachment of kind "image" whose `extracted` is the OCR'd text (redacted with the vault like a
document's), and `wire_part` returns its masked form."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..attach import Extracted, RedactedAttachment, attachment_part
from ..redact import RedactOptions, Vault, replay_for_model
from ..redact.spans import Span
from .conversation import AttachedFile, Message

Kind = Literal["document", "image"]


class ImageNeedsOcr(ValueError):
    """An image reached the send flow: its masked form needs OCR, which does not exist yet."""


@dataclass(frozen=True)
class TurnAttachment:
    """One file of the turn being sent: its name as given, what was read from it, its size in bytes,
    and the on-device NER model's spans on `extracted.text` (offsets on that text)."""

    name: str
    extracted: Extracted
    size: int
    kind: Kind = "document"
    spans: tuple[Span, ...] = ()
    warnings: tuple[str, ...] = ()


def wire_part(attachment: TurnAttachment, redacted: RedactedAttachment) -> str:
    """The text part the model receives for a file: "[Attachment: <name as sent>]" then its redacted
    text. An image has no masked form yet (OCR: issue 20, item 2)."""
    if attachment.kind == "image":
        raise ImageNeedsOcr("an image needs on-device OCR before it can be sent")
    return redacted.part


def attached_file(attachment: TurnAttachment, redacted: RedactedAttachment) -> AttachedFile:
    """What the user turn keeps of a file it sent (stored encrypted with the conversation)."""
    return AttachedFile(attachment.name, attachment.extracted.format, attachment.size, attachment.extracted.text,
                        redacted.name, wire_part(attachment, redacted), attachment.kind,
                        attachment.warnings or attachment.extracted.warnings)


def turn_attachment(attached: AttachedFile) -> TurnAttachment:
    """A stored file as the flow takes it again (a turn answered again, a draft sent at last)."""
    return TurnAttachment(attached.name, Extracted(attached.text, attached.format), attached.size,
                          "image" if attached.kind == "image" else "document", warnings=attached.warnings)


def replayed_parts(message: Message, vault: Vault, options: RedactOptions) -> tuple[str, ...]:
    """A past turn's files as a later request carries them: under the name they went under, their
    text through the send's substitution (the vault's values, in every spelling it recorded)."""
    return tuple(attachment_part(a.wire_name, replay_for_model(a.text, vault, options)) for a in message.attachments)


def spans_by_text(attachments: Sequence[TurnAttachment]) -> dict[str, tuple[Span, ...]]:
    """The model's spans of each file, looked up by its text (the engine asks a span source by text)."""
    return {a.extracted.text: a.spans for a in attachments if a.spans}


def replay_text(message: Message) -> str:
    """A turn's REAL text as the memory's extraction reads it: what was typed, then its files (the
    typed text first: an explicit ask is found at its start). Each file under the name it went under:
    a name is not a text the replay's substitution reads reliably."""
    parts = [attachment_part(a.wire_name, a.text) for a in message.attachments]
    return "\n\n".join([message.content, *parts] if message.content else parts)
