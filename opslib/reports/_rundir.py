"""A run's directory: ``<out>/<report>/<UTC time>[-<label>]/`` and the files in it.

The runner writes the job for the worker (``.job.json``); the worker answers in
``.result.json``, papermill writes the executed notebook, the exporter the HTML, and the
notebook its own exports (it is told the directory through ``output_dir``).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opslib.reports._names import file_safe, report_name
from opslib.reports.status import STATUS_FILE, RunResult, redact, write_status

__all__ = [
    "RunFiles",
    "exported_files",
    "new_run_dir",
    "record_unrun",
    "take_worker_result",
    "write_job",
]

_LOG = "runner.log"


@dataclass(frozen=True)
class RunFiles:
    """The paths of one run."""

    run_dir: Path
    report: str

    @property
    def notebook(self) -> Path:
        """The executed notebook."""
        return self.run_dir / f"{self.report}.ipynb"

    @property
    def html(self) -> Path:
        return self.run_dir / f"{self.report}.html"

    @property
    def job(self) -> Path:
        return self.run_dir / ".job.json"

    @property
    def result(self) -> Path:
        return self.run_dir / ".result.json"

    @property
    def progress(self) -> Path:
        """The sections the worker finished, one JSON line each (``--verbose``)."""
        return self.run_dir / ".progress.jsonl"

    @property
    def log(self) -> Path:
        """The worker's output (papermill's and the kernel's start-up messages)."""
        return self.run_dir / _LOG


def new_run_dir(out_dir: Path, report: str, started: dt.datetime, label: str) -> Path:
    """Create ``<out>/<report>/<stamp>[-<label>]``, with ``-2``, ``-3``... if it exists."""
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    base = out_dir / report / (f"{stamp}-{label}" if label else stamp)
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    path.mkdir(parents=True)
    return path


def write_job(
    files: RunFiles,
    *,
    notebook: Path,
    parameters: dict[str, Any],
    cell_timeout: float,
    kernel_name: str | None,
    sections: bool = False,
) -> None:
    """The worker's job: which notebook, with which parameters, where, how long a cell,
    and (``sections``) where to append each section as it ends."""
    job = {
        "input": str(notebook),
        "output": str(files.notebook),
        "parameters": parameters,
        "cwd": str(files.run_dir),
        "cell_timeout": cell_timeout,
        "kernel_name": kernel_name,
        "result": str(files.result),
        "progress": str(files.progress) if sections else "",
    }
    files.job.write_text(json.dumps(job), encoding="utf-8")


def take_worker_result(files: RunFiles) -> dict[str, Any]:
    """The worker's answer (empty when it died before answering); removes the job files."""
    worker: dict[str, Any] = {}
    if files.result.exists():
        worker = json.loads(files.result.read_text(encoding="utf-8"))
        files.result.unlink()
    files.job.unlink(missing_ok=True)
    files.progress.unlink(missing_ok=True)
    return worker


def exported_files(files: RunFiles) -> list[str]:
    """What the notebook wrote into its directory (not the runner's own files)."""
    own = {STATUS_FILE, _LOG, files.job.name, files.result.name, files.progress.name}
    own |= {files.notebook.name, files.html.name}
    return sorted(str(p) for p in files.run_dir.iterdir() if p.is_file() and p.name not in own)


def record_unrun(
    out_dir: Path,
    report: str,
    *,
    label: str,
    parameters: Mapping[str, Any],
    outcome: str,
    reason: str,
    cause: int,
    error: dict[str, Any] | None = None,
    platform: Mapping[str, Any] | None = None,
) -> RunResult:
    """A run directory with only ``status.json``, for an entry that never ran its notebook
    (``skipped`` after the platform failed or while another run held its lock, or a Dask
    task that never returned); ``cause`` says why (:class:`~opslib.reports.causes.Cause`)."""
    now = dt.datetime.now(dt.UTC)
    name = file_safe(report_name(report)) or "unknown"
    run_dir = new_run_dir(out_dir, name, now, label)
    stamp = now.isoformat(timespec="seconds")
    result = RunResult(
        report=name,
        notebook="",
        parameters=redact(parameters),
        outcome=outcome,
        started_at=stamp,
        finished_at=stamp,
        duration_s=0.0,
        run_dir=str(run_dir),
        output_notebook="",
        error=error,
        profile=str((platform or {}).get("profile", "")),
        label=label,
        reason=reason,
        platform=dict(platform or {}),
        cause=int(cause),
    )
    write_status(result)
    return result
