"""The runs under a reports directory: each run directory and its ``status.json``
(index.html, pruning and the comparison of runs read them)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opslib.reports.platform import Platform
from opslib.reports.status import STATUS_FILE

__all__ = ["Run", "load_runs"]


@dataclass(frozen=True)
class Run:
    """One run directory and its status."""

    run_dir: Path
    status: dict[str, Any]

    @property
    def key(self) -> tuple[str, str]:
        """The report and its label: the runs of one key are one report's history."""
        return str(self.status.get("report", "")), str(self.status.get("label") or "")

    @property
    def name(self) -> str:
        report, label = self.key
        return f"{report}/{label}" if label else report

    @property
    def started(self) -> str:
        return str(self.status.get("started_at") or "")

    @property
    def platform(self) -> Platform | None:
        data = self.status.get("platform")
        return Platform.from_dict(data) if data else None


def load_runs(out_dir: str | os.PathLike[str]) -> list[Run]:
    """Every run under ``out_dir`` that has a readable status.json, newest first."""
    runs = []
    for path in Path(out_dir).glob(f"*/*/{STATUS_FILE}"):
        try:
            status = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(status, dict):
            runs.append(Run(path.parent, status))
    return sorted(runs, key=lambda r: (r.started, str(r.run_dir)), reverse=True)
