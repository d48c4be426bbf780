"""How a run ended, read from the worker's answer and the executed notebook.

Outcomes, from best to worst: ``ok``; ``partial`` (every cell ran, but the report says part
of its work failed, e.g. some writes of an apply); ``failed`` (a cell raised, the kernel
died, or the report says its main read came back empty); ``timeout``. A notebook says
``partial`` or ``failed`` with :func:`opslib.reports.notebook.declare_outcome`. Every
outcome but ``ok`` carries a one-sentence ``reason`` naming the section (the notebook's
heading above the cell) where it happened.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opslib.reports.status import OUTCOME_MIMETYPE

__all__ = ["RunOutcome", "declared_outcomes", "failing_cell", "judge", "section_of"]

_SEVERITY = {"ok": 0, "partial": 1, "failed": 2}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


@dataclass(frozen=True)
class RunOutcome:
    """The outcome of a run, and where and why it did not succeed."""

    outcome: str
    failing_cell: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    reason: str = ""


def _read(notebook: Path) -> Any:
    import nbformat

    if not notebook.exists():
        return None
    return nbformat.read(os.fspath(notebook), as_version=4)


def section_of(cells: list[Any], index: int) -> str:
    """The last Markdown heading at or above cell ``index`` (the report's title if none)."""
    for cell in reversed(cells[: index + 1]):
        if cell.get("cell_type") == "markdown":
            found = _HEADING.findall(str(cell.get("source", "")))
            if found:
                return str(found[-1]).strip()
    return ""


def failing_cell(nb: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The first cell papermill marked failed (or left running), and its error output."""
    if nb is None:
        return None, None
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        status = cell.get("metadata", {}).get("papermill", {}).get("status")
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if status in ("failed", "running") or errors:
            info = {
                "index": index,
                "execution_count": cell.get("execution_count"),
                "section": section_of(nb.cells, index),
                "source": "\n".join(str(cell.get("source", "")).splitlines()[:20]),
                "status": status or "failed",
            }
            error = None
            if errors:
                error = {
                    "ename": errors[0].get("ename"),
                    "evalue": errors[0].get("evalue"),
                    "traceback": [_ANSI.sub("", line) for line in errors[0].get("traceback", [])][
                        -6:
                    ],
                }
            return info, error
    return None, None


def declared_outcomes(nb: Any) -> list[dict[str, Any]]:
    """What the notebook said of itself: ``outcome``, ``reason``, ``section`` and ``cell``
    (the cell that said it, as in :func:`failing_cell`) each."""
    found: list[dict[str, Any]] = []
    if nb is None:
        return found
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            data = (output.get("data") or {}).get(OUTCOME_MIMETYPE)
            if isinstance(data, dict) and data.get("outcome") in ("partial", "failed"):
                section = section_of(nb.cells, index)
                cell_info = {
                    "index": index,
                    "execution_count": cell.get("execution_count"),
                    "section": section,
                    "source": "\n".join(str(cell.get("source", "")).splitlines()[:20]),
                    "status": "declared",
                }
                found.append(
                    {
                        "outcome": str(data["outcome"]),
                        "reason": str(data.get("reason", "")),
                        "section": section,
                        "cell": cell_info,
                    }
                )
    return found


def _in(section: str) -> str:
    return f"in section '{section}'" if section else "before the first section"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _first_line(text: Any, limit: int = 300) -> str:
    line = str(text or "").strip().splitlines()[0] if str(text or "").strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def judge(
    notebook: Path,
    worker: dict[str, Any],
    returncode: int | None,
    *,
    timed_out: bool,
    run_timeout: float,
) -> RunOutcome:
    """The outcome with its failing cell, error and one-sentence reason."""
    nb = _read(notebook)
    failing, error = failing_cell(nb)
    section = _in(str((failing or {}).get("section", "")))
    if timed_out:
        error = {"ename": "RunTimeout", "evalue": f"the run took longer than {run_timeout:g} s"}
        reason = f"The run took longer than {run_timeout:g} s and was stopped {section}."
        return RunOutcome("timeout", failing, error, reason)
    if returncode == 0 and worker.get("ok"):
        declared = declared_outcomes(nb)
        if not declared:
            return RunOutcome("ok")
        worst = max(declared, key=lambda d: _SEVERITY[d["outcome"]])
        reason = " ".join(
            f"{_sentence(_in(d['section']))}: {d['reason'].rstrip('.')}." for d in declared
        )
        return RunOutcome(worst["outcome"], worst["cell"], None, reason)
    if error is None or "cell_index" not in worker:
        # Not an exception raised by a cell (a cell timeout, a dead kernel...): the
        # worker's error says what happened; the cell's output only how it ended.
        error = {
            **(error or {}),
            "ename": worker.get("ename", "WorkerError"),
            "evalue": worker.get("evalue", f"the runner's worker exited {returncode}"),
        }
    what = f"{error['ename']}: {_first_line(error['evalue'])}".rstrip(": ")
    return RunOutcome("failed", failing, error, f"The report failed {section}: {what}.")
