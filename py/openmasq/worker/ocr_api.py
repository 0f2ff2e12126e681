"""The page's door to image masking (issue 20, item 2): the words ocr-worker read on an image go through the
engine with the conversation's options and vault (the on-device NER model included, as a send runs it), and
come back as the boxes the page fills (attach/ocr.py decides; this shell only reads the account)."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..attach import AttachmentError, Extracted, Part
from ..attach.ocr import (
    check_masked_png,
    limits_view,
    ocr_languages,
    plan_image,
    read_words,
    uncovered,
    words_from_json,
)
from ..attach.scans import scanned_pages
from ..chat.send import conversation_options
from . import embeddings as ml

if TYPE_CHECKING:
    from .app import App

OCR_METHODS: dict[str, str] = {"planImageMask": "plan_image_mask", "imageLimits": "image_limits",
                               "stageImage": "stage_image", "scanPages": "scan_pages"}


class OcrApi:
    """The image methods on one App (dispatch.py calls them by OCR_METHODS)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def image_limits(self, conversation_id: str | None = None) -> dict[str, Any]:
        """{max_side, languages, langs}: the largest side OCR reads, the engine's languages as tesseract names
        them, and the ones to read this conversation's images with."""
        app = self.app
        settings = app.opened.document.settings
        lang = settings.redact_options().lang
        if conversation_id:
            lang = conversation_options(app._conversation(conversation_id), settings.redact_options()).lang
        return {**limits_view(), "langs": ocr_languages(lang, settings.ui_lang)}

    async def plan_image_mask(self, conversation_id: str | None, words: object, width: object, height: object,
                              spec: dict[str, Any] | None = None) -> dict[str, Any]:
        """{boxes, text, masked, has_text, ocr_text}: the boxes covering every value the engine masks in the
        image's text, the text as the model would read it (fakes), what was masked, and whether OCR found any
        text it is sure of (a photo without: the page asks the user's consent for that image)."""
        from .app import AppError

        app: Any = self.app  # its models and ml_state are set by embeddings.attach
        app.touch()
        try:
            read = read_words(*words_from_json(words, width, height))
        except AttachmentError as error:
            raise AppError("AttachmentRefused", json.dumps({"reason": error.reason, "message": error.message})) \
                from None
        conv = app._conversation(conversation_id) if conversation_id else app._draft_conversation(spec or {})
        options = conversation_options(conv, app.opened.document.settings.redact_options())
        try:
            spans = await ml.text_spans(app.models, app.ml_state, read.text, options.lang) if read.text else ()
        except ml.NerUnavailable as error:
            raise AppError("NerUnavailable", "Nothing is masked on this image: the on-device name detector (NER "
                           f"model) could not run ({error}).") from error
        try:
            plan = plan_image(read, conv.vault.copy(), replace(options, spans=spans))
        except Exception as error:  # the engine failed: no mask is offered, so nothing of the image can be sent
            raise AppError("MaskFailed", f"The masking failed ({type(error).__name__}): nothing would be sent.") \
                from None
        if uncovered(plan, read):
            raise AppError("MaskFailed", "A masked value of this image has a word no box covers: nothing would be "
                           "sent.")
        view = plan.to_json()
        if not conversation_id:  # a conversation not created yet has no final fakes (its vault key comes later)
            masked: list[dict[str, object]] = view["masked"]  # type: ignore[assignment]
            for item in masked:
                item["fake"] = None
            view["text"] = None
        return {**view, "has_text": read.has_text, "ocr_text": read.text, "width": read.width,
                "height": read.height}

    async def stage_image(self, key: str, name: str, size: int, ocr_text: str, png: str | None,
                          covered: list[str] | None = None) -> dict[str, Any]:
        """Stages an image the user reviewed, as they chose it: `png` (base64) the masked image they saw, or None
        to send its OCR'd text alone; `covered`, the values its boxes cover (a send that would mask another value
        in its text refuses it: chat/attachments.py). The staged view, as a document's (attach_api.py keeps it
        until the send)."""
        from .app import AppError
        from .attach_api import AttachApi, Staged

        def refused(reason: str, message: str) -> AppError:
            return AppError("AttachmentRefused", json.dumps({"reason": reason, "message": message}))

        if not (isinstance(key, str) and key and isinstance(name, str) and isinstance(size, int)
                and isinstance(ocr_text, str) and (png is None or isinstance(png, str))
                and (covered is None or (isinstance(covered, list) and all(isinstance(v, str) for v in covered)))):
            raise refused("corrupt", "expected an image's key, name, size, text and masked PNG")
        image = None
        if png is not None:
            try:
                image = base64.b64decode(png, validate=True)
                check_masked_png(image)
            except (binascii.Error, ValueError) as error:
                if isinstance(error, AttachmentError):
                    raise refused(error.reason, error.message) from None
                raise refused("corrupt", "The masked image is not base64.") from None
        elif not ocr_text.strip():
            raise refused("empty", "No text was read on this image: it can only go as the image itself.")
        extracted = Extracted(ocr_text, "image", (Part("Image", ocr_text),) if ocr_text.strip() else ())
        return AttachApi(self.app).stage(Staged(key, name, size, extracted, "image", image, tuple(covered or ())))

    async def scan_pages(self, pdf: str) -> dict[str, Any]:
        """A scanned PDF's page images for the page to read with OCR (attach/scans.py): {pages, unread, images:
        [{page, media_type, data (base64), width, height}]}, or AttachmentRefused when none can be read."""
        from .app import AppError

        self.app.touch()
        try:
            scan = scanned_pages(base64.b64decode(pdf, validate=True))
        except AttachmentError as error:
            raise AppError("AttachmentRefused", json.dumps({"reason": error.reason, "message": error.message})) \
                from None
        except (binascii.Error, ValueError, TypeError):
            raise AppError("AttachmentRefused",
                           json.dumps({"reason": "corrupt", "message": "expected a PDF's bytes"})) from None
        images = [{"page": i.page, "media_type": i.media_type, "data": base64.b64encode(i.data).decode("ascii"),
                   "width": i.width, "height": i.height} for i in scan.images]
        return {"pages": scan.pages, "unread": list(scan.unread), "images": images}
