"""Replays every tests/core outcome from the in-Pyodide run as a host test, plus checks on the run itself.

The browser session runs once (the session fixture in conftest.py); see docs/testing-infra.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import HostCollection, PyodideRun


def record_of(run: PyodideRun) -> dict[str, Any]:
    if run.record is None:
        pytest.fail("the in-Pyodide run broke before collecting: see test_pyodide_session_ran", pytrace=False)
    return run.record


def test_pyodide_session_ran(pyodide_run: PyodideRun) -> None:
    crashes = [f"{crash['nodeid']}: {crash['error'].splitlines()[0]}" for crash in pyodide_run.crashes]
    if pyodide_run.error is not None:
        console = "\n".join(pyodide_run.console[-50:])
        pytest.fail(f"{pyodide_run.error}\n--- browser console ---\n{console}", pytrace=False)
    assert crashes == [], "Pyodide crashed (a fresh one ran the tests after each crash)"
    record = record_of(pyodide_run)
    nothing_to_run = record["exit_code"] == 5 and not record["collected"]
    assert record["exit_code"] in (0, 1) or nothing_to_run, record["output"]


def test_core_in_pyodide(core_nodeid: str, pyodide_run: PyodideRun, request: pytest.FixtureRequest) -> None:
    record = record_of(pyodide_run)
    outcomes = record["outcomes"]
    if core_nodeid not in outcomes:
        broken = [e["nodeid"] for e in record["collect_errors"] if core_nodeid.startswith(e["nodeid"] + "::")]
        stopped = pyodide_run.error is not None
        why = (
            " (its file failed to collect there)" if broken
            else " (the run stopped early: see test_pyodide_session_ran)" if stopped
            else ""
        )
        pytest.fail(f"collected on the host but did not run in Pyodide{why}", pytrace=False)
    result = outcomes[core_nodeid]
    outcome, reason = result["outcome"], result["reason"]
    if outcome == "failed":
        pytest.fail(f"failed in Pyodide:\n{reason}", pytrace=False)
    elif outcome == "skipped":
        pytest.skip(reason)
    elif outcome == "xfailed":
        pytest.xfail(reason.removeprefix("reason: "))
    elif outcome == "xpassed":
        # A non-strict xfail that passed: the marker makes the host report it as XPASS too.
        request.node.add_marker(pytest.mark.xfail(reason=reason, strict=False))
    else:
        assert outcome == "passed", result


def test_pyodide_collected_the_same_tests_as_the_host(
    pyodide_run: PyodideRun, core_collection: HostCollection
) -> None:
    in_pyodide = record_of(pyodide_run)["collected"] or []
    on_host = core_collection.ids
    assert sorted(set(on_host) - set(in_pyodide)) == [], "collected on the host only"
    assert sorted(set(in_pyodide) - set(on_host)) == [], "collected in Pyodide only"
    assert len(in_pyodide) == len(on_host)


def test_pyodide_had_no_collection_error(pyodide_run: PyodideRun) -> None:
    errors = record_of(pyodide_run)["collect_errors"]
    text = "\n\n".join(f"{error['nodeid']}:\n{error['longrepr']}" for error in errors)
    assert errors == [], text


def test_host_had_no_collection_error(core_collection: HostCollection) -> None:
    errors = core_collection.errors
    text = "\n\n".join(f"{error['nodeid']}:\n{error['longrepr']}" for error in errors)
    assert errors == [], text


def test_page_loaded_nothing_from_another_origin(pyodide_run: PyodideRun) -> None:
    record_of(pyodide_run)
    foreign = [url for url in pyodide_run.requests if not url.startswith(pyodide_run.origin + "/")]
    assert foreign == []
    assert [path for status, path in pyodide_run.served if status != 200] == []
