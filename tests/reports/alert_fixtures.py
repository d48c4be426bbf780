"""Fixtures of the alert tests: a quick notebook whose headline figures come from a JSON file
the test writes (a run takes a few seconds, no platform read), and runs made of status
files alone for the logic."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import nbformat
import pytest

from opslib.reports._alerting import Alerting, after_run
from opslib.reports.changes import compare, previous_run
from opslib.reports.status import RunResult, write_status

from .conftest import KERNEL

PUBLISHES = {
    "metrics": {
        "quick.share": "%", "quick.count": "", "quick.hours": "h", "quick.devices": "",
        "quick.rate": "%", "quick.rate[*]": "%",
    },
    "sets": ["quick.devices"],
}  # fmt: skip


def write_metrics_notebook(path: Path) -> Path:
    """A report that shows, as its headline, the figures of the JSON file ``source``."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = KERNEL
    nb.metadata["opslib"] = {"publishes": PUBLISHES}
    params = nbformat.v4.new_code_cell('source: str = ""  # a JSON file of headline figures')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Metrics"),
        params,
        nbformat.v4.new_code_cell(
            "import json\nfrom IPython.display import display\n"
            "from opslib.reports._headline import HEADLINE_MIMETYPE\n\n"
            "figures = json.load(open(source)) if source else []\n"
            "display({HEADLINE_MIMETYPE: {'sentence': 'Figures from a file.', "
            "'figures': figures}, 'text/plain': 'figures'}, raw=True)"
        ),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def figures(
    share: float, *, devices: tuple[str, ...] = (), rates: dict[str, float] | None = None
) -> list[dict[str, Any]]:
    """Headline figures as a report shows them (``nb.headline``'s JSON)."""
    out: list[dict[str, Any]] = [
        {"key": "quick.share", "label": "share", "value": share, "unit": "%"},
        {
            "key": "quick.devices", "label": "silent devices", "value": len(devices), "unit": "",
            "members": {"ids": list(devices), "noun": "device", "joined": "went silent",
                        "left": "came back"},
        },
    ]  # fmt: skip
    if rates is not None:
        out.append({"key": "quick.rate", "label": "rate", "value": None, "unit": "%",
                    "parts": rates, "shown": False})  # fmt: skip
    return out


@pytest.fixture
def metrics_notebook(tiny_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """metrics.ipynb beside the tiny notebooks (OPSLIB_NOTEBOOKS)."""
    monkeypatch.setenv("OPSLIB_NOTEBOOKS", str(tiny_dir))
    return write_metrics_notebook(tiny_dir / "metrics.ipynb")


class FakeRuns:
    """Runs of report ``quick`` made of status files only: what the runner records after a
    run (metrics, sets, the changes since the previous run), then the alert evaluation."""

    def __init__(self, out: Path, alerting: Alerting | None = None) -> None:
        self.out, self.alerting = out, alerting
        self.clock = dt.datetime(2026, 11, 24, 6, tzinfo=dt.UTC)

    def run(
        self,
        metrics: dict[str, Any],
        sets: dict[str, Any] | None = None,
        *,
        outcome: str = "ok",
        parameters: dict[str, Any] | None = None,
        label: str = "",
    ) -> RunResult:
        self.clock += dt.timedelta(hours=1)
        run_dir = self.out / "quick" / f"{self.clock:%Y%m%dT%H%M%SZ}{'-' + label if label else ''}"
        run_dir.mkdir(parents=True)
        result = RunResult(
            report="quick", notebook="quick.ipynb", parameters=dict(parameters or {}),
            outcome=outcome, started_at=self.clock.isoformat(), finished_at="",
            duration_s=1.0, run_dir=str(run_dir), output_notebook="", label=label,
            metrics={k: {"value": v, "unit": "%" if "share" in k else "", "label": k}
                     for k, v in metrics.items()},
            sets={k: {"members": list(v), "noun": "device", "joined": "went silent",
                      "left": "came back", "label": k} for k, v in (sets or {}).items()},
        )  # fmt: skip
        before = previous_run(self.out, result.__dict__) if outcome in ("ok", "partial") else None
        result.changes = compare(before, result.__dict__) if before else None
        write_status(result)
        after_run(result, self.alerting, self.out, profile=None)
        return result
