"""Text helpers shared by detection, substitution and restore: folding, zero-width
characters, word boundaries and the tolerant patterns that match a value's spelling variants."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ..patterns import deferred

# Invisible characters a user (or a copy-paste) may leave inside a name: they must not defeat
# detection, so detectors see the text without them and offsets are mapped back.
ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")
SEPARATORS = " \t\n\r\u00a0\u202f_-"
_SEPARATOR_RUN = deferred(r"[\s_\-]+")
_ZERO_WIDTH_CHAR = deferred("[" + "".join(sorted(ZERO_WIDTH)) + "]")
_NO_ZERO_WIDTH = dict.fromkeys(map(ord, ZERO_WIDTH))  # a str.translate table that drops them
_COMBINING_MARK = deferred("[\u0300-\u036f]")


def has_combining_marks(text: str) -> bool:
    """The text holds a combining accent (decomposed text): word patterns that allow for them
    are slower than those that need not (~50 µs per 2 kB prompt)."""
    return not text.isascii() and _COMBINING_MARK.search(text) is not None


class _NoCombiningTable(dict[int, "int | None"]):
    """str.translate's table that drops combining marks (accents once decomposed), filled on
    first sight of each character: whole texts lose their marks at C speed."""

    def __missing__(self, code: int) -> int | None:
        kept = None if unicodedata.combining(chr(code)) else code
        self[code] = kept
        return kept


_NO_COMBINING = _NoCombiningTable()


def strip_accents(value: str) -> str:
    if value.isascii():
        return value
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", value).translate(_NO_COMBINING))


@lru_cache(maxsize=65536)
def fold(value: str) -> str:
    """Case-, accent- and separator-insensitive form used to compare spellings of one value."""
    if _ZERO_WIDTH_CHAR.search(value):  # rare: a search is ~20x faster than translating a whole text
        value = value.translate(_NO_ZERO_WIDTH)
    return _SEPARATOR_RUN.sub(" ", strip_accents(value.casefold())).strip()


def fold_char(ch: str) -> str:
    """One character folded like `fold` does (a separator becomes a space)."""
    if ch in SEPARATORS or ch.isspace():
        return " "
    return strip_accents(ch.casefold())


def without_zero_width(text: str) -> tuple[str, list[int]]:
    """The text without zero-width characters, and for each kept character its original offset."""
    if not _ZERO_WIDTH_CHAR.search(text):
        return text, list(range(len(text)))
    kept: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        if ch not in ZERO_WIDTH:
            kept.append(ch)
            offsets.append(i)
    return "".join(kept), offsets


# Pictographs and their modifiers (emoji, variation selectors, skin tones): what a detector reads as a space,
# so that "Salut👋Karim" is two words (a span read across one is cut there, see detect.py).
_SYMBOL = deferred("[\u2190-\u21ff\u2300-\u23ff\u2460-\u27bf\u2900-\u2bff\ufe0e\ufe0f\U0001f000-\U0001faff]")


def symbols_as_spaces(text: str) -> str:
    """`text` with each pictograph a space (same length: offsets are kept)."""
    return _SYMBOL.sub(" ", text) if _SYMBOL.search(text) else text


def is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_" or unicodedata.category(ch) == "Mn"


def glued_inside_word(text: str, start: int, end: int) -> bool:
    """True when text[start:end] touches a letter or digit on either side (part of a larger word)."""
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    value = text[start:end]
    glued_left = bool(before) and is_word_char(before) and is_word_char(value[0])
    glued_right = bool(after) and is_word_char(after) and is_word_char(value[-1])
    return glued_left or glued_right


@lru_cache(maxsize=4096)
def _char_class(ch: str) -> str:
    """A regex class matching `ch` in any case and with or without an accent."""
    spellings = _spellings(ch)
    if spellings == frozenset(ch):
        return re.escape(ch)
    return "[" + "".join(re.escape(v) for v in sorted(spellings)) + "]"


@lru_cache(maxsize=4096)
def _spellings(ch: str) -> frozenset[str]:
    """The characters that stand for `ch` in a tolerant match: itself in any case, with or
    without an accent (a letter with a one-letter base), else only itself."""
    base = strip_accents(ch.casefold())
    if not ch.isalpha() or len(base) != 1:
        return frozenset(ch)
    variants = {ch, ch.lower(), ch.upper(), base, base.upper()}
    variants.update(_ACCENTED.get(base, ()))
    return frozenset(v for v in variants if len(v) == 1)


def _accented_table() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for code in range(0xC0, 0x250):
        ch = chr(code)
        if not ch.isalpha():
            continue
        base = strip_accents(ch.casefold())
        if len(base) == 1 and base.isascii():
            table.setdefault(base, set()).update({ch, ch.upper(), ch.lower()})
    return {k: frozenset(v) for k, v in table.items()}


_ACCENTED = _accented_table()


def tolerant_pattern(value: str) -> str:
    """Regex source matching `value` in any case, with or without accents, with any short run of
    spaces, underscores, dashes or line breaks between its words."""
    words = [w for w in _SEPARATOR_RUN.split(value.strip()) if w]
    return r"[\s_\-]{1,4}".join("".join(_char_class(ch) for ch in word) for word in words)


def tolerant_spans(folded: FoldedText, value: str) -> list[tuple[int, int]] | None:
    """What `re.finditer(word_bounded(tolerant_pattern(value), value), folded.text)` finds,
    without compiling a regex (about 2 ms per value on CPython, more in Pyodide; a memory block
    forces a dozen new values per send): candidates are the occurrences of fold(value) in the
    folded text, each checked on the original against the same spelling rule. None when a
    spelling the rule allows could fold differently from `value` (then only the regex tells)."""
    shape = _tolerant_shape(value)
    if shape is None:
        return None
    needle, words = shape
    text, hay, origin = folded.text, folded.folded, folded.origin
    bound_left, bound_right = value[:1].isalnum(), value[-1:].isalnum()
    out: list[tuple[int, int]] = []
    last_end = 0
    pos = hay.find(needle)
    while pos != -1:
        start = origin[pos]
        if start >= last_end and not (bound_left and start > 0 and text[start - 1].isalnum()):
            end = _spelled_at(text, start, words)
            if end > 0 and not (bound_right and end < len(text) and text[end].isalnum()):
                out.append((start, end))
                last_end = end
        pos = hay.find(needle, pos + 1)
    return out


_Shape = tuple[str, tuple[tuple[frozenset[str], ...], ...]]


@lru_cache(maxsize=4096)
def _tolerant_shape(value: str) -> _Shape | None:
    """fold(value) and, word by word, each character's spellings; None unless every spelling of
    every character folds to the one character that character folds to."""
    words = [w for w in _SEPARATOR_RUN.split(value.strip()) if w]
    shape: list[tuple[frozenset[str], ...]] = []
    for word in words:
        for ch in word:
            own = _folded_char(ch)
            if len(own) != 1 or any(_folded_char(v) != own for v in _spellings(ch)):
                return None
        shape.append(tuple(_spellings(ch) for ch in word))
    needle = " ".join("".join(_folded_char(ch) for ch in word) for word in words)
    if not needle or needle != fold(value):
        return None
    return needle, tuple(shape)


def _spelled_at(text: str, start: int, words: tuple[tuple[frozenset[str], ...], ...]) -> int:
    """The end of the tolerant spelling starting at `start` (words joined by 1 to 4 spaces,
    underscores or dashes), or -1."""
    i, n = start, len(text)
    for index, word in enumerate(words):
        if index:
            run = 0
            while i < n and run < 4 and (text[i].isspace() or text[i] in "_-"):
                i += 1
                run += 1
            if not run:
                return -1
        for spellings in word:
            if i >= n or text[i] not in spellings:
                return -1
            i += 1
    return i


def word_bounded(source: str, value: str) -> str:
    """Wrap the regex of `value` so it never matches glued inside a larger word: a value that
    starts (ends) with a letter or digit must not be preceded (followed) by one."""
    left = r"(?<![^\W_])" if value[:1].isalnum() else ""
    right = r"(?![^\W_])" if value[-1:].isalnum() else ""
    return f"{left}(?:{source}){right}"


@lru_cache(maxsize=65536)
def _folded_char(ch: str) -> str:
    if ch in ZERO_WIDTH:
        return ""
    return fold_char(ch)


class FoldedText:
    """A text folded like `fold` (case, accents, separator runs), with each folded character's
    offset in the original, so folded matches map back to original spans. Searching folded
    text with str.find is linear and needs no regex compilation, whatever the vault size."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.folded, self.origin = _fold_runs(text)

    def find_all(self, value: str) -> list[tuple[int, int]]:
        """Original (start, end) of every whole-word occurrence of `fold(value)`."""
        needle = fold(value)
        if not needle:
            return []
        hay = self.folded
        out: list[tuple[int, int]] = []
        check_left, check_right = needle[0].isalnum(), needle[-1].isalnum()
        pos = hay.find(needle)
        while pos != -1:
            end = pos + len(needle)
            glued = (check_left and pos > 0 and hay[pos - 1].isalnum()) or (
                check_right and end < len(hay) and hay[end].isalnum()
            )
            if not glued:
                out.append((self.origin[pos], self.origin[end - 1] + 1))
            pos = hay.find(needle, pos + 1)
        return out


@lru_cache(maxsize=2)
def folded_text(text: str) -> FoldedText:
    """FoldedText(text) for a text a pass reads more than once, or that was folded ahead
    (pseudonymise.prepare_pass). Read-only: the instance is shared."""
    return FoldedText(text)


_RUNS = deferred(r"[\s_\-]+|[^\s_\-]+")
_SEPARATOR = deferred(r"[\s_\-]")


class _FoldTable(dict[int, str]):
    """str.translate's table for folding: each character's fold (a separator becomes one space,
    a zero-width character nothing), filled on first sight. `irregular` holds the characters
    whose fold is not exactly one character ("ß", "İ", combining marks, zero-width ones)."""

    def __init__(self) -> None:
        super().__init__()
        self.irregular: set[str] = set(ZERO_WIDTH)

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        folded = " " if _SEPARATOR.match(ch) else _folded_char(ch)
        if len(folded) != 1:
            self.irregular.add(ch)
        self[code] = folded
        return folded


_FOLD_TABLE = _FoldTable()


def _fold_runs(text: str) -> tuple[str, list[int]]:
    """The fold of `text` with each folded character's original offset: every character folded
    at once by str.translate; when each folds to exactly one character (most texts), only the
    separator runs need work: each becomes one space, a leading one nothing."""
    translated = text.translate(_FOLD_TABLE)
    if not _FOLD_TABLE.irregular.isdisjoint(text):
        return _fold_runs_slowly(text)
    cursor = len(translated) - len(translated.lstrip(" "))  # a leading run vanishes
    run = translated.find("  ", cursor)
    if run < 0:
        return translated[cursor:], list(range(cursor, len(text)))
    pieces: list[str] = []
    origin: list[int] = []
    while run >= 0:  # a longer run keeps its first space
        pieces.append(translated[cursor : run + 1])
        origin.extend(range(cursor, run + 1))
        cursor = run + 2
        while cursor < len(translated) and translated[cursor] == " ":
            cursor += 1
        run = translated.find("  ", cursor)
    pieces.append(translated[cursor:])
    origin.extend(range(cursor, len(text)))
    return "".join(pieces), origin


def _fold_runs_slowly(text: str) -> tuple[str, list[int]]:
    """The same fold run by run, for texts holding characters that fold to none or several: an
    ASCII word is lower-cased at once, other words character by character (accents, "ß" -> "ss",
    zero-width characters dropped); a separator run becomes one space, a leading one nothing."""
    pieces: list[str] = []
    origin: list[int] = []
    ends_with_space = True  # nothing emitted yet counts as a space: leading separators vanish
    for match in _RUNS.finditer(text):
        start, end = match.span()
        run = match.group()
        if run[0] in SEPARATORS or run[0].isspace():
            if not ends_with_space:
                pieces.append(" ")
                origin.append(start)
                ends_with_space = True
        elif run.isascii():
            pieces.append(run.lower())
            origin.extend(range(start, end))
            ends_with_space = False
        else:
            for i, ch in enumerate(run, start):
                folded = _folded_char(ch)
                if folded:
                    pieces.append(folded)
                    origin.extend([i] * len(folded))
                    ends_with_space = False
    return "".join(pieces), origin


def find_exact(text: str, value: str) -> list[tuple[int, int]]:
    """(start, end) of every occurrence of `value` in its exact spelling, not glued in a word."""
    out: list[tuple[int, int]] = []
    pos = text.find(value)
    while pos != -1:
        end = pos + len(value)
        if not glued_inside_word(text, pos, end):
            out.append((pos, end))
        pos = text.find(value, pos + 1)
    return out
