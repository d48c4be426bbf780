"""Run one report: check its parameters, execute it with papermill, export HTML, write status.

Each run gets a directory ``<out>/<report>/<UTC time>[-<label>]/`` holding the executed
notebook, the HTML report, ``status.json`` and whatever the notebook exported there (it is
told the directory through its ``output_dir`` parameter).

papermill runs in a child process in a session of its own: a cell longer than
``cell_timeout`` fails that cell, and a run longer than ``run_timeout`` is stopped together
with its kernel. The connection to the platform comes from the environment (``--profile``
sets ``OPSLIB_PROFILE`` for the run), never from parameters, so no secret reaches the
notebook, the HTML or the status file.

The steps, one function each: :func:`check_before_run` (parameters, platform, role),
:func:`prepare_run` (values and the run directory),
:func:`~opslib.reports._process.start_worker` and
:func:`~opslib.reports._process.wait_or_stop` (the worker), :func:`~opslib.reports._outcome.judge`
(how it ended), :func:`finish_run` (HTML and ``status.json``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from opslib.reports._alerting import Alerting, after_run
from opslib.reports._describe import (
    describe_parameters,
    notebook_defaults,
    report_title,
    utc_text,
)
from opslib.reports._discovery import find_notebook
from opslib.reports._headline import notebook_headline
from opslib.reports._outcome import RunOutcome, judge
from opslib.reports._process import start_worker, wait_or_stop
from opslib.reports._rundir import (
    RunFiles,
    exported_files,
    new_run_dir,
    take_worker_result,
    write_job,
)
from opslib.reports.causes import cause_of
from opslib.reports.changes import COUNTED, changes_html, compare, previous_run
from opslib.reports.checks import (
    CheckedParameters,
    check_label,
    check_parameters,
    check_role,
    check_timeout,
    dialect_of,
    platform_filters,
)
from opslib.reports.export import export_html, plotly_js_file, problem_html
from opslib.reports.locks import RunLock
from opslib.reports.metrics import published
from opslib.reports.platform import DEMO_BANNER, Connection, Platform, start_connection
from opslib.reports.status import RUNNER_ENV, STATUS_FILE, RunResult, redact, write_status

__all__ = [
    "DEFAULT_CELL_TIMEOUT",
    "DEFAULT_RUN_TIMEOUT",
    "STATUS_FILE",
    "RunResult",
    "check_before_run",
    "finish_run",
    "prepare_run",
    "redact",
    "run_report",
]

DEFAULT_CELL_TIMEOUT = 600  # seconds one cell may take
DEFAULT_RUN_TIMEOUT = 1800  # seconds a whole report may take

logger = logging.getLogger("opslib.reports")


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
    sections: bool = False,
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
        kernel_name=kernel_name, sections=sections,
    )  # fmt: skip
    return files


def check_before_run(
    notebook: Path,
    parameters: Mapping[str, Any],
    *,
    connection: Connection | None,
    profile: str | None,
    demo: bool,
    env: Mapping[str, str] | None,
    base_dir: str | os.PathLike[str] | None,
    role: str = "",
) -> tuple[CheckedParameters, Connection]:
    """Everything checked before a kernel: the parameters (names, types, meanings: no
    process is started for a refusal), then the platform (unless ``connection`` was checked
    already) with the ids they name, then the role they need."""
    dialect = dialect_of(profile=profile, demo=demo, env=env)
    checked = check_parameters(notebook, parameters, base=base_dir, dialect=dialect)
    if connection is None:
        filters = platform_filters(checked.checks, checked.values).values()
        connection = start_connection(
            profile=profile, demo=demo, env=env, role=role, filters=list(filters)
        ).result()
    check_role(checked, connection.platform)
    return checked, connection


def _worker_env(connection: Connection) -> dict[str, str]:
    child = {**os.environ, **connection.env, RUNNER_ENV: "1"}
    child.setdefault("PYTHONUNBUFFERED", "1")
    return child


def _facts(result: RunResult, platform: Platform) -> dict[str, Any]:
    facts: dict[str, Any] = {"outcome": result.outcome}  # its reason heads the page
    facts["platform"] = platform.name
    facts["account"] = platform.account
    started = utc_text(result.started_at) if result.started_at else ""
    facts["started"] = started
    facts["duration"] = f"{result.duration_s:.1f} s"
    given = {**notebook_defaults(result.notebook), **result.parameters}
    facts["parameters"] = describe_parameters(given, started=started)
    return facts


def finish_run(
    result: RunResult, files: RunFiles, *, out_dir: Path, self_contained: bool = False
) -> RunResult:
    """Record the figures the report published and what changed since the previous run of
    the same parameters, export the HTML (when the notebook exists; the changes at its
    top), list the exports, write ``status.json``.

    plotly.js goes into ``out_dir`` once, shared by every report there, unless
    ``self_contained`` (then it is inside the HTML).
    """
    if files.notebook.exists():
        said = notebook_headline(files.notebook)
        result.metrics, result.sets = published(said)
        if said and said.get("sentence"):
            result.sentence = str(said["sentence"])
        if result.outcome in COUNTED and (result.metrics or result.sets):
            before = previous_run(out_dir, asdict(result))
            result.changes = compare(before, asdict(result)) if before else None
        platform = Platform.from_dict(result.platform)
        problem = ""
        if not result.ok:
            cell = result.failing_cell or {}
            problem = problem_html(
                result.outcome,
                section=str(cell.get("section", "")),
                error=result.error,
                reason=result.reason,
                traceback=(result.error or {}).get("traceback"),
            )
        plotly_src = None
        if not self_contained:
            shared = plotly_js_file(out_dir)
            plotly_src = Path(os.path.relpath(shared, files.run_dir)).as_posix()
        html = export_html(
            files.notebook,
            files.html,
            title=report_title(files.notebook, result.report),
            facts=_facts(result, platform),
            banner=DEMO_BANNER if platform.demo else "",
            problem=problem + changes_html(result.changes),
            plotly_src=plotly_src,
        )
        result.html = str(html)
    if not result.sentence:
        given = {**notebook_defaults(result.notebook), **result.parameters}
        result.sentence = describe_parameters(given, started=utc_text(result.started_at or ""))
    result.exports = exported_files(files)
    write_status(result)
    return result


def run_report(
    name: str | os.PathLike[str],
    parameters: Mapping[str, Any] | None = None,
    *,
    out_dir: str | os.PathLike[str] = "reports",
    profile: str | None = None,
    demo: bool = False,
    env: Mapping[str, str] | None = None,
    connection: Connection | None = None,
    label: str = "",
    cell_timeout: float = DEFAULT_CELL_TIMEOUT,
    run_timeout: float = DEFAULT_RUN_TIMEOUT,
    kernel_name: str | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    self_contained: bool = False,
    echo: Callable[[str], Any] | None = None,
    sections: bool = False,
    role: str = "",
    alerts: Alerting | None = None,
) -> RunResult:
    """Run one report unattended and keep its notebook, HTML and status.

    Everything that can be checked is checked before the kernel starts: parameter names,
    types and meanings (:mod:`opslib.reports.checks`), the platform (one login) and the
    role the parameters need. Unless given, ``interactive`` is False (no widgets) and
    ``output_dir`` is the run's directory.

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
    demo
        Run on the embedded demo platform (the report is marked DEMO DATA).
    role
        With ``demo``: the demo account to run as, ``ops`` (default) or ``admin`` (which
        ``product_upkeep``'s ``apply`` needs).
    env
        Extra environment variables for the run (e.g. ``OPSLIB_BASE_URL``).
    connection
        A platform already checked by :func:`~opslib.reports.platform.open_connection`
        (run-all checks once); then ``profile``, ``demo`` and ``env`` are not used.
    label
        Appended to the run directory's name (run-all uses it for parameter sets): A-Z
        a-z 0-9 _ . - only.
    cell_timeout, run_timeout
        Seconds one cell, and the whole run, may take.
    kernel_name
        The Jupyter kernel (default: the notebook's).
    base_dir
        The directory relative paths in parameters are resolved against (default: the
        current one).
    self_contained
        plotly.js inside the HTML (a single file of about 5 MB) instead of one
        ``plotly-<version>.min.js`` shared by the reports of ``out_dir``.
    echo
        Called with a line as the run starts (its name, platform and directory) and, with
        ``sections``, as each section (notebook heading) ends, with its duration.
    sections
        Report each section's end to ``echo`` (``--verbose``).
    alerts
        The alert rules (and default targets) evaluated after the run, while it still
        holds the report's lock (:mod:`opslib.reports._alerting`); the rules of other
        reports are left alone.

    Returns
    -------
    RunResult
        Also written to ``status.json``; ``outcome`` tells success.

    Raises
    ------
    ReportNotFound, UnknownParameterError, ParameterError, RoleRefused
        Before anything runs (exit status 2 on the command line); a timeout that is not
        a finite number of seconds above zero is a ``ParameterError`` too.
    PlatformNotConfigured
        No platform configured, or an unknown profile (exit status 2).
    PlatformUnavailable
        The platform does not answer or refuses the login (exit status 3).
    RunLocked
        Another run of this report (and label) holds its lock in ``out_dir`` (exit
        status 5); nothing was run. A lock left by a dead run is taken over with a warning.
    OutDirUnusable
        ``out_dir`` cannot be made or written (exit status 2); nothing was run.

    Examples
    --------
    >>> from opslib.reports import run_report
    >>> result = run_report("fleet_inventory", profile="prod")  # doctest: +SKIP
    >>> result.outcome, result.html  # doctest: +SKIP
    ('ok', 'reports/fleet_inventory/20240501T060000Z/fleet_inventory.html')
    """
    cell_timeout = check_timeout("cell_timeout", cell_timeout)
    run_timeout = check_timeout("run_timeout", run_timeout)
    label = check_label(label)
    notebook = find_notebook(name)
    out = Path(out_dir).resolve()
    created = not out.exists()
    # Before the checks, so that a second run stops at once rather than after a login.
    lock = RunLock(out, f"{notebook.stem}/{label}" if label else notebook.stem).acquire()
    if lock.warning():
        logger.warning(lock.warning())
    try:
        checked, connection = check_before_run(
            notebook, parameters or {}, connection=connection, profile=profile, demo=demo,
            env=env, base_dir=base_dir, role=role,
        )  # fmt: skip
    except BaseException:
        lock.release(remove=True)
        if created:  # a refused run leaves no directory
            with contextlib.suppress(OSError):
                out.rmdir()
        raise
    try:
        return _run_locked(
            notebook, checked, connection, out=out, label=label, cell_timeout=cell_timeout,
            run_timeout=run_timeout, kernel_name=kernel_name, self_contained=self_contained,
            echo=echo, sections=sections, alerts=alerts,
        )  # fmt: skip
    finally:
        lock.release()


class _SectionRelay:
    """Called while a run runs: each section the worker finished, as one line to ``echo``."""

    def __init__(self, path: Path, name: str, echo: Callable[[str], Any]) -> None:
        self.path, self.name, self.echo = path, name, echo
        self.offset = 0

    def __call__(self) -> None:
        try:
            with open(self.path, "rb") as file:
                file.seek(self.offset)
                chunk = file.read()
        except OSError:
            return
        complete = chunk[: chunk.rfind(b"\n") + 1]  # a line being written waits
        self.offset += len(complete)
        for line in complete.decode("utf-8").splitlines():
            item = json.loads(line)
            section = item["section"] or "(before the first heading)"
            self.echo(f"{self.name}: section {section!r} took {item['seconds']:.1f} s")


def _run_locked(
    notebook: Path,
    checked: CheckedParameters,
    connection: Connection,
    *,
    out: Path,
    label: str,
    cell_timeout: float,
    run_timeout: float,
    kernel_name: str | None,
    self_contained: bool,
    echo: Callable[[str], Any] | None,
    sections: bool,
    alerts: Alerting | None,
) -> RunResult:
    """The run itself, once checked and holding the report's lock."""
    values = checked.values
    started = _now()
    files = prepare_run(
        notebook, values, checked.declared, out_dir=out, started=started,
        label=label, cell_timeout=cell_timeout, kernel_name=kernel_name,
        sections=echo is not None and sections,
    )  # fmt: skip
    name = f"{notebook.stem}/{label}" if label else notebook.stem
    relay = _SectionRelay(files.progress, name, echo) if echo and sections else None
    if echo is not None:
        echo(f"{name}: started on {connection.platform.name} in {files.run_dir}")
    t0 = time.monotonic()
    proc = start_worker(files.job, _worker_env(connection), files.log)
    timed_out = wait_or_stop(proc, run_timeout, relay)
    duration = time.monotonic() - t0
    if relay is not None:
        relay()
    worker = take_worker_result(files)
    ended: RunOutcome = judge(
        files.notebook, worker, proc.returncode, timed_out=timed_out, run_timeout=run_timeout
    )
    result = RunResult(
        report=notebook.stem,
        notebook=str(notebook),
        parameters=redact(values),
        outcome=ended.outcome,
        started_at=started.isoformat(timespec="seconds"),
        finished_at=_now().isoformat(timespec="seconds"),
        duration_s=round(duration, 2),
        run_dir=str(files.run_dir),
        output_notebook=str(files.notebook) if files.notebook.exists() else "",
        failing_cell=ended.failing_cell,
        error=ended.error,
        profile=connection.platform.profile,
        label=label,
        reason=ended.reason,
        platform=connection.platform.to_dict(),
        cause=int(cause_of(ended.outcome, ended.error)),
    )
    finish_run(result, files, out_dir=out, self_contained=self_contained)
    after_run(result, alerts, out, profile=connection.platform.profile or None)
    return result
