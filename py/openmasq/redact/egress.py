"""The egress postcondition, shared by every flow that calls a model (the send flow, the extraction
run): no text about to leave carries a real value the conversation's vault masks."""

from __future__ import annotations

from collections.abc import Iterable

from .apply import RedactionError, check_nothing_left
from .kinds import category_of
from .options import RedactOptions
from .text import fold
from .vault import Vault


def real_values(vault: Vault, options: RedactOptions) -> set[str]:
    """The vault's real values that this conversation's send masks (switched-off categories and
    `keep` values stay in clear by the user's choice)."""
    active = options.active_categories()
    keep = {fold(value) for value in options.keep if value.strip()}
    return {
        real for sub, real in vault.entries.items()
        if real.strip() and category_of(vault.kinds.get(sub, "")) in active and fold(real) not in keep
    }


def carries_real_value(text: str, reals: set[str]) -> bool:
    """The send's own postcondition, on a text about to leave: a real value or a spelling
    variant of it is present."""
    try:
        check_nothing_left(text, [], reals)
    except RedactionError:
        return True
    return False


def leaks(texts: Iterable[str], reals: set[str]) -> bool:
    """The postcondition broken: one of the texts about to leave carries one of `reals`."""
    return any(carries_real_value(text, reals) for text in texts if text)
