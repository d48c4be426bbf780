"""Benchmarks of the local store: sync, SQL through DuckDB against pandas, analysis.

``python -m benchmarks --only store`` (part of ``make bench``: the 1M-event, 30-day bench
platform) and ``python -m benchmarks --only store_year`` (the demo fleet over a year, about
12M events: seeding it takes minutes the first time, so it is not in the default run). Each
case runs in a process of its own (``python -m benchmarks.store CASE BASE_URL '<json>'``)
so its time and peak RSS are its own:

- ``sync_first``: ``opslib.sync(since=...)`` into an empty store, up to the day before the
  data ends;
- ``sync_incremental``: the same store one day later (the new day, and the 2-day late
  window read again);
- ``query_duckdb``: events per product per day over the whole range, through
  ``opslib.store.connect()`` (DuckDB over the Parquet days, joined to the latest devices);
- ``query_pandas``: the same table from ``client.events.list`` + ``devices.list`` + pandas;
- ``analysis_store`` / ``analysis_platform``: the event_analysis report's reads and
  computations over 90 days (events volume, noisiest devices, alarm codes, outages,
  property statistics), the frame from the store or from the platform.
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
from typing import Any

from benchmarks.cache_dask import _connect

DAY_MS = 86_400_000
PER_PRODUCT_DAY = """
SELECT d.product_id, e.day, count(*) AS events
FROM events e JOIN device_latest d USING (device_id)
WHERE e.gmt_create >= to_timestamp(?) AND e.gmt_create < to_timestamp(?)
GROUP BY ALL ORDER BY ALL
"""


def sync_first(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    import opslib

    client = _connect(base)
    t0 = time.perf_counter()
    result = opslib.sync(
        client, since=opts["since"], now=opts["now"], store=opts["store"], progress=False
    )
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "rows": result.rows, "requests": result.requests}


def sync_incremental(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    return sync_first(base, {**opts, "since": None})


def query_duckdb(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    # imported before the clock, as the pandas case's client is
    import duckdb  # noqa: F401

    import opslib.store
    import opslib.store._read

    t0 = time.perf_counter()
    con = opslib.store.connect(opts["store"])
    table = con.execute(PER_PRODUCT_DAY, [opts["start"] / 1000, opts["end"] / 1000]).df()
    seconds = time.perf_counter() - t0
    (events,) = con.execute(
        "SELECT count(*) FROM events WHERE gmt_create >= to_timestamp(?) "
        "AND gmt_create < to_timestamp(?)",
        [opts["start"] / 1000, opts["end"] / 1000],
    ).fetchone()
    return {
        "seconds": seconds,
        "rows": int(events),
        "groups": len(table),
        "total": int(table.events.sum()),
    }


def query_pandas(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    client = _connect(base)
    t0 = time.perf_counter()
    events = client.events.list(opts["start"], opts["end"], progress=False)
    devices = client.devices.list(progress=False)[["device_id", "product_id"]]
    merged = events[["device_id", "gmt_create"]].merge(devices, on="device_id")
    merged["day"] = merged["gmt_create"].dt.floor("D")
    table = merged.groupby(["product_id", "day"], observed=True).size()
    seconds = time.perf_counter() - t0
    return {
        "seconds": seconds,
        "rows": len(events),
        "groups": len(table),
        "total": int(table.sum()),
    }


def _analysis(events: Any) -> None:
    from opslib import analysis

    analysis.event_volume(events, "1D")
    analysis.noisiest_devices(events)
    analysis.alarm_codes(events)
    analysis.outages(events)
    analysis.property_stats(events)


def analysis_store(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    import opslib.store
    import opslib.store._read  # imported before the clock, as the client is

    t0 = time.perf_counter()
    events = opslib.store.Store(opts["store"]).events(opts["start"], opts["end"])
    read = time.perf_counter() - t0
    _analysis(events)
    return {"seconds": time.perf_counter() - t0, "read_s": round(read, 2), "rows": len(events)}


def analysis_platform(base: str, opts: dict[str, Any]) -> dict[str, Any]:
    client = _connect(base)
    t0 = time.perf_counter()
    events = client.events.list(opts["start"], opts["end"], progress=False)
    read = time.perf_counter() - t0
    _analysis(events)
    return {"seconds": time.perf_counter() - t0, "read_s": round(read, 2), "rows": len(events)}


CASES: dict[str, Callable[[str, dict[str, Any]], dict[str, Any]]] = {
    "sync_first": sync_first,
    "sync_incremental": sync_incremental,
    "query_duckdb": query_duckdb,
    "query_pandas": query_pandas,
    "analysis_store": analysis_store,
    "analysis_platform": analysis_platform,
}


def _case(case: str, base: str, opts: dict[str, Any]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.store", case, base, json.dumps(opts)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _summary(name: str, runs: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    seconds = statistics.median(r["seconds"] for r in runs)
    row = {
        "case": name,
        "runs": runs,
        "seconds": round(seconds, 2),
        "rows": runs[0]["rows"],
        "rows_per_s": round(runs[0]["rows"] / seconds) if seconds else None,
        "peak_rss_mb": round(statistics.median(r["peak_rss_mb"] for r in runs), 1),
    }
    row.update(extra)
    return row


def _size_mb(path: str) -> float:
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)
    return round(total / 2**20, 1)


def run(
    base: str, start: int, end: int, repeat: int, *, analysis_days: int = 90
) -> list[dict[str, Any]]:
    """Every case over ``[start, end)`` (the platform's data): the first sync up to the day
    before ``end``, the incremental one to ``end``, then the queries and the analysis over
    the last ``analysis_days`` days. Syncs run once each (a store is synced once); the
    queries ``repeat`` times."""
    directory = tempfile.mkdtemp(prefix="opslib-bench-store-")
    store = os.path.join(directory, "store")
    try:
        first = _case("sync_first", base, {"store": store, "since": start, "now": end - DAY_MS})
        mb = _size_mb(store)
        rows = [
            _summary(
                "sync_first",
                [first],
                requests=first["requests"],
                store_mb=mb,
                bytes_per_event=round(mb * 2**20 / max(1, first["rows"]), 1),
            )
        ]
        incremental = _case("sync_incremental", base, {"store": store, "now": end})
        rows.append(_summary("sync_incremental", [incremental], requests=incremental["requests"]))
        window = {"store": store, "start": start, "end": end}
        duck = [_case("query_duckdb", base, window) for _ in range(repeat)]
        pandas = [_case("query_pandas", base, window) for _ in range(repeat)]
        duck_row = _summary("query_duckdb", duck, groups=duck[0]["groups"])
        pandas_row = _summary("query_pandas", pandas, groups=pandas[0]["groups"])
        duck_row["speedup_vs_pandas"] = round(pandas_row["seconds"] / duck_row["seconds"], 1)
        duck_row["same_total"] = duck[0]["total"] == pandas[0]["total"]
        rows += [duck_row, pandas_row]
        recent = {"store": store, "start": end - analysis_days * DAY_MS, "end": end}
        mine = [_case("analysis_store", base, recent) for _ in range(repeat)]
        theirs = [_case("analysis_platform", base, recent) for _ in range(repeat)]
        mine_row = _summary(f"analysis_{analysis_days}d_store", mine)
        theirs_row = _summary(f"analysis_{analysis_days}d_platform", theirs)
        mine_row["speedup_vs_platform"] = round(theirs_row["seconds"] / mine_row["seconds"], 1)
        rows += [mine_row, theirs_row]
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return rows


def main() -> None:
    case, base, raw = sys.argv[1], sys.argv[2], sys.argv[3]
    result = CASES[case](base, json.loads(raw))
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


if __name__ == "__main__":
    main()
