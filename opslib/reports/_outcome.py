"""How a run ended, read from the worker's answer and the executed notebook."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Verdict", "failing_cell", "judge"]


@dataclass(frozen=True)
class Verdict:
    """The outcome of a run, and where and why it did not succeed."""

    outcome: str
    failing_cell: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


def failing_cell(notebook: Path) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
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


def judge(
    notebook: Path,
    worker: dict[str, Any],
    returncode: int | None,
    *,
    timed_out: bool,
    run_timeout: float,
) -> Verdict:
    """``ok``, ``failed`` or ``timeout``, with the failing cell and the error when not ok."""
    failing, error = failing_cell(notebook)
    if timed_out:
        error = {"ename": "RunTimeout", "evalue": f"the run took longer than {run_timeout:g} s"}
        return Verdict("timeout", failing, error)
    if returncode == 0 and worker.get("ok"):
        return Verdict("ok")
    if error is None or "cell_index" not in worker:
        # Not an exception raised by a cell (a cell timeout, a dead kernel...): the
        # worker's error says what happened; the cell's output only how it ended.
        error = {
            **(error or {}),
            "ename": worker.get("ename", "WorkerError"),
            "evalue": worker.get("evalue", f"the runner's worker exited {returncode}"),
        }
    return Verdict("failed", failing, error)
