"""Folding helpers: the run-by-run fold equals a plain character-by-character fold."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from openmasq.redact.text import ZERO_WIDTH, FoldedText, fold, fold_char


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
