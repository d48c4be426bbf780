"""The worker process of a run: start it in a session of its own, wait, stop it with its tree.

The worker (:mod:`opslib.reports._worker`) runs papermill, which starts the kernel in a
session of its own; stopping a run therefore kills the worker's process group and every
process below the worker (found through Linux ``/proc``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["TICK", "descendants", "start_worker", "stop_tree", "wait_or_stop"]

TICK = 0.5  # seconds between looks at a run's progress while it runs


def start_worker(job: Path, env: Mapping[str, str], log: Path) -> subprocess.Popen[bytes]:
    """Start ``python -m opslib.reports._worker JOB`` in a new session, output to ``log``."""
    with open(log, "wb") as out:
        return subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-m", "opslib.reports._worker", str(job)],
            env=dict(env),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


def wait_or_stop(
    proc: subprocess.Popen[bytes], timeout: float, tick: Callable[[], Any] | None = None
) -> bool:
    """Wait for the worker; past ``timeout`` seconds stop it with its tree. True: timed out.

    ``tick`` is called every :data:`TICK` seconds while waiting (to relay progress).
    An interruption (Ctrl-C) stops the tree too, then propagates.
    """
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            try:
                proc.wait(max(0.0, min(left, TICK)) if tick else max(0.0, left))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline:
                    raise
                if tick:
                    tick()
    except subprocess.TimeoutExpired:
        stop_tree(proc)
        return True
    except BaseException:
        stop_tree(proc)
        raise
    return False


def descendants(pid: int) -> list[int]:
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


def stop_tree(proc: subprocess.Popen[bytes]) -> None:
    """Kill the worker and everything it started (the kernel runs in a session of its own).

    SIGKILL, not SIGTERM: a worker shutting down gracefully would let papermill rewrite the
    notebook, while the copy saved when the cell started shows which cell was running.
    """
    tree = descendants(proc.pid)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    for pid in tree:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    proc.wait()
