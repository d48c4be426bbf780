"""The link_150ms case's read with the TCP handshake a real link charges, this code against
another checkout: are the connections of a growing number of pages in flight opened side
by side, or one after another?

The shaped link (benchmarks/shaped_link.py) answers a client's handshake at once, on this
machine, so a client that connects in its reading thread pays nothing for it there. Here
every TCP connect of the client (``socket.create_connection``, which httpx's transport
and ``http.client`` both call) first sleeps one round trip, as across a real link, and the
read is timed in fresh processes, alternated, ``--repeat`` rounds::

    git archive main opslib | tar -x -C /tmp/old
    .venv/bin/python -m benchmarks.handshake --old /tmp/old --repeat 3

Each line: seconds from before ``connect()`` (login included), the read after it, the
connections opened and the most handshakes under way at one moment.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

UNTIL = "2026-11-01T00:00:00+00:00"


def read(base: str, delay: float, opts: dict[str, Any]) -> dict[str, Any]:
    """One timed read in this process, every handshake ``delay`` seconds longer."""
    spans: list[tuple[float, float]] = []
    connect = socket.create_connection

    def slow(*args: Any, **kwargs: Any) -> socket.socket:
        start = time.monotonic()
        time.sleep(delay)
        sock = connect(*args, **kwargs)
        spans.append((start, time.monotonic()))
        return sock

    socket.create_connection = slow  # type: ignore[assignment]
    import opslib
    from opslib.server import demo

    t0 = time.perf_counter()
    client = opslib.connect(
        base,
        client_id=demo.CLIENT_ID,
        client_secret=demo.CLIENT_SECRET,
        area_code=demo.AREA_CODE,
        phone=demo.OPS_PHONE,
        password=demo.OPS_PASSWORD,
    )
    t1 = time.perf_counter()
    df = client.events.list(opts["start"], opts["end"], progress=False, page_size=1000)
    t2 = time.perf_counter()
    edges = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])
    now = most = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return {
        "seconds": round(t2 - t0, 3),
        "read_s": round(t2 - t1, 3),
        "rows": len(df),
        "connects": len(spans),
        "most_at_once": most,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", help="a directory holding another opslib/")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--read", help=argparse.SUPPRESS)  # one timed read (a child process)
    args = ap.parse_args()
    if args.read:
        print(json.dumps(read(*json.loads(args.read))))
        return
    from benchmarks import _platform, network

    here = str(Path(__file__).resolve().parents[1])
    trees = {"old": str(Path(args.old).resolve()), "this": here}
    link = network.LINKS["link_150ms"]
    platform = _platform.start(_platform.ensure_db("demo", UNTIL), rate_limit=True)
    proxy = network.start_proxy(platform.base_url, link.rtt_ms, link.mbit)
    job = [f"http://{proxy.address}", link.rtt_ms / 1000, network.window(UNTIL, link.days)]
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    try:
        for _ in range(args.repeat):
            for name, tree in trees.items():
                cmd = [sys.executable, __file__, "--read", json.dumps(job)]
                env = {**os.environ, "PYTHONPATH": tree}  # that tree's opslib
                done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
                runs[name].append(json.loads(done.stdout.splitlines()[-1]))
                print(name, runs[name][-1], flush=True)
    finally:
        proxy.stop()
        platform.stop()
    for name, rs in runs.items():
        total = statistics.median(r["seconds"] for r in rs)
        after_login = statistics.median(r["read_s"] for r in rs)
        print(f"{name}: median {total:.3f} s, read after login {after_login:.3f} s")


if __name__ == "__main__":
    main()
