"""Benchmarks of the event cache and of Dask reads: 30 days, 1M events, whole fleet.

``python -m benchmarks --only cache dask`` runs them through :func:`run`; each case runs in
a process of its own (``python -m benchmarks.cache_dask CASE BASE_URL '<json options>'``)
so its time and peak RSS are its own:

- ``cache``: ``events.list(cache=True)`` into an empty cache directory (every window is
  fetched and written), then, in a new process, again over the same directory (every
  window is read from Parquet): the analyst's second morning. Ratio: first / second.
- ``dask``: ``events.list`` in one process (no cache), then ``events.to_dask(...).compute()``
  on a ``LocalCluster`` of 2 worker processes, one partition per UTC day, meta sampled
  (the sample's requests are inside the time). The cluster's start is reported apart.
  Ratio: dask / single.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from opslib.server import demo


def _connect(base: str) -> Any:
    import opslib

    client = opslib.connect(
        base,
        client_id=demo.CLIENT_ID,
        client_secret=demo.CLIENT_SECRET,
        area_code=demo.AREA_CODE,
        phone=demo.OPS_PHONE,
        password=demo.OPS_PASSWORD,
    )
    client.events._query(None, None, None)  # log in and learn the fleet before the clock
    return client


def _cpu(pid: int | None = None) -> float:
    """CPU seconds (user + system) of this process, or of ``pid`` (Linux /proc)."""
    if pid is None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cache_read(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    """``events.list(cache=True)``; the cache directory comes from OPSLIB_CACHE_DIR."""
    client = _connect(base)
    t0, c0 = time.perf_counter(), _cpu()
    df = client.events.list(opts["start"], opts["end"], cache=True, progress=False)
    seconds, cpu = time.perf_counter() - t0, _cpu() - c0
    return {"seconds": seconds, "cpu_s": round(cpu, 2), "rows": len(df), "columns": df.shape[1]}


def single_read(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    """``events.list`` from this process, no cache."""
    client = _connect(base)
    t0, c0 = time.perf_counter(), _cpu()
    df = client.events.list(opts["start"], opts["end"], progress=False)
    seconds, cpu = time.perf_counter() - t0, _cpu() - c0
    return {"seconds": seconds, "cpu_s": round(cpu, 2), "rows": len(df), "columns": df.shape[1]}


def dask_read(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    """``events.to_dask(...).compute()`` on a LocalCluster of ``workers`` processes."""
    from distributed import Client, LocalCluster

    client = _connect(base)
    t0 = time.perf_counter()
    with (
        LocalCluster(
            n_workers=opts.get("workers", 2),
            processes=True,
            threads_per_worker=1,
            dashboard_address=None,
        ) as cluster,
        Client(cluster),
    ):
        started = time.perf_counter() - t0
        pids = [w.process.pid for w in cluster.workers.values()]
        before = [_cpu(pid) for pid in pids]
        t1, c1 = time.perf_counter(), _cpu()
        ddf = client.events.to_dask(
            opts["start"], opts["end"], partition="1D", concurrency=opts.get("concurrency", 4)
        )
        df = ddf.compute()
        seconds, cpu = time.perf_counter() - t1, _cpu() - c1
        workers_cpu = sum(_cpu(pid) - b for pid, b in zip(pids, before, strict=True))
    return {
        "seconds": seconds,
        "cpu_s": round(cpu, 2),
        "workers_cpu_s": round(workers_cpu, 2),
        "rows": len(df),
        "columns": df.shape[1],
        "partitions": ddf.npartitions,
        "cluster_start_s": round(started, 2),
    }


CASES: dict[str, Callable[[str, dict[str, Any]], dict[str, Any]]] = {
    "cache_read": cache_read,
    "single_read": single_read,
    "dask_read": dask_read,
}


def _case(case: str, base: str, opts: dict[str, Any], env: dict[str, str] | None = None) -> Any:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.cache_dask", case, base, json.dumps(opts)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _summary(name: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    seconds = statistics.median(r["seconds"] for r in runs)
    return {
        "case": name,
        "runs": runs,
        "seconds": round(seconds, 3),
        "cpu_s": statistics.median(r["cpu_s"] for r in runs),
        "rows": runs[0]["rows"],
        "rows_per_s": round(runs[0]["rows"] / seconds),
        "peak_rss_mb": round(statistics.median(r["peak_rss_mb"] for r in runs), 1),
    }


def run_cache(base: str, window: dict[str, int], repeat: int) -> list[dict[str, Any]]:
    """First read into an empty cache, second read from it; ``repeat`` fresh directories."""
    first, second = [], []
    load = os.getloadavg()[0]
    for _ in range(repeat):
        directory = tempfile.mkdtemp(prefix="opslib-bench-cache-")
        try:
            env = {"OPSLIB_CACHE_DIR": directory}
            first.append(_case("cache_read", base, window, env))
            second.append(_case("cache_read", base, window, env))
            size = sum(
                os.path.getsize(os.path.join(d, f))
                for d, _, files in os.walk(directory)
                for f in files
            )
            first[-1]["cache_mb"] = round(size / 2**20, 1)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    cold, warm = _summary("cache_first_read", first), _summary("cache_second_read", second)
    cold["cache_mb"] = first[0]["cache_mb"]
    warm["speedup_vs_first"] = round(cold["seconds"] / warm["seconds"], 1)
    cold["load_before"] = round(load, 1)  # other work on the machine skews the seconds
    return [cold, warm]


def run_dask(base: str, window: dict[str, int], repeat: int) -> list[dict[str, Any]]:
    """The same 30 days read by one process, then by a 2-process LocalCluster."""
    load = os.getloadavg()[0]
    single = _summary("single_process", [_case("single_read", base, window) for _ in range(repeat)])
    single["load_before"] = round(load, 1)
    runs = [_case("dask_read", base, {**window, "workers": 2}) for _ in range(repeat)]
    dask = _summary("dask_2_workers", runs)
    dask["partitions"] = runs[0]["partitions"]
    dask["cluster_start_s"] = statistics.median(r["cluster_start_s"] for r in runs)
    dask["workers_cpu_s"] = statistics.median(r["workers_cpu_s"] for r in runs)
    dask["vs_single"] = round(dask["seconds"] / single["seconds"], 2)
    return [single, dask]


def main() -> None:
    case, base, raw = sys.argv[1], sys.argv[2], sys.argv[3]
    result = CASES[case](base, json.loads(raw))
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


if __name__ == "__main__":
    main()
