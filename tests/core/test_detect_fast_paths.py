"""The detectors' fast paths read texts exactly as the plain forms they stand for: the word
patterns without combining accents, the legal forms grouped by first character, the joining gaps."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from openmasq.redact import lexicon, orgs, words
from openmasq.redact.text import has_combining_marks

# Letters, digits, accents (precomposed and combining), joiners and spaces the word patterns treat apart.
_ALPHABET = "abcXYZéÉßſİı12²½_ -‐‑'’ʼ&.,\n\t\u0301"


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=30))
def test_plain_word_patterns_find_the_same_words_as_the_full_ones_without_combining_accents(text: str) -> None:
    if has_combining_marks(text):
        return
    assert _spans(words._PLAIN_WORD, text) == _spans(words._WORD, text)
    assert _spans(orgs._PLAIN_WORD, text) == _spans(orgs._WORD, text)


def test_combining_accents_are_seen_only_when_present() -> None:
    assert has_combining_marks("Jose\u0301 Garci\u0301a")
    assert not has_combining_marks("José García, Zoë")
    assert not has_combining_marks("plain ascii")


def _reference_legal_form_pattern() -> re.Pattern[str]:
    """One alternation of every spelling, compound forms first, then the longest first."""
    forms: set[str] = set()
    for form in lexicon.LEGAL_FORMS:
        forms.update({form, form.upper()})
        if form.isupper() and len(form) >= 4 and "." not in form:
            forms.add(form.title())
    alternation = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    compound = r"GmbH & Co\.? KG|UG \(haftungsbeschränkt\)"
    return re.compile(rf"(?<![\w.&])(?:{compound}|{alternation})(?![\w&])")


def test_legal_forms_grouped_by_first_character_match_like_one_alternation() -> None:
    reference = _reference_legal_form_pattern()
    spellings = [*sorted(lexicon.LEGAL_FORMS), "GmbH & Co. KG", "GmbH & Co KG", "UG (haftungsbeschränkt)", "Sarl"]
    separators = [" ", ".", "&", "-", "", ",", "\n", "x", "é", "_", "Acme "]
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(
            rng.choice(separators) + (rng.choice(spellings) if rng.random() < 0.7 else "")
            for _ in range(rng.randint(1, 5))
        )
        assert _spans(orgs._LEGAL_FORM, text) == _spans(reference, text), text


def test_joining_gaps_are_the_runs_of_one_to_three_spaces_or_tabs() -> None:
    runs = re.compile(r"[ \t]{1,3}")
    candidates = ["".join(chars) for size in range(5) for chars in _products(" \tx\n", size)]
    for gap in candidates:
        assert (gap in words.JOINING_GAPS) == bool(runs.fullmatch(gap)), repr(gap)


def _products(alphabet: str, size: int) -> list[tuple[str, ...]]:
    if size == 0:
        return [()]
    return [(ch, *rest) for ch in alphabet for rest in _products(alphabet, size - 1)]
