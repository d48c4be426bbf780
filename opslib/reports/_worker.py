"""Execute one notebook with papermill, in a process of its own (``python -m``).

The runner starts this module as a child process in a new session, so that a whole-run
timeout can stop it together with its kernel. It reads a job (JSON file given as the only
argument), runs papermill, and writes the outcome as JSON next to the job. When the job
names a ``progress`` file, each section (notebook heading) that ends is appended to it as
a JSON line, which the runner relays (``--verbose``).

On POSIX the kernel talks over Unix sockets in a private temporary directory rather than
TCP: jupyter_client picks free TCP ports by binding and releasing them, so runs started
together can pick the same port and one kernel dies at start ("Address already in use").
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any


def _kernel_manager_class(socket_dir: str) -> Any:
    """An AsyncKernelManager whose kernels listen on Unix sockets under ``socket_dir``."""
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class IpcKernelManager(AsyncKernelManager):
        @default("transport")
        def _default_transport(self) -> str:
            return "ipc"

        @default("ip")
        def _default_ip(self) -> str:
            return os.path.join(socket_dir, "kernel")

    return IpcKernelManager


def _section_engine(progress: str) -> str:
    """Register papermill's nbclient engine under ``opslib-sections``, appending one JSON
    line to ``progress`` as each section (notebook heading) ends: its name and seconds."""
    import time

    from papermill.engines import NBClientEngine, papermill_engines

    from opslib.reports._outcome import section_of

    def write(section: str, seconds: float) -> None:
        with open(progress, "a", encoding="utf-8") as out:
            out.write(json.dumps({"section": section, "seconds": round(seconds, 2)}) + "\n")

    class SectionEngine(NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man: Any, kernel_name: Any, **kwargs: Any) -> Any:
            current: list[Any] = []  # [section, its start] once a cell has started
            cell_start = nb_man.cell_start

            def start(cell: Any, cell_index: Any = None, **kw: Any) -> Any:
                section = section_of(nb_man.nb.cells, cell_index or 0)
                if not current or current[0] != section:
                    if current:
                        write(current[0], time.monotonic() - current[1])
                    current[:] = [section, time.monotonic()]
                return cell_start(cell, cell_index, **kw)

            nb_man.cell_start = start
            try:
                return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)
            finally:
                if current:
                    write(current[0], time.monotonic() - current[1])

    papermill_engines.register("opslib-sections", SectionEngine)
    return "opslib-sections"


def run(job: dict[str, Any]) -> dict[str, Any]:
    """Run papermill for a job; return the outcome (never raises for a notebook error)."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    extra: dict[str, Any] = {}
    socket_dir = ""
    if os.name == "posix":
        # Short on purpose: a Unix socket path is limited to about 100 characters.
        socket_dir = tempfile.mkdtemp(prefix="opslib-k-")
        extra["kernel_manager_class"] = _kernel_manager_class(socket_dir)
    if job.get("progress"):
        extra["engine_name"] = _section_engine(job["progress"])
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
            **extra,
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
    finally:
        if socket_dir:
            shutil.rmtree(socket_dir, ignore_errors=True)
    return {"ok": True}


def main(argv: list[str]) -> int:
    job_path = Path(argv[1])
    job = json.loads(job_path.read_text(encoding="utf-8"))
    outcome = run(job)
    Path(job["result"]).write_text(json.dumps(outcome), encoding="utf-8")
    return 0 if outcome["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
