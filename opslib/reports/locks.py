"""One run at a time: a lock per report (and one for run-all) in the reports directory.

A lock is a file under ``<reports>/.locks/`` locked with ``flock`` through `filelock`_:
the kernel (or, on a shared NFS directory, its lock manager) releases it when the holder
dies, so Dask workers and a timer on other hosts exclude each other through the shared
path, not through memory. While held, the file names its holder (pid, host, start time);
a run that finds it held stops at once with :class:`RunLocked` naming the holder (exit
status 5). A holder that died leaves its record behind: the next run takes the lock over
and says so in a warning.

.. _filelock: https://py-filelock.readthedocs.io/
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import socket
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from opslib.reports._names import file_safe

__all__ = ["LOCK_DIR", "RUN_ALL", "Holder", "OutDirUnusable", "RunLock", "RunLocked"]

LOCK_DIR = ".locks"
RUN_ALL = "run-all"  # the lock name of a run-all batch
# A winner writes its record right after taking the lock: a loser that reads too soon
# finds it empty, so it looks again for this long before naming no holder.
RECORD_WAIT = 0.5


class OutDirUnusable(ValueError):
    """The reports directory cannot be made or written; nothing was run."""


class RunLocked(Exception):
    """Another run holds the lock; the message is one line naming the holder."""

    def __init__(self, message: str, holder: Holder | None) -> None:
        super().__init__(message)
        self.holder = holder


@dataclass(frozen=True)
class Holder:
    """Who holds a lock: the run, its process, its host and when it started."""

    run: str
    pid: int
    host: str
    started: str

    def describe(self) -> str:
        """``pid 123 on host ops1 since 2026-05-01T06:00:00+00:00``."""
        return f"pid {self.pid} on host {self.host} since {self.started}"


def _read(path: Path) -> Holder | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "null")
        return Holder(str(data["run"]), int(data["pid"]), str(data["host"]), str(data["started"]))
    except (OSError, ValueError, TypeError, KeyError):
        return None


class RunLock:
    """The lock of one report (``report`` or ``report/label``) or of run-all in ``out_dir``.

    Parameters
    ----------
    out_dir
        The reports directory (shared by every host that runs reports into it).
    name
        The run: ``fleet_inventory``, ``event_analysis/last-day`` or :data:`RUN_ALL`.

    Examples
    --------
    >>> with RunLock(Path("reports"), "fleet_inventory") as lock:  # doctest: +SKIP
    ...     ...  # run the report; a second run raises RunLocked meanwhile
    """

    def __init__(self, out_dir: Path, name: str) -> None:
        self.name = name
        slug = file_safe(name.replace("/", "--"))
        self.out_dir = Path(out_dir)
        self.path = self.out_dir / LOCK_DIR / f"{slug}.lock"
        self.taken_over: Holder | None = None
        self._lock: Any = None

    def acquire(self) -> RunLock:
        """Take the lock at once or raise :class:`RunLocked`; ``taken_over`` names a dead
        holder whose record was left behind. :class:`OutDirUnusable` when the reports
        directory cannot be made or written."""
        from filelock import FileLock, Timeout

        lock = FileLock(self.path, timeout=0)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock.acquire()
        except Timeout:  # an OSError too: first
            holder = self._holder_after_wait()
            who = holder.describe() if holder else "a run whose record is not written yet"
            message = f"{self.name} is already running: {who} (lock {self.path})"
            raise RunLocked(message, holder) from None
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise OutDirUnusable(
                f"reports directory {self.out_dir}: cannot write there: {reason}"
            ) from None
        self._lock = lock
        self.taken_over = _read(self.path)
        me = Holder(
            run=self.name,
            pid=os.getpid(),
            host=socket.gethostname(),
            started=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        )
        self._write(json.dumps(asdict(me)))
        return self

    def release(self, *, remove: bool = False) -> None:
        """Clear the record and release the lock. The file stays, unless ``remove`` (a
        refused run leaves nothing behind): then it goes, and the lock directory if empty.
        A contender that opened the file before it went sees it unlinked and starts over
        (filelock checks the link count of the file it locked)."""
        if self._lock is None:
            return
        with contextlib.suppress(OSError):
            self._write("")
        if remove:
            with contextlib.suppress(OSError):
                self.path.unlink()
        self._lock.release()
        self._lock = None
        if remove:
            with contextlib.suppress(OSError):
                self.path.parent.rmdir()

    def warning(self) -> str:
        """One line when the lock was taken over from a dead holder, else ``""``."""
        if self.taken_over is None:
            return ""
        return (
            f"warning: took over the lock of {self.name} ({self.path}) from "
            f"{self.taken_over.describe()}: that run is gone and left it behind"
        )

    def _write(self, text: str) -> None:
        fd = os.open(self.path, os.O_WRONLY)
        try:
            os.ftruncate(fd, 0)
            os.write(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)

    def _holder_after_wait(self) -> Holder | None:
        deadline = time.monotonic() + RECORD_WAIT
        holder = _read(self.path)
        while holder is None and time.monotonic() < deadline:
            time.sleep(0.05)
            holder = _read(self.path)
        return holder

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
