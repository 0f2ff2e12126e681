"""OpenDocument text and spreadsheets (ODT, ODS; OASIS ODF 1.2+) read with zipfile and ElementTree.

ODT: the body (paragraphs, headings, lists, tables as tab-separated rows), comments (annotations:
their author and text, apart from the flow), and the headers and footers of the page styles
(styles.xml). Tracked changes: insertions are in the flow; deletions sit in a changes region that
is left out (the reader no longer sees them). ODS: every sheet as rows of tab-separated cells, the
text each cell displays; repeated rows and columns are expanded only where they hold something."""

from __future__ import annotations

from xml.etree import ElementTree

from . import limits
from .model import AttachmentError, Extracted, Part, joined
from .zipsafe import SafeZip

OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
DC = "{http://purl.org/dc/elements/1.1/}"

_SKIPPED = frozenset({f"{TEXT}tracked-changes", f"{OFFICE}annotation", f"{OFFICE}annotation-end",
                      f"{TEXT}note-citation", f"{TEXT}sequence-decls", f"{TEXT}variable-decls",
                      f"{OFFICE}forms", f"{TABLE}table-columns", f"{TABLE}table-column"})


def _inline(element: ElementTree.Element, out: list[str]) -> None:
    """The text of a paragraph's inline content, in order (spaces, tabs and line breaks as written)."""
    if element.text:
        out.append(element.text)
    for child in element:
        tag = child.tag
        if tag == f"{TEXT}s":
            out.append(" " * min(int(child.get(f"{TEXT}c") or 1), 100))
        elif tag == f"{TEXT}tab":
            out.append("\t")
        elif tag == f"{TEXT}line-break":
            out.append("\n")
        elif tag not in _SKIPPED:
            _inline(child, out)
        if child.tail:
            out.append(child.tail)


def _paragraph(element: ElementTree.Element) -> str:
    out: list[str] = []
    _inline(element, out)
    return "".join(out)


def text_blocks(container: ElementTree.Element) -> list[str]:
    """Paragraphs, headings, list items and tables of a text body, in order."""
    out: list[str] = []
    for child in container:
        tag = child.tag
        if tag in (f"{TEXT}p", f"{TEXT}h"):
            out.append(_paragraph(child))
        elif tag == f"{TABLE}table":
            for row in _table_rows(child, cells=None):
                out.append("\t".join(row))
        elif tag == f"{TEXT}list":
            for item in child:
                out.extend("- " + block if i == 0 else "  " + block for i, block in enumerate(text_blocks(item)))
        elif tag not in _SKIPPED:
            out.extend(text_blocks(child))  # sections, list items, frames, table headers: blocks inside
    return out


def _annotations(root: ElementTree.Element) -> list[str]:
    lines = []
    for note in root.iter(f"{OFFICE}annotation"):
        author = (note.findtext(f"{DC}creator") or "").strip()
        text = " ".join(block.strip() for block in text_blocks(note) if block.strip())
        lines.append(f"{author}: {text}" if author else text)
    return lines


class _Budget:
    def __init__(self) -> None:
        self.cells = 0

    def take(self, n: int) -> None:
        self.cells += n
        if self.cells > limits.MAX_CELLS:
            raise AttachmentError("too_large", f"This spreadsheet has more than {limits.MAX_CELLS} cells.")


def _repeat(element: ElementTree.Element, attr: str) -> int:
    try:
        return max(1, int(element.get(f"{TABLE}{attr}") or 1))
    except ValueError:
        return 1


def _table_rows(table: ElementTree.Element, cells: _Budget | None) -> list[list[str]]:
    """A table's rows as lists of cell texts; empty repeats (a sheet's millions of blank cells) are
    expanded only when something follows them, and count against the cell budget."""
    budget = cells or _Budget()
    rows: list[list[str]] = []
    pending_blank_rows = 0
    for row in _rows_of(table):
        values: list[str] = []
        pending_blank = 0
        for cell in row:
            if cell.tag not in (f"{TABLE}table-cell", f"{TABLE}covered-table-cell"):
                continue
            text = " ".join(block.strip() for block in text_blocks(cell) if block.strip())
            repeat = _repeat(cell, "number-columns-repeated")
            if not text:
                pending_blank += repeat
                continue
            budget.take(pending_blank + repeat)
            values += [""] * pending_blank + [text] * repeat
            pending_blank = 0
        if not values:
            pending_blank_rows += _repeat(row, "number-rows-repeated")
            continue
        repeat = _repeat(row, "number-rows-repeated")
        budget.take(len(values) * repeat + pending_blank_rows)
        rows += [[] for _ in range(min(pending_blank_rows, 1))]  # one blank line stands for a gap
        rows += [values] * repeat
        pending_blank_rows = 0
    return rows


def _rows_of(table: ElementTree.Element) -> list[ElementTree.Element]:
    out = []
    for child in table:
        if child.tag == f"{TABLE}table-row":
            out.append(child)
        elif child.tag in (f"{TABLE}table-header-rows", f"{TABLE}table-rows", f"{TABLE}table-row-group"):
            out.extend(_rows_of(child))
    return out


def _page_styles(archive: SafeZip) -> list[Part]:
    styles = archive.optional_xml("styles.xml")
    if styles is None:
        return []
    parts = []
    seen: set[tuple[str, str]] = set()
    for page in styles.iter(f"{STYLE}master-page"):
        for tag, label in (("header", "Header"), ("header-first", "Header"), ("footer", "Footer"),
                           ("footer-first", "Footer")):
            for region in page.findall(f"{STYLE}{tag}"):
                text = "\n".join(text_blocks(region)).strip()
                if text and (label, text) not in seen:
                    seen.add((label, text))
                    parts.append(Part(label, text))
    return parts


def _body(archive: SafeZip, kind: str) -> ElementTree.Element:
    content = archive.xml("content.xml")
    body = content.find(f"{OFFICE}body/{OFFICE}{kind}")
    if body is None:
        raise AttachmentError("corrupt", f"This OpenDocument file has no {kind} body.")
    return body


def read_odt(archive: SafeZip) -> Extracted:
    body = _body(archive, "text")
    parts = [Part("Document", "\n".join(text_blocks(body)).strip()), *_page_styles(archive)]
    comments = _annotations(body)
    if comments:
        parts.append(Part("Comments", "\n".join(comments)))
    kept = [part for part in parts if part.text.strip()]
    return Extracted(joined(kept), "odt", tuple(kept))


def read_ods(archive: SafeZip) -> Extracted:
    body = _body(archive, "spreadsheet")
    tables = body.findall(f"{TABLE}table")
    if len(tables) > limits.MAX_SHEETS:
        raise AttachmentError("too_large", f"This workbook has more than {limits.MAX_SHEETS} sheets.")
    budget = _Budget()
    parts = []
    for table in tables:
        rows = _table_rows(table, budget)
        name = table.get(f"{TABLE}name") or "Sheet"
        parts.append(Part(f"Sheet: {name}", "\n".join("\t".join(row) for row in rows).strip("\n")))
    comments = _annotations(body)
    if comments:
        parts.append(Part("Comments", "\n".join(comments)))
    kept = [part for part in parts if part.text.strip()]
    return Extracted(joined(kept), "ods", tuple(kept))
