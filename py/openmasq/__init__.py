"""OpenMasq: on-device redaction with reversible fakes, and a local memory of the people and
organisations the user works with. The pure core runs unchanged on CPython and in Pyodide."""

from __future__ import annotations

__version__ = "0.1.0"
