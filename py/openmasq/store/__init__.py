"""The per-account state document: settings, providers, spaces, conversations with their vaults,
and the memory store, versioned and migrated. Pure: JSON text in, records out."""

from __future__ import annotations

from .document import (
    DOCUMENT_VERSION,
    Provider,
    Settings,
    Space,
    StateDocument,
    StateFormatError,
    document_from_json,
    document_to_json,
)
from .migrations import MIGRATIONS, StateVersionError, migrate

__all__ = [
    "DOCUMENT_VERSION",
    "MIGRATIONS",
    "Provider",
    "Settings",
    "Space",
    "StateDocument",
    "StateFormatError",
    "StateVersionError",
    "document_from_json",
    "document_to_json",
    "migrate",
]
