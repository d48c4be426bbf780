"""Case 5: the event_analysis report over the benchmark's 30 days (1M events), end to end.

Runs ``opslib report run event_analysis -p start ... -p end ... --out DIR`` as a user would,
connected to the benchmark platform through the environment (``OPSLIB_BASE_URL`` and the
demo ops account), and splits the wall time into phases from the executed notebook's
papermill cell times (no change to the notebook):

- ``startup_s``: the command, the runner's worker, papermill and the kernel starting, up to
  the first cell;
- ``setup_s``: the cells before the data is read (imports, plotly, login);
- ``fetch_s``: the cell that reads the events (``nb.load_events`` for the period and the
  period before it, and the filter panel over them);
- ``analysis_s``: every later cell (summaries, charts, tables);
- ``export_s``: from the last cell's end to the command's exit (saving the notebook, the
  HTML export, status.json).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from opslib.server import demo

REPORT = "event_analysis"
FETCH_MARK = "load_events"  # the source of the notebook cell that reads the events


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _moment(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def phases(notebook: dict[str, Any], started: float, ended: float) -> dict[str, float]:
    """Seconds per phase from papermill's cell times (see the module docstring)."""
    cells = [
        c
        for c in notebook["cells"]
        if c.get("cell_type") == "code"
        and c.get("metadata", {}).get("papermill", {}).get("start_time")
    ]
    times = [
        (
            _moment(c["metadata"]["papermill"]["start_time"]),
            _moment(c["metadata"]["papermill"]["end_time"]),
            "".join(c.get("source", "")),
        )
        for c in cells
    ]
    fetch = next(i for i, (_, _, source) in enumerate(times) if FETCH_MARK in source)
    return {
        "startup_s": round(times[0][0] - started, 2),
        "setup_s": round(times[fetch][0] - times[0][0], 2),
        "fetch_s": round(times[fetch][1] - times[fetch][0], 2),
        "analysis_s": round(times[-1][1] - times[fetch][1], 2),
        "export_s": round(ended - times[-1][1], 2),
        "total_s": round(ended - started, 2),
    }


def run_once(base: str, window: dict[str, int]) -> dict[str, Any]:
    out = Path(tempfile.mkdtemp(prefix="opslib-bench-report-"))
    try:
        env = {
            **os.environ,
            "OPSLIB_BASE_URL": base,
            "OPSLIB_CLIENT_ID": demo.CLIENT_ID,
            "OPSLIB_CLIENT_SECRET": demo.CLIENT_SECRET,
            "OPSLIB_AREA_CODE": demo.AREA_CODE,
            "OPSLIB_PHONE": demo.OPS_PHONE,
            "OPSLIB_PASSWORD": demo.OPS_PASSWORD,
            "OPSLIB_CONFIG": str(out / "no-config.toml"),  # not the user's profiles
            "OPSLIB_TOKEN_CACHE": str(out / "tokens.json"),  # nor their tokens
        }
        cmd = [sys.executable, "-m", "opslib.cli", "report", "run", REPORT]
        cmd += ["-p", "start", _iso(window["start"]), "-p", "end", _iso(window["end"])]
        cmd += ["--out", str(out)]
        started = time.time()
        subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
        ended = time.time()
        (status_path,) = out.glob(f"{REPORT}/*/status.json")
        status = json.loads(status_path.read_text())
        notebook = json.loads(Path(status["output_notebook"]).read_text())
        html = Path(status["html"])
        return {
            "outcome": status["outcome"],
            "runner_duration_s": status["duration_s"],
            "html_mb": round(html.stat().st_size / 2**20, 1),
            **phases(notebook, started, ended),
        }
    finally:
        shutil.rmtree(out, ignore_errors=True)


def run_report(base: str, window: dict[str, int], repeat: int) -> dict[str, Any]:
    """The report ``repeat`` times; medians of every phase."""
    runs = [run_once(base, window) for _ in range(repeat)]
    keys = ["startup_s", "setup_s", "fetch_s", "analysis_s", "export_s", "total_s"]
    summary: dict[str, Any] = {"case": REPORT, "runs": runs}
    for key in keys:
        summary[key] = round(statistics.median(r[key] for r in runs), 2)
    summary["outcome"] = ",".join(sorted({r["outcome"] for r in runs}))
    summary["html_mb"] = runs[0]["html_mb"]
    return summary
