"""An extracted attachment redacted with the same engine and the same vault as the message it goes
with, before the message (reference 6.8: memory block, then attachments, then the typed text), and
its file name faked when it holds personal data. What the model receives for a file is one text
part, `[Attachment: <name as sent>]` then the redacted text: never the file's bytes.

Pure; the vault given is never modified (each pass works on a copy, as pseudonymise does)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..redact import Redaction, RedactionError, RedactOptions, SpanCache, Vault, pseudonymise, replay_for_model
from ..redact.collisions import MAX_COLLISION_ROUNDS
from ..redact.pseudonymise import SpanSource
from . import limits
from .model import AttachmentError, Extracted

HEADER = "[Attachment: {name}]"


@dataclass(frozen=True)
class Attachment:
    """A file read on the device, ready to be redacted: its name as the user gave it and its text."""

    name: str
    extracted: Extracted


@dataclass(frozen=True)
class RedactedAttachment:
    """What goes to the model for one file (`part`), the name it goes under, and the passes that made it."""

    name: str  # the name as sent: faked where it held personal data, else as given
    part: str  # "[Attachment: <name>]\n<redacted text>"
    text: Redaction  # the pass over the file's text (its replacements: what the preview shows)
    name_changed: bool


def attachment_part(name: str, text: str) -> str:
    """The text part a file becomes on the wire."""
    return f"{HEADER.format(name=name)}\n{text}"


_SEPARATORS = re.compile(r"[_.\-+]+")
_CAMEL = re.compile(r"(?<=[a-zà-ÿ])(?=[A-ZÀ-Þ])")
_EXTENSION = re.compile(r"(\.[A-Za-z0-9]{1,8})+$")


def name_words(stem: str) -> str:
    """'CV_Marie-Dupont.final', 'MarieDupont' -> 'CV Marie Dupont final', 'Marie Dupont': a file
    name as the words the detectors read."""
    return " ".join(_SEPARATORS.sub(" ", _CAMEL.sub(" ", stem)).split())


def split_name(name: str) -> tuple[str, str]:
    """'Contrat Dupont.v2.pdf' -> ('Contrat Dupont.v2', '.pdf'): only the last extension is kept apart."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()[: limits.MAX_NAME_CHARS]
    match = re.search(r"\.[A-Za-z0-9]{1,8}$", base)
    return (base[: match.start()], match.group()) if match and match.start() > 0 else (base, "")


def redact_file_name(name: str, vault: Vault, options: RedactOptions, *, model: SpanSource | None = None,
                     ) -> tuple[str, Redaction]:
    """The name a file goes under: its words redacted with the vault (a person the file's text named is
    known there in any spelling; a name alone is found by the detectors), written back with the name's
    own separator; the name as given when nothing in it is personal. Returns the name and the pass."""
    stem, extension = split_name(name)
    words = name_words(stem)
    redaction = pseudonymise(words, vault, options, model=model)
    if not redaction.replacements or redaction.text == words:
        return stem + extension, redaction
    # The values found are in the vault now: written into the name as it is spelled, each fake takes the
    # separators of the value it replaces ("Marie_Dupont" -> "Lucie_Martin", "Contrat-cadre" untouched).
    faked = replay_for_model(stem, redaction.vault, options)
    if any(_squeezed(rep.value) in _squeezed(faked) for rep in redaction.replacements):
        separator = _separator_of(stem)  # a spelling the replay does not match: the words, rejoined
        faked = redaction.text if separator == " " else separator.join(redaction.text.split())
    return faked + extension, redaction


def _squeezed(value: str) -> str:
    return re.sub(r"[\W_]+", "", value).casefold()


def _separator_of(stem: str) -> str:
    for separator in ("_", "-", " ", "."):
        if separator in stem:
            return separator
    return " "


def redact_attachment(attachment: Attachment, vault: Vault, options: RedactOptions, *,
                      cache: SpanCache | None = None, model: SpanSource | None = None) -> RedactedAttachment:
    """One file: its text first (so that the people it names are in the vault), then its name.
    `vault` is not modified: the vault after both passes is `result.text.vault`'s successor, see
    `redact_attachments`, which chains them."""
    text = pseudonymise(attachment.extracted.text, vault, options, cache=cache, model=model)
    name, named = redact_file_name(attachment.name, text.vault, options, model=model)
    # The text's redaction carries the vault of both passes (the name's pass may add a value).
    joined = Redaction(text.text, named.vault, text.replacements, text.refaked + named.refaked)
    stem, extension = split_name(attachment.name)
    return RedactedAttachment(name, attachment_part(name, text.text), joined, name != stem + extension)


@dataclass(frozen=True)
class Redacted:
    """A message and its files, redacted in the reference's order: the files, then the typed text."""

    attachments: tuple[RedactedAttachment, ...]
    message: Redaction  # its vault is the one after every pass: the conversation keeps it

    @property
    def vault(self) -> Vault:
        return self.message.vault

    @property
    def parts(self) -> list[str]:
        """The user turn's text parts as sent: one per file, then the message."""
        return [a.part for a in self.attachments] + ([self.message.text] if self.message.text else [])


def check_texts(attachments: Sequence[Attachment]) -> None:
    """The bound on one message's extracted text, all files together."""
    total = sum(len(a.extracted.text) for a in attachments)
    if total > limits.MAX_MESSAGE_TEXT_CHARS:
        raise AttachmentError("too_large", f"The files of this message hold {total} characters of text; up to "
                              f"{limits.MAX_MESSAGE_TEXT_CHARS} go with one message.")


def redact_with_attachments(attachments: Sequence[Attachment], text: str, vault: Vault, options: RedactOptions,
                            *, text_options: RedactOptions | None = None, cache: SpanCache | None = None,
                            model: SpanSource | None = None) -> Redacted:
    """The files then the message, each pass building on the vault of the last. A collision that
    re-fakes a value (redact/collisions.py) means a text redacted earlier carries its old substitute:
    everything is redacted again from the resolved vault (a caller that redacted texts before these,
    the memory block, the history, sees `refaked` on `message` and starts again, as send.py does).
    `text_options`: the typed text's own (its spans, the cards it names); `options` for the files."""
    check_texts(attachments)
    start = vault
    for _ in range(MAX_COLLISION_ROUNDS):
        working = start
        done: list[RedactedAttachment] = []
        refaked: tuple[str, ...] = ()
        for attachment in attachments:
            result = redact_attachment(attachment, working, options, cache=cache, model=model)
            done.append(result)
            working = result.text.vault
            refaked += result.text.refaked
        if refaked and len(done) > 1:
            start = working
            continue
        message = pseudonymise(text, working, text_options or options, cache=cache, model=model) if text.strip() \
            else Redaction(text, working, ())
        if message.refaked and attachments:
            start = message.vault
            continue
        return Redacted(tuple(done), replace(message, refaked=refaked + message.refaked))
    raise RedactionError("collisions between real values and substitutes did not settle")
