"""Run one report: check its parameters, execute it with papermill, export HTML, write status.

Each run gets a directory ``<out>/<report>/<UTC time>[-<label>]/`` holding the executed
notebook, the HTML report, ``status.json`` and whatever the notebook exported there (it is
told the directory through its ``output_dir`` parameter).

papermill runs in a child process in a session of its own: a cell longer than
``cell_timeout`` fails that cell, and a run longer than ``run_timeout`` is stopped together
with its kernel. The connection to the platform comes from the environment (``--profile``
sets ``OPSLIB_PROFILE`` for the run), never from parameters, so no secret reaches the
notebook, the HTML or the status file.

The steps, one function each: :func:`prepare_run` (values and the run directory),
:func:`~opslib.reports._process.start_worker` and
:func:`~opslib.reports._process.wait_or_stop` (the worker), :func:`~opslib.reports._outcome.judge`
(how it ended), :func:`finish_run` (HTML and ``status.json``).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from opslib.reports._discovery import find_notebook
from opslib.reports._outcome import Verdict, judge
from opslib.reports._process import start_worker, wait_or_stop
from opslib.reports._rundir import (
    RunFiles,
    exported_files,
    new_run_dir,
    take_worker_result,
    write_job,
)
from opslib.reports.export import export_html
from opslib.reports.params import inspect_report, validate_parameters
from opslib.reports.status import STATUS_FILE, RunResult, redact, write_status

__all__ = [
    "DEFAULT_CELL_TIMEOUT",
    "DEFAULT_RUN_TIMEOUT",
    "STATUS_FILE",
    "RunResult",
    "finish_run",
    "prepare_run",
    "redact",
    "run_report",
]

DEFAULT_CELL_TIMEOUT = 600  # seconds one cell may take
DEFAULT_RUN_TIMEOUT = 1800  # seconds a whole report may take


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def prepare_run(
    notebook: Path,
    values: dict[str, Any],
    declared: Mapping[str, Any],
    *,
    out_dir: Path,
    started: dt.datetime,
    label: str,
    cell_timeout: float,
    kernel_name: str | None,
) -> RunFiles:
    """Create the run directory and write the worker's job; fills the runner's parameters.

    Unless given, ``interactive`` is False (no widgets) and ``output_dir`` is the run's
    directory.
    """
    if "interactive" in declared:
        values.setdefault("interactive", False)
    files = RunFiles(new_run_dir(out_dir, notebook.stem, started, label), notebook.stem)
    if "output_dir" in declared and not values.get("output_dir"):
        values["output_dir"] = str(files.run_dir)
    write_job(
        files, notebook=notebook, parameters=values, cell_timeout=cell_timeout,
        kernel_name=kernel_name,
    )  # fmt: skip
    return files


def _worker_env(env: Mapping[str, str] | None, profile: str | None) -> dict[str, str]:
    child = {**os.environ, **(env or {})}
    if profile:
        child["OPSLIB_PROFILE"] = profile
    child.setdefault("PYTHONUNBUFFERED", "1")
    return child


def finish_run(result: RunResult, files: RunFiles) -> RunResult:
    """Export the HTML (when the notebook exists), list the exports, write ``status.json``."""
    if files.notebook.exists():
        facts = {
            "outcome": result.outcome,
            "started": result.started_at,
            "duration": f"{result.duration_s:.1f} s",
            **{f"parameter {k}": v for k, v in result.parameters.items() if k != "output_dir"},
        }
        cell = result.failing_cell
        if cell:
            facts["failing cell"] = f"#{cell['index']} (In [{cell['execution_count']}])"
        html = export_html(files.notebook, files.html, title=result.report, facts=facts)
        result.html = str(html)
    result.exports = exported_files(files)
    write_status(result)
    return result


def run_report(
    name: str | os.PathLike[str],
    parameters: Mapping[str, Any] | None = None,
    *,
    out_dir: str | os.PathLike[str] = "reports",
    profile: str | None = None,
    label: str = "",
    cell_timeout: float = DEFAULT_CELL_TIMEOUT,
    run_timeout: float = DEFAULT_RUN_TIMEOUT,
    env: Mapping[str, str] | None = None,
    kernel_name: str | None = None,
) -> RunResult:
    """Run one report unattended and keep its notebook, HTML and status.

    Parameters are checked against the notebook before anything runs. Unless given,
    ``interactive`` is False (no widgets) and ``output_dir`` is the run's directory.

    Parameters
    ----------
    name
        A report name (``fleet_inventory``) or a notebook path.
    parameters
        Values by parameter name; strings are coerced to the declared types.
    out_dir
        Where run directories are created.
    profile
        A connection profile of the opslib config file (sets ``OPSLIB_PROFILE``).
    label
        Appended to the run directory's name (run-all uses it for parameter sets).
    cell_timeout, run_timeout
        Seconds one cell, and the whole run, may take.
    env
        Extra environment variables for the run (e.g. ``OPSLIB_BASE_URL``).
    kernel_name
        The Jupyter kernel (default: the notebook's).

    Returns
    -------
    RunResult
        Also written to ``status.json``; ``outcome`` tells success.

    Raises
    ------
    ReportNotFound, UnknownParameterError, ParameterError
        Before anything runs.

    Examples
    --------
    >>> from opslib.reports import run_report
    >>> result = run_report("fleet_inventory", {"silent_days": "14"})  # doctest: +SKIP
    >>> result.outcome, result.html  # doctest: +SKIP
    ('ok', 'reports/fleet_inventory/20240501T060000Z/fleet_inventory.html')
    """
    notebook = find_notebook(name)
    declared = inspect_report(notebook)
    values = validate_parameters(declared, dict(parameters or {}))
    started = _now()
    files = prepare_run(
        notebook, values, declared, out_dir=Path(out_dir).resolve(), started=started,
        label=label, cell_timeout=cell_timeout, kernel_name=kernel_name,
    )  # fmt: skip
    t0 = time.monotonic()
    proc = start_worker(files.job, _worker_env(env, profile), files.log)
    timed_out = wait_or_stop(proc, run_timeout)
    duration = time.monotonic() - t0
    worker = take_worker_result(files)
    verdict: Verdict = judge(
        files.notebook, worker, proc.returncode, timed_out=timed_out, run_timeout=run_timeout
    )
    result = RunResult(
        report=notebook.stem,
        notebook=str(notebook),
        parameters=redact(values),
        outcome=verdict.outcome,
        started_at=started.isoformat(timespec="seconds"),
        finished_at=_now().isoformat(timespec="seconds"),
        duration_s=round(duration, 2),
        run_dir=str(files.run_dir),
        output_notebook=str(files.notebook) if files.notebook.exists() else "",
        failing_cell=verdict.failing_cell,
        error=verdict.error,
        profile=profile or "",
        label=label,
    )
    return finish_run(result, files)
