"""Run the benchmarks: ``make bench`` or ``python -m benchmarks [--repeat N] [--only CASE ...]``.

Every case runs against a platform seeded by ``opslib seed`` (deterministic: a fixed
``--until``) and served on loopback by one uvicorn worker. Client cases run in their own
process so each peak RSS is that case's own. Medians over ``--repeat`` runs; ratios are taken
between cases of the same run. Results: a table on stdout and JSON in benchmarks/results/.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks import _platform, cache_dask, network, report, server
from benchmarks import store as store_bench

UNTIL = "2026-11-01T00:00:00+00:00"
RESULTS = Path(__file__).parent / "results"


def _window() -> tuple[int, int]:
    end = datetime.fromisoformat(UNTIL)
    start = end - timedelta(days=30)
    return int(start.timestamp() * 1000), int(end.timestamp() * 1000)


def _run_once(
    case: str, base: str, opts: dict[str, Any], server_pid: int | None, code: Path | None = None
) -> dict[str, Any]:
    """One run of ``case`` in a fresh process; with ``code``, that checkout's opslib and
    benchmark worker instead of this one's."""
    payload = {**opts, "server_pid": server_pid} if server_pid else opts
    env = None if code is None else {**os.environ, "PYTHONPATH": str(code)}
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.worker", case, base, json.dumps(payload)],
        check=True,
        capture_output=True,
        text=True,
        cwd=code,
        env=env,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    result["load"] = round(os.getloadavg()[0], 1)  # the machine is shared: its load then
    return result


def run_case(
    case: str, base: str, opts: dict[str, Any], repeat: int, server_pid: int | None = None
) -> dict[str, Any]:
    """Run ``case`` ``repeat`` times in fresh processes; medians of seconds, CPU seconds of
    the client and (given its pid) of the platform during the read, and peak RSS."""
    runs = [_run_once(case, base, opts, server_pid) for _ in range(repeat)]
    return summarize(case, opts, runs)


def alternate(
    cases: list[tuple[str, str, dict[str, Any], Path | None]],
    base: str,
    repeat: int,
    server_pid: int | None = None,
) -> list[dict[str, Any]]:
    """``(name, case, options, code)`` run in turn, ``repeat`` rounds: every case sees the
    machine of every round, so the ratios of their medians are fair on a shared machine."""
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name, *_ in cases}
    for _ in range(repeat):
        for name, case, opts, code in cases:
            runs[name].append(_run_once(case, base, opts, server_pid, code))
    out = []
    for name, _case, opts, code in cases:
        summary = summarize(name, opts, runs[name])
        if code is not None:
            summary["code"] = str(code)
        out.append(summary)
    return out


def summarize(case: str, opts: dict[str, Any], runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians of a case's runs (seconds, CPU, peak RSS), with every run kept."""
    seconds = statistics.median(r["seconds"] for r in runs)
    rows = runs[0]["rows"]
    result = {
        "case": case,
        "options": {k: v for k, v in opts.items() if k not in ("start", "end")},
        "runs": runs,
        "seconds": round(seconds, 3),
        "rows": rows,
        "rows_per_s": round(rows / seconds),
        "peak_rss_mb": round(statistics.median(r["peak_rss_mb"] for r in runs), 1),
    }
    for key in ("client_cpu_s", "server_cpu_s"):
        if all(key in r for r in runs):
            result[key] = round(statistics.median(r[key] for r in runs), 2)
    return result


def calibrate() -> dict[str, float]:
    """The machine's speed right now: seconds of a fixed pure-Python workload (the median of
    five), and the load average. On a shared virtual machine the same read was measured
    from 8 to 13 s within one hour; this figure, taken at the start and the end of a run,
    says how fast the CPUs were while it ran (ratios within a run stay comparable)."""

    def work() -> float:
        t0 = time.perf_counter()
        total = 0
        for i in range(2_000_000):
            total += i % 7
        return time.perf_counter() - t0

    return {
        "python_loop_s": round(statistics.median(work() for _ in range(5)), 3),
        "load_average": round(os.getloadavg()[0], 2),
    }


def _print_table(title: str, rows: list[dict[str, Any]], cols: list[str]) -> None:
    print(f"\n## {title}")
    print(" | ".join(cols))
    print(" | ".join("---" for _ in cols))
    for r in rows:
        print(" | ".join(str(r.get(c, "")) for c in cols))


CASES = [
    *network.LINKS,
    *(f"http2_{name}" for name in network.LINKS),
    "events",
    "events_demo",
    "matrix",
    "server",
    "transport",
    "devices",
    "report",
    "cache",
    "dask",
    "store",
]
# not in a default run: seeding a year (about 12M events) takes minutes the first time
EXTRA_CASES = ["store_year"]
STORE_COLUMNS = [
    "case", "seconds", "rows", "rows_per_s", "peak_rss_mb", "requests", "store_mb",
    "bytes_per_event", "groups", "speedup_vs_pandas", "same_total", "speedup_vs_platform",
]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--old",
        action="append",
        default=[],
        metavar="PATH[#OPTIONS]",
        help="another checkout of opslib (a git worktree of an older commit), optionally with "
        "its worker's JSON options after '#': the events case and the link cases also run "
        "that code's read, alternated with this one's (repeatable; the link cases ignore "
        "the options)",
    )
    ap.add_argument(
        "--no-loop",
        action="store_true",
        help="leave the hand-written loop out of the link cases (it takes minutes in (c))",
    )
    ap.add_argument(
        "--only",
        nargs="*",
        default=CASES,
        help=" ".join(CASES + EXTRA_CASES) + " (store_year only when named)",
    )
    args = ap.parse_args(argv)
    start, end = _window()
    results: dict[str, Any] = {"until": UNTIL, "started": datetime.now(UTC).isoformat()}
    results["calibration_before"] = calibrate()
    print(f"machine speed before: {results['calibration_before']}")

    links = [name for name in network.LINKS if name in args.only]
    if links:
        old = [Path(spec.partition("#")[0]) for spec in args.old]
        results["links"] = network.run_links(
            links, UNTIL, args.repeat, _run_once, old, loop=not args.no_loop
        )
        _print_table(
            "0. across a shaped link: the demo fleet, login included (alternated runs)",
            results["links"],
            [
                "title",
                "rows",
                "opslib_s",
                "naive_s",
                "floor_s",
                "opslib_loopback_s",
                "opslib_login_s",
                "opslib_client_cpu_s",
                "opslib_mb_on_wire",
                "naive_mb_on_wire",
                "opslib_vs_floor",
                "opslib_vs_floor_here",
                "protocol_floor_s",
                "protocol_floor_vs_floor",
                "opslib_vs_protocol_floor",
                "speedup_vs_naive",
                "opslib_far_s",
                "here_vs_far",
            ],
        )
        for row in results["links"]:
            for other in row["old"]:
                print(f"{row['case']} by {other['code']}: {other}")
    h2 = [name.removeprefix("http2_") for name in args.only if name.startswith("http2_")]
    if h2:
        results["http2"] = network.run_http2(h2, UNTIL, args.repeat, _run_once)
        _print_table(
            "0b. HTTP/1.1 against HTTP/2, one hypercorn platform (alternated runs)",
            results["http2"],
            [
                "case",
                "http1_link_s",
                "http2_link_s",
                "http2_vs_http1_link",
                "http1_link_cpu_s",
                "http2_link_cpu_s",
                "http1_loopback_s",
                "http2_loopback_s",
                "http2_vs_http1_loopback",
            ],
        )
    if "events_demo" in args.only:
        # the same read over the demo seed (what `make demo` serves: other properties)
        demo = _platform.start(_platform.ensure_db("demo", UNTIL))
        try:
            window = {"start": start, "end": end}
            results["events_demo"] = _events_case(
                demo.base_url, demo.process.pid, window, args, "1b. events.list, 1M (demo seed)"
            )
        finally:
            demo.stop()
    if "store_year" in args.only:
        year_db = _platform.ensure_db("year", UNTIL)
        year = _platform.start(year_db)
        try:
            end_ms = _window()[1]
            results["store_year"] = store_bench.run(
                year.base_url, end_ms - 365 * 86_400_000, end_ms, args.repeat
            )
        finally:
            year.stop()
        _print_table(
            "9. the local store, the demo fleet over a year (about 12M events)",
            results["store_year"],
            STORE_COLUMNS,
        )
    if not set(args.only) - {*links, "events_demo", "store_year", *(f"http2_{n}" for n in h2)}:
        return _save(results)

    t0 = time.perf_counter()
    db = _platform.ensure_db("bench", UNTIL)
    results["seed_seconds_if_new"] = round(time.perf_counter() - t0, 1)
    platform = _platform.start(db)
    pid = platform.process.pid
    try:
        window = {"start": start, "end": end}
        if "events" in args.only:
            results["events"] = _events_case(
                platform.base_url, pid, window, args, "1. events.list, 1M events (bench seed)"
            )
        if "matrix" in args.only:
            matrix = []
            for warm in (False, True):
                for page_size in (100, 1000):
                    for concurrency in (1, 2, 4, 8):
                        opts = {
                            **window,
                            "page_size": page_size,
                            "concurrency": concurrency,
                            "warm": warm,
                        }
                        matrix.append(run_case("events_opslib", platform.base_url, opts, 1, pid))
            results["matrix"] = matrix
            for m in matrix:
                m.update(m.pop("options"))
            _print_table(
                "2. events.list by page size, concurrency, pool",
                matrix,
                [
                    "page_size",
                    "concurrency",
                    "warm",
                    "seconds",
                    "rows_per_s",
                    "client_cpu_s",
                    "server_cpu_s",
                    "peak_rss_mb",
                ],
            )
        if "server" in args.only:
            results["pages"] = server.page_latency(platform.base_url, start=start, end=end)
            results["rps"] = server.device_query_rps(platform.base_url)
            _print_table(
                "3. server: page 1 vs page 90% deep (1000 rows)",
                [{"what": k, **v} for k, v in results["pages"].items()],
                ["what", "total", "deep_page", "first_ms", "deep_ms", "ratio"],
            )
            _print_table(
                "3b. /device/query, one uvicorn worker", [results["rps"]], list(results["rps"])
            )
        if "transport" in args.only:
            results["transport"] = server.transport_cost(platform.base_url, start=start, end=end)
            _print_table(
                "3c. client CPU of the HTTP exchange per 1000-event page",
                results["transport"],
                list(results["transport"][0]),
            )
        if "devices" in args.only:
            results["devices"] = run_case("devices_opslib", platform.base_url, {}, args.repeat, pid)
            _print_table(
                "4. devices.list, whole fleet",
                [results["devices"]],
                [
                    "case",
                    "seconds",
                    "rows",
                    "rows_per_s",
                    "client_cpu_s",
                    "server_cpu_s",
                    "peak_rss_mb",
                ],
            )
        if "report" in args.only:
            results["report"] = report.run_report(platform.base_url, window, args.repeat)
            _print_table(
                "5. event_analysis report, 30 days (1M events), end to end",
                [results["report"]],
                [
                    "case",
                    "outcome",
                    "startup_s",
                    "setup_s",
                    "fetch_s",
                    "analysis_s",
                    "export_s",
                    "total_s",
                    "html_mb",
                ],
            )
        if "cache" in args.only:
            results["cache"] = cache_dask.run_cache(platform.base_url, window, args.repeat)
            _print_table(
                "6. events.list(cache=True), 30 days: first read, then from the cache",
                results["cache"],
                ["case", "seconds", "cpu_s", "rows", "peak_rss_mb", "cache_mb", "speedup_vs_first"],
            )
        if "dask" in args.only:
            results["dask"] = cache_dask.run_dask(platform.base_url, window, args.repeat)
            _print_table(
                "7. 30 days: one process vs events.to_dask on a 2-process LocalCluster",
                results["dask"],
                [
                    "case",
                    "seconds",
                    "cpu_s",
                    "workers_cpu_s",
                    "rows",
                    "partitions",
                    "cluster_start_s",
                    "vs_single",
                ],
            )
        if "store" in args.only:
            results["store"] = store_bench.run(
                platform.base_url, start, end, args.repeat, analysis_days=30
            )
            _print_table(
                "8. the local store, 30 days (1M events): sync, SQL vs pandas, analysis",
                results["store"],
                STORE_COLUMNS,
            )
    finally:
        platform.stop()

    return _save(results)


def _events_case(
    base_url: str, pid: int, window: dict[str, Any], args: argparse.Namespace, title: str
) -> list[dict[str, Any]]:
    """The 1M-event loopback read: the hand-written loop, opslib, opslib inside
    ``gc_threshold(10_000)``, and each ``--old`` checkout's read, alternated."""
    cases: list[tuple[str, str, dict[str, Any], Path | None]] = [
        ("events_naive", "events_naive", window, None),
        ("events_opslib", "events_opslib", window, None),
        # the collector's threshold raised for the read (the opt-in opslib.gc_threshold)
        ("events_opslib_gc_10000", "events_opslib", {**window, "gc_threshold": 10_000}, None),
    ]
    for spec in args.old:
        path, _, extra = spec.partition("#")
        options = json.loads(extra) if extra else {}
        name = "events@" + Path(path).name + "".join(f" {k}={v}" for k, v in options.items())
        cases.append((name, "events_opslib", {**window, **options}, Path(path)))
    rows = alternate(cases, base_url, args.repeat, pid)
    naive, fast = rows[0], rows[1]
    for row in rows[1:]:
        row["speedup_vs_naive"] = round(naive["seconds"] / row["seconds"], 2)
        row["rss_vs_naive"] = round(row["peak_rss_mb"] / naive["peak_rss_mb"], 2)
        row["vs_opslib"] = round(row["seconds"] / fast["seconds"], 2)
    _print_table(
        title + ", whole fleet, 30 days, loopback (alternated runs)",
        rows,
        [
            "case",
            "seconds",
            "rows",
            "rows_per_s",
            "client_cpu_s",
            "server_cpu_s",
            "peak_rss_mb",
            "speedup_vs_naive",
            "rss_vs_naive",
            "vs_opslib",
        ],
    )
    return rows


def _save(results: dict[str, Any]) -> int:
    results["calibration_after"] = calibrate()
    print(f"machine speed after: {results['calibration_after']}")
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"bench-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
    path.write_text(json.dumps(results, indent=2))
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
