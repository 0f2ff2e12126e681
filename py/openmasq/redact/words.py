"""The one word view the free-text detectors share (names.py, orgs.py, places.py, lone_names.py): the text as
they read it (zero-width characters dropped, every Unicode space a plain space, offsets mapped back) and its
words with their offsets, elided articles split off."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable

from ..patterns import deferred
from . import lexicon
from .spans import Span
from .text import ZERO_WIDTH, has_combining_marks

# --- the text as the detectors read it --------------------------------------------------------------

_SPACES = str.maketrans(dict.fromkeys(
    "\u00a0\u202f\u2007\u2009\u200a\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2008\u205f\u3000\u1680", " "
))
_INVISIBLE = deferred("[" + "".join(sorted(ZERO_WIDTH)) + "]")
_ODD_SPACE = deferred("[\u00a0\u202f\u2007\u2009\u200a\u2000-\u2006\u2008\u205f\u3000\u1680]")


class TextView:
    """The text the detectors read: zero-width characters dropped (read as a space when they glue
    a lower-case letter to an upper-case one, "Jean\u200bDupont"), every Unicode space a plain
    space. `span()` maps a range of the view back to the original text."""

    __slots__ = ("origin", "original", "text")

    def __init__(self, original: str) -> None:
        self.original = original
        self.origin: list[int] | None = None
        if not _INVISIBLE.search(original):
            self.text = original.translate(_SPACES) if _ODD_SPACE.search(original) else original
            return
        kept: list[str] = []
        origin: list[int] = []
        for i, ch in enumerate(original):
            if ch in ZERO_WIDTH:
                glues_two_words = bool(kept) and kept[-1].islower() and _next_visible(original, i).isupper()
                if glues_two_words:
                    kept.append(" ")
                    origin.append(i)
                continue
            kept.append(ch)
            origin.append(i)
        self.text = "".join(kept).translate(_SPACES)
        self.origin = origin

    def span(self, start: int, end: int, kind: str, source: str, score: float) -> Span:
        if self.origin is not None:
            start, end = self.origin[start], self.origin[end - 1] + 1
        return Span(start, end, self.original[start:end], kind, source, score)


def _next_visible(text: str, index: int) -> str:
    for ch in text[index + 1 : index + 9]:
        if ch not in ZERO_WIDTH:
            return ch
    return ""


# --- words ---------------------------------------------------------------------------------------

# Letters (combining accents included: the text may be decomposed), joined by hyphens or apostrophes.
# (Runs of each class inside the repeat: the regex engine scans a run in one step.)
_WORD = deferred(r"(?:[^\W\d_]+|[\u0300-\u036f]+)+(?:[-‐‑'’ʼ](?:[^\W\d_]+|[\u0300-\u036f]+)+){0,6}")
# The same words in a text without combining accents (most texts): a pattern that opens on a
# character class lets the regex engine skip to the letters.
_PLAIN_WORD = deferred(r"[^\W\d_]+(?:[-‐‑'’ʼ][^\W\d_]+){0,6}")
_ELISION = deferred(r"(?:[ldjmnstcLDJMNSTC]|[Qq]u)['’ʼ]")
# The gaps that join two words of one name: one to three spaces or tabs, every spelling listed (a
# set look-up per gap costs less than a regex call).
JOINING_GAPS = frozenset(
    "".join(chars) for size in (1, 2, 3) for chars in itertools.product(" \t", repeat=size)
)
_APOSTROPHE = deferred("['’ʼ]")


def _words_with_elisions(text: str) -> tuple[list[int], list[int], list[str]]:
    """Word offsets and texts, an elided article split off and an English possessive dropped.
    Only the words holding an apostrophe need a look: the others are taken as matched."""
    matches = list((_WORD if has_combining_marks(text) else _PLAIN_WORD).finditer(text))
    starts = [m.start() for m in matches]
    ends = [m.end() for m in matches]
    texts = [m.group() for m in matches]
    marked = _words_holding(starts, ends, (m.start() for m in _APOSTROPHE.finditer(text)))
    if not marked:
        return starts, ends, texts
    out_starts: list[int] = []
    out_ends: list[int] = []
    out_texts: list[str] = []
    cursor = 0
    for k in marked:
        out_starts += starts[cursor:k]
        out_ends += ends[cursor:k]
        out_texts += texts[cursor:k]
        cursor = k + 1
        start, word = starts[k], texts[k]
        elision = _ELISION.match(word)
        if elision and len(word) > elision.end() and (word[0].islower() or word[elision.end()].islower()):
            out_starts.append(start)
            out_ends.append(start + elision.end())
            out_texts.append(word[: elision.end()])
            start, word = start + elision.end(), word[elision.end() :]
        if len(word) > 3 and word[-2] in "'’" and word[-1] in "sS" and word[0].isupper():
            word = word[:-2]
        out_starts.append(start)
        out_ends.append(start + len(word))
        out_texts.append(word)
    out_starts += starts[cursor:]
    out_ends += ends[cursor:]
    out_texts += texts[cursor:]
    return out_starts, out_ends, out_texts


def _words_holding(starts: list[int], ends: list[int], positions: Iterable[int]) -> list[int]:
    """The indexes (sorted, distinct) of the words holding one of `positions` (sorted)."""
    marked: list[int] = []
    for position in positions:
        k = bisect.bisect_right(ends, position)
        if k < len(ends) and starts[k] <= position and (not marked or marked[-1] != k):
            marked.append(k)
    return marked


class Words:
    """The words of a text view with their offsets. An elided article is its own word ("d'" +
    "Artagnan", "l'" + "entreprise"; "D'Angelo" and "L'Oréal" stay whole) and an English
    possessive is not part of the word ("Dupont's" -> "Dupont")."""

    __slots__ = ("count", "ends", "links", "starts", "text", "texts")

    def __init__(self, text: str) -> None:
        self.text = text
        starts, ends, texts = _words_with_elisions(text)
        self.starts, self.ends, self.texts = starts, ends, texts
        self.count = len(texts)
        self.links = [
            text[gap_start:gap_end] in JOINING_GAPS or (gap_start == gap_end and word[-1] in "'’ʼ")
            for gap_start, gap_end, word in zip(ends[:-1], starts[1:], texts[:-1], strict=True)
        ]

    def __len__(self) -> int:
        return self.count

    def joined(self, i: int) -> bool:
        """Word i and word i+1 are parts of one name: a few spaces (or an elision) between them."""
        return 0 <= i < self.count - 1 and self.links[i]

    def initial_joined(self, i: int) -> bool:
        """Word i is an initial ("F.") followed by spaces and word i+1."""
        if i + 1 >= self.count or len(self.texts[i]) != 1 or not self.texts[i].isupper():
            return False
        end = self.ends[i]
        return self.text[end : end + 1] == "." and self.text[end + 1 : self.starts[i + 1]] in JOINING_GAPS

    def sentence_initial(self, i: int) -> bool:
        """Only opening punctuation between the previous sentence end (or the line start) and
        word i."""
        pos = self.starts[i] - 1
        limit = pos - 12
        while pos >= 0 and self.text[pos] in " \t\"'«»“”‘’([{*•–—->":
            if pos == limit:
                return False
            pos -= 1
        return pos < 0 or self.text[pos] in ".!?…:;\n\r"

    def previous_key(self, i: int) -> str:
        """The lookup key of word i-1 when only spaces separate it from word i."""
        if i == 0 or not self.joined(i - 1):
            return ""
        return lexicon.lexicon_key(self.texts[i - 1])

    def line_rest_is_empty(self, end: int) -> bool:
        """Only spaces and closing punctuation from `end` to the end of the line."""
        newline = self.text.find("\n", end)
        rest = self.text[end : newline if newline >= 0 else len(self.text)]
        return not rest.strip(" \t\r.,;!)")
