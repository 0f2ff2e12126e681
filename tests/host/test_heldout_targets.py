"""Our engine on the held-out set (tests/data/heldout), written before the model-free detectors were
tuned and never used to tune them: its bounds say how well the detectors generalise.

Run with `-s` to see the table. The bounds are the measured rates with a margin, not targets."""

from __future__ import annotations

from pathlib import Path

import pytest

from openmasq.redact import RedactionError, RedactOptions, Vault, pseudonymise
from openmasq.redact.evaluate import (
    Record,
    Score,
    format_languages,
    format_leaks,
    format_table,
    parse_jsonl,
    run,
    score,
)

HELDOUT_DIR = Path(__file__).resolve().parent.parent / "data" / "heldout"
KEY = bytes(range(32))

# Measured when the set was last scored (persons 5/53, organisations 0/34, clean messages changed
# 4/30: famous people missing from notorious_people.txt), plus a margin of two or three messages.
PERSON_BOUND = 0.15
ORG_BOUND = 0.06
OVER_REDACTION_BOUND = 0.20
# Usernames are found by names.detect_handles, which detect.gather does not call yet: measured 0/8
# with it wired, 8/8 without.
USERNAME_BOUND = 0.15


def _records() -> list[Record]:
    return [r for path in sorted(HELDOUT_DIR.glob("*.jsonl")) for r in parse_jsonl(path.read_text("utf-8"))]


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
    print("changed clean messages: " + ", ".join(result.changed_clean_ids))
    return result, refused


def _report(result: Score, kinds: set[str]) -> str:
    leaks = [leak for leak in result.leaks if leak.kind in kinds and not leak.fragment]
    table = format_table({"openmasq": result})
    return table + "\n" + "\n".join(f"{leak.record_id} {leak.kind} {leak.value!r}" for leak in leaks)


def test_heldout_set_has_the_planned_shape():
    records = _records()
    by_lang = {lang: sum(r.lang == lang for r in records) for lang in ("fr", "en", "de", "es", "it")}
    assert len(records) == 80 and by_lang["fr"] == 30 and by_lang["en"] == 30
    assert sum(not r.has_pii for r in records) >= 25


def test_heldout_persons_leak_within_the_measured_bound(outcome):
    result, _ = outcome
    assert result.kinds["person"].leak_rate <= PERSON_BOUND, _report(result, {"person"})


def test_heldout_organisations_leak_within_the_measured_bound(outcome):
    result, _ = outcome
    assert result.kinds["org"].leak_rate <= ORG_BOUND, _report(result, {"org"})


def test_heldout_usernames_leak_within_the_measured_bound(outcome):
    result, _ = outcome
    assert result.kinds["username"].leak_rate <= USERNAME_BOUND, _report(result, {"username"})


def test_heldout_clean_messages_mostly_go_out_unchanged(outcome):
    result, _ = outcome
    assert result.over.message_rate <= OVER_REDACTION_BOUND, (
        format_table({"openmasq": result}) + "\nchanged: " + ", ".join(result.changed_clean_ids))


def test_no_heldout_message_is_refused(outcome):
    _, refused = outcome
    assert refused == []
