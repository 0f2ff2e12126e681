"""Shared plumbing of the rule detectors: the normalised view they read, the raw hit they
return, and small context helpers (keyword windows, boundaries)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import NamedTuple

from ...patterns import deferred
from ..spans import Span
from ..text import ZERO_WIDTH

SOURCE = "rule"


class Hit(NamedTuple):
    """A match in the normalised view: offsets, fine kind and confidence."""

    start: int
    end: int
    kind: str
    score: float


Finder = Callable[[str], list[Hit]]

# Same-length substitutions: spaces that typography or copy-paste put inside numbers, and the
# dash look-alikes, become their ASCII twins so separators in patterns stay `[ -]`.
_SAME_LENGTH = str.maketrans({
    "\u00a0": " ", "\u202f": " ", "\u2007": " ", "\u2009": " ", "\u2008": " ",
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2212": "-",
})
_ZERO_WIDTH_CHAR = deferred("[" + "".join(sorted(ZERO_WIDTH)) + "]")
_NEEDS_VIEW = deferred("[" + "".join(sorted(ZERO_WIDTH)) + "\u00a0\u202f\u2007\u2008\u2009\u2010-\u2013\u2212]")


class View(NamedTuple):
    """The text detectors read, and for each of its characters the original offset (None when
    the view has the same length as the original: the identity map)."""

    text: str
    offsets: list[int] | None


def make_view(text: str) -> View:
    """Normalise separators and drop zero-width characters, remembering original offsets."""
    if not _NEEDS_VIEW.search(text):
        return View(text, None)
    same = text.translate(_SAME_LENGTH)
    if not _ZERO_WIDTH_CHAR.search(same):
        return View(same, None)
    kept = [i for i, ch in enumerate(same) if ch not in ZERO_WIDTH]
    return View("".join(same[i] for i in kept), kept)


def to_spans(original: str, view: View, hits: Iterable[Hit]) -> list[Span]:
    """Spans on the original text (value = its original slice), deduplicated and sorted."""
    seen: dict[tuple[int, int, str], float] = {}
    for hit in hits:
        if view.offsets is None:
            start, end = hit.start, hit.end
        else:
            start, end = view.offsets[hit.start], view.offsets[hit.end - 1] + 1
        key = (start, end, hit.kind)
        if seen.get(key, -1.0) < hit.score:
            seen[key] = hit.score
    return [
        Span(start, end, original[start:end], kind, SOURCE, score)
        for (start, end, kind), score in sorted(seen.items(), key=lambda kv: (kv[0][0], -kv[0][1], kv[0][2]))
    ]


def run_finders(
    text: str, finders: Iterable[Finder], then: Callable[[str, list[Hit]], list[Hit]] | None = None,
) -> list[Span]:
    """Run detectors over the normalised view of `text` and map their hits back; `then` reads every hit
    and adds its own (a pass over the others' results)."""
    view = make_view(text)
    hits: list[Hit] = []
    for finder in finders:
        hits.extend(finder(view.text))
    if then is not None:
        hits.extend(then(view.text, hits))
    return to_spans(text, view, hits)


def keyword_before(pattern: re.Pattern[str], text: str, start: int, window: int) -> bool:
    """True when `pattern` matches in the `window` characters before `start`."""
    return pattern.search(text, max(0, start - window), start) is not None


def is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def glued(text: str, start: int, end: int) -> bool:
    """True when the value touches a letter, digit or underscore on either side."""
    return (start > 0 and is_word_char(text[start - 1])) or (end < len(text) and is_word_char(text[end]))


def strip_trailing(text: str, start: int, end: int, chars: str) -> int:
    """The end after dropping trailing characters from `chars` (never below start + 1)."""
    while end > start + 1 and text[end - 1] in chars:
        end -= 1
    return end


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@lru_cache(maxsize=2)
def lowered(text: str) -> str:
    """A lower-case copy with the same offsets, for fast case-free keyword scans. Several
    detectors ask for the same text in a row: the last ones are kept."""
    low = text.lower()
    # A few characters lower to two ("İ"); then fall back to an ASCII-only fold.
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


def starts_token(text: str, start: int, chars: str) -> bool:
    """True when the character before `start` is neither a word character nor in `chars`."""
    if start == 0:
        return True
    before = text[start - 1]
    return not is_word_char(before) and before not in chars


def windowed_matches(
    text: str, pattern: re.Pattern[str], anchors: Iterable[tuple[int, int]], reach: int, max_len: int
) -> list[re.Match[str]]:
    """Matches of `pattern` looked for only near anchors (a currency sign, a ".tld"): a costly
    pattern then runs on a few windows instead of the whole text.

    A window starts `reach` characters before its anchor and runs well past it, so the next
    anchors usually fall inside it; a match touching a window's end may be cut and is left
    to the next window, which starts `max_len` (the longest match) before that end. Windows
    overlap by at most `max_len`, so an anchor at every character still costs linear time."""
    found: dict[int, re.Match[str]] = {}
    stride = max(128, 2 * (reach + max_len))
    window_start, window_end = 0, 0
    for anchor_start, anchor_end in anchors:
        want_start, want_end = max(0, anchor_start - reach), min(len(text), anchor_end + reach)
        covered_to = window_end if window_end == len(text) else window_end - max_len
        if window_start <= want_start and want_end <= covered_to:
            continue  # this anchor's surroundings were fully scanned
        start = max(want_start, window_end - max_len) if want_start >= window_start else want_start
        window_start, window_end = start, min(len(text), want_end + stride)
        for m in pattern.finditer(text, window_start, window_end):
            if m.end() < window_end or window_end == len(text):
                found.setdefault(m.start(), m)
    return [found[start] for start in sorted(found)]


# Digits with the separators numbers are written with; a run of 6+ characters may hold a
# phone, card or identifier number (a bare NINO has 6 digits).
_LONG_NUMERIC_RUN = deferred(r"\d[\d ().\-/]{5,}")


@lru_cache(maxsize=2)
def long_numeric_runs(text: str) -> tuple[tuple[int, int, int], ...]:
    """(start, end, digit count) of every run of digits and separators of 6+ characters."""
    return tuple(
        (m.start(), m.end(), sum(ch.isdigit() for ch in m.group(0))) for m in _LONG_NUMERIC_RUN.finditer(text)
    )


def most_digits_in_a_run(text: str) -> int:
    """The most digits any run of digits and separators holds: detectors of long numbers
    (phones, cards, SIRET...) skip texts whose numbers are all too short, as prose's are."""
    return max((digits for _, _, digits in long_numeric_runs(text)), default=0)


def near_long_numbers(text: str, pattern: re.Pattern[str], min_digits: int, margin: int) -> list[re.Match[str]]:
    """Matches of `pattern` around runs holding at least `min_digits` digits (`margin`
    characters either side for prefixes and check letters): identifier patterns then scan a
    few short windows instead of the whole text. A match touching a window's end, where the
    pattern's look-ahead cannot see on, is dropped; margins are wider than any such overhang."""
    windows: list[list[int]] = []
    for start, end, digits in long_numeric_runs(text):
        if digits < min_digits:
            continue
        window_start, window_end = max(0, start - margin), min(len(text), end + margin)
        if windows and window_start <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], window_end)
        else:
            windows.append([window_start, window_end])
    found: list[re.Match[str]] = []
    for window_start, window_end in windows:
        found.extend(
            m for m in pattern.finditer(text, window_start, window_end)
            if m.end() < window_end or window_end == len(text)
        )
    return found
