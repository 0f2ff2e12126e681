"""Files sent with a user turn (issue 20), pure: what the send flow is given for each file, the
text part each becomes on the wire (never its bytes), what the turn keeps of it, and how a later
turn replays it (through the vault, like the typed text).

Images (issue 20, item 2): an image comes as a TurnAttachment of kind "image" whose `extracted` is the text
OCR read on it (redacted with the vault like a document's, so the people it names are known to the turn).
The user chose one of two forms on the page: the masked image (`image`: the PNG with the personal data
covered, which they saw; the model gets it and a text part naming it, never the OCR'd text), or the OCR'd
text alone (`image` None: the file's redacted text, as a document's)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..attach import Extracted, RedactedAttachment, attachment_part
from ..redact import RedactOptions, Vault, replay_for_model
from ..redact.spans import Span
from .codecs import WireImage
from .conversation import AttachedFile, Message

Kind = Literal["document", "image"]


class ImageNeedsOcr(ValueError):
    """An image reached the send flow with neither form the user chose (a masked image or its OCR'd text)."""


class ImageMaskChanged(ValueError):
    """The send masks a value in an image's text that its boxes, as the user reviewed them, do not cover (the
    memory or the settings changed since): the image is not sent as it is; the user reviews it again."""


# The text part that goes with a masked image: its name (as sent) and what the model should know of it.
IMAGE_NOTE = "(an image, sent above; the personal data on it is covered by black boxes)"
IMAGE_MEDIA_TYPE = "image/png"  # the page re-encodes every masked image as PNG (no EXIF or metadata kept)


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
    image: bytes | None = None  # kind "image": the masked PNG the user chose to send (None: its OCR'd text only)
    covered: tuple[str, ...] = ()  # kind "image": the values its boxes cover, as the user reviewed it


def wire_part(attachment: TurnAttachment, redacted: RedactedAttachment) -> str:
    """The text part the model receives for a file: "[Attachment: <name as sent>]" then its redacted
    text; for a masked image, its name and IMAGE_NOTE (its OCR'd text stays on the device)."""
    if attachment.kind == "image" and attachment.image is not None:
        reviewed = {value.casefold() for value in attachment.covered}
        missed = [rep.kind for rep in redacted.text.replacements if rep.value.casefold() not in reviewed]
        if missed:
            raise ImageMaskChanged(f"the image's text now has {len(missed)} value(s) its boxes do not cover")
        return attachment_part(redacted.name, IMAGE_NOTE)
    if attachment.kind == "image" and not attachment.extracted.text.strip():
        raise ImageNeedsOcr("an image without text can only be sent as the image itself")
    return redacted.part


def wire_images(attachments: Sequence[TurnAttachment]) -> tuple[WireImage, ...]:
    """The masked images of a turn, in the order of its files."""
    return tuple(WireImage(IMAGE_MEDIA_TYPE, a.image) for a in attachments if a.kind == "image" and a.image is not None)


def attached_file(attachment: TurnAttachment, redacted: RedactedAttachment) -> AttachedFile:
    """What the user turn keeps of a file it sent (stored encrypted with the conversation)."""
    return AttachedFile(attachment.name, attachment.extracted.format, attachment.size, attachment.extracted.text,
                        redacted.name, wire_part(attachment, redacted), attachment.kind,
                        attachment.warnings or attachment.extracted.warnings,
                        base64.b64encode(attachment.image).decode("ascii") if attachment.image is not None else "")


def turn_attachment(attached: AttachedFile) -> TurnAttachment:
    """A stored file as the flow takes it again (a turn answered again, a draft sent at last)."""
    return TurnAttachment(attached.name, Extracted(attached.text, attached.format), attached.size,
                          "image" if attached.kind == "image" else "document", warnings=attached.warnings,
                          image=stored_image(attached))


def stored_image(attached: AttachedFile) -> bytes | None:
    """The masked PNG a turn sent, as stored with it (None for a document or an image sent as text)."""
    return base64.b64decode(attached.image) if attached.kind == "image" and attached.image else None


def sent_as_image(attached: AttachedFile) -> bool:
    return stored_image(attached) is not None


def replayed_parts(message: Message, vault: Vault, options: RedactOptions) -> tuple[str, ...]:
    """A past turn's files as a later request carries them: under the name they went under, their
    text through the send's substitution (the vault's values, in every spelling it recorded)."""
    return tuple(attachment_part(a.wire_name, IMAGE_NOTE) if sent_as_image(a)
                 else attachment_part(a.wire_name, replay_for_model(a.text, vault, options))
                 for a in message.attachments)


def replayed_images(message: Message) -> tuple[WireImage, ...]:
    """A past turn's masked images, the very bytes it sent (nothing new leaves)."""
    return tuple(WireImage(IMAGE_MEDIA_TYPE, image) for a in message.attachments
                 if (image := stored_image(a)) is not None)


def spans_by_text(attachments: Sequence[TurnAttachment]) -> dict[str, tuple[Span, ...]]:
    """The model's spans of each file, looked up by its text (the engine asks a span source by text)."""
    return {a.extracted.text: a.spans for a in attachments if a.spans}


def replay_text(message: Message) -> str:
    """A turn's REAL text as the memory's extraction reads it: what was typed, then its files (the
    typed text first: an explicit ask is found at its start). Each file under the name it went under:
    a name is not a text the replay's substitution reads reliably."""
    # A masked image's OCR'd text was not sent (the user chose the image): the extraction does not read it either.
    parts = [attachment_part(a.wire_name, IMAGE_NOTE if sent_as_image(a) else a.text) for a in message.attachments]
    return "\n\n".join([message.content, *parts] if message.content else parts)
