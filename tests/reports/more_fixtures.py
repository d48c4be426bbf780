"""The session fixture of :mod:`more_runs` (imported by the test modules that read them)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from opslib.reports import RunResult

from .more_runs import OwnPlatform, more_runs

RESULTS = "results.json"


@pytest.fixture(scope="session")
def more_report_runs(run_once: Callable[..., Path | None], seeded_db: Path) -> dict[str, RunResult]:
    """A one-day window, an empty window, a zone with a clock change (and an event type
    filter), product_upkeep's dry run of a file with problems and an apply that skips a
    change: once per pytest run (the first worker to ask makes them, the others read)."""
    from conftest import _copy_db, _start

    def build(base: Path) -> None:
        started: list[Any] = []

        def make(name: str, seed: dict[str, Any]) -> OwnPlatform:
            own = OwnPlatform(base / f"{name}.db", seed)
            started.append(own)
            return own

        # the shared session platform may be another worker's: one of these runs' own
        db = base / "shared.db"
        _copy_db(seeded_db, db)
        shared = _start(db)
        started.append(shared)
        try:
            t0 = time.monotonic()
            runs = more_runs(shared, make, base / "out")
            print(f"\n{len(runs)} more report runs in {time.monotonic() - t0:.1f} s")
        finally:
            for own in started:
                own.stop()
        found = {name: json.loads(run.to_json()) for name, run in runs.items()}
        (base / RESULTS).write_text(json.dumps(found), encoding="utf-8")

    built = run_once("more-runs", build)
    assert built is not None  # it waits
    found = json.loads((built / RESULTS).read_text(encoding="utf-8"))
    return {name: RunResult(**fields) for name, fields in found.items()}


def out_dir(runs: dict[str, RunResult]) -> Path:
    """The reports directory of these runs."""
    return Path(next(iter(runs.values())).run_dir).parents[1]
