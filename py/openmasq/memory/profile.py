"""The user's profile (reference 3.9, profile hygiene): append-only, sentence-wise, deduplicated by
coverage, and clamped to 1,200 characters on every path (reference 12 item 4)."""

from __future__ import annotations

from collections.abc import Iterable

from ..patterns import deferred
from ..redact import lexicon
from .compaction import normalise_fast
from .model import MAX_PROFILE_CHARS

FRAMING_WORDS = frozenset({"utilisateur", "utilisatrice", "user", "personne", "assistant"})
_END_PUNCT = ".!?…"
_WORD = deferred(r"\S{1,1000}")
_PREFERENCE = deferred(
    r"^(?:l utilisat(?:eur|rice) )?"
    r"(?:prefere|prefererait|aime|adore|prefer|prefers|like|likes|prefiere|preferisce|prefiro|bevorzugt)\b"
    r"|^(?:ma|sa|la) preference\b"
)


def is_self_preference(text: str) -> bool:
    """A preference of the user's own, with no one named: "Préfère des réponses courtes",
    "L'utilisateur aime le vélo", "Ma préférence : le tutoiement"."""
    head = text.lstrip()[:60]
    if not head or head[0].lower() not in "lpamsb":  # cheap: cleanup asks this of every note
        return False
    return bool(_PREFERENCE.match(normalise_fast(head)))


def clamp_profile(text: str) -> str:
    """Trimmed and cut to MAX_PROFILE_CHARS (the user-edit rule: a hard cut)."""
    return text.strip()[:MAX_PROFILE_CHARS].strip()


# --- pieces ------------------------------------------------------------------------------------

def _split_at_punctuation(text: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    last = len(text) - 1
    for i, ch in enumerate(text):
        if ch in _END_PUNCT and i < last and text[i + 1].isspace():
            pieces.append(text[start:i + 1].strip())
            start = i + 1
    pieces.append(text[start:].strip())
    return [p for p in pieces if p]


def _starts_glued_sentence(previous: str, word: str, following: str | None) -> bool:
    """Legacy appends glued sentences with a bare space ("…courtes Utilisateur développeur"): a
    capitalised word after a plain lower-case word, followed by a lower-case word. A name after a
    preposition ("chez Karl Studio", "avec Claire") or inside a name never splits."""
    if len(word) < 2 or not (word[0].isupper() and word[1].islower()):
        return False
    if following is None or not following[0].islower():
        return False
    return previous[-1].islower() and not lexicon.is_stopword(previous)


def profile_pieces(text: str) -> list[str]:
    """The profile's sentences, verbatim: split after end punctuation, and before a sentence an
    older version glued on without punctuation."""
    out: list[str] = []
    for sentence in _split_at_punctuation(text):
        words = list(_WORD.finditer(sentence))
        cut = 0
        for k in range(1, len(words)):
            following = words[k + 1].group() if k + 1 < len(words) else None
            if _starts_glued_sentence(words[k - 1].group(), words[k].group(), following):
                out.append(sentence[cut:words[k].start()].strip())
                cut = words[k].start()
        out.append(sentence[cut:].strip())
    return [p for p in out if p]


def content_tokens(piece: str) -> list[str]:
    """Normalised words of 3+ letters, no stopword, no framing word ("utilisateur")."""
    return [
        w for w in normalise_fast(piece).split()
        if len(w) >= 3 and w not in FRAMING_WORDS and not lexicon.is_stopword(w)
    ]


class _Seen:
    """Tokens kept so far, with what `same_stem` compares, for O(1) coverage tests."""

    def __init__(self) -> None:
        self.exact: set[str] = set()
        self.prefixes: set[str] = set()

    def add(self, tokens: list[str]) -> None:
        self.exact.update(tokens)
        self.prefixes.update(t[:6] for t in tokens if len(t) >= 6)

    def covers(self, tokens: list[str]) -> bool:
        """Every token has a same-stem match (`compaction.same_stem`) among those seen."""
        return all(t in self.exact or (len(t) >= 6 and t[:6] in self.prefixes) for t in tokens)


# --- dedupe and append -------------------------------------------------------------------------

def dedupe_profile(text: str) -> str:
    """Keep each piece unless everything it says was said before (retroactive; idempotent; the
    same string comes back when nothing was dropped)."""
    pieces = profile_pieces(text)
    kept: list[str] = []
    seen = _Seen()
    for piece in pieces:
        piece_tokens = content_tokens(piece)
        if seen.covers(piece_tokens):
            continue
        kept.append(piece)
        seen.add(piece_tokens)
    if len(kept) == len(pieces):
        return text
    return " ".join(kept)


def _joined(profile: str, piece: str) -> str:
    if not profile:
        return piece
    # Terminate the previous sentence, or a later split would glue the two together again.
    separator = " " if profile[-1] in _END_PUNCT else ". "
    return profile + separator + piece


def append_to_profile(profile: str, additions: Iterable[str | None]) -> str:
    """Append the sentences of each addition that the profile does not already say, whole
    sentences only and only while the profile stays within MAX_PROFILE_CHARS; then dedupe.
    The same string comes back when nothing changed."""
    result = profile
    seen = _Seen()
    for piece in profile_pieces(profile):
        seen.add(content_tokens(piece))
    for addition in additions:
        for piece in profile_pieces((addition or "")[:MAX_PROFILE_CHARS]):
            piece_tokens = content_tokens(piece)
            if seen.covers(piece_tokens):
                continue
            candidate = _joined(result.strip(), piece)
            if len(candidate) > MAX_PROFILE_CHARS:
                continue
            result = candidate
            seen.add(piece_tokens)
    result = dedupe_profile(result)
    if len(result) > MAX_PROFILE_CHARS:
        result = clamp_profile(result)
    return profile if result == profile else result
