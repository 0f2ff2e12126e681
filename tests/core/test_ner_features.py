"""The NER featuriser and decoder (openmasq.ner.features, decode): pure code that CPython and Pyodide both run
around the model, so their arrays and spans must be deterministic and total on any text."""

from __future__ import annotations

import importlib
import sys

import pytest

from openmasq.ner import decode, features
from openmasq.ner.features import FLAG_COUNT, FLAGS, ID_COLUMNS, OVERLAP, SHAPES, WINDOW, featurise, words

LABELS = len(decode.LABELS)


def word_values(text: str) -> list[str]:
    return [text[a:b] for a, b in words(text)]


def test_importing_the_pure_modules_imports_neither_numpy_nor_onnxruntime():
    for name in ("openmasq.ner", "openmasq.ner.features", "openmasq.ner.decode"):
        importlib.import_module(name)
    heavy = {"numpy", "onnxruntime"} & set(sys.modules)
    if heavy:  # another test of this process imported them: check the modules' own imports instead
        for module in (features, decode):
            assert "numpy" not in vars(module) and "onnxruntime" not in vars(module)


@pytest.mark.parametrize("text, expected", [
    ("Merci à karim pour le devis.", ["Merci", "à", "karim", "pour", "le", "devis", "."]),
    ("Jean-Pierre O'Sullivan", ["Jean-Pierre", "O'Sullivan"]),
    ("l'Ardèche et d’Orléans", ["l'", "Ardèche", "et", "d’", "Orléans"]),
    ("Dupont SARL (S.A.S.)", ["Dupont", "SARL", "(", "S.A.S", ".", ")"]),
    ("NOM : MARTIN\nPrénom : Léa", ["NOM", ":", "MARTIN", "Prénom", ":", "Léa"]),
    ("a----b", ["a", "----", "b"]),
    ("", []),
    ("   \n\t ", []),
])
def test_words(text: str, expected: list[str]) -> None:
    assert word_values(text) == expected


def test_zero_width_characters_inside_a_name_stay_inside_the_word_and_do_not_change_its_ids():
    plain, hidden = "Merci Karim", "Merci Ka\u200brim"
    assert word_values(hidden) == ["Merci", "Ka\u200brim"]
    assert featurise(plain).ids == featurise(hidden).ids
    assert featurise(plain).flags == featurise(hidden).flags


def test_an_emoji_inside_a_name_is_a_word_of_its_own():
    text = "Bisous à Zo😀ë"
    assert word_values(text) == ["Bisous", "à", "Zo", "😀", "ë"]
    feats = featurise(text)
    assert all(text[a:b] for a, b in feats.offsets)


def test_other_scripts_inside_french_are_words_with_code_point_offsets():
    text = "Rendez-vous avec 😀 محمد, Иван Петров et 王小明 à Lyon."
    values = word_values(text)
    assert {"محمد", "Иван", "Петров", "王小明", "Lyon"} <= set(values)
    feats = featurise(text)
    for (start, end), value in zip(feats.offsets, values, strict=True):
        assert text[start:end] == value
    shapes = {text[a:b]: SHAPES[feats.ids[i * ID_COLUMNS + 5]] for i, (a, b) in enumerate(feats.offsets)}
    assert shapes["محمد"] == "no_case" and shapes["王小明"] == "no_case"
    assert shapes["Иван"] == "title" and shapes["Lyon"] == "title"


def test_the_arrays_have_the_shape_the_model_takes():
    text = "Bonjour Marie Dupont, je suis à Lyon."
    feats = featurise(text)
    n = len(feats.offsets)
    assert feats.starts == (0,) and feats.length == n
    assert len(feats.ids) == n * ID_COLUMNS and feats.ids_dims == (1, n, ID_COLUMNS)
    assert len(feats.flags) == n * FLAG_COUNT and feats.flags_dims == (1, n, FLAG_COUNT)
    assert all(isinstance(x, int) and x >= 0 for x in feats.ids)
    assert set(feats.flags) <= {0, 1}
    assert all(feats.ids[i * ID_COLUMNS] >= 1 for i in range(n))  # 0 is kept for the unknown word


def test_featurising_is_deterministic():
    text = "Rappelle Jean-Pierre MARTIN de Dupont Transports SARL à Saint-Étienne le 12/03."
    assert featurise(text) == featurise(text)
    assert featurise(text).ids == featurise(str(text)).ids


def test_gazetteer_flags_come_from_the_engines_lexicon():
    text = "Karim Benali de Transports Delmas SARL habite à Toulouse, pas en France. Emmanuel Macron"
    feats = featurise(text)
    flags = {text[a:b]: {FLAGS[k] for k in range(FLAG_COUNT) if feats.flags[i * FLAG_COUNT + k]}
             for i, (a, b) in enumerate(feats.offsets)}
    assert "first_name" in flags["Karim"]
    assert "legal_form" in flags["SARL"]
    assert "org_descriptor" in flags["Transports"]
    assert "town" in flags["Toulouse"]
    assert "country" in flags["France"]
    assert "famous_person" in flags["Macron"]
    assert "line_start" in flags["Karim"] and "sentence_start" in flags["Emmanuel"]


def test_an_all_lowercase_text_says_so_on_every_word():
    feats = featurise("merci à karim pour le devis")
    index = FLAGS.index("lowercase_text")
    assert all(feats.flags[i * FLAG_COUNT + index] for i in range(len(feats.offsets)))


def test_an_empty_text_has_no_window():
    for text in ("", " \n ", "\u200b\u200b"):
        feats = featurise(text)
        assert feats.offsets == () and feats.windows == 0 and feats.ids == ()
        assert decode.spans(text, feats, []) == []


def test_binary_garbage_and_lone_surrogates_featurise():
    text = bytes(range(256)).decode("latin-1") + "\ud800\udfff\x00 Karim"
    feats = featurise(text)
    assert feats.offsets and feats.offsets[-1] == (len(text) - 5, len(text))
    assert len(feats.ids) == feats.windows * feats.length * ID_COLUMNS


def test_a_long_text_is_cut_into_overlapping_windows_of_equal_length():
    text = " ".join(f"mot{i}" for i in range(1000))
    feats = featurise(text)
    assert feats.length == WINDOW
    assert feats.starts[0] == 0 and feats.starts[-1] == 1000 - WINDOW
    assert all(b - a <= WINDOW - OVERLAP for a, b in zip(feats.starts, feats.starts[1:], strict=False))
    assert len(feats.ids) == feats.windows * WINDOW * ID_COLUMNS
    chosen = features.best_window(1000, feats.starts, WINDOW)
    for word, window in enumerate(chosen):
        start = feats.starts[window]
        assert start <= word < start + WINDOW
        left = word - start if start else 10**9
        right = start + WINDOW - 1 - word if start + WINDOW < 1000 else 10**9
        assert min(left, right) >= OVERLAP // 2 - 1


def test_a_megabyte_of_text_featurises():
    line = "Bonjour Marie, la réunion chez Dupont SARL à Lyon est décalée. 😀\n"
    text = line * (1_000_000 // len(line))
    feats = featurise(text)
    assert len(feats.offsets) == 14 * (1_000_000 // len(line))
    assert feats.offsets[-1][1] <= len(text)


# --- decoder -------------------------------------------------------------------------------------

def scores_for(feats: features.Features, labels: list[str], sure: float = 8.0) -> list[float]:
    """Scores that make each word's label the given one (per word of the text, every window)."""
    out: list[float] = []
    for start in feats.starts:
        for word in range(start, start + feats.length):
            row = [0.0] * LABELS
            row[decode.LABELS.index(labels[word])] = sure
            out.extend(row)
    return out


def test_decoding_gives_spans_with_code_point_offsets():
    text = "😀 Merci Marie Dupont de Dupont SARL à Saint-Étienne"
    feats = featurise(text)
    labels = ["O", "O", "B-PER", "I-PER", "O", "B-ORG", "I-ORG", "O", "B-LOC"]
    spans = decode.spans(text, feats, scores_for(feats, labels))
    assert [(s.value, s.kind) for s in spans] == [("Marie Dupont", "per"), ("Dupont SARL", "org"),
                                                  ("Saint-Étienne", "loc")]
    assert all(text[s.start : s.end] == s.value and s.source == "ner" for s in spans)
    assert all(0.99 < s.score <= 1.0 for s in spans)


def test_an_inside_label_never_starts_a_span_of_its_own():
    text = "merci karim martin"
    feats = featurise(text)
    spans = decode.spans(text, feats, scores_for(feats, ["O", "I-PER", "I-PER"]))
    assert [(s.value, s.kind) for s in spans] == [("karim martin", "per")]


def test_two_entities_side_by_side_stay_two():
    text = "Marie Lyon"
    feats = featurise(text)
    spans = decode.spans(text, feats, scores_for(feats, ["B-PER", "B-LOC"]))
    assert [(s.value, s.kind) for s in spans] == [("Marie", "per"), ("Lyon", "loc")]


def test_each_word_is_decoded_from_its_best_window():
    text = " ".join(["mot"] * 300 + ["Karim"] + ["mot"] * 300)
    feats = featurise(text)
    labels = ["O"] * 300 + ["B-PER"] + ["O"] * 300
    spans = decode.spans(text, feats, scores_for(feats, labels))
    assert [(s.value, s.kind) for s in spans] == [("Karim", "per")]


def test_scores_that_do_not_fit_the_features_are_refused():
    text = "Marie Dupont"
    feats = featurise(text)
    with pytest.raises(decode.ScoresError):
        decode.spans(text, feats, [0.0] * (LABELS * 3))
    with pytest.raises(decode.ScoresError):
        decode.spans(text, feats, [float("nan")] * (LABELS * 2))
