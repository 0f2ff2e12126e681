"""The committed NER model on CPython (openmasq.ner.runtime, onnxruntime): real inference on fr/en/de/es/it text,
lowercase names, exact code-point offsets, long texts, and clear errors for a missing, corrupt or mismatched
model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

runtime = pytest.importorskip("openmasq.ner.runtime")

from openmasq.ner import decode, features  # noqa: E402
from openmasq.redact.ner_merge import engine_spans  # noqa: E402


@pytest.fixture(scope="module")
def tagger():
    return runtime.Tagger()


def found(tagger, text: str) -> list[tuple[str, str]]:
    return [(s.value, s.kind) for s in tagger.spans(text)]


def test_the_model_is_committed_in_the_repo_and_small():
    folder = runtime.default_model_dir()
    assert folder == runtime.REPO_MODEL_DIR and folder.parts[-2:] == ("models", "ner")
    config = json.loads((folder / "config.json").read_text())
    assert config["labels"] == list(decode.LABELS)
    assert config["features_version"] == features.FEATURES_VERSION
    assert sum(p.stat().st_size for p in folder.iterdir() if p.is_file()) <= 30_000_000


def test_the_environment_variable_names_another_folder(monkeypatch, tmp_path):
    monkeypatch.setenv(runtime.ENV_VAR, str(tmp_path))
    assert runtime.default_model_dir() == tmp_path
    with pytest.raises(runtime.ModelNotFound, match="OPENMASQ_NER_MODEL"):
        runtime.Tagger()


def test_a_lowercase_first_name_is_a_person(tagger):
    assert ("karim", "per") in found(tagger, "merci à karim pour le devis")


@pytest.mark.parametrize("text, expected", [
    ("Peux-tu écrire à Sandrine Lefebvre chez Transports Delmas à Toulouse ?",
     [("Sandrine Lefebvre", "per"), ("Transports Delmas", "org"), ("Toulouse", "loc")]),
    ("Can you send the contract to Rachel Thornton at Brightwater Analytics Ltd in Leeds?",
     [("Rachel Thornton", "per"), ("Brightwater Analytics Ltd", "org"), ("Leeds", "loc")]),
    ("Kannst du Katrin Hoffmann von der Müller Logistik GmbH in Hamburg anrufen?",
     [("Katrin Hoffmann", "per"), ("Müller Logistik GmbH", "org"), ("Hamburg", "loc")]),
    ("¿Puedes escribir a Javier Morales de Transportes Ruiz S.L. en Sevilla?",
     [("Javier Morales", "per"), ("Transportes Ruiz S.L.", "org"), ("Sevilla", "loc")]),
    ("Puoi chiamare Francesca Bianchi dello Studio Bianchi a Bologna?",
     [("Francesca Bianchi", "per"), ("Bologna", "loc")]),
])
def test_people_organisations_and_places_in_five_languages(tagger, text, expected):
    got = [(s.value, s.kind) for s in engine_spans(text, tagger.spans(text), threshold=0.5)]
    kinds = {"per": "person", "org": "org", "loc": "location"}
    for value, kind in expected:
        assert (value, kinds[kind]) in got, (text, got)


def test_famous_people_and_brands_are_no_entities(tagger):
    got = found(tagger, "Que pense Emmanuel Macron de Google et de la France ?")
    assert all(value not in ("Emmanuel Macron", "Google", "France") for value, _ in got), got


def test_offsets_are_code_points_of_the_text(tagger):
    text = "😀😀 Rendez-vous avec Hélène Rousseau à 😀 Bordeaux."
    spans = tagger.spans(text)
    assert spans and all(text[s.start : s.end] == s.value and s.source == "ner" for s in spans)
    assert ("Hélène Rousseau", "per") in [(s.value, s.kind) for s in spans]


def test_a_long_text_is_read_through_several_windows(tagger):
    sentence = "Paul Martin a appelé Claire Bernard au sujet du dossier de Nantes. "
    text = sentence * 40
    feats = features.featurise(text)
    assert feats.windows > 1
    people = [s for s in tagger.spans(text) if s.kind == "per"]
    assert len(people) >= 70  # 80 names: the windows' seams lose none of consequence


def test_empty_and_wordless_texts_give_no_span(tagger):
    assert tagger.spans("") == [] and tagger.spans("  \n\u200b ") == []


def test_the_engine_takes_the_spans(tagger):
    spans = runtime.ner_spans("merci à karim pour le devis", tagger, "fr")
    assert all(s.kind in ("person", "org", "location") and s.source == "ner" for s in spans)


def test_a_missing_model_raises_a_clear_error(tmp_path):
    with pytest.raises(runtime.ModelNotFound, match="no NER model"):
        runtime.Tagger(tmp_path)


def test_a_corrupt_model_file_raises_a_clear_error(tmp_path):
    shutil.copyfile(runtime.REPO_MODEL_DIR / "config.json", tmp_path / "config.json")
    (tmp_path / "model.onnx").write_bytes(b"not an onnx file")
    with pytest.raises(runtime.ModelLoadError, match=r"onnxruntime cannot load model\.onnx"):
        runtime.Tagger(tmp_path)


def test_a_model_trained_for_other_features_is_refused(tmp_path):
    config = json.loads((runtime.REPO_MODEL_DIR / "config.json").read_text())
    config["features_version"] = features.FEATURES_VERSION + 1
    (tmp_path / "config.json").write_text(json.dumps(config))
    shutil.copyfile(runtime.REPO_MODEL_DIR / "model.onnx", tmp_path / "model.onnx")
    with pytest.raises(runtime.ModelLoadError, match="features_version"):
        runtime.Tagger(tmp_path)


def test_an_unreadable_config_raises_a_clear_error(tmp_path: Path):
    (tmp_path / "config.json").write_text("{")
    shutil.copyfile(runtime.REPO_MODEL_DIR / "model.onnx", tmp_path / "model.onnx")
    with pytest.raises(runtime.ModelLoadError, match=r"unreadable config\.json"):
        runtime.Tagger(tmp_path)
