"""Reading the members of a zip container (DOCX, XLSX, PPTX, ODT, ODS) within the bounds of
limits.py: members counted, each one's inflated size checked against what its header declares
and against the ratio, and the reading itself stopped at the bound (a header can lie). XML with
a DOCTYPE is refused before parsing (OOXML and ODF never carry one; entity tricks need one)."""

from __future__ import annotations

import io
import zipfile
import zlib
from xml.etree import ElementTree

from . import limits
from .model import AttachmentError

_CHUNK = 64 * 1024


class SafeZip:
    """A zip opened from bytes, read member by member under the bounds; every failure is an AttachmentError."""

    def __init__(self, data: bytes) -> None:
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, EOFError, ValueError, OSError) as error:
            raise AttachmentError("corrupt", "The file is a damaged or truncated zip container.") from error
        if len(infos) > limits.MAX_ZIP_MEMBERS:
            raise AttachmentError("zip_bomb", f"The container holds {len(infos)} members (at most "
                                  f"{limits.MAX_ZIP_MEMBERS} are read).")
        if any(info.flag_bits & 0x1 for info in infos):
            raise AttachmentError("encrypted", "The container is protected by a password.")
        self._infos = {info.filename: info for info in infos}
        self.names = tuple(self._infos)
        self.unzipped = 0  # bytes inflated so far, all members together

    def read(self, name: str) -> bytes:
        """One member's bytes, inflated under the bounds."""
        info = self._infos.get(name)
        if info is None:
            raise AttachmentError("corrupt", "The container lacks a part its format requires.")
        declared_cap = max(limits.RATIO_FREE_BYTES, info.compress_size * limits.MAX_COMPRESSION_RATIO)
        cap = min(limits.MAX_MEMBER_BYTES, declared_cap, limits.MAX_UNZIPPED_BYTES - self.unzipped)
        if info.file_size > cap:
            raise AttachmentError("zip_bomb", "A part of the container inflates past the size read "
                                  f"({info.file_size} bytes declared).")
        out = bytearray()
        try:
            with self._zip.open(info) as member:
                while chunk := member.read(_CHUNK):
                    out += chunk
                    if len(out) > cap:
                        raise AttachmentError("zip_bomb", "A part of the container inflates past the size read.")
        except AttachmentError:
            raise
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError) as error:
            raise AttachmentError("corrupt", "A part of the container is damaged or truncated.") from error
        self.unzipped += len(out)
        return bytes(out)

    def read_text(self, name: str, *, missing: str | None = None) -> str:
        if missing is not None and name not in self._infos:
            return missing
        try:
            return self.read(name).decode("utf-8")
        except UnicodeDecodeError as error:
            raise AttachmentError("corrupt", "A part of the container is not UTF-8 text.") from error

    def xml(self, name: str) -> ElementTree.Element:
        """A member parsed as XML (no DTD allowed)."""
        return parse_xml(self.read(name))

    def optional_xml(self, name: str) -> ElementTree.Element | None:
        return self.xml(name) if name in self._infos else None


def parse_xml(data: bytes) -> ElementTree.Element:
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:  # XML spells both in capitals only
        raise AttachmentError("corrupt", "A part of the container declares a DTD, which its format never does.")
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError as error:
        raise AttachmentError("corrupt", "A part of the container is not well-formed XML.") from error
