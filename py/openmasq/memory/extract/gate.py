"""The zero-cost gate (reference 3.2): decide, without calling a model, whether new user text
is worth an extraction call."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ...redact.kinds import CATEGORY_OF_KIND
from .explicit import is_explicit_memory_ask

GATE_MIN_CHARS = 400  # below this, chatter rarely holds a durable fact (reference 3.2)
# Span kinds that name someone or an organisation: our fine kinds, whichever detector found
# them (rules, lexicons or NER: reference 12 item 12), and the reference's category names.
_ENTITY_CATEGORIES = frozenset({"name", "company"})


def names_an_entity(kind: str) -> bool:
    """A redacted span of this kind is a person or an organisation ("person", "org")."""
    return kind in _ENTITY_CATEGORIES or CATEGORY_OF_KIND.get(kind) in _ENTITY_CATEGORIES


def worth_extracting(texts: Sequence[str], kinds: Iterable[str]) -> bool:
    """Empty: no. An explicit ask: yes, whatever the length. Under 400 characters: no.
    Otherwise yes only when a person or an organisation was redacted in these turns."""
    joined = "\n".join(texts)
    if not joined.strip():
        return False
    if is_explicit_memory_ask(joined):
        return True
    if len(joined) < GATE_MIN_CHARS:
        return False
    return any(names_an_entity(kind) for kind in kinds)
