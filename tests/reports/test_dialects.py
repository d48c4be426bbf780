"""The four reports against the platform in the vendor dialect (``opslib server --dialect
vendor``, the client told by ``OPSLIB_DIALECT``): each runs clean and exports what the
same report exports against the reference platform."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from opslib.reports import RunResult, run_report

from .runs import CELL_TIMEOUT, REPORTS, RUN_TIMEOUT, parameters, platform_env


@pytest.fixture(scope="module")
def vendor_platform(seeded_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from conftest import _copy_db, _start

    db = tmp_path_factory.mktemp("vendor-reports") / "platform.db"
    _copy_db(seeded_db, db)
    running = _start(db, dialect="vendor")
    yield running
    running.stop()


def _exports(result: RunResult) -> dict[str, pd.DataFrame]:
    return {Path(p).stem: pd.read_parquet(p) for p in result.exports if p.endswith(".parquet")}


@pytest.mark.parametrize("report", REPORTS)
def test_each_report_reads_a_vendor_platform_as_ours(
    report: str,
    vendor_platform: Any,
    report_runs: dict[tuple[str, str], RunResult],
    tmp_path: Path,
) -> None:
    env = {**platform_env(vendor_platform), "OPSLIB_DIALECT": "vendor"}
    result = run_report(
        report,
        parameters(report, "unattended"),
        out_dir=tmp_path,
        label="vendor",
        env=env,
        cell_timeout=CELL_TIMEOUT,
        run_timeout=RUN_TIMEOUT,
    )
    assert result.outcome == "ok", result.summary()
    reference = _exports(report_runs[(report, "unattended")])
    got = _exports(result)
    assert set(got) == set(reference)
    for stem, frame in got.items():
        want = reference[stem]
        assert list(frame.columns) == list(want.columns), stem
        if report != "event_analysis":  # its window is relative to now: its edges move
            assert len(frame) == len(want), stem
