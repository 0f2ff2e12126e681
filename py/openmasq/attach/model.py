"""The plain objects between the readers and their callers: what was read from a file
(`Extracted`, with its parts: pages, sheets, slides) and why a file cannot be read
(`AttachmentError`, one reason from REASONS)."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

# Why a file is refused. The app translates each reason (and its details); the proxy answers with it.
REASONS = (
    "unsupported",  # a format no reader knows (an image, an archive, a binary)
    "binary",  # said to be text, but holds binary bytes
    "undecodable",  # text in no encoding the reader knows
    "encrypted",  # a password-protected PDF or Office file
    "corrupt",  # broken or truncated
    "no_text_layer",  # a scanned PDF: its pages are images, OCR is needed
    "too_large",  # past a bound of limits.py
    "zip_bomb",  # a container that inflates past a bound of limits.py
    "empty",  # nothing to read in it
)


class AttachmentError(ValueError):
    """A file that cannot be read; nothing of it is sent. `reason` is one of REASONS; the message
    says what went wrong in plain English and never quotes the file's content."""

    def __init__(self, reason: str, message: str) -> None:
        if reason not in REASONS:
            raise ValueError(f"unknown reason {reason!r}")
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class Part:
    """A page, a sheet, a slide, a header or footer, the comments: a label and its text."""

    label: str
    text: str


@dataclass(frozen=True)
class Extracted:
    """What a reader found: the whole text (the parts joined, as the model reads it), the parts,
    the format it was read as, and what the user should know (a part left out, an encoding guessed)."""

    text: str
    format: str
    parts: tuple[Part, ...] = ()
    warnings: tuple[str, ...] = ()


def joined(parts: list[Part], *, headed: bool = True) -> str:
    """The parts as one text: each under its label when `headed` (pages, sheets, slides), blank lines between."""
    blocks = [f"[{part.label}]\n{part.text}" if headed else part.text for part in parts if part.text.strip()]
    return "\n\n".join(blocks)


def run_steps(steps: Generator[object, None, Extracted]) -> Extracted:
    """The result of a stepwise reader (one step per page or part, for progress and cancel) read in one go."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            found: Extracted = done.value
            return found
