"""The Mémoire: durable cards about the people, organisations and projects the user works
with, extracted from the redacted conversation, resolved locally, reviewed, and selected for
injection. Pure Python: no I/O, no clock (every function that needs time takes `now`, ms)."""

from __future__ import annotations
