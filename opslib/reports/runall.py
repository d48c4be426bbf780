"""Run a list of reports from a TOML file and keep an index.html of every run.

The file (``reports.toml`` at the repository root is the default)::

    out = "reports"        # where runs and index.html go (relative to the file)
    cell_timeout = 600     # seconds per cell
    run_timeout = 1800     # seconds per report

    [[run]]
    report = "fleet_inventory"

    [[run]]
    report = "event_analysis"
    label = "last-day"
    parameters = { start = "-1d", freq = "15min" }

Every entry's report and parameters are checked before any kernel starts (a refusal stops
the batch: nothing runs), then the platform, once. A report that fails is recorded and the
others still run; when the platform cannot be reached or refuses the login, the rest are
recorded as ``skipped``. ``index.html`` (:mod:`opslib.reports.index`) lists every run
found under ``out``, not only this batch.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opslib.dialects import Dialect
from opslib.reports._alerting import Alerting
from opslib.reports._discovery import ReportNotFound, find_notebook
from opslib.reports._names import report_name
from opslib.reports._rundir import record_unrun
from opslib.reports.alerts import load_rules
from opslib.reports.causes import PLATFORM_ERRORS, Cause, worst
from opslib.reports.checks import (
    CheckedParameters,
    RoleRefused,
    check_label,
    check_parameters,
    check_role,
    check_timeout,
    dialect_of,
    platform_filters,
)
from opslib.reports.execute import DEFAULT_CELL_TIMEOUT, DEFAULT_RUN_TIMEOUT, run_report
from opslib.reports.index import write_index
from opslib.reports.locks import RUN_ALL, RunLock, RunLocked
from opslib.reports.params import ParameterError
from opslib.reports.platform import (
    Connection,
    PlatformNotConfigured,
    PlatformUnavailable,
    open_connection,
    start_connection,
)
from opslib.reports.status import RunResult

__all__ = [
    "PLATFORM_ERRORS",
    "BatchResult",
    "ConfigFileError",
    "RunSpec",
    "check_specs",
    "load_config",
    "run_all",
    "run_spec",
    "write_index",
]

logger = logging.getLogger("opslib.reports")
_CONFIG_KEYS = {"out", "cell_timeout", "run_timeout", "run", "alerts"}
_RUN_KEYS = {"report", "label", "parameters", "alerts"}


class ConfigFileError(ValueError):
    """The run-all file is malformed; the message names the entry and the key."""


@dataclass(frozen=True)
class RunSpec:
    """One entry of the run-all file."""

    report: str
    parameters: dict[str, Any] = field(default_factory=dict)
    label: str = ""


@dataclass
class BatchResult:
    """The runs of one run-all and the index written after them.

    ``stopped`` is the one line saying why the batch stopped early (the platform failed).
    """

    results: list[RunResult]
    index: Path
    stopped: str = ""

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def cause(self) -> Cause:
        """The most severe cause among the runs (:func:`~opslib.reports.causes.worst`)."""
        return worst(r.cause for r in self.results)


def load_config(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[RunSpec]]:
    """Read a run-all file: its settings (``out``, timeouts) and its runs.

    Raises
    ------
    ConfigFileError
        Naming the entry and the key that is wrong.
    """
    file = Path(path)
    try:
        doc = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigFileError(f"cannot read {file}: {exc}") from None
    unknown = sorted(set(doc) - _CONFIG_KEYS)
    if unknown:
        raise ConfigFileError(f"{file}: unknown keys {unknown}; allowed: {sorted(_CONFIG_KEYS)}")
    runs = doc.get("run", [])
    if not isinstance(runs, list) or not runs:
        raise ConfigFileError(f"{file}: needs at least one [[run]] table")
    specs: list[RunSpec] = []
    for n, entry in enumerate(runs, start=1):
        bad = sorted(set(entry) - _RUN_KEYS)
        if bad:
            raise ConfigFileError(
                f"{file}: run {n} has unknown keys {bad}; allowed: {sorted(_RUN_KEYS)}"
            )
        if not isinstance(entry.get("report"), str) or not entry["report"]:
            raise ConfigFileError(f'{file}: run {n} needs report = "<name>"')
        params = entry.get("parameters", {})
        if not isinstance(params, dict):
            raise ConfigFileError(f"{file}: run {n}: parameters must be a table")
        try:
            label = check_label(str(entry.get("label", "")))
        except ParameterError as exc:
            raise ConfigFileError(f"{file}: run {n}: {exc}") from None
        spec = RunSpec(entry["report"], dict(params), label)
        twin = next((i for i, s in enumerate(specs, 1) if _same_entry(s, spec)), None)
        if twin is not None:  # one index line, one alert state, one lock: they would mix
            raise ConfigFileError(
                f"{file}: run {n} ({_name(spec)}) has the report and label of run {twin}; "
                "give each a label of its own"
            )
        specs.append(spec)
    settings = {k: v for k, v in doc.items() if k not in ("run", "alerts")}
    for key in ("cell_timeout", "run_timeout"):
        if key in settings:
            try:
                settings[key] = check_timeout(key, settings[key])
            except ParameterError as exc:
                raise ConfigFileError(f"{file}: {exc}") from None
    if "out" in settings:
        settings["out"] = str((file.parent / str(settings["out"])).resolve())
    return settings, specs


def check_specs(
    config: Path, specs: list[RunSpec], *, dialect: Dialect | None = None
) -> list[tuple[RunSpec, Path, CheckedParameters]]:
    """Every entry's report and parameters, checked before any runs (paths against the file,
    labels by the platform's ``dialect``).

    Raises
    ------
    ConfigFileError
        One line naming the entry and what was refused.
    """
    checked = []
    for n, spec in enumerate(specs, start=1):
        try:
            notebook = find_notebook(spec.report)
            checked.append(
                (
                    spec,
                    notebook,
                    check_parameters(
                        notebook, spec.parameters, base=config.parent, dialect=dialect
                    ),
                )
            )
        except (ReportNotFound, ParameterError) as exc:
            raise ConfigFileError(f"{config}: run {n} ({_name(spec)}): {exc}") from None
    return checked


def _entry_of(exc: Exception, checked: list[tuple[RunSpec, Path, CheckedParameters]]) -> str:
    """``run N (name): `` of the first entry whose parameters the refusal quotes."""
    for n, (spec, _, params) in enumerate(checked, start=1):
        if any(f"{name!r} = {value!r}" in str(exc) for name, value in params.values.items()):
            return f"run {n} ({_name(spec)}): "
    return ""


def _same_entry(a: RunSpec, b: RunSpec) -> bool:
    """Two entries that would share one run directory name, index line and alert state."""
    return report_name(a.report) == report_name(b.report) and a.label == b.label


def _name(spec: RunSpec) -> str:
    return f"{spec.report}/{spec.label}" if spec.label else spec.report


def run_spec(
    spec: RunSpec,
    *,
    out_dir: Path,
    connection: Connection,
    base_dir: Path | None = None,
    cell_timeout: float = DEFAULT_CELL_TIMEOUT,
    run_timeout: float = DEFAULT_RUN_TIMEOUT,
    echo: Callable[[str], Any] | None = None,
    sections: bool = False,
    alerts: Alerting | None = None,
) -> RunResult:
    """Run one entry of a run-all file on a checked platform (``echo`` and ``sections``:
    progress lines, ``alerts``: the rules evaluated after it, as
    :func:`~opslib.reports.execute.run_report`).

    Examples
    --------
    >>> run_spec(RunSpec("fleet_inventory"), out_dir=Path("reports"),
    ...          connection=open_connection(profile="prod")).outcome  # doctest: +SKIP
    'ok'
    """
    try:
        return run_report(
            spec.report,
            spec.parameters,
            out_dir=out_dir,
            connection=connection,
            label=spec.label,
            cell_timeout=cell_timeout,
            run_timeout=run_timeout,
            base_dir=base_dir,
            echo=echo,
            sections=sections,
            alerts=alerts,
        )
    except RunLocked as exc:  # another run of this entry is under way: not run
        return record_unrun(
            out_dir,
            spec.report,
            label=spec.label,
            parameters=spec.parameters,
            outcome="skipped",
            reason=f"Not run: {exc}.",
            cause=Cause.LOCKED,
            platform=connection.platform.to_dict(),
        )


def _skip(specs: list[RunSpec], out: Path, why: str, platform: dict[str, Any]) -> list[RunResult]:
    return [
        record_unrun(
            out,
            spec.report,
            label=spec.label,
            parameters=spec.parameters,
            outcome="skipped",
            reason=f"Not run: {why}.",
            cause=Cause.PLATFORM,
            platform=platform,
        )
        for spec in specs
    ]


def run_all(
    config: str | os.PathLike[str],
    *,
    out_dir: str | os.PathLike[str] | None = None,
    profile: str | None = None,
    demo: bool = False,
    env: Mapping[str, str] | None = None,
    progress: Callable[[RunResult], Any] | None = None,
    executor: Callable[..., list[RunResult]] | None = None,
    echo: Callable[[str], Any] | None = None,
    sections: bool = False,
    notify_urls: tuple[str, ...] = (),
) -> BatchResult:
    """Run every report of a run-all file, carrying on past failed reports; refresh index.html.

    The file's alert rules (``[[alerts]]`` and each entry's ``[[run.alerts]]``) and the
    profile's are checked with the entries, before any kernel starts, and evaluated after
    each run (:mod:`opslib.reports.alerts`); a rule without targets of its own tells
    ``notify_urls`` (the ``[notify]`` targets).

    Before any kernel starts, every entry's parameters are checked and the platform is
    checked once (one login). When the platform cannot be reached or refuses the login,
    before or during the batch, the remaining entries are recorded as ``skipped`` and
    ``BatchResult.stopped`` says why in one line.

    Parameters
    ----------
    config
        The TOML file; relative paths in it (``out``, path parameters) are relative to it.
    out_dir
        Overrides the file's ``out``.
    profile, demo, env
        The platform (see :func:`~opslib.reports.platform.open_connection`).
    progress
        Called with each :class:`RunResult` as it finishes (e.g. to print a line).
    echo, sections
        Called with a line as each report starts and, with ``sections``, as each of its
        sections ends (:func:`~opslib.reports.execute.run_report`).
    executor
        Runs the entries elsewhere: ``executor(run, specs, progress)`` calls
        ``run(spec)`` for each and returns the results in the file's order (e.g.
        :class:`opslib.reports.distributed.DaskExecutor`). None: one after another here.

    Raises
    ------
    ConfigFileError
        The file, an entry's report or parameter, or the role an entry needs is refused.
    AlertConfigError
        An alert rule of the file or the profile is refused.
    PlatformNotConfigured
        No platform configured, or an unknown profile.
    RunLocked
        Another run-all holds the lock of the output directory (exit status 5). An entry
        whose report another run holds is recorded ``skipped`` with cause 5.

    Examples
    --------
    >>> batch = run_all("reports.toml", profile="prod")  # doctest: +SKIP
    >>> batch.ok, batch.index  # doctest: +SKIP
    (True, PosixPath('reports/index.html'))
    """
    file = Path(config).resolve()
    settings, specs = load_config(file)
    out = Path(out_dir or settings.get("out") or "reports").resolve()
    created = not out.exists()
    lock = RunLock(out, RUN_ALL).acquire()  # before the checks: a second batch stops at once
    if lock.warning():
        logger.warning(lock.warning())
    try:
        alerts = Alerting(tuple(load_rules(profile, run_all_file=file)), tuple(notify_urls))
        batch = _run_batch(
            file, settings, specs, out=out, profile=profile, demo=demo, env=env,
            progress=progress, executor=executor, echo=echo, sections=sections, alerts=alerts,
        )  # fmt: skip
    except BaseException:
        lock.release(remove=True)
        if created:  # a refused run leaves no directory
            with contextlib.suppress(OSError):
                out.rmdir()
        raise
    lock.release()
    return batch


def _run_batch(
    file: Path,
    settings: dict[str, Any],
    specs: list[RunSpec],
    *,
    out: Path,
    profile: str | None,
    demo: bool,
    env: Mapping[str, str] | None,
    progress: Callable[[RunResult], Any] | None,
    executor: Callable[..., list[RunResult]] | None,
    echo: Callable[[str], Any] | None,
    sections: bool,
    alerts: Alerting,
) -> BatchResult:
    """run_all's work, holding the run-all lock of ``out``."""
    # The entries first (no process is started for a refusal), then the platform, once,
    # with every id an entry names.
    checked = check_specs(file, specs, dialect=dialect_of(profile=profile, demo=demo, env=env))
    filters = [
        item
        for _, _, params in checked
        for item in platform_filters(params.checks, params.values).values()
    ]
    pending = start_connection(profile=profile, demo=demo, env=env, filters=filters)
    try:
        connection = pending.result()
    except ParameterError as exc:
        raise ConfigFileError(f"{file}: {_entry_of(exc, checked)}{exc}") from None
    except PlatformUnavailable as exc:
        out.mkdir(parents=True, exist_ok=True)
        skipped = _skip(specs, out, str(exc), {})
        _report(progress, skipped)
        return BatchResult(skipped, write_index(out), stopped=str(exc))
    for n, (spec, _, params) in enumerate(checked, start=1):
        try:
            check_role(params, connection.platform)
        except RoleRefused as exc:
            raise ConfigFileError(f"{file}: run {n} ({_name(spec)}): {exc}") from None
    out.mkdir(parents=True, exist_ok=True)
    run = functools.partial(
        run_spec,
        out_dir=out,
        connection=connection,
        base_dir=file.parent,
        cell_timeout=float(settings.get("cell_timeout", DEFAULT_CELL_TIMEOUT)),
        run_timeout=float(settings.get("run_timeout", DEFAULT_RUN_TIMEOUT)),
        echo=echo,
        sections=sections,
        alerts=alerts,
    )
    if executor is not None:
        return BatchResult(executor(run, specs, progress), write_index(out))
    results: list[RunResult] = []
    stopped = ""
    for i, spec in enumerate(specs):
        result = run(spec)
        results.append(result)
        _report(progress, [result])
        stopped = _platform_lost(result, profile=profile, demo=demo, env=env)
        if stopped:
            rest = _skip(specs[i + 1 :], out, stopped, connection.platform.to_dict())
            _report(progress, rest)
            results.extend(rest)
            break
    return BatchResult(results, write_index(out), stopped=stopped)


def _report(progress: Callable[[RunResult], Any] | None, results: list[RunResult]) -> None:
    if progress is not None:
        for result in results:
            progress(result)


def _platform_lost(
    result: RunResult, *, profile: str | None, demo: bool, env: Mapping[str, str] | None
) -> str:
    """Why the platform is gone, when a report failed on it and a new check fails too."""
    ename = str((result.error or {}).get("ename", ""))
    if result.ok or ename not in PLATFORM_ERRORS:
        return ""
    try:
        open_connection(profile=profile, demo=demo, env=env)
    except (PlatformUnavailable, PlatformNotConfigured) as exc:
        return str(exc)
    return ""
