"""Memory normalisation, keys and word matching (reference 2.1-2.2), fixed for every script:
letters and digits of any script survive (Cyrillic, Greek, Arabic, Hebrew, Devanagari...),
and word boundaries are Unicode-aware."""

from __future__ import annotations

import unicodedata
from functools import lru_cache


def _is_cjk_char(ch: str) -> bool:
    code = ord(ch)
    return (
        0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2A6DF
        or 0x3040 <= code <= 0x30FF or 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF
        or 0xF900 <= code <= 0xFAFF or 0x31F0 <= code <= 0x31FF
    )


def is_cjk_text(value: str) -> bool:
    """True when the value holds CJK characters (matched as substrings, not whole words)."""
    return not value.isascii() and any(_is_cjk_char(ch) for ch in value)


def _mark_is_part_of_letter(mark: str, base: str) -> bool:
    """Accents on Latin, Greek, Cyrillic, Arabic or Hebrew letters are folded away; the vowel
    signs of Indic and South-East Asian scripts are the letters themselves and stay."""
    if unicodedata.category(mark) == "Mc":
        return True
    return 0x0900 <= ord(base) <= 0x109F


@lru_cache(maxsize=65536)
def normalise(value: str) -> str:
    """Lower-case, accents folded, every run of characters that is not a letter, digit, `@`
    or an inner `.` becomes one space; trimmed. "Évreux-Ville" -> "evreux ville"."""
    lowered = unicodedata.normalize("NFKD", value.lower())
    chars: list[str] = []
    base = " "
    for ch in lowered:
        if unicodedata.category(ch).startswith("M"):
            if _mark_is_part_of_letter(ch, base):
                chars.append(ch)
            continue
        base = ch
        chars.append(ch if (ch.isalnum() or ch in "@.") else " ")
    text = "".join(chars)
    # A dot survives only between two letters or digits (e-mail and domain dots).
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch == ".":
            before = text[i - 1] if i > 0 else " "
            after = text[i + 1] if i + 1 < len(text) else " "
            out.append("." if before.isalnum() and after.isalnum() else " ")
        else:
            out.append(ch)
    return " ".join("".join(out).split())


def key_in_text(norm_text: str, key: str) -> bool:
    """A normalised key in a normalised text: whole words (length >= 3), or a plain substring
    for CJK keys (length >= 2)."""
    if not key:
        return False
    if is_cjk_text(key):
        return len(key) >= 2 and key in norm_text
    return len(key) >= 3 and f" {key} " in f" {norm_text} "


def words(norm_text: str) -> list[str]:
    return norm_text.split()
