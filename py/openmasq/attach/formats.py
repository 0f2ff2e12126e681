"""Which reader a file goes to, from its first bytes, its media type and its name, in that order:
the bytes cannot lie about a PDF or a zip, a name can ("invoice.pdf.txt"). Pure."""

from __future__ import annotations

from .model import AttachmentError

TEXT_FORMATS = ("text", "markdown", "csv", "json", "code")
FORMATS = (*TEXT_FORMATS, "eml", "pdf", "docx", "xlsx", "pptx", "odt", "ods")

_BY_MEDIA_TYPE = {
    "text/plain": "text", "text/markdown": "markdown", "text/x-markdown": "markdown", "text/csv": "csv",
    "text/tab-separated-values": "csv", "application/json": "json", "application/ld+json": "json",
    "message/rfc822": "eml", "application/pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
    "application/vnd.oasis.opendocument.text": "odt",
    "application/vnd.oasis.opendocument.spreadsheet": "ods",
    "text/html": "code", "text/xml": "code", "application/xml": "code", "application/x-yaml": "code",
    "text/yaml": "code", "application/yaml": "code", "text/x-python": "code", "application/javascript": "code",
    "text/javascript": "code", "application/sql": "code", "application/x-sh": "code", "application/toml": "code",
}
_BY_EXTENSION = {
    "txt": "text", "text": "text", "log": "text", "md": "markdown", "markdown": "markdown", "csv": "csv",
    "tsv": "csv", "json": "json", "jsonl": "json", "ndjson": "json", "eml": "eml", "pdf": "pdf", "docx": "docx",
    "xlsx": "xlsx", "pptx": "pptx", "odt": "odt", "ods": "ods",
}
# Source code and configuration: read as text.
_CODE_EXTENSIONS = frozenset({
    "py", "pyi", "js", "mjs", "cjs", "ts", "tsx", "jsx", "java", "kt", "kts", "c", "h", "cc", "cpp", "hpp", "cs",
    "go", "rs", "rb", "php", "swift", "scala", "sh", "bash", "zsh", "fish", "ps1", "sql", "html", "htm", "css",
    "scss", "less", "xml", "yaml", "yml", "toml", "ini", "cfg", "conf", "env", "properties", "gradle", "r", "m",
    "lua", "pl", "dart", "vue", "svelte", "tex", "rst", "org", "adoc", "diff", "patch", "dockerfile", "makefile",
})
# Formats recognised only to say plainly that they are not read.
_MEDIA_PREFIXES = ("image/", "audio/", "video/")
_LEGACY_OFFICE = frozenset({"doc", "xls", "ppt", "msg"})
_OOXML = {"word/": "docx", "xl/": "xlsx", "ppt/": "pptx"}
_ODF = {"application/vnd.oasis.opendocument.text": "odt", "application/vnd.oasis.opendocument.spreadsheet": "ods"}

_CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # legacy Office, and encrypted OOXML
_IMAGE_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"RIFF", b"II*\x00", b"MM\x00*")


def extension_of(name: str) -> str:
    base = name.rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower()
    if base in ("dockerfile", "makefile"):
        return base
    return base.rsplit(".", 1)[1] if "." in base.strip(".") else ""


def detect(data: bytes, name: str = "", media_type: str = "") -> str:
    """The format to read `data` as (one of FORMATS), or AttachmentError("unsupported" / "encrypted")."""
    media = media_type.split(";", 1)[0].strip().lower()
    ext = extension_of(name)
    head = data[:8]
    # A PDF may have bytes before its header (readers allow 1 kB): only when nothing says it is another kind.
    unsaid = ext in ("", "pdf") and media in ("", "application/pdf", "application/octet-stream")
    lead = unsaid and b"%PDF-" in data[:1024]
    if data.startswith(b"%PDF-") or lead:
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return _zip_format(data, ext, media)
    if head == _CFB_MAGIC:
        if ext in ("docx", "xlsx", "pptx") or _BY_MEDIA_TYPE.get(media) in ("docx", "xlsx", "pptx"):
            raise AttachmentError("encrypted", "This Office file is protected by a password; save it without one "
                                  "to attach it.")
        raise AttachmentError("unsupported", "Legacy Office files (.doc, .xls, .ppt, .msg) are not read: save the "
                              "file as DOCX, XLSX, PPTX or PDF.")
    if media.startswith(_MEDIA_PREFIXES) or (head.startswith(_IMAGE_MAGIC) and ext not in _BY_EXTENSION):
        raise AttachmentError("unsupported", "Images, audio and video are not read as attachments (their text "
                              "would need OCR).")
    if ext in _LEGACY_OFFICE:
        raise AttachmentError("unsupported", "Legacy Office files (.doc, .xls, .ppt, .msg) are not read: save the "
                              "file as DOCX, XLSX, PPTX or PDF.")
    found = _BY_EXTENSION.get(ext) or ("code" if ext in _CODE_EXTENSIONS else None) or _BY_MEDIA_TYPE.get(media)
    if found in ("pdf", "docx", "xlsx", "pptx", "odt", "ods"):  # said so, but the bytes are not
        raise AttachmentError("corrupt", f"This file is named or typed as {found.upper()} but its bytes are not one "
                              "(damaged or mislabelled).")
    if found is None and (media.startswith("text/") or not media or media == "application/octet-stream"):
        found = "text"  # a text file of a kind not listed: read it if it decodes (textfile.py says if not)
    if found is None:
        raise AttachmentError("unsupported", f"Files of type {media or ext or 'unknown'} are not read as attachments.")
    return found


def _zip_format(data: bytes, ext: str, media: str) -> str:
    """DOCX/XLSX/PPTX by their folders, ODT/ODS by their `mimetype` member; any other zip is refused."""
    from .zipsafe import SafeZip  # zipfile is only imported for containers

    archive = SafeZip(data)
    mimetype = archive.read_text("mimetype", missing="") if "mimetype" in archive.names else ""
    if mimetype.strip() in _ODF:
        return _ODF[mimetype.strip()]
    if mimetype.strip().startswith("application/vnd.oasis.opendocument"):
        raise AttachmentError("unsupported", "Of the OpenDocument formats, text (ODT) and spreadsheets (ODS) are read.")
    if "[Content_Types].xml" in archive.names:
        for folder, kind in _OOXML.items():
            if any(name.startswith(folder) for name in archive.names):
                return kind
    said = _BY_EXTENSION.get(ext) or _BY_MEDIA_TYPE.get(media)
    if said in ("docx", "xlsx", "pptx", "odt", "ods"):
        raise AttachmentError("corrupt", f"This file is named as {said.upper()} but lacks the parts one holds.")
    raise AttachmentError("unsupported", "Zip archives are not read as attachments: attach the files inside.")
