"""One run at a time: a second run of a report or of run-all exits 5 at once, naming the holder."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from opslib.reports._process import descendants
from opslib.reports.locks import RUN_ALL, RunLock, RunLocked
from opslib.reports.runall import run_all

from .test_runner import opslib_cli

# What a second run refused by the lock must not import: pandas and what the client and a
# kernel bring (the package's import used to pull in the whole client).
HEAVY = frozenset({"pandas", "numpy", "pyarrow", "httpx", "papermill", "nbconvert", "nbformat"})


def _split_importtime(stderr: str) -> tuple[set[str], list[str]]:
    """``-X importtime`` output: the top-level packages imported, and the other lines."""
    imported: set[str] = set()
    lines = []
    for line in stderr.strip().splitlines():
        if line.startswith("import time:"):
            imported.add(line.rpartition("|")[2].strip().split(".")[0])
        else:
            lines.append(line)
    return imported, lines


def _wait_for_holder(path: Path, pid: int) -> dict[str, object]:
    """The lock's record once it names ``pid`` (the run has taken its lock)."""
    for _ in range(1200):
        try:
            record = json.loads(path.read_text() or "null")
        except (OSError, ValueError):
            record = None
        if record and record["pid"] == pid:
            return dict(record)
        time.sleep(0.05)
    raise AssertionError(f"{path} never named pid {pid}")


def test_two_runs_of_one_report_the_second_exits_5_naming_the_holder(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    out = tmp_path / "out"
    first = subprocess.Popen(
        [sys.executable, "-m", "opslib.cli", "report", "run", "quick", "-p", "sleep_s", "120",
         "--out", str(out)],
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        record = _wait_for_holder(out / ".locks" / "quick.lock", first.pid)
        assert record["host"] == socket.gethostname()
        assert record["run"] == "quick"
        t0 = time.monotonic()
        second = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "opslib.cli", "report", "run", "quick",
             "--out", str(out)],
            env={**os.environ, **env}, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        took = time.monotonic() - t0
        assert second.returncode == 5, second.stderr
        assert first.poll() is None  # the first still runs: the second did not wait for it
        imported, lines = _split_importtime(second.stderr)
        # "At once": the refusal imports nothing heavy (no figures in a unit test; the
        # wall time is in docs/performance.md).
        assert not HEAVY & imported, sorted(HEAVY & imported)
        assert "filelock" in imported  # the listing is read: the lock module is in it
        assert lines == [
            f"opslib report run: quick is already running: pid {first.pid} on host "
            f"{socket.gethostname()} since {record['started']} "
            f"(lock {out / '.locks' / 'quick.lock'}); nothing was run"
        ]
        print(f"\nthe second run exited 5 after {took:.2f} s (interpreter start included)")
    finally:
        tree = descendants(first.pid)
        first.send_signal(signal.SIGKILL)  # dies holding the lock, as a crashed run would
        for pid in tree:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        first.communicate()
    third = opslib_cli("report", "run", "quick", "--out", str(out), env_extra=env)
    assert third.returncode == 0, third.stderr
    assert (
        f"warning: took over the lock of quick ({out / '.locks' / 'quick.lock'}) from "
        f"pid {first.pid} on host {socket.gethostname()} since {record['started']}: "
        "that run is gone and left it behind"
    ) in third.stderr
    assert (out / ".locks" / "quick.lock").read_text() == ""  # released: no holder


def test_a_second_run_all_exits_5_and_a_held_report_is_skipped_with_cause_5(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    out = tmp_path / "out"
    config = tmp_path / "reports.toml"
    config.write_text('[[run]]\nreport = "quick"\n\n[[run]]\nreport = "quick"\nlabel = "b"\n')
    with RunLock(out, RUN_ALL):
        done = opslib_cli(
            "report", "run-all", "--config", str(config), "--out", str(out), env_extra=env
        )
        with pytest.raises(RunLocked, match=rf"^run-all is already running: pid {os.getpid()} "):
            run_all(config, out_dir=out, env=env)
    assert done.returncode == 5
    assert done.stderr.startswith(
        f"opslib report run-all: run-all is already running: pid {os.getpid()} on host "
    )
    assert not list(out.glob("quick/*"))  # nothing ran
    with RunLock(out, "quick/b"):  # a hand-run of one entry holds its report
        batch = run_all(config, out_dir=out, env=env)
    assert [(r.name, r.outcome, r.cause) for r in batch.results] == [
        ("quick", "ok", 0),
        ("quick/b", "skipped", 5),
    ]
    assert batch.results[1].reason.startswith(
        f"Not run: quick/b is already running: pid {os.getpid()} on host "
    )
    assert int(batch.cause) == 5


def test_a_refused_run_all_leaves_no_directory(tiny: Path, tmp_path: Path) -> None:
    config = tmp_path / "reports.toml"
    config.write_text('[[run]]\nreport = "quick"\nparameters = { nope = 1 }\n')
    done = opslib_cli("report", "run-all", "--config", str(config), "--out", str(tmp_path / "o"))
    assert done.returncode == 2
    assert not (tmp_path / "o").exists()
