"""Replay past turns to the model through the same substitution as the send (reference 9.13):
exact spellings, then spelling variants, then (token mode) a known person's surname alone.
No detection and no new identities: a value masked only by a tolerant pass at send time is
masked on replay too."""

from __future__ import annotations

from .apply import apply
from .kinds import CATEGORIES
from .options import RedactOptions
from .text import fold
from .vault import Vault


def replay_for_model(text: str, vault: Vault, options: RedactOptions | None = None) -> str:
    """The wire form of a past text. Categories switched off stay in clear, as at send time.
    Case variants found here get vault entries, so callers keep the returned vault."""
    options = options or RedactOptions()
    excluded = frozenset(CATEGORIES) - options.active_categories()
    keep = frozenset(fold(v) for v in options.keep if v.strip())
    output, _ = apply(text, (), vault, excluded_categories=excluded, keep=keep)
    return output
