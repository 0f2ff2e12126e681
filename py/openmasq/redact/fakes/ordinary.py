"""Ordinary words that a person's fake must not be: a capitalised "Victoire" in a report title, "Rose" or
"Pierre" in a sentence would be restored as the real name. The dictionary: the names of our pools that
Debian's word lists write in lower case, per language (data/fakes/name_words.txt, built by
scripts/build_name_words.py), the curated homographs, and the project's everyday words."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib import resources

from .. import lexicon


@cache
def name_words(language: str) -> frozenset[str]:
    """The lookup keys of one language's paragraph of name_words.txt (empty for a language it lacks)."""
    text = (resources.files("openmasq.redact") / "data" / "fakes" / "name_words.txt").read_text("utf-8")
    words: list[str] = []
    current = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            header = stripped[1:].strip()
            current = header if len(header) == 2 and header.isalpha() else current
            continue
        if current == language:
            words += stripped.split()
    return frozenset(lexicon.lexicon_key(word) for word in words)


@cache
def is_ordinary_word(word: str, languages: tuple[str, ...]) -> bool:
    """Whether a capitalised part of `word` ("Marie-Victoire": "Victoire") is an ordinary word of one of
    `languages`, a homograph or an everyday word. Lower-case parts are particles ("de", "van")."""
    for part in word.replace("-", " ").replace("‐", " ").split():
        if not part[:1].isupper():
            continue
        key = lexicon.lexicon_key(part)
        if lexicon.is_homograph(part) or lexicon.is_common_word(part) or any(
                key in name_words(language) for language in languages):
            return True
    return False


def ordinary_in(languages: Iterable[str | None]) -> tuple[str, ...]:
    """The languages to check, known ones only, in a stable order (a cache key)."""
    return tuple(sorted({language for language in languages if language}))
