"""Running the four reports against a test platform, shared by tests/reports and tests/browser.

Runs are subprocesses (papermill in a worker, each with its kernel), made when a test first
reads them (``EveryReport``), one at a time in a worker: the other workers keep the other
cores busy, and a platform checks only two passwords at once (each run logs in twice). A
run against the shared platform is made once per pytest run (``shared_run``, behind the
``report_run`` and ``report_runs`` fixtures of tests/conftest.py): every xdist worker reads
the same result. Runs against a platform of a test module's own (``run_every_report``) are
kept per output directory.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from opslib.reports import RunResult, run_report

REPORTS = ("fleet_inventory", "event_analysis", "product_upkeep", "user_lookup")
MODES = ("unattended", "interactive")
# Figures each report draws in either mode.
FIGURES = {"fleet_inventory": 5, "event_analysis": 7, "product_upkeep": 1, "user_lookup": 2}
# The demo user of the seed (about ten devices and their events).
USER_LOOKUP = {"area_code": "1", "phone": "5550000003"}
CELL_TIMEOUT = 120
RUN_TIMEOUT = 240
RESULT = "result.json"  # a shared run's RunResult, in its run_once directory

_cache: dict[Path, EveryReport] = {}


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
    run_once: Callable[..., Path | None],
    platform: Any,
    out: Path,
    report: str,
    params: Mapping[str, Any] | None = None,
    label: str = "",
    wait: bool = True,
) -> RunResult | None:
    """``report`` run with ``params`` against ``platform`` into ``out``, once per pytest
    run (``run_once``): the first worker to ask runs it, the others read its result (or,
    ``wait=False``, get None while it runs)."""
    given = dict(params or {})
    identity = json.dumps([report, given, label, str(out)], sort_keys=True, default=str)
    digest = hashlib.sha256(identity.encode()).hexdigest()[:12]
    key = f"run-{report}-{label or 'nolabel'}-{digest}"

    def build(directory: Path) -> None:
        result = _run(platform, report, given, out, label)
        (directory / RESULT).write_text(result.to_json(), encoding="utf-8")

    built = run_once(key, build, wait)
    if built is None:
        return None
    return RunResult(**json.loads((built / RESULT).read_text(encoding="utf-8")))


class EveryReport(Mapping[tuple[str, str], RunResult]):
    """Each report in both modes, by ``(report, mode)``, each run on first use.

    A test waits only for the runs it reads (its duration shows them, not a set-up of all
    eight); iterating (``values()``, ``items()``) makes every run. ``run(report,
    parameters, label, wait)`` makes one; it may return None when ``wait`` is False and
    another worker is making that run: this worker then makes one nobody has started.
    """

    def __init__(self, run: Callable[[str, dict[str, Any], str, bool], RunResult | None]) -> None:
        self._run = run
        self._done: dict[tuple[str, str], RunResult] = {}
        self._keys = [(report, mode) for report in REPORTS for mode in MODES]

    def _try(self, key: tuple[str, str], wait: bool) -> bool:
        if key not in self._done:
            report, mode = key
            result = self._run(report, parameters(report, mode), mode, wait)
            if result is None:
                return False
            self._done[key] = result
        return True

    def __getitem__(self, key: tuple[str, str]) -> RunResult:
        if key not in self._keys:
            raise KeyError(key)
        while not self._try(key, wait=False):
            # Another worker makes it: make one nobody has started meanwhile, else wait.
            others = (k for k in self._keys if k not in self._done and k != key)
            if not any(self._try(other, wait=False) for other in others):
                self._try(key, wait=True)
        return self._done[key]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


def run_every_report(platform: Any, out_dir: Path) -> EveryReport:
    """Each report in both modes, against ``platform``; once per ``out_dir`` (per process)."""
    if out_dir not in _cache:
        _cache[out_dir] = EveryReport(
            lambda report, params, label, wait: _run(platform, report, params, out_dir, label)
        )
    return _cache[out_dir]
