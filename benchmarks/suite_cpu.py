"""Where a command's CPU goes, by kind of process: run it, sample every process's CPU.

    .venv/bin/python -m benchmarks.suite_cpu .venv/bin/pytest -m "not slow" -n 3 --dist loadfile

Every ``SAMPLE_S`` seconds it reads ``/proc/<pid>/stat`` of every process on the machine
(Linux) and keeps each process's latest user + system time; at the end it prints the total
by kind (report kernels, their papermill workers, platform checks, Chromium, ...). A
process that lives less than a sample may be missed, and what the machine's other
processes spend meanwhile counts as their kind too: run it on an otherwise idle machine.
"""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import time

SAMPLE_S = 0.25
TICK = os.sysconf("SC_CLK_TCK")
KINDS = [  # the first whose text is in the command line names the kind
    ("report kernel", "ipykernel_launcher"),
    ("papermill worker", "opslib.reports._worker"),
    ("platform check", "opslib.reports._preflight"),
    ("chromium", "chromium"),
    ("playwright driver", "node"),
    ("jupyter lab", "jupyter"),
    ("opslib command", "bin/opslib"),
    ("opslib command", "-m opslib"),
    ("pytest main", "bin/pytest"),
    ("other python (xdist workers, servers)", "python"),
]


def kind(command: str) -> str:
    return next((name for name, text in KINDS if text in command), "other")


def sample(seen: dict[tuple[int, str], tuple[float, str]]) -> None:
    """Each process's CPU seconds so far and its command line, keyed by pid and start time.

    The command line is read again whenever the process has run since the last sample: a
    process seen between its fork and its exec showed its parent's, and exec keeps both
    the pid and the start time.
    """
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            key = (int(entry), fields[19])
            cpu = (int(fields[11]) + int(fields[12])) / TICK
            last_cpu, command = seen.get(key, (-1.0, ""))
            if cpu != last_cpu:
                with open(f"/proc/{entry}/cmdline") as f:
                    command = f.read().replace("\0", " ") or command
            seen[key] = (cpu, command)
        except (OSError, IndexError):
            continue  # gone meanwhile


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    before: dict[tuple[int, str], tuple[float, str]] = {}
    sample(before)  # what the processes already running had spent: not counted
    seen: dict[tuple[int, str], tuple[float, str]] = {}
    me = os.getpid()
    started = time.perf_counter()
    proc = subprocess.Popen(argv)
    while proc.poll() is None:
        sample(seen)
        time.sleep(SAMPLE_S)
    wall = time.perf_counter() - started
    cpu_by_kind: collections.Counter[str] = collections.Counter()
    processes_by_kind: collections.Counter[str] = collections.Counter()
    for (pid, start), (cpu, command) in seen.items():
        name = "this sampler" if pid == me else kind(command)
        cpu_by_kind[name] += cpu - before.get((pid, start), (0.0, ""))[0]
        processes_by_kind[name] += 1
    print(f"\n{wall:.0f} s of wall time; CPU seconds by kind of process (processes):")
    for name, cpu in cpu_by_kind.most_common():
        print(f"{cpu:8.1f} s  {processes_by_kind[name]:5d}  {name}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
