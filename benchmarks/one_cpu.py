"""The 1M-event read with every thread of the reading process on one CPU, and without.

    .venv/bin/python -m benchmarks.one_cpu [--seed bench|demo] [--rounds 2] [--platform-cpu N]

Serves the seed's 30 days (as ``make bench``'s ``events`` case: loopback, no rate limit)
and reads them with ``events.list`` in this process, alternating a read whose threads may
run on every CPU of the process with one whose threads are all held to the CPU the
reading thread is on (``os.sched_setaffinity`` on the reading thread before the read: the
pool's threads, started by the read, inherit it; restored after). With
``--platform-cpu N`` the platform's process is held to CPU N and the reading threads to
another, as a platform on another machine never competes with the client for a CPU.

Prints each read's seconds, the process's CPU seconds and its voluntary context switches
(``getrusage``): the read's threads hand Python's GIL to one another many times a page,
and a hand-over between two CPUs costs more than one on the same CPU, most of all in a
virtual machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

from benchmarks import _platform
from benchmarks.__main__ import UNTIL, _window
from benchmarks.worker import _client


def _current_cpu() -> int:
    """The CPU this thread runs on (field 39 of ``/proc/thread-self/stat``)."""
    with open("/proc/thread-self/stat", "rb") as stat:
        return int(stat.read().rsplit(b")", 1)[1].split()[36])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.one_cpu")
    ap.add_argument("--seed", default="bench", choices=("bench", "demo"))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--platform-cpu", type=int, default=None)
    args = ap.parse_args(argv)
    start, end = _window()
    platform = _platform.start(_platform.ensure_db(args.seed, UNTIL))
    if args.platform_cpu is not None:
        os.sched_setaffinity(platform.process.pid, {args.platform_cpu})
    allowed = os.sched_getaffinity(0)
    print("threads | s | process CPU s | voluntary switches")
    print("--- | --- | --- | ---")
    try:
        for _ in range(args.rounds):
            for one in (False, True):
                cpu = _current_cpu()
                if args.platform_cpu is not None:  # never the platform's
                    cpu = min(allowed - {args.platform_cpu}, default=cpu)
                if one:
                    os.sched_setaffinity(0, {cpu})
                client = _client(platform.base_url)
                before = resource.getrusage(resource.RUSAGE_SELF)
                t0 = time.perf_counter()
                rows = len(client.events.list(start, end, progress=False))
                wall = time.perf_counter() - t0
                after = resource.getrusage(resource.RUSAGE_SELF)
                os.sched_setaffinity(0, allowed)
                used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                where = f"on CPU {cpu}" if one else f"on CPUs {sorted(allowed)}"
                print(
                    f"{where} ({rows:,} rows) | {wall:.2f} | {used:.2f} | "
                    f"{after.ru_nvcsw - before.ru_nvcsw}",
                    flush=True,
                )
    finally:
        platform.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
