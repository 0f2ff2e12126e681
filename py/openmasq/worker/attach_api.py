"""The attachments' door of py-worker (issue 20): a file the page hands over is read here with
openmasq.attach, in steps (progress to the page, a cancel honoured between a PDF's pages), and kept
staged in memory under the page's key until a send takes it or the page drops it; nothing of it is
stored before it is sent, and a lock forgets it. The send and the preview (app.py) take staged keys.

The bytes never cross the JSON boundary: pyodide_bridge.Worker.read_attachment hands them in."""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..attach import AttachmentError, Extracted, extract_steps, limits
from ..attach.extract import check_message
from ..chat.attachments import Kind, TurnAttachment
from ..redact import SpanCache
from ..redact.spans import Span

OnEvent = Callable[[dict[str, Any]], None]

# page method -> AttachApi method (dispatch.py); readAttachment carries bytes and goes through read_call.
ATTACH_METHODS = {"attachmentLimits": "limits", "cancelAttachment": "cancel", "dropAttachment": "drop"}

# Texts whose NER spans are kept between the previews and the send of one composer (each preview
# would run the model over a whole document again otherwise).
NER_CACHE_TEXTS = 16
# The detections of the staged files' texts (and the turns' typed texts) kept between the previews and the
# send: two files at their bound of text (limits.MAX_TEXT_CHARS). A 52,000-character report is detected in
# 0.24 s on CPython, and a kept detection makes the pass 0.02 s (measured for bench/attachments.py).
DETECTION_CACHE_CHARS = 2 * limits.MAX_TEXT_CHARS


@dataclass
class Staged:
    """A file read and waiting in the composer: its key (drawn by the page), name and size as given,
    what was read (for an image: its OCR text), and, once OCR exists, the masked image."""

    key: str
    name: str
    size: int
    extracted: Extracted
    kind: Kind = "document"
    image: bytes | None = None
    covered: tuple[str, ...] = ()  # an image: the values its boxes cover, as reviewed (chat/attachments.py)

    def turn_attachment(self) -> TurnAttachment:
        return TurnAttachment(self.name, self.extracted, self.size, self.kind, image=self.image, covered=self.covered)


@dataclass
class Staging:
    """The unlocked account's staged files, the reads in progress (key -> cancelled?), and the NER
    spans of recent texts; `clear()` at lock."""

    files: dict[str, Staged] = field(default_factory=dict)
    reading: dict[str, bool] = field(default_factory=dict)
    spans: OrderedDict[tuple[str, str], tuple[Span, ...]] = field(default_factory=OrderedDict)
    detections: SpanCache = field(default_factory=lambda: SpanCache(DETECTION_CACHE_CHARS))

    def clear(self) -> None:
        self.files.clear()
        for key in self.reading:
            self.reading[key] = True
        self.spans.clear()
        self.detections = SpanCache(DETECTION_CACHE_CHARS)


class AttachmentRefused(Exception):
    """A file that cannot be attached: `reason` (attach.model REASONS, or "cancelled") and a message."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def limits_view() -> dict[str, int]:
    """The bounds the page says before an upload (one source: attach/limits.py)."""
    return {"max_file_bytes": limits.MAX_FILE_BYTES, "max_message_bytes": limits.MAX_MESSAGE_BYTES,
            "max_files": limits.MAX_FILES_PER_MESSAGE, "max_text_chars": limits.MAX_TEXT_CHARS,
            "max_message_text_chars": limits.MAX_MESSAGE_TEXT_CHARS, "max_pdf_pages": limits.MAX_PDF_PAGES}


def staged_view(staged: Staged) -> dict[str, Any]:
    """What the composer shows of a staged file (never its text: the preview says what is masked)."""
    extracted = staged.extracted
    return {"key": staged.key, "name": staged.name, "size": staged.size, "kind": staged.kind,
            "format": extracted.format, "chars": len(extracted.text), "parts": len(extracted.parts),
            "warnings": list(extracted.warnings)}


class AttachApi:
    """py-worker's attachment methods over the App's Staging (`app.staging`)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    @property
    def staging(self) -> Staging:
        self.app.opened  # noqa: B018 - raises Locked when no account is unlocked
        staging: Staging = self.app.staging
        return staging

    async def limits(self) -> dict[str, int]:
        return limits_view()

    async def read(self, key: str, name: str, media_type: str, data: bytes, on_event: OnEvent) -> dict[str, Any]:
        """Reads one file in steps; `on_event` gets {"type": "progress", "done", "total"} after each. Raises
        AttachmentRefused with the reader's reason, or "cancelled" when `cancel(key)` came first."""
        staging = self.staging
        if not isinstance(key, str) or not key or key in staging.files or key in staging.reading:
            raise AttachmentRefused("corrupt", "This file's key is taken or empty.")
        staging.reading[key] = False
        try:
            extracted = await self._steps(key, name, media_type, data, on_event)
        finally:
            cancelled = staging.reading.pop(key, True)
        if cancelled or self.app.staging is not staging:
            raise AttachmentRefused("cancelled", "Reading this file was cancelled: nothing of it is kept.")
        staged = Staged(key, name, len(data), extracted)
        staging.files[key] = staged
        return staged_view(staged)

    async def _steps(self, key: str, name: str, media_type: str, data: bytes, on_event: OnEvent) -> Extracted:
        staging = self.staging
        steps = extract_steps(data, name, media_type)
        try:
            while True:
                try:
                    done, total = next(steps)
                except StopIteration as finished:
                    found: Extracted = finished.value
                    return found
                on_event({"type": "progress", "key": key, "done": done, "total": total})
                await asyncio.sleep(0)  # the page's cancel (and every other call) comes in here
                if staging.reading.get(key, True):
                    raise AttachmentRefused("cancelled", "Reading this file was cancelled: nothing of it is kept.")
        except AttachmentError as error:
            raise AttachmentRefused(error.reason, error.message) from None
        finally:
            steps.close()

    async def cancel(self, key: str) -> bool:
        """Stops a read in progress (between two pages) or drops the staged file; True if there was one."""
        staging = self.staging
        if key in staging.reading:
            staging.reading[key] = True
            return True
        return staging.files.pop(key, None) is not None

    async def drop(self, key: str) -> bool:
        return await self.cancel(key)

    def stage(self, staged: Staged) -> dict[str, Any]:
        """Stages a file read elsewhere (an image's OCR text, issue 20 item 2)."""
        self.staging.files[staged.key] = staged
        return staged_view(staged)

    def take(self, keys: object) -> tuple[TurnAttachment, ...]:
        """The staged files of a send or a preview, in the composer's order, the message's bounds kept."""
        if keys is None:
            return ()
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise AttachmentRefused("corrupt", "expected a list of attachment keys")
        files = self.staging.files
        missing = [k for k in keys if k not in files]
        if missing:
            raise AttachmentRefused("empty", "An attached file is no longer here (the account was locked, or it "
                                    "was removed): attach it again.")
        staged = [files[k] for k in keys]
        try:
            check_message([s.size for s in staged])
        except AttachmentError as error:
            raise AttachmentRefused(error.reason, error.message) from None
        return tuple(s.turn_attachment() for s in staged)

    def forget(self, keys: object) -> None:
        """A send took them: the turn keeps its files now."""
        for key in keys if isinstance(keys, list) else []:
            self.staging.files.pop(key, None)

    def cached_spans(self, lang: str, text: str) -> tuple[Span, ...] | None:
        found = self.staging.spans.get((lang, text))
        if found is not None:
            self.staging.spans.move_to_end((lang, text))
        return found

    def keep_spans(self, lang: str, text: str, spans: tuple[Span, ...]) -> None:
        cache = self.staging.spans
        cache[(lang, text)] = spans
        while len(cache) > NER_CACHE_TEXTS:
            cache.popitem(last=False)


async def with_model_spans(app: Any, attachments: tuple[TurnAttachment, ...], lang: str,
                           find: Callable[[str], Any]) -> tuple[TurnAttachment, ...]:
    """The attachments with the on-device NER model's spans on their text (kept between previews and
    the send). `find(text)` awaits the model's spans, raising what the typed text's would (the send
    stops when the model cannot run)."""
    api = AttachApi(app)
    out: list[TurnAttachment] = []
    for attachment in attachments:
        text = attachment.extracted.text
        spans = api.cached_spans(lang, text)
        if spans is None:
            spans = tuple(await find(text))
            api.keep_spans(lang, text, spans)
        out.append(replace(attachment, spans=spans))
    return tuple(out)


async def file_spans(app: Any, inp: Any) -> tuple[TurnAttachment, ...]:
    """`inp.attachments` with the on-device NER model's spans of each file's text (embeddings.text_spans,
    as the typed text's): when the model cannot run, nothing is sent (an AppError, as prepare_send)."""
    from . import embeddings as ml
    from .app import AppError

    if not inp.attachments:
        return ()

    async def find(text: str) -> tuple[Span, ...]:
        try:
            return await ml.text_spans(app.models, app.ml_state, text, inp.options.lang)
        except ml.NerUnavailable as error:
            app.host.notify({"type": "ml", **app.ml_state.view()})
            raise AppError("NerUnavailable", "Nothing was sent: the on-device name detector (NER model) could not "
                           f"run on an attached file ({error}).") from error

    return await with_model_spans(app, tuple(inp.attachments), inp.options.lang, find)


async def read_call(app: Any, key: str, name: str, media_type: str, data: bytes,
                    emit: Callable[[str], object] | None = None) -> str:
    """readAttachment at the JS boundary (pyodide_bridge.Worker.read_attachment): the staged view, or the
    error JSON dispatch.py gives (AttachmentRefused with its reason; Locked)."""
    from .app import AppError
    from .dispatch import _error, refused

    def on_event(event: dict[str, Any]) -> None:
        if emit is not None:
            emit(json.dumps(event, ensure_ascii=False))

    try:
        view = await AttachApi(app).read(str(key), str(name), str(media_type or ""), data, on_event)
    except AttachmentRefused as error:
        return refused(error)
    except AppError as error:
        return _error(error.name, error.message)
    return json.dumps({"ok": view}, ensure_ascii=False)
