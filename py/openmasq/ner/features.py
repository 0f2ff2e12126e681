"""Text -> the integer arrays the on-device NER model (models/ner/) takes: words with code-point offsets, hashed
word and affix ids, a case/shape class and gazetteer flags from the engine's lexicon, cut into overlapping windows.

Pure Python (standard library and the engine's lexicon only): the same code runs on CPython (ner/runtime.py feeds
onnxruntime) and in Pyodide (the browser's ml-worker runs the model on these very arrays), so the two cannot
drift. The training recipe (models/ner_train.py) featurises its generated data with it too."""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..redact import lexicon, places

# Bump when anything below changes what a word turns into: the model was trained on one version (its
# config.json records it) and the runtime refuses another.
FEATURES_VERSION = 1

WORD_BUCKETS = 1 << 16
AFFIX_BUCKETS = 1 << 15
# Per word: [word id, prefix-3, suffix-2, suffix-3, suffix-4, shape]; ids start at 1 (0 is kept for padding).
ID_COLUMNS = 6
# Windows of words the model sees at once; neighbours share OVERLAP words and each word is read in the window
# where it sits farthest from a cut edge (at least OVERLAP/2 words of context on each side).
WINDOW = 128
OVERLAP = 32

# --- words ---------------------------------------------------------------------------------------

# Invisible characters that may sit inside a word ("Ka\u200brim", a soft hyphen): part of the word, ignored
# by its features.
_INVISIBLE = "\u00ad\u034f\u180e\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff"
_LETTER = rf"(?:[^\W_]|[{_INVISIBLE}])"
# A word: letters and digits, joined by hyphens, apostrophes or dots followed by more of them ("Jean-Pierre",
# "O'Sullivan", "S.A.S", "k.hoffmann"); any other visible character is a word of its own (a run of one repeated
# punctuation character, "----", is one word).
_TOKEN = re.compile(rf"{_LETTER}+(?:[-‐‑'’.]{_LETTER}+)*|([^\w\s{_INVISIBLE}])\1*|_+")
# Elided articles and prepositions that are words of their own ("l'Ardèche", "d'Orléans", "dell'Aquila").
_ELISIONS = frozenset({
    "l", "d", "j", "m", "n", "s", "t", "c", "qu", "lorsqu", "puisqu", "jusqu", "quoiqu",
    "dell", "all", "dall", "nell", "sull", "coll", "un", "quest", "quell", "tutt",
})
_APOSTROPHES = "'’"
_INVISIBLE_TABLE = str.maketrans("", "", _INVISIBLE)


def words(text: str) -> list[tuple[int, int]]:
    """[start, end) code-point ranges of the words of `text`, in order."""
    out: list[tuple[int, int]] = []
    for match in _TOKEN.finditer(text):
        start, end = match.span()
        value = match.group()
        if not value.translate(_INVISIBLE_TABLE):
            continue  # invisible characters alone are no word
        cut = _elision_cut(value)
        if cut:
            out.append((start, start + cut))
            out.append((start + cut, end))
        else:
            out.append((start, end))
    return out


def _elision_cut(value: str) -> int:
    """Length of an elided article at the start of `value` ("l'" in "l'Ardèche"), 0 for none."""
    for index, ch in enumerate(value[:8]):
        if ch in _APOSTROPHES:
            head = value[:index].translate(_INVISIBLE_TABLE).lower()
            return index + 1 if head in _ELISIONS and index + 1 < len(value) else 0
    return 0


# --- per-word features ---------------------------------------------------------------------------

SHAPES = (
    "pad", "lower", "title", "upper", "letter_upper", "mixed", "digits", "alnum", "no_case",
    "dot", "comma", "colon", "at", "dash", "quote_bracket", "other_punct", "symbol",
)
_SHAPE = {name: index for index, name in enumerate(SHAPES)}

FLAGS = (
    "first_name", "surname", "core_first_name", "homograph", "stopword", "common_word", "frequent_word",
    "honorific", "legal_form", "org_descriptor", "trade_word", "town", "region", "country", "major_place",
    "famous_person", "famous_org", "line_start", "sentence_start", "after_colon", "lowercase_text",
    "hyphenated", "elision", "capital_after_lower",
)
_FLAG = {name: index for index, name in enumerate(FLAGS)}
FLAG_COUNT = len(FLAGS)
# Longest gazetteer entry matched over several words ("Saint-Martin-de-Ré" is one word; "Le Havre", "New York",
# "Emmanuel Macron", "Google Drive" are several).
_MAX_NGRAM = 3
_SENTENCE_END = frozenset(".!?…")


def _hash(salt: str, value: str, buckets: int) -> int:
    return 1 + zlib.crc32((salt + value).encode("utf-8", "surrogatepass")) % (buckets - 1)


def _normal(word: str) -> str:
    """The lookup form of a word for its ids: invisible characters dropped, case folded, digits read as 0."""
    plain = word.translate(_INVISIBLE_TABLE).casefold()
    return "".join("0" if ch.isdigit() else ch for ch in plain)


def shape_of(word: str) -> str:
    """The word's case and character class."""
    plain = word.translate(_INVISIBLE_TABLE)
    if not plain:
        return "symbol"
    letters = [ch for ch in plain if ch.isalpha()]
    if not letters:
        if any(ch.isdigit() for ch in plain):
            return "digits" if all(ch.isdigit() or ch in ".,-" for ch in plain) else "alnum"
        first = plain[0]
        if first == ".":
            return "dot"
        if first == ",":
            return "comma"
        if first in ":;":
            return "colon"
        if first == "@":
            return "at"
        if first in "-‐‑–—":
            return "dash"
        if first in "\"'’‘“”«»()[]{}<>":
            return "quote_bracket"
        category = unicodedata.category(first)
        return "other_punct" if category.startswith("P") else "symbol"
    if any(ch.isdigit() for ch in plain):
        return "alnum"
    cased = [ch for ch in letters if ch.isupper() or ch.islower()]
    if not cased:
        return "no_case"  # Arabic, CJK, ...
    if all(ch.islower() for ch in cased):
        return "lower"
    if all(ch.isupper() for ch in cased):
        return "letter_upper" if len(cased) == 1 else "upper"
    if cased[0].isupper() and all(ch.islower() for ch in cased[1:]):
        return "title"
    if cased[0].isupper() and _is_title_parts(plain):
        return "title"  # "Jean-Pierre", "O'Sullivan", "McDonald" reads as mixed
    return "mixed"


def _is_title_parts(word: str) -> bool:
    parts = [part for part in re.split(r"[-'’.]", word) if part]
    return bool(parts) and all(p[0].isupper() and (p[1:].islower() or not p[1:]) for p in parts)


@lru_cache(maxsize=65536)
def _word_features(word: str) -> tuple[tuple[int, ...], int]:
    """(the word's ids, the bit mask of its context-free flags); cached per spelling."""
    norm = _normal(word)
    letters = norm.strip("'’-.")
    ids = (
        _hash("w:", norm, WORD_BUCKETS),
        _hash("p3:", letters[:3], AFFIX_BUCKETS),
        _hash("s2:", letters[-2:], AFFIX_BUCKETS),
        _hash("s3:", letters[-3:], AFFIX_BUCKETS),
        _hash("s4:", letters[-4:], AFFIX_BUCKETS),
        _SHAPE[shape_of(word)],
    )
    mask = 0
    plain = word.translate(_INVISIBLE_TABLE)
    if any(ch.isalpha() for ch in plain):
        mask = _lexicon_mask(plain)
    if "-" in plain.strip("-"):
        mask |= 1 << _FLAG["hyphenated"]
    if plain[-1:] in _APOSTROPHES and len(plain) > 1:
        mask |= 1 << _FLAG["elision"]
    return ids, mask


def _lexicon_mask(word: str) -> int:
    checks = (
        ("first_name", lexicon.is_first_name), ("surname", lexicon.is_surname),
        ("core_first_name", lexicon.is_core_first_name), ("homograph", lexicon.is_homograph),
        ("stopword", lexicon.is_stopword), ("common_word", lexicon.is_common_word),
        ("frequent_word", lexicon.is_frequent_word), ("honorific", lexicon.is_honorific),
        ("legal_form", lexicon.is_legal_form), ("org_descriptor", lexicon.is_org_descriptor),
        ("trade_word", lexicon.is_trade_word), ("country", lexicon.is_country),
        ("major_place", lexicon.is_place),
    )
    mask = 0
    for name, check in checks:
        if check(word):
            mask |= 1 << _FLAG[name]
    return mask


@lru_cache(maxsize=65536)
def _phrase_mask(key: str) -> int:
    """Flags of a whole gazetteer entry (one or several words, as a lexicon key)."""
    mask = 0
    kind = places.place_key_kind(key)
    if kind in ("town", "famous"):
        mask |= 1 << _FLAG["town"]
    elif kind == "region":
        mask |= 1 << _FLAG["region"]
    if key in lexicon.list_keys("notorious_people.txt"):
        mask |= 1 << _FLAG["famous_person"]
    if any(key in lexicon.list_keys(name) for name in ("brands.txt", "organisations.txt", "state_bodies.txt")):
        mask |= 1 << _FLAG["famous_org"]
    return mask


_PHRASE_FLAGS = (1 << _FLAG["town"]) | (1 << _FLAG["region"]) | (1 << _FLAG["famous_person"]) \
    | (1 << _FLAG["famous_org"])


def _phrase_flags(values: Sequence[str], gaps: Sequence[str]) -> list[int]:
    """Per word, the gazetteer flags of every entry of up to _MAX_NGRAM words it is part of (words one space
    or hyphen apart)."""
    keys = [lexicon.lexicon_key(value) if any(ch.isalpha() for ch in value) else "" for value in values]
    masks = [0] * len(values)
    for i in range(len(values)):
        if not keys[i]:
            continue
        phrase = keys[i]
        for j in range(i, min(len(values), i + _MAX_NGRAM)):
            if j > i:
                if not keys[j] or gaps[j] not in (" ", "-", "'", "’"):
                    break
                phrase = f"{phrase} {keys[j]}"
            mask = _phrase_mask(phrase)
            if mask:
                for k in range(i, j + 1):
                    masks[k] |= mask
    return masks


# --- the model's input ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Features:
    """A text as the model takes it: `ids` [windows, length, ID_COLUMNS] and `flags` [windows, length,
    FLAG_COUNT], flattened row-major; `offsets` are the words' code-point ranges; `starts` the first word of
    each window (all windows have `length` words, the last one ends on the last word)."""

    offsets: tuple[tuple[int, int], ...]
    starts: tuple[int, ...]
    length: int
    ids: tuple[int, ...]
    flags: tuple[int, ...]

    @property
    def windows(self) -> int:
        return len(self.starts)

    @property
    def ids_dims(self) -> tuple[int, int, int]:
        return (self.windows, self.length, ID_COLUMNS)

    @property
    def flags_dims(self) -> tuple[int, int, int]:
        return (self.windows, self.length, FLAG_COUNT)


def word_rows(text: str, offsets: Sequence[tuple[int, int]] | None = None) -> tuple[list[tuple[int, ...]],
                                                                                     list[int]]:
    """Per word of `text`: its ids and its flag bit mask (context flags included)."""
    spans = words(text) if offsets is None else offsets
    values = [text[a:b] for a, b in spans]
    gaps = [text[spans[i - 1][1] : spans[i][0]] if i else text[: spans[0][0]] for i in range(len(spans))] \
        if spans else []
    lowercase_text = not any(ch.isupper() for ch in text)
    phrase = _phrase_flags(values, gaps)
    rows: list[tuple[int, ...]] = []
    masks: list[int] = []
    previous = ""
    for i, value in enumerate(values):
        ids, mask = _word_features(value)
        mask |= phrase[i]
        gap = gaps[i]
        if i == 0 or "\n" in gap or "\r" in gap or "\u2028" in gap:
            mask |= 1 << _FLAG["line_start"]
            mask |= 1 << _FLAG["sentence_start"]
        elif previous[-1:] in _SENTENCE_END:
            mask |= 1 << _FLAG["sentence_start"]
        if previous[-1:] == ":":
            mask |= 1 << _FLAG["after_colon"]
        if lowercase_text:
            mask |= 1 << _FLAG["lowercase_text"]
        if i and value[:1].isupper() and previous[:1].islower():
            mask |= 1 << _FLAG["capital_after_lower"]
        rows.append(ids)
        masks.append(mask)
        previous = value
    return rows, masks


def window_starts(count: int, window: int = WINDOW, overlap: int = OVERLAP) -> list[int]:
    """First word of each window over `count` words (one window when the text is shorter than `window`)."""
    if count <= window:
        return [0]
    step = window - overlap
    return [*range(0, count - window, step), count - window]


def best_window(count: int, starts: Sequence[int], length: int) -> list[int]:
    """For each word, the window where its nearest cut edge is farthest (a text edge is no cut)."""
    chosen: list[int] = []
    w = 0
    for word in range(count):
        best, best_margin = w, -1.0
        for index in range(w, len(starts)):
            start = starts[index]
            if start > word:
                break
            end = start + length
            if word >= end:
                w = index + 1
                continue
            left = float("inf") if start == 0 else word - start
            right = float("inf") if end >= count else end - 1 - word
            margin = min(left, right)
            if margin > best_margin:
                best, best_margin = index, margin
        chosen.append(best)
    return chosen


def featurise(text: str, window: int = WINDOW, overlap: int = OVERLAP) -> Features:
    """The model's input arrays for `text` (no windows at all for a text without words)."""
    offsets = words(text)
    if not offsets:
        return Features((), (), 0, (), ())
    rows, masks = word_rows(text, offsets)
    starts = window_starts(len(offsets), window, overlap)
    length = min(window, len(offsets))
    ids: list[int] = []
    flags: list[int] = []
    bits = [[(mask >> k) & 1 for k in range(FLAG_COUNT)] for mask in masks]
    for start in starts:
        for row in rows[start : start + length]:
            ids.extend(row)
        for row_bits in bits[start : start + length]:
            flags.extend(row_bits)
    return Features(tuple(offsets), tuple(starts), length, tuple(ids), tuple(flags))
