"""The Pyodide shell (Python side of py-worker): the App API the page calls, the flows driven over
JS bridges (encrypted record storage, the egress ports), and the state split into records."""

from __future__ import annotations

from .app import App, AppError
from .bridge import Chunk, EgressMessage, End, Failure, Head, MemoryRecords

__all__ = ["App", "AppError", "Chunk", "EgressMessage", "End", "Failure", "Head", "MemoryRecords"]
