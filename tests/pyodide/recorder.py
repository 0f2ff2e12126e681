"""A pytest plugin that records what a run collected and how each test ended, as plain JSON.

The same file runs on the host (to list the core test ids) and inside Pyodide (to run them).
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Emit = Callable[[str], object]


class Recorder:
    """Collects node ids, collection errors and the outcome of each test of one pytest session.

    With `emit`, each fact is also sent out as it happens (one JSON text per call), so that a
    fatal crash of the interpreter still leaves the outcomes so far and the test that was running.
    """

    def __init__(self, hypothesis_settings: dict[str, Any] | None = None, emit: Emit | None = None) -> None:
        self.hypothesis_settings = hypothesis_settings
        self.emit = emit
        self.collected: list[str] = []
        self.collect_errors: list[dict[str, str]] = []
        self.phases: dict[str, list[dict[str, Any]]] = {}
        self.outcomes: dict[str, dict[str, Any]] = {}

    def send(self, event: dict[str, Any]) -> None:
        if self.emit is not None:
            self.emit(json.dumps(event))

    def pytest_configure(self, config: pytest.Config) -> None:
        # Loaded here rather than before pytest.main: importing hypothesis early defeats assert rewriting.
        if self.hypothesis_settings is not None:
            from hypothesis import settings

            settings.register_profile("openmasq-recorder", **self.hypothesis_settings)
            settings.load_profile("openmasq-recorder")

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            error = {"nodeid": report.nodeid, "longrepr": report.longreprtext}
            self.collect_errors.append(error)
            self.send({"kind": "collect_error", **error})

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collected = [item.nodeid for item in session.items]
        self.send({"kind": "collected", "ids": self.collected})

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        self.send({"kind": "start", "nodeid": nodeid})

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.phases.setdefault(report.nodeid, []).append(phase_record(report))

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        outcome = final_outcome(self.phases.pop(nodeid, []))
        self.outcomes[nodeid] = outcome
        self.send({"kind": "outcome", "nodeid": nodeid, "outcome": outcome})

    def as_dict(self, exit_code: int) -> dict[str, Any]:
        return {
            "exit_code": exit_code,
            "collected": self.collected,
            "collect_errors": self.collect_errors,
            "outcomes": self.outcomes,
        }


def phase_record(report: pytest.TestReport) -> dict[str, Any]:
    """Keeps what the host needs to replay one phase: outcome, xfail reason, text and captured output."""
    return {
        "when": report.when,
        "outcome": report.outcome,
        "wasxfail": getattr(report, "wasxfail", None),
        "skip_reason": skip_reason(report),
        "longrepr": longrepr_text(report),
        "sections": [f"----- {title} -----\n{content}" for title, content in report.sections],
        "duration": report.duration,
    }


def longrepr_text(report: pytest.TestReport) -> str:
    # longreprtext strips the text, which eats the indentation of the first source line.
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if hasattr(longrepr, "toterminal"):
        from _pytest._io import TerminalWriter

        buffer = io.StringIO()
        writer = TerminalWriter(file=buffer)
        writer.hasmarkup = False
        longrepr.toterminal(writer)
        return buffer.getvalue().rstrip()
    return report.longreprtext


def skip_reason(report: pytest.TestReport) -> str | None:
    # A skip's longrepr is a (path, lineno, "Skipped: reason") tuple, not a traceback.
    if report.skipped and isinstance(report.longrepr, tuple):
        message = str(report.longrepr[2])
        return message.removeprefix("Skipped: ")
    return None


def final_outcome(phases: list[dict[str, Any]]) -> dict[str, Any]:
    """Folds the setup/call/teardown reports of one test into one outcome, the way pytest counts it."""
    failed = [phase for phase in phases if phase["outcome"] == "failed"]
    if failed:
        text = "\n\n".join(describe_failure(phase) for phase in failed)
        return {"outcome": "failed", "reason": text}
    for phase in phases:
        if phase["outcome"] == "skipped":
            if phase["wasxfail"] is not None:
                return {"outcome": "xfailed", "reason": phase["wasxfail"]}
            return {"outcome": "skipped", "reason": phase["skip_reason"] or ""}
    call = next((phase for phase in phases if phase["when"] == "call"), None)
    if call is not None and call["wasxfail"] is not None:
        return {"outcome": "xpassed", "reason": call["wasxfail"]}
    return {"outcome": "passed", "reason": ""}


def describe_failure(phase: dict[str, Any]) -> str:
    label = "error" if phase["when"] != "call" else "failure"
    parts = [f"[{label} in {phase['when']}]", phase["longrepr"], *phase["sections"]]
    return "\n".join(part for part in parts if part)


def run(
    args: list[str], hypothesis_settings: dict[str, Any] | None = None, emit: Emit | None = None
) -> dict[str, Any]:
    """Runs pytest in this interpreter with the recorder attached and returns the record."""
    recorder = Recorder(hypothesis_settings, emit)
    exit_code = pytest.main(args, plugins=[recorder])
    return recorder.as_dict(int(exit_code))


def main(argv: list[str]) -> int:
    """Host entry point: `python recorder.py OUT.json PYTEST_ARGS...` writes the record to OUT.json."""
    out, *args = argv
    record = run(args)
    Path(out).write_text(json.dumps(record), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
