"""Running the four reports against a test platform, shared by tests/reports and tests/browser.

Runs are subprocesses (papermill in a worker, each with its kernel), so they run a few at a
time; results are cached per output directory so that the notebook tests and the browser
tests reuse the same runs.
"""

from __future__ import annotations

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


def run_every_report(platform: Any, out_dir: Path) -> dict[tuple[str, str], RunResult]:
    """Each report in both modes, against ``platform``; once per ``out_dir``."""
    if out_dir in _cache:
        return _cache[out_dir]
    env = platform_env(platform)
    jobs = [(report, mode) for report in REPORTS for mode in MODES]

    def one(job: tuple[str, str]) -> RunResult:
        report, mode = job
        return run_report(
            report,
            parameters(report, mode),
            out_dir=out_dir,
            label=mode,
            env=env,
            cell_timeout=CELL_TIMEOUT,
            run_timeout=RUN_TIMEOUT,
        )

    with ThreadPoolExecutor(PARALLEL_RUNS) as pool:
        results = dict(zip(jobs, pool.map(one, jobs), strict=True))
    _cache[out_dir] = results
    return results
