"""Scoring our engine on a labelled set (the corpus or the held-out set), shared by their tests."""

from __future__ import annotations

from pathlib import Path

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

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
KEY = bytes(range(32))


def records_of(name: str) -> list[Record]:
    """Every record of tests/data/<name>/*.jsonl."""
    return [r for path in sorted((DATA_DIR / name).glob("*.jsonl")) for r in parse_jsonl(path.read_text("utf-8"))]


def score_engine(records: list[Record], *, show_leaks: bool = True) -> tuple[Score, list[str]]:
    """The engine at its install defaults, a fresh vault per message; refusals listed apart
    (a refusal leaks nothing, so refusing everything would pass every leak target). `show_leaks`
    False prints the scores only (a set nobody tunes on)."""
    refused: list[str] = []

    def redact(text: str, lang: str) -> str:
        try:
            return pseudonymise(text, Vault.new(KEY, mode="fake"), RedactOptions(lang=lang)).text
        except RedactionError:
            refused.append(text[:60])
            return ""  # fail closed: nothing would be sent

    result = score(records, run(records, redact))
    print("\n" + format_table({"openmasq": result}) + "\n\n" + format_languages({"openmasq": result}))
    if show_leaks:
        print("\n" + format_leaks(result, limit=200))
        print("changed clean messages: " + ", ".join(result.changed_clean_ids))
    return result, refused


def leak_report(result: Score, kinds: frozenset[str] | set[str]) -> str:
    leaks = [leak for leak in result.leaks if leak.kind in kinds and not leak.fragment]
    table = format_table({"openmasq": result})
    return table + "\n" + "\n".join(f"{leak.record_id} {leak.kind} {leak.value!r}" for leak in leaks)
