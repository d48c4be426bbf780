"""``opslib sync``, ``opslib store info`` and ``opslib sql``: the store from a shell."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from opslib.exceptions import ConfigError, OpsError

__all__ = ["add_commands", "sql_command", "store_command", "sync_command"]


def _add_store(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--store", default=None, metavar="PATH", help="the store (default: OPSLIB_STORE, else "
        "the user data directory)",
    )  # fmt: skip


def add_commands(sub: Any) -> None:
    """The store's sub-commands on the ``opslib`` parser."""
    p = sub.add_parser(
        "sync",
        help="bring the local store up to date: events by watermark, device snapshots",
    )
    p.add_argument(
        "what",
        nargs="?",
        choices=["all", "events", "devices"],
        default="all",
        help="events, a snapshot of devices/products/categories, or both (default)",
    )
    p.add_argument("--since", default=None, help="where events start the first time (-365d)")
    p.add_argument(
        "--late-window",
        default="2d",
        metavar="DURATION",
        help="read again this far behind the watermark, for late reports (default 2d)",
    )
    p.add_argument("--device", action="append", default=[], metavar="ID", help="a device's events")
    p.add_argument("--user", action="append", default=[], metavar="ID", help="a user's events")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the windows, requests and rows a sync would read; read and write nothing",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    _add_store(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--profile", default=None, help="connection profile of the config file")
    which.add_argument("--demo", action="store_true", help="the embedded demo platform")

    store = sub.add_parser("store", help="the local store: what it holds")
    ssub = store.add_subparsers(dest="store_command", required=True)
    info = ssub.add_parser("info", help="per query: rows, days, watermark, last sync, size")
    _add_store(info)

    sql = sub.add_parser("sql", help="SQL over the store (DuckDB): events, devices, products")
    sql.add_argument("query", help='e.g. "SELECT event_type_name, count(*) FROM events GROUP BY 1"')
    sql.add_argument("--out", default=None, metavar="FILE", help="write .csv or .parquet instead")
    sql.add_argument("--max-rows", type=int, default=40, help="rows printed (default 40)")
    _add_store(sql)


def _client(args: argparse.Namespace) -> Any:
    import opslib
    from opslib.client import resolve_settings

    if args.demo:
        return opslib.connect()
    if resolve_settings(profile=args.profile).embedded:
        raise _Usage(
            "no platform configured: give --profile NAME (a profile of the config file), "
            "set OPSLIB_BASE_URL and the credentials, or --demo for the embedded platform"
        )
    return opslib.connect(profile=args.profile)


class _Usage(Exception):
    pass


def _when(ms: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M")


def _print_plan(result: Any) -> None:
    print(f"store: {result.store}")
    by_query: dict[str, list[Any]] = {}
    for w in result.windows:
        by_query.setdefault(w.query.id, []).append(w)
    for qid, windows in by_query.items():
        rows = result.estimated_rows.get(qid, 0)
        stages = sorted({w.stage for w in windows})
        print(
            f"  {windows[0].query.describe()}: {len(windows)} days "
            f"{_when(windows[0].lo)} .. {_when(windows[-1].hi)} UTC ({', '.join(stages)}), "
            f"about {rows:,} rows in {math.ceil(rows / result.page_size) + len(windows):,} requests"
        )
    print(
        f"would read {len(result.windows)} windows: about {sum(result.estimated_rows.values()):,} "
        f"rows in {result.estimated_requests():,} requests (counted with "
        f"{len(by_query)} request{'s' if len(by_query) != 1 else ''} of one row); "
        "nothing was written"
    )
    if result.note:
        print(f"note: {result.note}")


def sync_command(args: argparse.Namespace) -> int:
    """``opslib sync``; the exit status (2: refused input or a store it cannot use, 3: the
    platform failed)."""
    from opslib.store import sync

    try:
        client = _client(args)
        result = sync(
            client,
            what=args.what,
            since=args.since,
            late_window=args.late_window,
            store=args.store,
            devices=args.device or None,
            users=args.user or None,
            dry_run=args.dry_run,
            progress=False if args.no_progress else None,
        )
    except (_Usage, ValueError, ConfigError) as exc:  # the arguments, the profile, the store
        print(f"opslib sync: {exc}", file=sys.stderr)
        return 2
    except OpsError as exc:
        print(f"opslib sync: {exc}", file=sys.stderr)
        return 3
    except OSError as exc:  # the store's directory cannot be made or written
        print(f"opslib sync: cannot write {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if args.dry_run:
        _print_plan(result)
        return 0
    days = len({w.day for w in result.windows})
    queries = len({w.query.id for w in result.windows})
    line = f"synced {result.rows:,} events in {days} day{'s' if days != 1 else ''}"
    line += f" of {queries} queries, " if queries > 1 else ", "
    line += f"{result.requests:,} requests, {result.seconds:.1f} s"  # the events' requests
    if result.snapshot_day:
        line += f"; snapshot of {result.devices:,} devices for {result.snapshot_day}"
    print(line)
    if result.note:
        print(f"note: {result.note}")
    print(f"store: {result.store}")
    return 0


def store_command(args: argparse.Namespace) -> int:
    from opslib.store._info import describe_info, store_info

    try:
        print("\n".join(describe_info(store_info(args.store))))
    except OpsError as exc:
        print(f"opslib store info: {exc}", file=sys.stderr)
        return 2
    return 0


def sql_command(args: argparse.Namespace) -> int:
    """``opslib sql QUERY [--out FILE]``: a table on stdout, or a CSV/Parquet file."""
    from opslib.store import Store

    out = Path(args.out) if args.out else None
    if args.max_rows < 1:
        print(f"opslib sql: --max-rows {args.max_rows}: give 1 or more", file=sys.stderr)
        return 2
    if out is not None and out.suffix.lower() not in (".csv", ".parquet"):
        print(f"opslib sql: --out {out}: give a .csv or .parquet file", file=sys.stderr)
        return 2
    try:
        import duckdb

        con = Store(args.store).connect()
        relation = con.sql(args.query)
        if relation is None:
            return 0  # a statement without rows
        if out is None:
            import pandas as pd

            with pd.option_context(
                "display.max_rows", args.max_rows, "display.width", 200,
                "display.max_columns", 50,
            ):  # fmt: skip
                shown = relation.limit(args.max_rows + 1).df()
                print(shown.iloc[: args.max_rows].to_string(index=False))
                if len(shown) > args.max_rows:
                    print(f"... more than {args.max_rows} rows: --max-rows N, or --out FILE")
            return 0
        if out.suffix.lower() == ".parquet":
            relation.write_parquet(str(out))
        else:
            from opslib.csvcells import write_csv

            write_csv(relation.df(), out)
        print(f"wrote {out}")
        return 0
    except ImportError as exc:
        print(f"opslib sql: {exc}", file=sys.stderr)
        return 2
    except duckdb.Error as exc:
        print(f"opslib sql: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # --out in a directory that is missing or not writable
        print(
            f"opslib sql: cannot write {exc.filename or out}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
