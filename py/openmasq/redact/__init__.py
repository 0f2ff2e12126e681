"""The redaction engine: detect sensitive values, replace them with believable fakes or tokens
recorded in a per-conversation vault, and restore the real values in replies (also streamed)."""

from __future__ import annotations

from .apply import RedactionError, Replacement
from .options import Forced, OptionsError, RedactOptions
from .pseudonymise import Redaction, SpanCache, pseudonymise
from .replay import replay_for_model
from .restore import Restorer, restore, restore_args
from .spans import Span
from .stream import StreamRestorer
from .vault import Vault, VaultError

__all__ = [
    "Forced",
    "OptionsError",
    "RedactOptions",
    "Redaction",
    "RedactionError",
    "Replacement",
    "Restorer",
    "Span",
    "SpanCache",
    "StreamRestorer",
    "Vault",
    "VaultError",
    "pseudonymise",
    "replay_for_model",
    "restore",
    "restore_args",
]
