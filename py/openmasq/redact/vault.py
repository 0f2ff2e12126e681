"""The per-conversation vault: substitute -> real value, with the key that seeds the fakes.

It is JSON-serialisable and versioned, never sent anywhere, and copied (not mutated) by a
redaction pass so that a failed pass leaves the conversation's vault untouched."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from .text import fold

VAULT_VERSION = 1
MODES = ("fake", "token")


class VaultError(ValueError):
    """A vault document that cannot be loaded."""


@dataclass
class Vault:
    key: str  # 64 hex chars: the HMAC key that seeds this conversation's fakes
    mode: str | None = None  # pinned at the first redaction
    entries: dict[str, str] = field(default_factory=dict)  # substitute -> real
    kinds: dict[str, str] = field(default_factory=dict)  # substitute -> fine kind
    aliases: set[str] = field(default_factory=set)  # substitutes that are per-word aliases
    words: dict[str, str] = field(default_factory=dict)  # folded real name word -> canonical fake word
    org_cores: dict[str, str] = field(default_factory=dict)  # folded org core -> fake core
    counters: dict[str, int] = field(default_factory=dict)  # token-mode counters per marker word

    @staticmethod
    def new(key: bytes | str | None = None, mode: str | None = None) -> Vault:
        """A fresh vault; without a key, one is drawn from the OS's CSPRNG (a shell concern)."""
        if key is None:
            key = secrets.token_bytes(32)
        hex_key = key.hex() if isinstance(key, bytes) else key
        if len(hex_key) < 32 or any(ch not in "0123456789abcdef" for ch in hex_key.lower()):
            raise VaultError("a vault key is at least 16 bytes, given as bytes or hex")
        if mode is not None and mode not in MODES:
            raise VaultError(f"unknown mode {mode!r}")
        return Vault(key=hex_key.lower(), mode=mode)

    def copy(self) -> Vault:
        # Each field is a string or a flat container of strings and integers, so copying each
        # container is a deep copy (and many times cheaper than copy.deepcopy, once per pass).
        return Vault(self.key, self.mode, dict(self.entries), dict(self.kinds), set(self.aliases), dict(self.words),
                     dict(self.org_cores), dict(self.counters))

    # --- lookups ------------------------------------------------------------------------------

    def substitute_of(self, real: str) -> str | None:
        """The primary (non-alias) substitute recorded for this exact real value."""
        for sub, value in self.entries.items():
            if value == real and sub not in self.aliases:
                return sub
        return None

    def reverse(self) -> dict[str, str]:
        """real -> primary substitute, for the exact substitution pass."""
        out: dict[str, str] = {}
        for sub, real in self.entries.items():
            if sub not in self.aliases:
                out.setdefault(real, sub)
        return out

    def real_folds(self) -> set[str]:
        return {fold(real) for real in self.entries.values()}

    def record(self, substitute: str, real: str, kind: str, *, alias: bool = False) -> None:
        if substitute in self.entries and self.entries[substitute] != real:
            raise VaultError("a substitute cannot stand for two real values")
        self.entries[substitute] = real
        self.kinds[substitute] = kind
        if alias:
            self.aliases.add(substitute)

    # --- persistence --------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VAULT_VERSION,
            "key": self.key,
            "mode": self.mode,
            "entries": [
                [sub, real, self.kinds.get(sub, ""), sub in self.aliases] for sub, real in self.entries.items()
            ],
            "words": dict(self.words),
            "org_cores": dict(self.org_cores),
            "counters": dict(self.counters),
        }

    @staticmethod
    def from_json(doc: object) -> Vault:
        if not isinstance(doc, dict):
            raise VaultError("a vault is a JSON object")
        version = doc.get("version")
        if version != VAULT_VERSION:
            raise VaultError(f"unsupported vault version {version!r} (this build reads {VAULT_VERSION})")
        vault = Vault.new(str(doc.get("key", "")), doc.get("mode"))
        entries = doc.get("entries", [])
        if not isinstance(entries, list):
            raise VaultError("vault entries must be a list")
        for row in entries:
            if not (isinstance(row, list) and len(row) == 4 and isinstance(row[0], str) and isinstance(row[1], str)):
                raise VaultError(f"malformed vault entry {row!r}")
            vault.record(row[0], row[1], str(row[2]), alias=bool(row[3]))
        vault.words = _str_map(doc.get("words", {}), "words")
        vault.org_cores = _str_map(doc.get("org_cores", {}), "org_cores")
        counters = doc.get("counters", {})
        if not isinstance(counters, dict) or not all(isinstance(v, int) for v in counters.values()):
            raise VaultError("vault counters must map words to integers")
        vault.counters = {str(k): int(v) for k, v in counters.items()}
        return vault


def _str_map(value: object, name: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise VaultError(f"vault {name} must map strings to strings")
    return dict(value)
