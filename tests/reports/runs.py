"""Running the four reports against a test platform, shared by tests/reports and tests/browser.

Runs are subprocesses (papermill in a worker, each with its kernel), so they run a few at a
time. A run against the shared platform is made once per pytest run (``shared_run``, behind
the ``report_run`` and ``report_runs`` fixtures of tests/conftest.py): every xdist worker
reads the same result. Runs against a platform of a test module's own (``run_every_report``)
are cached per output directory.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from opslib.reports import RunResult, run_report

REPORTS = ("fleet_inventory", "event_analysis", "product_upkeep", "user_lookup")
MODES = ("unattended", "interactive")
# Figures each report draws in either mode.
FIGURES = {"fleet_inventory": 5, "event_analysis": 7, "product_upkeep": 1, "user_lookup": 2}
# The demo user of the seed (about ten devices and their events).
USER_LOOKUP = {"area_code": "1", "phone": "5550000003"}
PARALLEL_RUNS = 3
CELL_TIMEOUT = 120
RUN_TIMEOUT = 240
RESULT = "result.json"  # a shared run's RunResult, in its run_once directory

_cache: dict[Path, dict[tuple[str, str], RunResult]] = {}


def platform_env(platform: Any, role: str = "ops") -> dict[str, str]:
    """The OPSLIB_* variables that make opslib.connect() in a kernel reach ``platform``."""
    creds = platform.credentials(role)
    isolated = Path(platform.db).parent / "no-opslib-config.toml"
    return {
        "OPSLIB_CONFIG": str(isolated),  # the user's profiles stay out of test runs
        "OPSLIB_PROFILE": "",
        "OPSLIB_TOKEN_CACHE": "",
        "OPSLIB_BASE_URL": platform.base_url,
        "OPSLIB_CLIENT_ID": creds["client_id"],
        "OPSLIB_CLIENT_SECRET": creds["client_secret"],
        "OPSLIB_AREA_CODE": creds["area_code"],
        "OPSLIB_PHONE": creds["phone"],
        "OPSLIB_PASSWORD": creds["password"],
    }


def parameters(report: str, mode: str) -> dict[str, Any]:
    params: dict[str, Any] = {"interactive": mode == "interactive"}
    if report == "user_lookup":
        params.update(USER_LOOKUP)
    if report == "event_analysis":
        params.update({"start": "-4d", "freq": "6h"})
    return params


def _run(platform: Any, report: str, params: Mapping[str, Any], out: Path, label: str) -> RunResult:
    return run_report(
        report,
        dict(params),
        out_dir=out,
        label=label,
        env=platform_env(platform),
        cell_timeout=CELL_TIMEOUT,
        run_timeout=RUN_TIMEOUT,
    )


def shared_run(
    run_once: Callable[..., Path],
    platform: Any,
    out: Path,
    report: str,
    params: Mapping[str, Any] | None = None,
    label: str = "",
) -> RunResult:
    """``report`` run with ``params`` against ``platform`` into ``out``, once per pytest
    run (``run_once``): the first worker to ask runs it, the others read its result."""
    given = dict(params or {})
    identity = json.dumps([report, given, label, str(out)], sort_keys=True, default=str)
    digest = hashlib.sha256(identity.encode()).hexdigest()[:12]
    key = f"run-{report}-{label or 'nolabel'}-{digest}"

    def build(directory: Path) -> None:
        result = _run(platform, report, given, out, label)
        (directory / RESULT).write_text(result.to_json(), encoding="utf-8")

    built = run_once(key, build)
    return RunResult(**json.loads((built / RESULT).read_text(encoding="utf-8")))


def every_report(
    run: Callable[[str, dict[str, Any], str], RunResult],
) -> dict[tuple[str, str], RunResult]:
    """Each report in both modes through ``run(report, parameters, label)``, a few at a time."""
    jobs = [(report, mode) for report in REPORTS for mode in MODES]
    with ThreadPoolExecutor(PARALLEL_RUNS) as pool:
        runs = pool.map(lambda job: run(job[0], parameters(*job), job[1]), jobs)
        return dict(zip(jobs, runs, strict=True))


def run_every_report(platform: Any, out_dir: Path) -> dict[tuple[str, str], RunResult]:
    """Each report in both modes, against ``platform``; once per ``out_dir`` (per process)."""
    if out_dir not in _cache:
        _cache[out_dir] = every_report(
            lambda report, params, label: _run(platform, report, params, out_dir, label)
        )
    return _cache[out_dir]
