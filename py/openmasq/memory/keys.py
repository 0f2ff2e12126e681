"""A card's matching surfaces: its normalised keys (entity and aliases), its distinctive
tokens, and mentions of either in a normalised text (reference 2.2-2.3)."""

from __future__ import annotations

from ..redact import lexicon
from .compaction import normalise_fast
from .model import Card
from .normalise import is_cjk_text, key_in_text


def card_keys(card: Card) -> list[str]:
    """Normalised entity and aliases, empties removed, in order, without duplicates."""
    out: list[str] = []
    for surface in [card.entity, *card.aliases]:
        key = normalise_fast(surface)
        if key and key not in out:
            out.append(key)
    return out


def mentions(norm_text: str, card: Card) -> bool:
    return any(key_in_text(norm_text, key) for key in card_keys(card))


def _token_shape_ok(token: str) -> bool:
    if "@" in token or "." in token or any(ch.isdigit() for ch in token):
        return False
    return is_cjk_text(token) or len(token) >= 3


def _is_plain_word(token: str) -> bool:
    return lexicon.is_stopword(token) or lexicon.is_generic_term(token)


def card_tokens(card: Card) -> list[str]:
    """Distinctive tokens: the words of the keys that could name this entity on their own
    (no stopword, generic term or homograph: "le marché est en pierre" recalls no one)."""
    out: list[str] = []
    for key in card_keys(card):
        for token in key.split():
            distinctive = _token_shape_ok(token) and not _is_plain_word(token) and not lexicon.is_homograph(token)
            if distinctive and token not in out:
                out.append(token)
    return out


def denied_homograph_tokens(card: Card) -> list[str]:
    """The card's name words refused as tokens because they are everyday words too."""
    out: list[str] = []
    for key in card_keys(card):
        for token in key.split():
            denied = _token_shape_ok(token) and not _is_plain_word(token) and lexicon.is_homograph(token)
            if denied and token not in out:
                out.append(token)
    return out
