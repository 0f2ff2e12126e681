"""The NER model in redaction, measured: on the labelled corpus and dev set (and the first held-out set) the
model's spans as shipped (ner_merge's table and thresholds) raise no leak count in any language, lower the leaks,
and add at most measure.OVER_PER_LEAK over-redactions per leak avoided; ner_merge.KEPT_KINDS is what the
measurement on corpus + dev decides (bench/models.py ner prints the tables). Never on tests/data/unseen."""

from __future__ import annotations

import pytest
from corpus_scoring import records_of

from openmasq.ner.measure import (
    ALL_LANGS,
    OVER_PER_LEAK,
    Outcome,
    as_shipped,
    decision,
    raw_spans,
    run_engine,
    trials,
)
from openmasq.redact import ner_merge
from openmasq.redact.evaluate import Record
from openmasq.redact.spans import Span

runtime = pytest.importorskip("openmasq.ner.runtime")

SETS = ("corpus", "dev", "heldout")
DECIDING = ("corpus", "dev")


@pytest.fixture(scope="module")
def tagger():
    return runtime.Tagger()


@pytest.fixture(scope="module")
def measured(tagger) -> dict[str, tuple[list[Record], dict[str, list[Span]], Outcome, Outcome]]:
    out = {}
    for name in SETS:
        records = records_of(name)
        if records:
            raw = raw_spans(records, tagger)
            out[name] = (records, raw, run_engine(records), run_engine(records, as_shipped(raw)))
    return out


def _langs(records: list[Record]) -> list[str]:
    return [*sorted({r.lang for r in records}), ALL_LANGS]


@pytest.mark.parametrize("name", SETS)
def test_the_model_raises_no_leak_count(measured, name):
    if name not in measured:
        pytest.skip(f"no tests/data/{name}")
    records, _, rules, with_model = measured[name]
    for lang in _langs(records):
        before, after = rules.leaks(lang), with_model.leaks(lang)
        assert all(a <= b for a, b in zip(after, before, strict=True)), (lang, before, after)


def test_the_over_redaction_the_model_adds_is_bounded_by_the_leaks_it_avoids(measured):
    pooled = [r for n in DECIDING if n in measured for r in measured[n][0]]
    pooled_raw = {k: v for n in DECIDING if n in measured for k, v in measured[n][1].items()}
    rules, with_model = run_engine(pooled), run_engine(pooled, as_shipped(pooled_raw))
    for lang in _langs(pooled):
        avoided = rules.leaks(lang)[1] - with_model.leaks(lang)[1]
        added = [a - b for a, b in zip(with_model.over(lang), rules.over(lang), strict=True)]
        assert all(extra <= OVER_PER_LEAK * max(avoided, 0) for extra in added), (lang, avoided, added)


def test_the_model_lowers_leaks_on_corpus_and_dev(measured):
    before = sum(measured[n][2].leaks(ALL_LANGS)[1] for n in DECIDING if n in measured)
    after = sum(measured[n][3].leaks(ALL_LANGS)[1] for n in DECIDING if n in measured)
    assert after < before


def test_no_message_is_refused_with_the_model(measured):
    assert all(with_model.refused == () for _, _, _, with_model in measured.values())


def test_the_kept_kinds_table_is_what_the_measurement_decides(measured):
    pooled = [r for n in DECIDING if n in measured for r in measured[n][0]]
    pooled_raw = {k: v for n in DECIDING if n in measured for k, v in measured[n][1].items()}
    decided = decision(trials(pooled, pooled_raw))
    assert decided == {lang: ner_merge.KEPT_KINDS[lang] for lang in decided}


def test_cli_redact_uses_the_model_by_default_and_marks_the_names_only_it_finds():
    import json
    import subprocess
    import sys

    text = "Écris à Marie Dupont et à John Smith demain."
    done = subprocess.run([sys.executable, "-m", "openmasq", "redact", "--json", "--lang", "fr"],
                          input=text.encode(), capture_output=True, timeout=120, check=True)
    doc = json.loads(done.stdout)
    assert "John Smith" not in doc["text"] and "Marie Dupont" not in doc["text"]
    sources = {span["value"]: span["source"] for span in doc["spans"]}
    assert sources["John Smith"] == "ner"


def test_cli_redact_with_a_missing_model_fails_clearly_prints_nothing_and_says_how_to_go_on(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "openmasq", "redact", "--ner-model", str(tmp_path / "none")],
                          input=b"Marie Dupont", capture_output=True, timeout=120)
    assert done.returncode == 1
    assert done.stdout == b""
    assert b"no NER model" in done.stderr and b"--rules-only" in done.stderr
    rules = subprocess.run([sys.executable, "-m", "openmasq", "redact", "--rules-only", "--ner-model",
                            str(tmp_path / "none")], input=b"Marie Dupont", capture_output=True, timeout=120)
    assert rules.returncode == 0 and b"Marie Dupont" not in rules.stdout and rules.stdout.strip()
