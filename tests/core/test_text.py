"""Folding helpers: the run-by-run fold equals a plain character-by-character fold."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from openmasq.redact.text import ZERO_WIDTH, FoldedText, fold, fold_char, tolerant_pattern, tolerant_spans, word_bounded


def _char_by_char(text: str) -> tuple[str, list[int]]:
    """The reference: fold each character, drop zero-width ones, collapse separator runs."""
    chars: list[str] = []
    origin: list[int] = []
    previous_space = True
    for i, ch in enumerate(text):
        folded = "" if ch in ZERO_WIDTH else fold_char(ch)
        if folded == " ":
            if previous_space:
                continue
            previous_space = True
        elif not folded:
            continue
        else:
            previous_space = False
        chars.append(folded)
        origin.extend([i] * len(folded))
    return "".join(chars), origin


ALPHABET = st.sampled_from(list("aZ09 _-\t\n.@'’éÉèñßÜøİ\u00a0\u202f\u200b\u200d\u00adЖж東京")) | st.characters()


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=60))
def test_folding_run_by_run_equals_folding_character_by_character(text):
    view = FoldedText(text)
    assert (view.folded, view.origin) == _char_by_char(text)


def test_separator_runs_fold_to_one_space_and_map_back():
    view = FoldedText("  Claire__LEFÈVRE -\n x")
    assert view.folded == "claire lefevre x"
    assert [view.text[i] for i in view.origin] == list("Claire_LEFÈVRE x")


def test_fold_ignores_case_accents_and_separators():
    assert fold("Élodie  Müller-Lüdenscheidt") == fold("elodie_muller ludenscheidt")


# --- forced values: the folded search finds what the tolerant regex finds ------------------------

# Letters with and without accents, in both cases, letters whose spellings fold apart ("ı", "İ",
# "ſ", "ß", "ǅ"), digits, separators of every kind, zero-width and combining characters.
_SPELLINGS = "aAàÀeEéÉèÊiIıİoOöÖsSſßnNñǅ12 _-\t\n\u00a0\u202f\x1c\u200b\u0301.'"


def _regex_spans(text: str, value: str) -> list[tuple[int, int]]:
    pattern = re.compile(word_bounded(tolerant_pattern(value), value))
    return [m.span() for m in pattern.finditer(text)]


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=_SPELLINGS, max_size=40), st.text(alphabet=_SPELLINGS, min_size=2, max_size=8),
       st.data())
def test_folded_search_of_a_forced_value_finds_what_its_tolerant_regex_finds(text, value, data):
    if data.draw(st.booleans()) and text:  # often a value the text holds, respelled or not
        start = data.draw(st.integers(0, len(text) - 1))
        value = text[start : start + data.draw(st.integers(2, 8))]
    value = value.strip()
    if len(value) < 2:
        return
    found = tolerant_spans(FoldedText(text), value)
    if found is not None:
        assert found == _regex_spans(text, value)


def test_names_and_organisations_take_the_folded_search():
    text = "Réunion avec MARSIBO  terbri, marsibo-Terbri et Marsibo_Terbri; pas marsiboterbri ni XMarsibo Terbri."
    for value in ("Marsibo Terbri", "Société Générale", "Zoë Çelik-Ødegård", "ACME GmbH", "Jean-Luc Picard"):
        assert tolerant_spans(FoldedText(text), value) is not None
    assert tolerant_spans(FoldedText(text), "Marsibo Terbri") == _regex_spans(text, "Marsibo Terbri")
    assert len(_regex_spans(text, "Marsibo Terbri")) == 3


def test_a_value_with_spellings_that_fold_apart_is_left_to_the_regex():
    # "ı" (dotless i) is spelled "I" in upper case, which folds to "i": the folded search would miss it.
    assert tolerant_spans(FoldedText("KIRIK"), "kırık") is None
    assert _regex_spans("KIRIK", "kırık") == [(0, 5)]


def test_more_than_four_separators_between_words_is_not_a_spelling():
    text = "Marsibo     Terbri / Marsibo    Terbri"
    assert tolerant_spans(FoldedText(text), "Marsibo Terbri") == _regex_spans(text, "Marsibo Terbri") == [(21, 38)]
