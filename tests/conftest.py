"""Hooks of the whole run, here because the pytest-xdist controller loads this file: it collects nothing, so
the conftest files below this one (tests/pyodide's) load only on the workers.

`config.suite_summaries` maps a section title to the lines a session fixture wants in the terminal summary
(tests/pyodide: the browser session's timings); a worker hands its own to the controller when it finishes."""

from __future__ import annotations

from typing import Any

import pytest

WORKER_OUTPUT_KEY = "suite_summaries"


def pytest_configure(config: pytest.Config) -> None:
    config.suite_summaries = {}  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[WORKER_OUTPUT_KEY] = session.config.suite_summaries  # type: ignore[attr-defined]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    node.config.suite_summaries.update(getattr(node, "workeroutput", {}).get(WORKER_OUTPUT_KEY, {}))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    for title, lines in config.suite_summaries.items():  # type: ignore[attr-defined]
        terminalreporter.section(title)
        for line in lines:
            terminalreporter.write_line(line)
