"""Our engine on the labelled corpus meets the issue's targets that need no baseline.

Run with `-s` to see the table. No timing here: latency and Presidio live in bench/redact.py."""

from __future__ import annotations

import pytest
from corpus_scoring import leak_report, records_of, score_engine

from openmasq.redact.evaluate import STRUCTURED_KINDS, Record, Score, format_table

PERSON_TARGET = 0.05  # issue: persons <= 5 %
ORG_TARGET = 0.10  # issue: organisations <= 10 %
# Our own bound: at most one clean message in ten may come out changed (a famous name, a brand,
# a city in a geography question must go out in clear).
OVER_REDACTION_BOUND = 0.10


def _records() -> list[Record]:
    return records_of("corpus")


@pytest.fixture(scope="module")
def outcome() -> tuple[Score, list[str]]:
    return score_engine(_records())


def test_no_valid_structured_value_leaks(outcome):
    result, _ = outcome
    structured = result.group(STRUCTURED_KINDS & set(result.kinds))
    assert structured.labelled >= 150
    assert structured.leaked == 0, leak_report(result, STRUCTURED_KINDS)


def test_persons_leak_at_most_five_percent(outcome):
    result, _ = outcome
    assert result.kinds["person"].leak_rate <= PERSON_TARGET, leak_report(result, {"person"})


def test_organisations_leak_at_most_ten_percent(outcome):
    result, _ = outcome
    assert result.kinds["org"].leak_rate <= ORG_TARGET, leak_report(result, {"org"})


def test_messages_without_personal_data_mostly_go_out_unchanged(outcome):
    result, _ = outcome
    assert result.over.messages >= 60
    assert result.over.message_rate <= OVER_REDACTION_BOUND, (
        format_table({"openmasq": result}) + "\nchanged: " + ", ".join(result.changed_clean_ids))


def test_no_corpus_message_is_refused(outcome):
    # A refusal leaks nothing, so refusing everything would pass the leak targets: it counts as a failure.
    _, refused = outcome
    assert refused == []
