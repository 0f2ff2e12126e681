"""Images (issue 20, item 2): the words OCR found on an image, with their boxes, as the text the engine
reads, and the personal data the engine found in that text mapped back to the boxes to cover.

The OCR itself runs in the browser (web/worker/ocr-worker.js, tesseract.js); this module decides, pure:
    read = read_words(*words_from_json(payload, width, height))  # the text and each word's place in it
    redaction = pseudonymise(read.text, vault, options)          # the message's own engine and vault
    plan = mask_plan(read, redaction)                             # boxes to fill, the text as sent

A masked value covers every word it touches, whole (a value OCR glued to a label, "Tél:0612345678", hides the
label too: a box never shows half a value). The words of one value on one line become one box, the gap
between them covered."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..redact import Redaction, RedactOptions, Vault, pseudonymise
from .model import AttachmentError, Extracted, Part
from .pdf import _CONTINUES, _DIGIT_START, _OPEN_ADDRESS, _OPEN_NUMBER

# What one image may hold once read: a dense A4 page at 300 dpi has ~600 words; a screenshot of a
# spreadsheet a few thousand. Past this the payload is not an OCR result.
MAX_WORDS = 20_000
MAX_WORD_CHARS = 200
# The side of an image the page OCRs and masks, in pixels (it scales a larger one down first): an A4
# page at 300 dpi is 2480 x 3508; 4000 keeps a phone photo's text readable at a bounded cost.
MAX_SIDE = 4000
# The engine's languages (redact/options.py LANGS) as tesseract names its data (site/ocrfiles.py ships each).
OCR_LANGUAGES: dict[str, str] = {"en": "eng", "fr": "fra", "de": "deu", "es": "spa", "it": "ita", "pt": "por",
                                 "nl": "nld"}
# The side of the masked image that is sent (the page scales the masked drawing down to it): providers scale
# larger images down anyway (Anthropic past 1568 px, OpenAI past 2048), and an A4 page at 1600 px keeps its text
# readable (136 dpi) in a PNG of a few hundred kB.
SEND_MAX_SIDE = 1600
MAX_PNG_BYTES = 8 * 1024 * 1024
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Chunks that carry words about the file rather than pixels: none may be in a masked image.
METADATA_CHUNKS = frozenset({"tEXt", "zTXt", "iTXt", "eXIf", "tIME", "iCCP"})
# A word OCR is this sure of (tesseract's confidence, 0-100) counts as text found: photos without text
# still give a few "words" of noise at 0-40.
TEXT_CONFIDENCE = 60
# A box grows by this share of its height on every side (OCR boxes hug the ink; a descender or an
# accent outside the box would stay readable).
PAD_SHARE = 0.15


@dataclass(frozen=True)
class Box:
    """A rectangle of the image, in pixels: x0, y0 included, x1, y1 excluded."""

    x0: int
    y0: int
    x1: int
    y1: int

    def to_json(self) -> dict[str, int]:
        return {"x0": self.x0, "y0": self.y0, "x1": self.x1, "y1": self.y1}


@dataclass(frozen=True)
class OcrWord:
    """One word as OCR read it: its text, its box, the line it is on (a number: words of a line share it,
    in reading order) and how sure OCR is of it (0-100). `block` groups lines into paragraphs."""

    text: str
    box: Box
    line: int
    conf: float
    block: int = 0


@dataclass(frozen=True)
class ReadImage:
    """The image's text as the engine reads it, and where each word of it is (start, end) in that text."""

    width: int
    height: int
    words: tuple[OcrWord, ...]
    text: str
    offsets: tuple[tuple[int, int], ...]

    @property
    def has_text(self) -> bool:
        """OCR found text it is sure of: without it, the image is a photo the engine cannot vouch for."""
        return any(w.conf >= TEXT_CONFIDENCE and sum(c.isalnum() for c in w.text) >= 2 for w in self.words)

    def extracted(self) -> Extracted:
        """The text as an attachment's (the "send the text only" choice goes through the attachments' path)."""
        return Extracted(self.text, "image", (Part("Image", self.text),) if self.text else ())


@dataclass(frozen=True)
class MaskedBox:
    """A filled box over one masked value (or the part of it on one line) and the kind of that value."""

    box: Box
    kind: str
    words: tuple[int, ...]  # indexes into ReadImage.words

    def to_json(self) -> dict[str, object]:
        return {**self.box.to_json(), "kind": self.kind, "words": list(self.words)}


@dataclass(frozen=True)
class MaskPlan:
    """What the page draws (the boxes) and what the text-only choice sends (the redacted text)."""

    boxes: tuple[MaskedBox, ...]
    redaction: Redaction  # over ReadImage.text: its text is what the model would read, its vault the one after

    def to_json(self) -> dict[str, object]:
        return {"boxes": [b.to_json() for b in self.boxes], "text": self.redaction.text,
                "masked": [{"start": r.start, "end": r.end, "kind": r.kind, "value": r.value, "fake": r.substitute}
                           for r in self.redaction.replacements]}


def ocr_languages(lang: str, ui_lang: str) -> list[str]:
    """The language data OCR reads an image with: the conversation's language when it is set, the interface's
    otherwise, and English (screenshots and forms mix it in everywhere). Each added language slows OCR."""
    wanted = [OCR_LANGUAGES.get(lang), OCR_LANGUAGES.get(ui_lang), "eng"]
    return list(dict.fromkeys(code for code in wanted if code))


def limits_view() -> dict[str, object]:
    """What the page must know before it OCRs an image (one source: this module)."""
    return {"max_side": MAX_SIDE, "send_max_side": SEND_MAX_SIDE, "max_png_bytes": MAX_PNG_BYTES,
            "languages": OCR_LANGUAGES}


def png_chunks(data: bytes) -> list[str]:
    """The chunk types of a PNG, in order, up to IEND. Raises AttachmentError("corrupt") for anything else."""
    if not data.startswith(PNG_SIGNATURE):
        raise AttachmentError("corrupt", "The masked image is not a PNG.")
    chunks: list[str] = []
    at = len(PNG_SIGNATURE)
    while at + 8 <= len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        kind = data[at + 4:at + 8].decode("latin-1")
        at += 12 + length
        if at > len(data) or not kind.isalpha():
            break
        chunks.append(kind)
        if kind == "IEND":
            return chunks
    raise AttachmentError("corrupt", "The masked image is a truncated PNG.")


def check_masked_png(data: bytes) -> tuple[int, int]:
    """The masked image as it may be sent: a whole PNG, within the size sent, with no metadata chunk (the page
    re-encodes it from a canvas, which writes none: checked here, so a file's EXIF or text never rides along).
    Returns its width and height."""
    if len(data) > MAX_PNG_BYTES:
        raise AttachmentError("too_large", f"The masked image is larger than {MAX_PNG_BYTES // (1024 * 1024)} MB.")
    chunks = png_chunks(data)
    if chunks[0] != "IHDR":
        raise AttachmentError("corrupt", "The masked image is not a PNG.")
    carried = sorted(set(chunks) & METADATA_CHUNKS)
    if carried:
        raise AttachmentError("corrupt", f"The masked image carries metadata ({', '.join(carried)}): not sent.")
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if not (0 < width <= SEND_MAX_SIDE and 0 < height <= SEND_MAX_SIDE):
        raise AttachmentError("too_large", f"The masked image is sent up to {SEND_MAX_SIDE} pixels a side.")
    return width, height


def words_from_json(payload: object, width: object, height: object) -> tuple[int, int, tuple[OcrWord, ...]]:
    """The OCR worker's result, checked: every word a text and a box inside the image. Raises
    AttachmentError("corrupt") on anything else (the page never builds a mask from a payload it cannot trust)."""
    if not (isinstance(width, int) and isinstance(height, int) and 0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
        raise AttachmentError("too_large" if isinstance(width, int) and isinstance(height, int) and width > 0
                              and height > 0 else "corrupt",
                              f"An image is read up to {MAX_SIDE} pixels a side (scaled down before OCR).")
    if not isinstance(payload, list) or len(payload) > MAX_WORDS:
        raise AttachmentError("corrupt", "The OCR result is not a list of words.")
    words: list[OcrWord] = []
    for item in payload:
        words.append(_word(item, width, height))
    return width, height, tuple(words)


def _word(item: object, width: int, height: int) -> OcrWord:
    if not isinstance(item, dict):
        raise AttachmentError("corrupt", "An OCR word is not an object.")
    text, line, conf, block = item.get("text"), item.get("line"), item.get("conf", 0), item.get("block", 0)
    coords = [item.get(k) for k in ("x0", "y0", "x1", "y1")]
    if not isinstance(text, str) or len(text) > MAX_WORD_CHARS or not isinstance(line, int) \
            or not isinstance(block, int) or not isinstance(conf, int | float):
        raise AttachmentError("corrupt", "An OCR word lacks its text, line or confidence.")
    if not all(isinstance(c, int) for c in coords):
        raise AttachmentError("corrupt", "An OCR word's box is not in whole pixels.")
    x0, y0, x1, y1 = (int(c) for c in coords)  # type: ignore[arg-type]  # checked just above
    if not (0 <= x0 <= x1 <= width and 0 <= y0 <= y1 <= height):
        raise AttachmentError("corrupt", "An OCR word's box lies outside the image.")
    return OcrWord(text, Box(x0, y0, x1, y1), line, float(conf), block)


def line_joiner(previous: str, line: str) -> str:
    """What goes between two lines of the image's text: nothing where a wrap split an e-mail or a web
    address, a space where it split a grouped number (a phone, an IBAN), else a line break (the rule
    pdf.rejoin_wrapped keeps for text layers: a value in halves would be masked in neither half)."""
    if line and _OPEN_ADDRESS.search(previous) and _CONTINUES.match(line):
        return ""
    if line and _OPEN_NUMBER.search(previous) and _DIGIT_START.match(line):
        return " "
    return "\n"


_SPACES = re.compile(r"\s+")


def read_words(width: int, height: int, words: Sequence[OcrWord]) -> ReadImage:
    """The words in the order OCR gave them: a space between the words of a line, a line break between
    lines (a blank line between blocks), wrapped values joined back. Blank words are kept out of the text
    (their offsets are empty)."""
    parts: list[str] = []
    offsets: list[tuple[int, int]] = []
    length = 0
    previous: OcrWord | None = None
    line_text = ""
    for word in words:
        text = _SPACES.sub(" ", word.text).strip()
        if not text:
            offsets.append((length, length))
            continue
        if previous is None:
            sep = ""
        elif word.line == previous.line and word.block == previous.block:
            sep = " "
        elif word.block != previous.block:
            sep = "\n\n"
        else:
            sep = line_joiner(line_text, text)
        parts.append(sep)
        length += len(sep)
        parts.append(text)
        offsets.append((length, length + len(text)))
        length += len(text)
        line_text = line_text + sep + text if sep in (" ", "") else text
        previous = word
    return ReadImage(width, height, tuple(words), "".join(parts), tuple(offsets))


def words_touched(read: ReadImage, start: int, end: int) -> list[int]:
    """The words a span [start, end) of the text covers, even by one character."""
    return [i for i, (s, e) in enumerate(read.offsets) if s < e and s < end and start < e]


def _padded(box: Box, width: int, height: int) -> Box:
    pad = max(2, round((box.y1 - box.y0) * PAD_SHARE))
    return Box(max(0, box.x0 - pad), max(0, box.y0 - pad), min(width, box.x1 + pad), min(height, box.y1 + pad))


def boxes_for(read: ReadImage, indexes: Sequence[int], kind: str) -> list[MaskedBox]:
    """One box per line the words are on, from its first word to its last, padded."""
    by_line: dict[tuple[int, int], list[int]] = {}
    for i in indexes:
        word = read.words[i]
        by_line.setdefault((word.block, word.line), []).append(i)
    out: list[MaskedBox] = []
    for members in by_line.values():
        boxes = [read.words[i].box for i in members]
        joined = Box(min(b.x0 for b in boxes), min(b.y0 for b in boxes), max(b.x1 for b in boxes),
                     max(b.y1 for b in boxes))
        out.append(MaskedBox(_padded(joined, read.width, read.height), kind, tuple(members)))
    return out


def mask_plan(read: ReadImage, redaction: Redaction) -> MaskPlan:
    """The boxes covering every value `redaction` (a pass over `read.text`) replaced."""
    boxes: list[MaskedBox] = []
    for rep in sorted(redaction.replacements, key=lambda r: (r.start, r.end)):
        touched = words_touched(read, rep.start, rep.end)
        boxes.extend(boxes_for(read, touched, rep.kind))
    return MaskPlan(tuple(boxes), redaction)


def plan_image(read: ReadImage, vault: Vault, options: RedactOptions) -> MaskPlan:
    """The image's text through the engine with `vault` (not modified), and the boxes it masks. `options`
    carries the NER model's spans over `read.text` when the shell ran it."""
    return mask_plan(read, pseudonymise(read.text, vault, options))


def uncovered(plan: MaskPlan, read: ReadImage) -> list[int]:
    """Words of a masked value that no box covers (always empty: the check the worker runs before the page
    may draw the plan, so a bug here fails closed instead of leaving a name readable)."""
    covered = {i for b in plan.boxes for i in b.words}
    wanted = {i for rep in plan.redaction.replacements for i in words_touched(read, rep.start, rep.end)}
    missing = []
    for i in sorted(wanted):
        box = read.words[i].box
        if i not in covered or not any(_contains(b.box, box) for b in plan.boxes if i in b.words):
            missing.append(i)
    return missing


def _contains(outer: Box, inner: Box) -> bool:
    return outer.x0 <= inner.x0 and outer.y0 <= inner.y0 and outer.x1 >= inner.x1 and outer.y1 >= inner.y1
