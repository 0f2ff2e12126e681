"""Shape helpers shared by every fake generator: casing mirrors, character-class redraws,
re-layout under the original separators and the "never the real value" guard."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TypeVar

from ...patterns import deferred
from ..text import strip_accents

DIGITS = "0123456789"
LOWER = "abcdefghijklmnopqrstuvwxyz"
UPPER = LOWER.upper()
HEX_LOWER = "0123456789abcdef"
# Letters that read as a syllable once alternated; rare letters (q, x, w, y) are left out so
# the scrambles look like words rather than line noise.
_CONSONANTS = "bcdfglmnprstvz"
_VOWELS = "aeiou"
_CODAS = "lnrs"

T = TypeVar("T")
_WORD_PARTS = deferred(r"[^\s\-]+|[\s\-]+")
# What str.isalnum() rejects, one character at a time: the regex's word class is exactly the
# characters isalnum() accepts plus the underscore (both read the same Unicode property).
_NOT_ALNUM = deferred(r"[\W_]+")
_RETRIES = 12


# Cached: the same real values and pool names are folded again and again (every draw of a name
# compares its pick and the real value, `distinct` every candidate with the real value).
@lru_cache(maxsize=65536)
def fold_key(value: str) -> str:
    """What must differ between a real value and its fake: letters and digits, ignoring case,
    accents and separators (a fake equal up to spacing or capitals would leak the value)."""
    return _NOT_ALNUM.sub("", strip_accents(value).casefold())


def distinct(real: str, rng: random.Random, make: Callable[[random.Random], str]) -> str:
    """Draw with `make` until the result differs from `real`; after a few equal draws, alter
    one character of the last draw so a different value always comes back."""
    real_key = fold_key(real)
    candidate = real
    for _ in range(_RETRIES):
        candidate = make(rng)
        # Values without letters or digits ("!!") can only differ verbatim.
        if (fold_key(candidate) != real_key) if real_key else (candidate != real):
            return candidate
    return nudge(candidate, rng)


def scramble(real: str, rng: random.Random) -> str:
    """The fallback for values far longer than their kind ever is (a detector gone wrong, or
    hostile input): a linear, shape-keeping scramble instead of word-by-word generation."""
    return distinct(real, rng, lambda r: scramble_word(real, r))


def swap_digits(real: str, rng: random.Random) -> str:
    """Every digit redrawn (a leading non-zero digit stays non-zero), everything else kept; a
    value without digits gets its letters scrambled instead."""
    if not any(ch.isdigit() and ch.isascii() for ch in real):
        return scramble(real, rng)
    return distinct(real, rng, lambda r: redraw_digits(real, r))


def nudge(value: str, rng: random.Random) -> str:
    """Change the last letter or digit of `value` to another one of the same class."""
    for i in range(len(value) - 1, -1, -1):
        ch = value[i]
        pool = class_pool(ch)
        if pool:
            others = [c for c in pool if c.casefold() != ch.casefold()]
            return value[:i] + rng.choice(others) + value[i + 1:]
    return value + str(rng.randrange(10))


def class_pool(ch: str) -> str:
    """The characters `ch` may be redrawn from: its own class (digit, lower, upper letter)."""
    if ch.isdigit() and ch.isascii():
        return DIGITS
    if ch.isalpha():
        return UPPER if ch.isupper() else LOWER
    return ""


def redraw_char(ch: str, rng: random.Random) -> str:
    """Another character of the same class; any other character is kept (a separator)."""
    pool = class_pool(ch)
    return rng.choice(pool) if pool else ch


def redraw_digits(value: str, rng: random.Random, *, keep: int = 0) -> str:
    """Every digit after the first `keep` digits redrawn; a leading non-zero digit stays non-zero."""
    out: list[str] = []
    seen = 0
    for ch in value:
        if ch.isdigit() and ch.isascii():
            if seen >= keep:
                ch = rng.choice("123456789") if seen == 0 and ch != "0" else rng.choice(DIGITS)
            seen += 1
        out.append(ch)
    return "".join(out)


def relayout(template: str, compact_value: str) -> str:
    """Put the characters of `compact_value` in the letter/digit slots of `template`, keeping its
    separators; a lower-case slot makes the new letter lower case."""
    chars = iter(compact_value)
    out: list[str] = []
    for ch in template:
        if ch.isalnum():
            new = next(chars, "")
            out.append(new.lower() if ch.islower() else new)
        else:
            out.append(ch)
    out.extend(chars)
    return "".join(out)


def alnum_only(value: str) -> str:
    return "".join(ch for ch in value if ch.isalnum())


def pronounceable(length: int, rng: random.Random) -> str:
    """A lower-case word of exactly `length` letters alternating consonants and vowels."""
    out: list[str] = []
    vowel_next = rng.random() < 0.3
    while len(out) < length:
        if vowel_next:
            out.append(rng.choice(_VOWELS))
        else:
            coda = len(out) > 1 and out[-1] in _VOWELS and rng.random() < 0.15
            out.append(rng.choice(_CODAS) if coda else rng.choice(_CONSONANTS))
        vowel_next = not vowel_next
    return "".join(out)


def scramble_word(value: str, rng: random.Random) -> str:
    """Letters replaced by a pronounceable run keeping each letter's case, digits redrawn,
    every other character (separators, @, dots) kept."""
    out: list[str] = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch.isalpha():
            j = i
            while j < len(value) and value[j].isalpha():
                j += 1
            run = pronounceable(j - i, rng)
            pairs = zip(value[i:j], run, strict=True)
            out.extend(new.upper() if old.isupper() else new for old, new in pairs)
            i = j
            continue
        out.append(redraw_char(ch, rng) if ch.isdigit() else ch)
        i += 1
    return "".join(out)


def _part_style(part: str) -> str:
    if not part.isascii():
        return _part_style_slowly(part)
    # In ASCII (no titlecase letters) str.isupper()/islower() of the whole part read exactly as
    # the per-character test: no letter of the other case, and at least one cased letter.
    if part.isupper():
        return "upper" if sum(1 for ch in part if ch.isalpha()) > 1 else "title"
    if part.islower():
        return "lower"
    return "title" if any(ch.isalpha() for ch in part) else ""


def _part_style_slowly(part: str) -> str:
    cased = [ch for ch in part if ch.isupper() or ch.islower()]
    if not cased:
        return ""
    if all(ch.isupper() for ch in cased):
        return "upper" if len(cased) > 1 else "title"
    if all(ch.islower() for ch in cased):
        return "lower"
    return "title"


def _apply_style(style: str, part: str) -> str:
    if style == "upper":
        return part.upper()
    if style == "lower":
        return part.lower()
    if style == "title":
        rest = part[1:].lower() if part[1:].isupper() else part[1:]
        return part[:1].upper() + rest
    return part


def _split_parts(value: str) -> list[str]:
    return _WORD_PARTS.findall(value)


def match_case(template: str, value: str) -> str:
    """`value` written in the casing of `template`: ALL CAPS, all lower, or Title per word and per
    hyphen part; when both have as many parts, each part mirrors its counterpart ("Jean DUPONT")."""
    whole, word_styles = _casing_of(template)
    if not whole:
        return value
    if whole in ("upper", "lower"):
        return _apply_style(whole, value)
    if value and _is_one_part(value):  # most fakes: one word, cased like the template's one word
        return _apply_style(word_styles[0] if len(word_styles) == 1 else "title", value)
    pieces = _split_parts(value)
    if sum(1 for p in pieces if p.strip(" -")) != len(word_styles):
        word_styles = ("title",) * len(pieces)
    styles = iter(word_styles)
    return "".join(_apply_style(next(styles), p) if p.strip(" -") else p for p in pieces)


def _is_one_part(value: str) -> bool:
    """One part: neither a hyphen nor any whitespace (the space is the one printable whitespace)."""
    return value.isprintable() and " " not in value and "-" not in value


# Cached: a template is a real value or one of its words, cased again for every fake drawn for it.
@lru_cache(maxsize=16384)
def _casing_of(template: str) -> tuple[str, tuple[str, ...]]:
    """The style of the whole template, and the style of each of its words and hyphen parts."""
    whole = _part_style(template)
    if whole in ("", "upper", "lower"):
        return whole, ()
    return whole, tuple(_part_style(t) or "title" for t in _split_parts(template) if t.strip(" -"))


def ascii_like(real: str, fake: str) -> str:
    """Drop the fake's accents when the real value has none and is written in capitals, the way
    forms and registries spell names ("HELENE" -> "ELODIE", not "ÉLODIE")."""
    if real.isascii() and real.isupper():
        return strip_accents(fake)
    return fake


def pick_near_length(
    options: Sequence[T], target: int, rng: random.Random, *, key: Callable[[T], str] = str, draws: int = 24
) -> T:
    """One of `draws` random picks whose `key` length is nearest `target` (ties: the earliest)."""
    best = rng.choice(options)
    best_gap = abs(len(key(best)) - target)
    for _ in range(draws - 1):
        if best_gap == 0:
            break
        option = rng.choice(options)
        gap = abs(len(key(option)) - target)
        if gap < best_gap:
            best, best_gap = option, gap
    return best
