"""Pseudonymise one text for a conversation: detect, decide, allocate, substitute, verify.

Fail closed: any error raises and the caller sends nothing; the caller's vault is only
replaced by the returned one when the whole pass succeeded."""

from __future__ import annotations

from dataclasses import dataclass

from .allocate import allocate
from .apply import Replacement, apply, check_nothing_left
from .detect import gather
from .kinds import CATEGORIES
from .options import RedactOptions
from .policy import admitted, resolve_overlaps
from .spans import Span
from .text import fold
from .vault import Vault


@dataclass(frozen=True)
class Redaction:
    """The text the model may see, the vault that restores it, and what was replaced."""

    text: str
    vault: Vault
    replacements: tuple[Replacement, ...]

    @property
    def mapping(self) -> dict[str, str]:
        """substitute -> real for the values replaced in this text."""
        return {rep.substitute: rep.value for rep in self.replacements}


def pseudonymise(text: str, vault: Vault, options: RedactOptions | None = None) -> Redaction:
    """Replace every sensitive value of `text`; `vault` is not modified (see Redaction.vault)."""
    options = options or RedactOptions()
    working = vault.copy()
    if working.mode is None:
        working.mode = options.mode
    spans = resolve_overlaps(admitted(gather(text, options), text, options))
    substitutes = allocate(spans, text, working, lang=None if options.lang == "auto" else options.lang)
    planned = [_planned(span, text, substitutes[span]) for span in spans]
    excluded = _excluded_categories(options)
    keep = frozenset(fold(value) for value in options.keep if value.strip())
    output, replacements = apply(text, planned, working, excluded_categories=excluded, keep=keep)
    reals = {span.value for span in spans} | {f.value.strip() for f in options.force}
    reals |= {rep.value for rep in replacements}
    check_nothing_left(output, replacements, reals - {v for v in reals if fold(v) in keep})
    return Redaction(output, working, tuple(replacements))


def _planned(span: Span, text: str, substitute: str) -> Replacement:
    return Replacement(span.start, span.end, text[span.start : span.end], span.kind, substitute, span.source)


def _excluded_categories(options: RedactOptions) -> frozenset[str]:
    """Vault values of a category switched off for this pass stay in clear (reference 9.11)."""
    return frozenset(CATEGORIES) - options.active_categories()
