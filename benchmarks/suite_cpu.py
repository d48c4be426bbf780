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
    """Each process's CPU seconds so far, keyed by pid and start time."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            key = (int(entry), fields[19])
            cpu = (int(fields[11]) + int(fields[12])) / TICK
            command = seen.get(key, (0.0, ""))[1]
            if not command:
                with open(f"/proc/{entry}/cmdline") as f:
                    command = f.read().replace("\0", " ")
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
    totals: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0])
    for (pid, start), (cpu, command) in seen.items():
        name = "this sampler" if pid == me else kind(command)
        totals[name][0] += cpu - before.get((pid, start), (0.0, ""))[0]
        totals[name][1] += 1
    print(f"\n{wall:.0f} s of wall time; CPU seconds by kind of process (processes):")
    for name, (cpu, count) in sorted(totals.items(), key=lambda item: -item[1][0]):
        print(f"{cpu:8.1f} s  {int(count):5d}  {name}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
