"""The proxy's decision on what a request attaches, pure, before any text is redacted (issue 20):
a document the client inlines (an Anthropic `document` block with a base64 PDF or text, an OpenAI
`file` part or a Responses-style `input_file` part with base64 data) is read with openmasq.attach
and put back as text, which the codec then redacts like every other text of the body, with the
same vault (masking.py). Media the proxy cannot read (images, audio, and documents or images by a
remote URL, which the provider fetches and whose address can name a person) are refused unless the
proxy runs with `--allow-media`, which forwards them as they came, unvouched.

A document that cannot be read (encrypted, scanned, corrupt, too large, of a format not read) refuses
the request: its bytes never go upstream."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from ..attach import AttachmentError, extract
from ..attach.redaction import HEADER
from ..chat.codecs.walk import ShapeError

ALLOW_MEDIA_FLAG = "--allow-media"
# What the OpenAI chat format and its Responses-style parts call media.
_OPENAI_MEDIA = frozenset({"image_url", "input_image", "input_audio", "image", "audio"})
_DATA_URL = re.compile(r"data:([\w.+-]+/[\w.+-]+)?((?:;[\w.+-]+=[\w.+-]+)*);base64,(.*)", re.DOTALL)


class MediaRefused(ValueError):
    """Media the proxy cannot vouch for, in a request of a proxy without --allow-media (answered 415)."""

    status = 415

    def __init__(self, what: str) -> None:
        super().__init__(
            f"The OpenMasq proxy does not forward {what}: it cannot read them, so it cannot mask the personal data "
            f"they may show or name. Nothing was sent upstream. Send the text instead, or start the proxy with "
            f"{ALLOW_MEDIA_FLAG} to forward images, audio and remote URLs as they are (unvouched).")


class DocumentRefused(ValueError):
    """A document of the request that cannot be read (answered 413 when too large, else 422)."""

    def __init__(self, error: AttachmentError, name: str) -> None:
        label = f"The attached document{' ' + repr(name) if name else ''}"
        super().__init__(f"{label} cannot be read ({error.reason}): {error.message} Nothing was sent upstream.")
        self.reason = error.reason
        self.status = 413 if error.reason == "too_large" else 422


class FileName(str):
    """A file's name in a body (a document's title, a file part's filename): masking.py fakes the
    personal data in it as a file name (attach.redact_file_name), not as prose."""


class AttachmentText(str):
    """An inlined document put back as the text part the model reads: "[Attachment: name]" then its
    text. masking.py redacts the text, then the name with what the text taught the vault."""

    name: str
    body: str

    def __new__(cls, name: str, body: str) -> AttachmentText:
        made = super().__new__(cls, f"{HEADER.format(name=name)}\n{body}")
        made.name = name
        made.body = body
        return made


def open_documents(api: str, body: object, *, allow_media: bool) -> object:
    """A copy of the body with every inlined document read into text and every file name marked;
    raises MediaRefused, DocumentRefused, or ShapeError (a document part of a shape not known)."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return body  # the codec says what is wrong with it
    walk = _openai_content if api == "openai" else _anthropic_content
    messages = [
        {**m, "content": walk(m["content"], allow_media)} if isinstance(m, dict) and isinstance(m.get("content"), list)
        else m for m in body["messages"]
    ]
    return {**body, "messages": messages}


# --- OpenAI ---------------------------------------------------------------------------------------


def _openai_content(parts: list[Any], allow_media: bool) -> list[Any]:
    return [_openai_part(part, allow_media) for part in parts]


def _openai_part(part: Any, allow_media: bool) -> Any:
    if not isinstance(part, dict):
        return part
    kind = part.get("type")
    if kind in _OPENAI_MEDIA:
        if not allow_media:
            raise MediaRefused(f"images or audio (a content part of type {kind!r})")
        return part
    if kind == "file":
        file = part.get("file")
        if not isinstance(file, dict):
            raise ShapeError("a file part has no file object")
        return _openai_file(part, file.get("file_data"), file.get("filename"),
                            lambda named: {**part, "file": {**file, "filename": named}})
    if kind == "input_file":
        if isinstance(part.get("file_url"), str):
            if not allow_media:
                raise MediaRefused("documents by a remote URL (the provider would fetch them)")
            return part
        return _openai_file(part, part.get("file_data"), part.get("filename"),
                            lambda named: {**part, "filename": named})
    return part


def _openai_file(part: dict[str, Any], data: object, filename: object, renamed: Any) -> Any:
    name = filename if isinstance(filename, str) else ""
    if data is None:  # a file the provider already holds (file_id): only its name is here
        return renamed(FileName(name)) if name else part
    if not isinstance(data, str):
        raise ShapeError("a file part's file_data is not a string")
    media_type, raw = _decoded(data, name)
    return {"type": "text", "text": AttachmentText(name or "document", _read(raw, name, media_type))}


# --- Anthropic ------------------------------------------------------------------------------------


def _anthropic_content(blocks: list[Any], allow_media: bool) -> list[Any]:
    return [_anthropic_block(block, allow_media) for block in blocks]


def _anthropic_block(block: Any, allow_media: bool) -> Any:
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    if kind == "image":
        if not allow_media:
            raise MediaRefused("images (an image block)")
        return block
    if kind == "tool_result" and isinstance(block.get("content"), list):
        return {**block, "content": _anthropic_content(block["content"], allow_media)}
    if kind == "document":
        return _anthropic_document(block, allow_media)
    return block


def _anthropic_document(block: dict[str, Any], allow_media: bool) -> dict[str, Any]:
    source = block.get("source")
    if not isinstance(source, dict):
        raise ShapeError("a document block has no source object")
    title = block.get("title")
    out = {**block, "title": FileName(title)} if isinstance(title, str) and title else dict(block)
    kind = source.get("type")
    if kind == "url":
        if not allow_media:
            raise MediaRefused("documents by a remote URL (the provider would fetch them)")
        return out
    if kind == "content" and isinstance(source.get("content"), list):
        return {**out, "source": {**source, "content": _anthropic_content(source["content"], allow_media)}}
    if kind != "base64":
        return out  # text (the codec redacts it), or a file the provider already holds (file_id)
    data = source.get("data")
    if not isinstance(data, str):
        raise ShapeError("a document's base64 data is not a string")
    name = title if isinstance(title, str) else ""
    said = source.get("media_type")
    media_type = said if isinstance(said, str) else ""
    text = _read(_base64(data, name), name, media_type)
    # Still a document (its title, context and citations keep working), now of plain text the codec redacts.
    return {**out, "source": {"type": "text", "media_type": "text/plain", "data": text}}


# --- shared ---------------------------------------------------------------------------------------


def _decoded(data: str, name: str) -> tuple[str, bytes]:
    """A data URL's media type and bytes, or a bare base64 string's bytes."""
    match = _DATA_URL.fullmatch(data.strip())
    if match:
        return match.group(1) or "", _base64(match.group(3), name)
    return "", _base64(data, name)


def _base64(data: str, name: str) -> bytes:
    try:
        return base64.b64decode("".join(data.split()), validate=True)
    except (binascii.Error, ValueError) as error:
        raise DocumentRefused(AttachmentError("corrupt", "Its data is not valid base64."), name) from error


def _read(raw: bytes, name: str, media_type: str) -> str:
    try:
        return extract(raw, name, media_type).text
    except AttachmentError as error:
        raise DocumentRefused(error, name) from None
