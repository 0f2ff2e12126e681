"""The NER model in redaction, measured: on the held-out set the model's spans (as shipped: ner_merge's table and
threshold) raise neither leaks nor over-redaction in any language, and ner_merge.KEPT_KINDS is what the
measurement on the corpus + held-out set decides (bench/models.py prints the tables)."""

from __future__ import annotations

import pytest
from corpus_scoring import records_of

from openmasq.ner import Recogniser, default_model_dir
from openmasq.ner.measure import ALL_LANGS, Outcome, as_shipped, decision, raw_spans, run_engine, trials
from openmasq.redact import ner_merge
from openmasq.redact.evaluate import Record
from openmasq.redact.spans import Span


@pytest.fixture(scope="module")
def recogniser() -> Recogniser:
    return Recogniser(default_model_dir())


@pytest.fixture(scope="module")
def heldout(recogniser) -> tuple[list[Record], dict[str, list[Span]]]:
    records = records_of("heldout")
    return records, raw_spans(records, recogniser)


@pytest.fixture(scope="module")
def heldout_outcomes(heldout) -> tuple[Outcome, Outcome]:
    records, raw = heldout
    return run_engine(records), run_engine(records, as_shipped(raw))


def _langs(records: list[Record]) -> list[str]:
    return [*sorted({r.lang for r in records}), ALL_LANGS]


def test_on_the_heldout_set_the_model_raises_no_leak_count(heldout, heldout_outcomes):
    records, _ = heldout
    rules, with_model = heldout_outcomes
    for lang in _langs(records):
        before, after = rules.leaks(lang), with_model.leaks(lang)
        assert all(a <= b for a, b in zip(after, before, strict=True)), (lang, before, after)


def test_on_the_heldout_set_the_model_raises_no_over_redaction(heldout, heldout_outcomes):
    records, _ = heldout
    rules, with_model = heldout_outcomes
    for lang in _langs(records):
        before, after = rules.over(lang), with_model.over(lang)
        assert all(a <= b for a, b in zip(after, before, strict=True)), (lang, before, after)


def test_on_the_heldout_set_the_model_lowers_person_leaks(heldout_outcomes):
    # Measured: persons leaked whole or by a name part 6/53 with the rules alone, 1/53 with the model.
    rules, with_model = heldout_outcomes
    assert with_model.score.kinds["person"].fragments < rules.score.kinds["person"].fragments


def test_no_heldout_message_is_refused_with_the_model(heldout_outcomes):
    _, with_model = heldout_outcomes
    assert with_model.refused == ()


def test_the_kept_kinds_table_is_what_the_measurement_decides(recogniser, heldout):
    records, raw = heldout
    corpus = records_of("corpus")
    pooled = corpus + records
    pooled_raw = {**raw_spans(corpus, recogniser), **raw}
    decided = decision(trials(pooled, pooled_raw, ner_merge.SCORE_THRESHOLD))
    assert decided == {lang: ner_merge.KEPT_KINDS[lang] for lang in decided}


def test_cli_redact_ner_masks_a_name_only_the_model_finds_and_marks_its_source():
    import json
    import subprocess
    import sys

    text = "Écris à Marie Dupont et à John Smith demain."
    done = subprocess.run([sys.executable, "-m", "openmasq", "redact", "--json", "--ner", "--lang", "fr"],
                          input=text.encode(), capture_output=True, timeout=120, check=True)
    doc = json.loads(done.stdout)
    assert "John Smith" not in doc["text"] and "Marie Dupont" not in doc["text"]
    sources = {span["value"]: span["source"] for span in doc["spans"]}
    assert sources["John Smith"] == "ner"
    assert sources["Marie Dupont"] != "ner"  # the lexicon found it first: the model only adds


def test_cli_redact_ner_with_a_missing_model_fails_clearly_and_prints_nothing(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "openmasq", "redact", "--ner", "--ner-model", str(tmp_path / "none")],
                          input=b"Marie Dupont", capture_output=True, timeout=120)
    assert done.returncode == 1
    assert done.stdout == b""
    assert b"models/build.py" in done.stderr
