"""Run one report: check its parameters, execute it with papermill, export HTML, write status.

Each run gets a directory ``<out>/<report>/<UTC time>[-<label>]/`` holding the executed
notebook, the HTML report, ``status.json`` and whatever the notebook exported there (it is
told the directory through its ``output_dir`` parameter).

papermill runs in a child process in a session of its own: a cell longer than
``cell_timeout`` fails that cell, and a run longer than ``run_timeout`` is stopped together
with its kernel. The connection to the platform comes from the environment (``--profile``
sets ``OPSLIB_PROFILE`` for the run), never from parameters, so no secret reaches the
notebook, the HTML or the status file.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from opslib.reports._discovery import find_notebook
from opslib.reports.export import export_html
from opslib.reports.params import inspect_report, validate_parameters

__all__ = [
    "DEFAULT_CELL_TIMEOUT",
    "DEFAULT_RUN_TIMEOUT",
    "RunResult",
    "redact",
    "run_report",
]

DEFAULT_CELL_TIMEOUT = 600  # seconds one cell may take
DEFAULT_RUN_TIMEOUT = 1800  # seconds a whole report may take
STATUS_FILE = "status.json"
_SECRET_NAME = re.compile(r"secret|password|passwd|token|credential|api_?key", re.IGNORECASE)
_OWN_FILES = {STATUS_FILE, ".job.json", ".result.json", "runner.log"}


@dataclass
class RunResult:
    """What a run did; written as ``status.json`` in its directory.

    ``outcome`` is ``ok``, ``failed`` or ``timeout``. ``failing_cell`` (index, execution
    count and the start of its source) and ``error`` (name, value, last traceback lines)
    are set when it did not succeed.
    """

    report: str
    notebook: str
    parameters: dict[str, Any]
    outcome: str
    started_at: str
    finished_at: str
    duration_s: float
    run_dir: str
    output_notebook: str
    html: str = ""
    exports: list[str] = field(default_factory=list)
    failing_cell: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    profile: str = ""
    label: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, default=str)

    def summary(self) -> str:
        """One paragraph for stderr: where it failed and why."""
        if self.ok:
            return f"{self.report}: ok in {self.duration_s:.1f} s -> {self.html}"
        lines = [f"{self.report}: {self.outcome} after {self.duration_s:.1f} s"]
        if self.failing_cell:
            cell = self.failing_cell
            lines.append(
                f"  failing cell: #{cell.get('index')} (In [{cell.get('execution_count')}])"
            )
            source = str(cell.get("source", "")).strip()
            if source:
                lines.extend("    | " + line for line in source.splitlines()[:8])
        if self.error:
            lines.append(f"  error: {self.error.get('ename')}: {self.error.get('evalue')}")
        lines.append(f"  report: {self.html or self.output_notebook}")
        return "\n".join(lines)


def redact(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters safe to show: secret-looking names hidden, phone numbers masked.

    Examples
    --------
    >>> redact({"phone": "5550000001", "api_token": "x", "days": 7})
    {'phone': '555*****01', 'api_token': '***', 'days': 7}
    """
    from opslib.analysis.users import mask_phone

    out: dict[str, Any] = {}
    for name, value in parameters.items():
        if _SECRET_NAME.search(name):
            out[name] = "***"
        elif "phone" in name.lower():
            out[name] = mask_phone(value)
        else:
            out[name] = value
    return out


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _new_run_dir(out_dir: Path, report: str, started: dt.datetime, label: str) -> Path:
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    base = out_dir / report / (f"{stamp}-{label}" if label else stamp)
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    path.mkdir(parents=True)
    return path


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux /proc); empty where /proc is not there."""
    children: dict[int, list[int]] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _stop_tree(proc: subprocess.Popen[bytes]) -> None:
    """Kill the worker and everything it started (the kernel runs in a session of its own).

    SIGKILL, not SIGTERM: a worker shutting down gracefully would let papermill rewrite the
    notebook, while the copy saved when the cell started shows which cell was running.
    """
    tree = _descendants(proc.pid)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    for pid in tree:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    proc.wait()


def _failing_cell(notebook: Path) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The first cell papermill marked failed (or left running), and its error output."""
    import nbformat

    if not notebook.exists():
        return None, None
    nb = nbformat.read(os.fspath(notebook), as_version=4)
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        status = cell.get("metadata", {}).get("papermill", {}).get("status")
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if status in ("failed", "running") or errors:
            info = {
                "index": index,
                "execution_count": cell.get("execution_count"),
                "source": "\n".join(str(cell.get("source", "")).splitlines()[:20]),
                "status": status or "failed",
            }
            error = None
            if errors:
                tb = [
                    re.sub(r"\x1b\[[0-9;]*m", "", line) for line in errors[0].get("traceback", [])
                ]
                error = {
                    "ename": errors[0].get("ename"),
                    "evalue": errors[0].get("evalue"),
                    "traceback": tb[-6:],
                }
            return info, error
    return None, None


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
    report = notebook.stem
    declared = inspect_report(notebook)
    values = validate_parameters(declared, dict(parameters or {}))
    if "interactive" in declared:
        values.setdefault("interactive", False)
    started = _now()
    run_dir = _new_run_dir(Path(out_dir).resolve(), report, started, label)
    if "output_dir" in declared and not values.get("output_dir"):
        values["output_dir"] = str(run_dir)
    output = run_dir / f"{report}.ipynb"
    result_path = run_dir / ".result.json"
    job = {
        "input": str(notebook),
        "output": str(output),
        "parameters": values,
        "cwd": str(run_dir),
        "cell_timeout": cell_timeout,
        "kernel_name": kernel_name,
        "result": str(result_path),
    }
    job_path = run_dir / ".job.json"
    job_path.write_text(json.dumps(job), encoding="utf-8")
    child_env = {**os.environ, **(env or {})}
    if profile:
        child_env["OPSLIB_PROFILE"] = profile
    child_env.setdefault("PYTHONUNBUFFERED", "1")
    t0 = time.monotonic()
    with open(run_dir / "runner.log", "wb") as log:
        proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-m", "opslib.reports._worker", str(job_path)],
            env=child_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        timed_out = False
        try:
            proc.wait(run_timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _stop_tree(proc)
        except BaseException:
            _stop_tree(proc)
            raise
    duration = time.monotonic() - t0
    worker: dict[str, Any] = {}
    if result_path.exists():
        worker = json.loads(result_path.read_text(encoding="utf-8"))
        result_path.unlink()
    job_path.unlink(missing_ok=True)
    failing, error = _failing_cell(output)
    if timed_out:
        outcome = "timeout"
        error = {"ename": "RunTimeout", "evalue": f"the run took longer than {run_timeout:g} s"}
    elif proc.returncode == 0 and worker.get("ok"):
        outcome, failing, error = "ok", None, None
    else:
        outcome = "failed"
        if error is None or "cell_index" not in worker:
            # Not an exception raised by a cell (a cell timeout, a dead kernel...): the
            # worker's error says what happened; the cell's output only how it ended.
            error = {
                **(error or {}),
                "ename": worker.get("ename", "WorkerError"),
                "evalue": worker.get("evalue", f"the runner's worker exited {proc.returncode}"),
            }
    shown = redact(values)
    result = RunResult(
        report=report,
        notebook=str(notebook),
        parameters=shown,
        outcome=outcome,
        started_at=started.isoformat(timespec="seconds"),
        finished_at=_now().isoformat(timespec="seconds"),
        duration_s=round(duration, 2),
        run_dir=str(run_dir),
        output_notebook=str(output) if output.exists() else "",
        failing_cell=failing,
        error=error,
        profile=profile or "",
        label=label,
    )
    if output.exists():
        facts = {
            "outcome": outcome,
            "started": result.started_at,
            "duration": f"{result.duration_s:.1f} s",
            **{f"parameter {k}": v for k, v in shown.items() if k != "output_dir"},
        }
        if failing:
            facts["failing cell"] = f"#{failing['index']} (In [{failing['execution_count']}])"
        html_path = export_html(output, run_dir / f"{report}.html", title=report, facts=facts)
        result.html = str(html_path)
    result.exports = sorted(
        str(p)
        for p in run_dir.iterdir()
        if p.is_file() and p.name not in _OWN_FILES and p not in (output, Path(result.html))
    )
    (run_dir / STATUS_FILE).write_text(result.to_json(), encoding="utf-8")
    return result
