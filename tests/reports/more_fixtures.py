"""The session fixture of :mod:`more_runs` (imported by the test modules that read them)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from opslib.reports import RunResult

from .more_runs import OwnPlatform, more_runs


@pytest.fixture(scope="session")
def more_report_runs(
    platform: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, RunResult]]:
    """A one-day window, an empty window, a zone with a clock change (and an event type
    filter), product_upkeep's dry run of a file with problems and an apply that skips a
    change: once per session."""
    base = tmp_path_factory.getbasetemp() / "more-runs"
    base.mkdir(exist_ok=True)
    started: list[OwnPlatform] = []

    def make(name: str, seed: dict[str, Any]) -> OwnPlatform:
        own = OwnPlatform(base / f"{name}.db", seed)
        started.append(own)
        return own

    t0 = time.monotonic()
    runs = more_runs(platform, make, base / "out")
    print(f"\n{len(runs)} more report runs in {time.monotonic() - t0:.1f} s")
    yield runs
    for own in started:
        own.stop()


def out_dir(runs: dict[str, RunResult]) -> Path:
    """The reports directory of these runs."""
    return Path(next(iter(runs.values())).run_dir).parents[1]
