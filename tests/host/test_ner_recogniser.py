"""The Rampart NER model on CPython (openmasq.ner): its recipe's output, spans on FR/EN/DE/ES sentences, exact
offsets on the original text, and long texts read in overlapping windows. The model is built by
`python models/build.py rampart` (scripts/test runs every recipe first)."""

from __future__ import annotations

import importlib.util
import itertools
import json
import sys
from pathlib import Path

import pytest

from openmasq.ner import ModelNotBuilt, Recogniser, default_model_dir, ner_spans
from openmasq.ner.recogniser import best_window, window_starts
from openmasq.redact import RedactOptions, Vault, pseudonymise

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.fixture(scope="module")
def recogniser() -> Recogniser:
    return Recogniser(default_model_dir())


def _recipe():
    if str(MODELS) not in sys.path:  # the recipe imports models/_recipe.py
        sys.path.insert(0, str(MODELS))
    spec = importlib.util.spec_from_file_location("rampart_recipe", MODELS / "rampart.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_built_model_is_the_pinned_one_in_transformers_js_layout():
    recipe = _recipe()
    manifest = json.loads((default_model_dir() / ".manifest.json").read_text(encoding="utf-8"))
    assert manifest["files"] == recipe.FILES
    assert {"onnx/model_q4.onnx", "tokenizer.json", "tokenizer_config.json", "config.json"} <= set(recipe.FILES)
    assert recipe.LICENSE == "CC-BY-4.0" and "CC BY 4.0" in recipe.ATTRIBUTION


def test_a_missing_model_says_how_to_build_it(tmp_path):
    with pytest.raises(ModelNotBuilt, match=r"models/build\.py rampart"):
        Recogniser(tmp_path)


@pytest.mark.parametrize(("text", "expected"), [
    ("Bonjour, je suis Marie Dupont et j'habite à Toulouse.",
     [("Marie", "given_name"), ("Dupont", "surname")]),
    ("Write a reference letter for Thandiwe Dlamini, who lives in Manchester.",
     [("Thandiwe", "given_name"), ("Dlamini", "surname"), ("Manchester", "city")]),
    ("Bitte schreib Jürgen Müller aus Hamburg eine kurze Antwort.",
     [("Jürgen", "given_name"), ("Müller", "surname"), ("Hamburg", "city")]),
    ("Redacta un correo para Camila Restrepo, que vive en Sevilla.",
     [("Camila", "given_name"), ("Restrepo", "surname"), ("Sevilla", "city")]),
])
def test_names_and_cities_in_four_languages(recogniser, text, expected):
    spans = recogniser.spans(text)
    assert [(s.value, s.kind) for s in spans] == expected
    assert all(s.source == "ner" and 0 < s.score <= 1 for s in spans)


def test_offsets_are_exact_on_the_original_text(recogniser):
    # Accents (the model strips them), an emoji (an unknown token), a zero-width space, CRLF.
    text = "Écris à Zoë Lefèvre 😀 demain.\r\n\r\nBitte schreib J\u200bürgen Müller aus Hamburg."
    spans = recogniser.spans(text)
    assert all(text[s.start : s.end] == s.value for s in spans)
    assert [s.value for s in spans] == ["Zoë", "Lefèvre", "J\u200bürgen", "Müller", "Hamburg"]


def test_an_empty_text_has_no_spans(recogniser):
    assert recogniser.spans("") == []
    assert recogniser.spans("  \n\t ") == []


def test_windows_cover_every_token_and_overlap():
    for length in (1, 9, 10, 11, 25, 100, 1001):
        starts = window_starts(length, 10, 4)
        covered = set()
        for start in starts:
            covered |= set(range(start, min(start + 10, length)))
        assert covered == set(range(length))
        assert starts[-1] + 10 >= length and (length <= 10 or starts[-1] + 10 == length)
        assert all(b - a <= 10 - 4 for a, b in itertools.pairwise(starts))


def test_each_token_is_read_where_it_has_most_context():
    starts = window_starts(20, 10, 4)  # [0, 6, 10]
    chosen = best_window(20, starts, 10)
    assert chosen[0] == 0 and chosen[19] == len(starts) - 1  # text edges are no cut
    assert chosen[8] == 1  # 2 tokens from window 0's cut edge, 2 and 7 in window 1: window 1


def test_a_long_text_is_read_in_overlapping_windows(recogniser):
    people = ["Thandiwe Dlamini", "Jürgen Müller", "Camila Restrepo", "Marie Dupont", "Gulnara Akhmetova"]
    filler = "The quarterly report covers revenue, costs, hiring plans and the office move. "
    text = "".join(f"{filler * 3}Please forward it to {name} before Friday. " for name in people * 8)
    assert len(recogniser.tokenizer.encode(text, add_special_tokens=False).ids) > 3 * recogniser.window
    persons = [s for s in ner_spans(text, recogniser, "en") if s.kind == "person"]
    assert [s.value for s in persons] == people * 8
    assert all(text[s.start : s.end] == s.value for s in persons)
    narrow = Recogniser(default_model_dir(), window=48, overlap=16)
    assert [s.value for s in ner_spans(text, narrow, "en") if s.kind == "person"] == people * 8


def test_the_engine_replaces_model_spans_and_marks_them_ner(recogniser):
    text = "Mateus Oliveira replaces Gulnara Akhmetova as project lead."
    given = ner_spans(text, recogniser, "en")
    result = pseudonymise(text, Vault.new(bytes(range(32)), mode="fake"), RedactOptions(lang="en", spans=given))
    assert "Gulnara" not in result.text and "Akhmetova" not in result.text
    assert {rep.value: rep.source for rep in result.replacements}["Gulnara Akhmetova"] == "ner"
