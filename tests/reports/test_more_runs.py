"""Outcomes that say what happened: an empty window fails naming it and where data is; a
plan with problems and an apply that skipped a change are partial (the runs of
more_runs.py; their pages are read in tests/browser)."""

from __future__ import annotations

import json
from pathlib import Path

from opslib.reports import RunResult

from .more_fixtures import more_report_runs  # noqa: F401 - the session fixture
from .more_runs import NEW_PRODUCT, RENAMED


def _status(result: RunResult) -> dict:
    return json.loads((Path(result.run_dir) / "status.json").read_text())


def test_the_new_runs_ran(more_report_runs: dict[str, RunResult]) -> None:  # noqa: F811
    assert more_report_runs["one_day"].outcome == "ok", more_report_runs["one_day"].summary()
    assert more_report_runs["dst"].outcome == "ok", more_report_runs["dst"].summary()


def test_an_empty_window_fails_naming_the_window_and_where_data_is(
    more_report_runs: dict[str, RunResult],  # noqa: F811
) -> None:
    result = more_report_runs["empty"]
    assert result.outcome == "failed"
    assert result.cause == 1
    assert result.reason.startswith(
        "In section 'The period': No events from 2020-01-01 00:00 to 2020-01-02 00:00 UTC "
        "(all event types, whole fleet); the latest report of these devices is at "
    )
    assert result.reason.endswith(", after the window.")
    assert result.error is None  # said by the report, not a crash
    assert _status(result)["reason"] == result.reason


def test_a_plan_with_problems_is_partial_with_the_count(
    more_report_runs: dict[str, RunResult],  # noqa: F811
) -> None:
    result = more_report_runs["upkeep_problems"]
    assert result.outcome == "partial", result.summary()
    assert result.reason == (
        "In section 'The outcome': the desired-state file has 2 problems in 2 rows: nothing "
        "can be applied until they are fixed."
    )
    assert result.sentence.startswith("Desired-state file ")
    assert result.sentence.endswith(", dry run.")


def test_an_apply_that_skipped_a_change_is_partial(
    more_report_runs: dict[str, RunResult],  # noqa: F811
) -> None:
    result = more_report_runs["upkeep_apply"]
    assert result.outcome == "partial", result.summary()
    assert result.cause == 1
    assert result.reason == (
        f"In section 'The outcome': 1 of 2 steps skipped (first: delete of {RENAMED}: "
        "allow_delete is False)."
    )
    log = Path(result.parameters["products_path"]).parent / "product_audit.csv"
    assert f"{NEW_PRODUCT},done" in log.read_text()  # the add was done
