"""Execute one notebook with papermill, in a process of its own (``python -m``).

The runner starts this module as a child process in a new session, so that a whole-run
timeout can stop it together with its kernel. It reads a job (JSON file given as the only
argument), runs papermill, and writes the outcome as JSON next to the job.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def run(job: dict[str, Any]) -> dict[str, Any]:
    """Run papermill for a job; return the outcome (never raises for a notebook error)."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    try:
        papermill.execute_notebook(
            job["input"],
            job["output"],
            parameters=job["parameters"],
            kernel_name=job.get("kernel_name"),
            cwd=job["cwd"],
            progress_bar=False,
            log_output=False,
            request_save_on_cell_execute=True,
            execution_timeout=job["cell_timeout"],
            start_timeout=job.get("start_timeout", 60),
        )
    except PapermillExecutionError as exc:
        return {
            "ok": False,
            "cell_index": exc.cell_index,
            "execution_count": exc.exec_count,
            "ename": exc.ename,
            "evalue": exc.evalue,
        }
    except BaseException as exc:  # every failure is reported, not raised
        return {"ok": False, "ename": type(exc).__name__, "evalue": str(exc)}
    return {"ok": True}


def main(argv: list[str]) -> int:
    job_path = Path(argv[1])
    job = json.loads(job_path.read_text(encoding="utf-8"))
    outcome = run(job)
    Path(job["result"]).write_text(json.dumps(outcome), encoding="utf-8")
    return 0 if outcome["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
