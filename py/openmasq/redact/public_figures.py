"""A full name presented as a public figure in a general question ("in the style of Emily Dickinson", "¿Quién
fue Simón Bolívar?", "Mark Twain or Herman Melville"): the labelling rule spares famous people in their public
role, and no list of them is ever complete. Read from the words around the name only; the policy decides
(spared below `strict`, never when the text ties the name to the writer)."""

from __future__ import annotations

from functools import cache

from ..patterns import deferred
from . import lexicon

# At most this many characters of context are read on either side.
WINDOW = 60
# A cue or a famous name must end (or start) within this many words of the name.
_COORDINATOR = deferred(r"(?:,|\bor|\band|\bou|\bet|\boder|\bund|\bo|\by|\be|\bvs\.?|\bversus)\s*$")
_COORDINATOR_AFTER = deferred(r"^\s*(?:,|or\b|and\b|ou\b|et\b|oder\b|und\b|o\b|y\b|e\b|vs\.?|versus\b)")
# A quoted title right before: "The Great Gatsby" by ..., « Les Misérables » de ...
_AFTER_TITLE = deferred(r"[\"»”“']\s*(?:by|de|von|di|del|da)\s+(?:[A-Z]\.\s*)*$")
_NAME_WORDS = deferred(r"[^\W\d_][\w'’.-]*")


def introduced_as_public_figure(text: str, start: int, end: int) -> bool:
    """Whether the full name at text[start:end] follows a public-figure cue or a quoted work's title, or is
    coordinated with a famous person's name."""
    before = text[max(0, start - WINDOW) : start]
    words = lexicon.lexicon_key(before).replace("¿", " ").replace("(", " ").split()
    if _ends_with(words, lexicon.list_keys("person_cues.txt")):
        return False  # "my boss Herman Melville": a person the writer knows
    if _AFTER_TITLE.search(before) or _ends_with(_without_filler(words), _cues()):
        return True
    return _beside_famous_name(before, text[end : end + WINDOW])


def _ends_with(words: list[str], phrases: frozenset[str]) -> bool:
    return any(" ".join(words[-size:]) in phrases for size in range(1, 5) if len(words) >= size)


def _without_filler(words: list[str]) -> list[str]:
    """The words before the name without the filler word that may end them ("wer war eigentlich")."""
    fillers = lexicon.list_keys("question_fillers.txt")
    for size in (2, 1):
        if len(words) > size and " ".join(words[-size:]) in fillers:
            return words[:-size]
    return words


@cache
def _cues() -> frozenset[str]:
    return lexicon.list_keys("public_figure_cues.txt")


def _beside_famous_name(before: str, after: str) -> bool:
    """"Mark Twain or Herman Melville", "Herman Melville and Mark Twain": a famous name across a coordinator."""
    coordinator = _COORDINATOR.search(before)
    if coordinator is not None and _famous_tail(before[: coordinator.start()]):
        return True
    following = _COORDINATOR_AFTER.match(after)
    return following is not None and _famous_head(after[following.end() :])


def _famous_tail(text: str) -> bool:
    words = _NAME_WORDS.findall(text)[-4:]
    return any(_is_famous(" ".join(words[i:])) for i in range(len(words) - 1))


def _famous_head(text: str) -> bool:
    words = _NAME_WORDS.findall(text[:WINDOW])[:4]
    return any(_is_famous(" ".join(words[: i + 1])) for i in range(1, len(words)))


def _is_famous(name: str) -> bool:
    return lexicon.is_notorious(name, "name", commercial=True, people=True)
