"""Restore a reply as it streams: a fake may straddle two chunks, so hold back only the
shortest tail that could still become a substitute. For any chunking, the concatenated
output equals `restore` of the whole text."""

from __future__ import annotations

from .restore import Restorer
from .vault import Vault

_CONTEXT = 4  # released characters kept for look-behinds (word boundaries, elisions)


class StreamRestorer:
    def __init__(self, vault: Vault, *, args: bool = False, restorer: Restorer | None = None) -> None:
        """`restorer`: one already built for this vault state (shells may share it)."""
        self._restorer = restorer if restorer is not None else Restorer(vault, args=args)
        self._context = ""
        self._buffer = ""

    def feed(self, chunk: str) -> str:
        """Add a chunk; returns the restored text that is now certain."""
        self._buffer += chunk
        return self._release(final=False)

    def flush(self) -> str:
        """End of stream (or of a content block): restore and release the rest."""
        return self._release(final=True)

    @property
    def pending(self) -> str:
        return self._buffer

    def _release(self, *, final: bool) -> str:
        if self._restorer.is_empty:
            out, self._buffer = self._buffer, ""
            return out
        text = self._context + self._buffer
        out, stop = self._restorer.release(text, len(self._context), final=final)
        self._context = text[max(0, stop - _CONTEXT) : stop]
        self._buffer = text[stop:]
        return out
