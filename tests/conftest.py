"""Hooks of the whole run, here because the pytest-xdist controller loads this file: it collects nothing, so
the conftest files below this one (tests/pyodide's) load only on the workers.

Under xdist a test file is one unit of work, handed out in collection order (scripts/test turns off xdist's own
order, most tests first, which put the few long browser tests of each e2e file last): the long units go first (the
Pyodide session, then the browser tests), the many short ones last, so that no worker is left alone with a long
file at the end while the other idles.

`config.suite_summaries` maps a section title to the lines a session fixture wants in the terminal summary
(tests/pyodide: the browser session's timings); a worker hands its own to the controller when it finishes."""

from __future__ import annotations

from typing import Any

import pytest

WORKER_OUTPUT_KEY = "suite_summaries"
LONG_UNITS_FIRST = ("tests/pyodide/", "e2e/", "tests/host/")


def pytest_configure(config: pytest.Config) -> None:
    config.suite_summaries = {}  # type: ignore[attr-defined]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return next((i for i, folder in enumerate(LONG_UNITS_FIRST) if item.nodeid.startswith(folder)),
                    len(LONG_UNITS_FIRST))

    items.sort(key=rank)  # stable: each folder keeps its own order


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
