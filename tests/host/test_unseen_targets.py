"""The engine on the outside writers' held-out set (tests/data/unseen), which nobody tunes on: its bounds keep
the measured figures from sliding back. They are the measured rates with a margin, not the targets (those are
in bench/detection.py, which prints both). Run with `-s` to see the table."""

from __future__ import annotations

import collections

import pytest
from corpus_scoring import records_of, score_engine

from openmasq.redact.evaluate import STRUCTURED_KINDS, Record, Score, format_table

# Measured with the rules only at cb6b80e: persons 26/342, organisations 12/84, places 15/121, structured values
# 14/276, clean messages changed 21/155, messages with personal data leaking nothing whole 193/255; organisations
# 10/84 and places 11/121 on 4 December 2026; a margin of a few values.
PERSON_BOUND = 0.09
ORG_BOUND = 0.14
LOCATION_BOUND = 0.12
STRUCTURED_BOUND = 0.06
CLEAN_CHANGED_BOUND = 0.16
NO_LEAK_FLOOR = 0.73


def _records() -> list[Record]:
    return records_of("unseen")


@pytest.fixture(scope="module")
def outcome() -> tuple[Score, list[str]]:
    return score_engine(_records(), show_leaks=False)


def test_the_unseen_set_has_the_planned_shape() -> None:
    records = _records()
    by_lang = collections.Counter(r.lang for r in records)
    assert len(records) >= 400 and by_lang == {"fr": 100, "en": 100, "de": 70, "es": 70, "it": 70}
    assert sum(not r.has_pii for r in records) >= 0.3 * len(records)
    assert len({r.id for r in records}) == len(records)
    for record in records:
        for label in record.pii:
            assert label.value in record.text, (record.id, label.value)


def _rate(result: Score, kinds: set[str] | frozenset[str]) -> float:
    return result.group(set(kinds) & set(result.kinds)).leak_rate


def test_unseen_persons_organisations_and_places_leak_within_the_measured_bounds(outcome) -> None:
    result, _ = outcome
    table = format_table({"openmasq": result})
    assert _rate(result, {"person"}) <= PERSON_BOUND, table
    assert _rate(result, {"org"}) <= ORG_BOUND, table
    assert _rate(result, {"location"}) <= LOCATION_BOUND, table
    assert _rate(result, STRUCTURED_KINDS) <= STRUCTURED_BOUND, table


def test_unseen_clean_messages_mostly_go_out_unchanged(outcome) -> None:
    result, _ = outcome
    assert result.over.message_rate <= CLEAN_CHANGED_BOUND, format_table({"openmasq": result})


def test_most_unseen_messages_leak_nothing_whole(outcome) -> None:
    result, _ = outcome
    ok, total = result.messages_without_leak(_records())
    assert ok >= NO_LEAK_FLOOR * total, (ok, total)


def test_no_unseen_message_is_refused(outcome) -> None:
    _, refused = outcome
    assert refused == []


def test_structured_values_are_scored(outcome) -> None:
    result, _ = outcome
    assert result.group(STRUCTURED_KINDS & set(result.kinds)).labelled >= 200
