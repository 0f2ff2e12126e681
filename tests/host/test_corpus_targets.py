"""Our engine on the labelled corpus meets the issue's targets that need no baseline.

Run with `-s` to see the table. No timing here: latency and Presidio live in bench/redact.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from openmasq.redact import RedactionError, RedactOptions, Vault, pseudonymise
from openmasq.redact.evaluate import (
    STRUCTURED_KINDS,
    Record,
    Score,
    format_languages,
    format_leaks,
    format_table,
    parse_jsonl,
    run,
    score,
)

CORPUS_DIR = Path(__file__).resolve().parent.parent / "data" / "corpus"
KEY = bytes(range(32))

PERSON_TARGET = 0.05  # issue: persons <= 5 %
ORG_TARGET = 0.10  # issue: organisations <= 10 %
# Our own bound: at most one clean message in ten may come out changed (a famous name, a brand,
# a city in a geography question must go out in clear).
OVER_REDACTION_BOUND = 0.10


def _records() -> list[Record]:
    return [r for path in sorted(CORPUS_DIR.glob("*.jsonl")) for r in parse_jsonl(path.read_text("utf-8"))]


@pytest.fixture(scope="module")
def outcome() -> tuple[Score, list[str]]:
    records = _records()
    refused: list[str] = []

    def redact(text: str, lang: str) -> str:
        try:
            return pseudonymise(text, Vault.new(KEY, mode="fake"), RedactOptions(lang=lang)).text
        except RedactionError:
            refused.append(text[:60])
            return ""  # fail closed: nothing would be sent

    result = score(records, run(records, redact))
    print("\n" + format_table({"openmasq": result}) + "\n\n" + format_languages({"openmasq": result}))
    print("\n" + format_leaks(result, limit=200))
    return result, refused


def _report(result: Score, kinds: frozenset[str] | set[str]) -> str:
    leaks = [leak for leak in result.leaks if leak.kind in kinds and not leak.fragment]
    table = format_table({"openmasq": result})
    return table + "\n" + "\n".join(f"{leak.record_id} {leak.kind} {leak.value!r}" for leak in leaks)


def test_no_valid_structured_value_leaks(outcome):
    result, _ = outcome
    structured = result.group(STRUCTURED_KINDS & set(result.kinds))
    assert structured.labelled >= 150
    assert structured.leaked == 0, _report(result, STRUCTURED_KINDS)


def test_persons_leak_at_most_five_percent(outcome):
    result, _ = outcome
    assert result.kinds["person"].leak_rate <= PERSON_TARGET, _report(result, {"person"})


def test_organisations_leak_at_most_ten_percent(outcome):
    result, _ = outcome
    assert result.kinds["org"].leak_rate <= ORG_TARGET, _report(result, {"org"})


def test_messages_without_personal_data_mostly_go_out_unchanged(outcome):
    result, _ = outcome
    assert result.over.messages >= 60
    assert result.over.message_rate <= OVER_REDACTION_BOUND, (
        format_table({"openmasq": result}) + "\nchanged: " + ", ".join(result.changed_clean_ids))


def test_no_corpus_message_is_refused(outcome):
    # A refusal leaks nothing, so refusing everything would pass the leak targets: it counts as a failure.
    _, refused = outcome
    assert refused == []
