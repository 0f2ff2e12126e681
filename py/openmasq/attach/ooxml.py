"""Office Open XML (DOCX, XLSX, PPTX) read with zipfile and ElementTree only (ECMA-376 part 1).

DOCX: the body (paragraphs; tables as rows of tab-separated cells), tracked insertions (their runs
are in the flow; deletions are left out: the reader no longer sees them), footnotes, endnotes,
headers, footers and comments. XLSX: every sheet as rows of tab-separated cells, shared strings
resolved, dates written as dates. PPTX: each slide's text, then its notes. Document properties
(author, company) are never read: nobody sees them in the document."""

from __future__ import annotations

import posixpath
import re
from datetime import date, datetime, timedelta
from xml.etree import ElementTree

from . import limits
from .model import AttachmentError, Extracted, Part, joined
from .zipsafe import SafeZip, parse_xml

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
NOTES_TYPE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide"


# --- shared -------------------------------------------------------------------------------------


def relationships(archive: SafeZip, part: str) -> dict[str, str]:
    """rId -> target member of a part (word/document.xml -> word/_rels/document.xml.rels)."""
    folder, name = posixpath.split(part)
    rels = archive.optional_xml(posixpath.join(folder, "_rels", name + ".rels"))
    if rels is None:
        return {}
    out = {}
    for rel in rels.iter(f"{REL}Relationship"):
        target = rel.get("Target") or ""
        if rel.get("TargetMode") == "External" or not target:
            continue
        path = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        out[rel.get("Id") or ""] = path
    return out


def relationship_types(archive: SafeZip, part: str) -> dict[str, str]:
    folder, name = posixpath.split(part)
    rels = archive.optional_xml(posixpath.join(folder, "_rels", name + ".rels"))
    if rels is None:
        return {}
    return {rel.get("Id") or "": rel.get("Type") or "" for rel in rels.iter(f"{REL}Relationship")}


# --- DOCX ---------------------------------------------------------------------------------------


def _run_text(element: ElementTree.Element) -> str:
    """The text of a paragraph's runs, in order; deleted text and field codes left out."""
    out: list[str] = []
    for node in element.iter():
        tag = node.tag
        if tag == f"{W}t":
            out.append(node.text or "")
        elif tag in (f"{W}tab", f"{W}ptab"):
            out.append("\t")
        elif tag in (f"{W}br", f"{W}cr"):
            out.append("\n")
        elif tag == f"{W}noBreakHyphen":
            out.append("-")
    return "".join(out)


def _has_deleted_only(paragraph: ElementTree.Element) -> bool:
    return paragraph.find(f".//{W}t") is None and paragraph.find(f".//{W}delText") is not None


def word_blocks(container: ElementTree.Element) -> list[str]:
    """The paragraphs and tables of a body, header, footer, note or comment, in order."""
    out: list[str] = []
    for child in container:
        if child.tag == f"{W}p":
            if not _has_deleted_only(child):
                out.append(_run_text(child))
        elif child.tag == f"{W}tbl":
            out.extend(_word_table(child))
        elif child.tag in (f"{W}sdt", f"{W}sdtContent", f"{W}customXml", f"{W}ins", f"{W}smartTag"):
            out.extend(word_blocks(child))  # content controls and the like wrap ordinary blocks
    return out


def _word_table(table: ElementTree.Element) -> list[str]:
    rows = []
    for row in table.findall(f"{W}tr"):
        cells = [" ".join(block.strip() for block in word_blocks(cell) if block.strip())
                 for cell in row if cell.tag == f"{W}tc"]
        rows.append("\t".join(cells).rstrip("\t"))
    return rows


def read_docx(archive: SafeZip) -> Extracted:
    main = _main_part(archive, "word/document.xml")
    root = archive.xml(main)
    body = root.find(f"{W}body")
    if body is None:
        raise AttachmentError("corrupt", "This DOCX has no body.")
    parts = [Part("Document", "\n".join(word_blocks(body)).strip())]
    rels = relationships(archive, main)
    types = relationship_types(archive, main)
    for kind, label in (("header", "Header"), ("footer", "Footer"), ("footnotes", "Footnotes"),
                        ("endnotes", "Endnotes")):
        for rid, target in sorted(rels.items()):
            if types.get(rid, "").endswith("/" + kind) and target in archive.names:
                text = "\n".join(word_blocks(archive.xml(target))).strip()
                if text and text not in {p.text for p in parts if p.label == label}:
                    parts.append(Part(label, text))
    comments = [rels[rid] for rid in rels if types.get(rid, "").endswith("/comments")]
    for target in comments:
        if target in archive.names:
            parts.append(Part("Comments", _word_comments(archive.xml(target))))
    kept = [part for part in parts if part.text.strip()]
    return Extracted(joined(kept), "docx", tuple(kept))


def _word_comments(root: ElementTree.Element) -> str:
    lines = []
    for comment in root.iter(f"{W}comment"):
        text = " ".join(block.strip() for block in word_blocks(comment) if block.strip())
        author = (comment.get(f"{W}author") or "").strip()
        lines.append(f"{author}: {text}" if author else text)
    return "\n".join(lines)


def _main_part(archive: SafeZip, default: str) -> str:
    """The main document part the package's relationships name (usually `default`)."""
    rels = relationships(archive, "")
    types = relationship_types(archive, "")
    for rid, target in rels.items():
        if types.get(rid, "").endswith("/officeDocument") and target in archive.names:
            return target
    return default


# --- XLSX ---------------------------------------------------------------------------------------

_BUILTIN_DATES = frozenset({14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47})
_QUOTED = re.compile(r'"[^"]*"|\[[^\]]*\]|\\.')
_CELL_REF = re.compile(r"([A-Z]{1,3})(\d+)")


def _date_styles(archive: SafeZip) -> frozenset[int]:
    """The indexes of the cell formats (styles.xml cellXfs) that show a number as a date or time."""
    styles = archive.optional_xml("xl/styles.xml")
    if styles is None:
        return frozenset()
    custom = set()
    for fmt in styles.iter(f"{S}numFmt"):
        code = _QUOTED.sub("", fmt.get("formatCode") or "").lower()
        if any(ch in code for ch in "dmy") or ("h" in code and "s" in code):
            custom.add(int(fmt.get("numFmtId") or -1))
    xfs = styles.find(f"{S}cellXfs")
    if xfs is None:
        return frozenset()
    return frozenset(index for index, xf in enumerate(xfs.findall(f"{S}xf"))
                     if int(xf.get("numFmtId") or 0) in _BUILTIN_DATES | custom)


def _serial_date(value: str, epoch_1904: bool) -> str:
    """An Excel serial day number as the date (and time) it stands for."""
    try:
        serial = float(value)
    except ValueError:
        return value
    if not 0 <= serial < 2958466:
        return value
    base = datetime(1904, 1, 1) if epoch_1904 else datetime(1899, 12, 30)  # 1900's phantom Feb 29 included
    moment = base + timedelta(days=serial)
    if serial == int(serial):
        return date(moment.year, moment.month, moment.day).isoformat()
    return moment.strftime("%Y-%m-%d %H:%M") if serial >= 1 else moment.strftime("%H:%M")


def _shared_strings(archive: SafeZip) -> list[str]:
    root = archive.optional_xml("xl/sharedStrings.xml")
    if root is None:
        return []
    out = []
    for item in root.iter(f"{S}si"):
        texts = [t.text or "" for t in item.iter(f"{S}t")]
        phonetic = {id(t) for rph in item.iter(f"{S}rPh") for t in rph.iter(f"{S}t")}
        if phonetic:
            texts = [t.text or "" for t in item.iter(f"{S}t") if id(t) not in phonetic]
        out.append("".join(texts))
    return out


def _column_index(ref: str) -> int:
    index = 0
    for ch in ref:
        index = index * 26 + ord(ch) - 64
    return index - 1


class _Cells:
    """The count of cells read in a workbook, against limits.MAX_CELLS."""

    def __init__(self) -> None:
        self.count = 0

    def take(self, n: int = 1) -> None:
        self.count += n
        if self.count > limits.MAX_CELLS:
            raise AttachmentError("too_large", f"This spreadsheet has more than {limits.MAX_CELLS} cells.")


def read_xlsx(archive: SafeZip) -> Extracted:
    main = _main_part(archive, "xl/workbook.xml")
    workbook = archive.xml(main)
    rels = relationships(archive, main)
    pr = workbook.find(f"{S}workbookPr")
    epoch_1904 = pr is not None and (pr.get("date1904") or "").lower() in ("1", "true")
    shared = _shared_strings(archive)
    dates = _date_styles(archive)
    sheets = workbook.findall(f"{S}sheets/{S}sheet")
    if len(sheets) > limits.MAX_SHEETS:
        raise AttachmentError("too_large", f"This workbook has more than {limits.MAX_SHEETS} sheets.")
    cells = _Cells()
    parts = []
    for sheet in sheets:
        target = rels.get(sheet.get(f"{R}id") or "")
        if target is None or target not in archive.names:
            continue
        name = sheet.get("name") or "Sheet"
        hidden = sheet.get("state") in ("hidden", "veryHidden")
        rows = _sheet_rows(archive.xml(target), shared, dates, epoch_1904, cells)
        parts.append(Part(f"Sheet: {name}" + (" (hidden)" if hidden else ""), "\n".join(rows)))
    kept = [part for part in parts if part.text.strip()]
    return Extracted(joined(kept), "xlsx", tuple(kept))


def _sheet_rows(root: ElementTree.Element, shared: list[str], dates: frozenset[int], epoch_1904: bool,
                cells: _Cells) -> list[str]:
    rows: list[str] = []
    for row in root.iter(f"{S}row"):
        values: dict[int, str] = {}
        position = 0
        for cell in row.iter(f"{S}c"):
            cells.take()
            match = _CELL_REF.match(cell.get("r") or "")
            position = _column_index(match.group(1)) if match else position
            value = _cell_value(cell, shared, dates, epoch_1904)
            if value:
                values[position] = value
            position += 1
        if values:
            width = max(values) + 1
            if width > limits.MAX_CELLS:
                raise AttachmentError("too_large", "A row of this spreadsheet is wider than the cells read.")
            rows.append("\t".join(values.get(i, "") for i in range(width)))
        elif rows:
            rows.append("")
    while rows and not rows[-1]:
        rows.pop()
    return rows


def _cell_value(cell: ElementTree.Element, shared: list[str], dates: frozenset[int], epoch_1904: bool) -> str:
    kind = cell.get("t") or "n"
    if kind == "inlineStr":
        return "".join(t.text or "" for t in cell.iter(f"{S}t")).replace("\n", " ").strip()
    raw = cell.findtext(f"{S}v") or ""
    if kind == "s":
        try:
            return shared[int(raw)].replace("\n", " ").strip()
        except (ValueError, IndexError):
            return ""
    if kind == "b":
        return "TRUE" if raw == "1" else "FALSE"
    if kind == "n" and raw and int(cell.get("s") or 0) in dates:
        return _serial_date(raw, epoch_1904)
    return raw.replace("\n", " ").strip()


# --- PPTX ---------------------------------------------------------------------------------------


def _drawing_text(root: ElementTree.Element) -> str:
    lines = []
    for paragraph in root.iter(f"{A}p"):
        pieces = []
        for node in paragraph.iter():
            if node.tag == f"{A}t":
                pieces.append(node.text or "")
            elif node.tag == f"{A}br":
                pieces.append("\n")
            elif node.tag == f"{A}tab":
                pieces.append("\t")
        lines.append("".join(pieces))
    return "\n".join(line for line in lines if line.strip())


def _notes_text(root: ElementTree.Element) -> str:
    """A notes slide's text, less its placeholders for the slide image and the slide number."""
    lines = []
    for shape in root.iter(f"{P}sp"):
        placeholder = shape.find(f".//{P}nvPr/{P}ph")
        if placeholder is not None and placeholder.get("type") in ("sldNum", "sldImg", "dt", "hdr", "ftr"):
            continue
        body = shape.find(f"{P}txBody")
        if body is not None:
            lines.append(_drawing_text(body))
    return "\n".join(line for line in lines if line.strip())


def read_pptx(archive: SafeZip) -> Extracted:
    main = _main_part(archive, "ppt/presentation.xml")
    presentation = archive.xml(main)
    rels = relationships(archive, main)
    parts = []
    slide_ids = presentation.findall(f"{P}sldIdLst/{P}sldId")
    for number, slide_id in enumerate(slide_ids, start=1):
        target = rels.get(slide_id.get(f"{R}id") or "")
        if target is None or target not in archive.names:
            continue
        text = _drawing_text(archive.xml(target))
        slide_rels = relationships(archive, target)
        slide_types = relationship_types(archive, target)
        notes = [_notes_text(archive.xml(path)) for rid, path in slide_rels.items()
                 if slide_types.get(rid) == NOTES_TYPE and path in archive.names]
        notes_text = "\n".join(n for n in notes if n.strip())
        if notes_text:
            text = f"{text}\n\nNotes:\n{notes_text}".strip()
        parts.append(Part(f"Slide {number}", text))
    kept = [part for part in parts if part.text.strip()]
    return Extracted(joined(kept), "pptx", tuple(kept))


__all__ = ["parse_xml", "read_docx", "read_pptx", "read_xlsx"]
