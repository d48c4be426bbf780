"""Honest outcomes: a report that ran every cell but failed at its job says so, and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opslib.reports import run_report

from .test_runner import opslib_cli


def test_a_report_that_ran_well_is_ok(tiny: Path, tmp_path: Path, env: dict[str, str]) -> None:
    result = run_report("outcome", out_dir=tmp_path, env=env)
    assert result.outcome == "ok", result.summary()
    assert result.reason == ""


@pytest.mark.parametrize("declared", ["partial", "failed"])
def test_a_declared_outcome_becomes_the_runs_with_its_reason(
    tiny: Path, tmp_path: Path, env: dict[str, str], declared: str
) -> None:
    done = opslib_cli(
        "report", "run", "outcome", "-p", "declare", declared, "--out", str(tmp_path),
        env_extra=env,
    )  # fmt: skip
    assert done.returncode == 1
    reason = "In section 'The writes': 2 of 5 writes failed."
    assert done.stderr.splitlines()[0].endswith(f": {reason}")
    assert done.stderr.startswith(f"outcome: {declared} after ")
    status = json.loads(next(tmp_path.glob("outcome/*/status.json")).read_text())
    assert status["outcome"] == declared
    assert status["reason"] == reason
    html = Path(status["html"]).read_text()
    assert f"<h2>{declared.capitalize()} in section “The writes”</h2>" in html  # the summary
    assert html.count("2 of 5 writes failed") == 1  # said once, in the summary


def test_an_empty_main_read_where_data_was_expected_fails(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    result = run_report("outcome", {"rows": 0}, out_dir=tmp_path, env=env)
    assert result.outcome == "failed"
    assert result.reason == (
        "In section 'The main read': the platform returned no rows of the test, where data "
        "was expected."
    )
    assert result.error is None  # no cell raised: the report itself said so


def test_a_section_the_platforms_kinds_do_not_allow_says_so(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    result = run_report("outcome", {"faults_only": True}, out_dir=tmp_path, env=env)
    assert result.outcome == "partial"
    assert result.reason == (
        "In section 'Downtime': not computable on this platform: This platform reports no "
        "online/offline events, so downtime and availability cannot be computed; device "
        "status from the last listing is shown instead."
    )
    html = Path(result.html).read_text()
    assert "This platform reports no online/offline events" in html
    assert "downtime shown" not in html
