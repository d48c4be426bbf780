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

A run that fails, or whose parameters are refused, is recorded and the others still run.
``index.html`` lists every run found under ``out`` (newest first), not only this batch.
"""

from __future__ import annotations

import datetime as dt
import functools
import html
import json
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opslib.reports._discovery import ReportNotFound
from opslib.reports.execute import (
    DEFAULT_CELL_TIMEOUT,
    DEFAULT_RUN_TIMEOUT,
    STATUS_FILE,
    RunResult,
    _new_run_dir,
    redact,
    run_report,
)
from opslib.reports.params import ParameterError

__all__ = ["BatchResult", "RunSpec", "load_config", "run_all", "run_spec", "write_index"]

INDEX_FILE = "index.html"
# The index runs no script at all (every cell is escaped text; the policy makes sure).
INDEX_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
_CONFIG_KEYS = {"out", "cell_timeout", "run_timeout", "run"}
_RUN_KEYS = {"report", "label", "parameters"}


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
    """The runs of one run-all and the index written after them."""

    results: list[RunResult]
    index: Path

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)


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
    specs = []
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
        label = str(entry.get("label", ""))
        if label and not re.fullmatch(r"[A-Za-z0-9_.-]+", label):
            raise ConfigFileError(f"{file}: run {n}: label may hold only A-Z a-z 0-9 _ . -")
        specs.append(RunSpec(entry["report"], dict(params), label))
    settings = {k: v for k, v in doc.items() if k != "run"}
    if "out" in settings:
        settings["out"] = str((file.parent / str(settings["out"])).resolve())
    return settings, specs


def _refused(spec: RunSpec, out_dir: Path, error: Exception, profile: str | None) -> RunResult:
    """Record a run whose report or parameters were refused before it started."""
    now = dt.datetime.now(dt.UTC)
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(spec.report).stem) or "unknown"
    run_dir = _new_run_dir(out_dir, name, now, spec.label)
    result = RunResult(
        report=name,
        notebook="",
        parameters=redact(spec.parameters),
        outcome="refused",
        started_at=now.isoformat(timespec="seconds"),
        finished_at=now.isoformat(timespec="seconds"),
        duration_s=0.0,
        run_dir=str(run_dir),
        output_notebook="",
        error={"ename": type(error).__name__, "evalue": str(error)},
        profile=profile or "",
        label=spec.label,
    )
    (run_dir / STATUS_FILE).write_text(result.to_json(), encoding="utf-8")
    return result


def run_spec(
    spec: RunSpec,
    *,
    out_dir: Path,
    profile: str | None = None,
    env: Mapping[str, str] | None = None,
    cell_timeout: float = DEFAULT_CELL_TIMEOUT,
    run_timeout: float = DEFAULT_RUN_TIMEOUT,
) -> RunResult:
    """Run one entry of a run-all file; a refused report or parameter is recorded, not raised.

    Examples
    --------
    >>> run_spec(RunSpec("fleet_inventory"), out_dir=Path("reports")).outcome  # doctest: +SKIP
    'ok'
    """
    try:
        return run_report(
            spec.report,
            spec.parameters,
            out_dir=out_dir,
            profile=profile,
            label=spec.label,
            cell_timeout=cell_timeout,
            run_timeout=run_timeout,
            env=env,
        )
    except (ReportNotFound, ParameterError) as exc:
        return _refused(spec, out_dir, exc, profile)


def run_all(
    config: str | os.PathLike[str],
    *,
    out_dir: str | os.PathLike[str] | None = None,
    profile: str | None = None,
    env: Mapping[str, str] | None = None,
    progress: Any = None,
    executor: Callable[..., list[RunResult]] | None = None,
) -> BatchResult:
    """Run every report of a run-all file, carrying on past failures; refresh index.html.

    Parameters
    ----------
    config
        The TOML file.
    out_dir
        Overrides the file's ``out``.
    profile
        Connection profile for every run.
    env
        Extra environment for every run.
    progress
        Called with each :class:`RunResult` as it finishes (e.g. to print a line).
    executor
        Runs the entries elsewhere: ``executor(run, specs, progress)`` calls
        ``run(spec)`` for each and returns the results in the file's order (e.g.
        :class:`opslib.reports.distributed.DaskExecutor`). None: one after another here.

    Examples
    --------
    >>> batch = run_all("reports.toml")  # doctest: +SKIP
    >>> batch.ok, batch.index  # doctest: +SKIP
    (True, PosixPath('reports/index.html'))
    """
    settings, specs = load_config(config)
    out = Path(out_dir or settings.get("out") or "reports").resolve()
    out.mkdir(parents=True, exist_ok=True)
    run = functools.partial(
        run_spec,
        out_dir=out,
        profile=profile,
        env=env,
        cell_timeout=float(settings.get("cell_timeout", DEFAULT_CELL_TIMEOUT)),
        run_timeout=float(settings.get("run_timeout", DEFAULT_RUN_TIMEOUT)),
    )
    if executor is not None:
        return BatchResult(executor(run, specs, progress), write_index(out))
    results = []
    for spec in specs:
        result = run(spec)
        results.append(result)
        if progress is not None:
            progress(result)
    return BatchResult(results, write_index(out))


def _load_statuses(out: Path) -> list[dict[str, Any]]:
    runs = []
    for path in out.glob(f"*/*/{STATUS_FILE}"):
        try:
            status = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        status["_dir"] = path.parent
        runs.append(status)
    return sorted(runs, key=lambda s: (s.get("started_at", ""), str(s["_dir"])), reverse=True)


def _cell(text: Any) -> str:
    return html.escape("" if text is None else str(text))


def write_index(out_dir: str | os.PathLike[str]) -> Path:
    """Write ``index.html`` listing every run under ``out_dir``, newest first.

    Examples
    --------
    >>> write_index("reports")  # doctest: +SKIP
    PosixPath('reports/index.html')
    """
    out = Path(out_dir)
    rows = []
    for status in _load_statuses(out):
        run_dir: Path = status["_dir"]
        params = {k: v for k, v in (status.get("parameters") or {}).items() if k != "output_dir"}
        shown = ", ".join(f"{k}={v!r}" for k, v in params.items()) or "defaults"
        outcome = str(status.get("outcome", "?"))
        link = ""
        if status.get("html"):
            rel = os.path.relpath(status["html"], out)
            link = f'<a href="{html.escape(rel)}">report</a>'
        rel_status = os.path.relpath(run_dir / STATUS_FILE, out)
        link += f' <a href="{html.escape(rel_status)}">status</a>'
        error = status.get("error") or {}
        detail = f"{error.get('ename', '')}: {error.get('evalue', '')}" if error else ""
        cell = status.get("failing_cell") or {}
        if cell:
            detail = f"cell #{cell.get('index')} (In [{cell.get('execution_count')}]) {detail}"
        rows.append(
            f'<tr class="{_cell(outcome)}"><td>{_cell(status.get("report"))}</td>'
            f"<td>{_cell(status.get('label'))}</td><td><code>{_cell(shown)}</code></td>"
            f"<td>{_cell(outcome)}</td><td>{_cell(status.get('started_at'))}</td>"
            f"<td>{float(status.get('duration_s', 0)):.1f} s</td><td>{link}</td>"
            f"<td>{_cell(detail)}</td></tr>"
        )
    generated = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{INDEX_POLICY}">
<title>opslib reports</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 24px; }}
table {{ border-collapse: collapse; width: 100%; font-size: 14px; }}
th, td {{ text-align: left; padding: 4px 8px; border-bottom: 1px solid #e0e0e0;
  vertical-align: top; }}
tr.failed td, tr.timeout td, tr.refused td {{ background: #fdecea; }}
tr.ok td:nth-child(4) {{ color: #1b5e20; }}
code {{ font-size: 12px; }}
</style></head>
<body><h1>opslib reports</h1>
<p>{len(rows)} runs, newest first. Generated {generated}.</p>
<table><thead><tr><th>report</th><th>label</th><th>parameters</th><th>status</th>
<th>started (UTC)</th><th>duration</th><th>links</th><th>error</th></tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody></table></body></html>
"""
    index = out / INDEX_FILE
    tmp = index.with_suffix(".html.tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(index)
    return index
