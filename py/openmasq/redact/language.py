"""The language of a message of unknown language (RedactOptions lang "auto"), read from its commonest words: what
the per-language decisions of ner_merge need (the model helps on French, Spanish and Italian text, not on English
or German). Pure; the words come from frequent_words.txt (wordfreq's lists, by frequency)."""

from __future__ import annotations

from functools import cache

from ..patterns import deferred
from . import lexicon

LANGUAGES = lexicon.LIST_LANGUAGES  # the order of frequent_words.txt's paragraphs
UNKNOWN = "auto"
# The commonest words of each language that are among the commonest of no other: "the", "und", "est", "che".
TOP_WORDS = 1000
# A guess needs this many of its words, and more than twice as many as the next language's.
MIN_HITS = 1
_WORD = deferred(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


def guess_language(text: str) -> str:
    """"fr", "en", "de", "es" or "it", or "auto" when the text says too little."""
    counts = dict.fromkeys(LANGUAGES, 0)
    owner = _distinctive_words()
    for word in _WORD.findall(text[:4000]):
        lang = owner.get(lexicon.lexicon_key(word))
        if lang is not None:
            counts[lang] += 1
    ranked = sorted(LANGUAGES, key=lambda lang: -counts[lang])
    best, second = counts[ranked[0]], counts[ranked[1]]
    return ranked[0] if best >= MIN_HITS and best > 2 * second else UNKNOWN


@cache
def _distinctive_words() -> dict[str, str]:
    tops = {lang: words.split()[:TOP_WORDS] for lang, words in zip(LANGUAGES, lexicon.frequent_word_lists(),
                                                                     strict=True)}
    seen: dict[str, int] = {}
    for words in tops.values():
        for word in set(words):
            seen[word] = seen.get(word, 0) + 1
    return {word: lang for lang, words in tops.items() for word in words if seen[word] == 1}
