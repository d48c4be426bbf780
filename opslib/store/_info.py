"""``opslib store info``: what a store holds per query, how fresh, how big."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opslib.store._layout import Layout

__all__ = ["QueryInfo", "StoreInfo", "describe_info", "freshness", "store_info"]


@dataclass
class QueryInfo:
    """One query: its rows, days, range and watermark, last sync and bytes."""

    query: str
    rows: int = 0
    days: int = 0
    bytes: int = 0
    since: str | None = None
    watermark: str | None = None
    last_sync: str | None = None
    late_window_h: float | None = None


@dataclass
class StoreInfo:
    """A store: where, whose, its queries and snapshots, size on disk."""

    path: Path
    base_url: str | None = None
    caller: str | None = None
    queries: list[QueryInfo] = field(default_factory=list)
    snapshot_days: dict[str, int] = field(default_factory=dict)
    last_snapshot: str | None = None
    bytes: int = 0


def _iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).isoformat(timespec="seconds")


def store_info(path: str | Path | None = None) -> StoreInfo:
    """What the store at ``path`` holds (``opslib store info``).

    Examples
    --------
    >>> store_info().queries  # doctest: +SKIP
    [QueryInfo(query='fleet', rows=12004113, days=366, ...)]
    """
    import pyarrow.parquet as pq

    layout = Layout.open(path)
    info = StoreInfo(layout.root, layout.identity.get("base_url"), layout.identity.get("caller"))
    by_query: dict[str, QueryInfo] = {}
    for qid, q in layout.queries.items():
        by_query[qid] = QueryInfo(
            q.describe(),
            since=_iso(q.since),
            watermark=_iso(q.watermark),
            last_sync=q.last_sync,
            late_window_h=None if q.late_window_ms is None else q.late_window_ms / 3_600_000,
        )
    for files in layout.event_days().values():
        for f in files:
            entry = by_query.setdefault(f.stem, QueryInfo(f.stem))
            size = f.stat().st_size
            entry.rows += pq.ParquetFile(f).metadata.num_rows
            entry.days += 1
            entry.bytes += size
            info.bytes += size
    info.queries = list(by_query.values())
    for what in ("devices", "products", "categories"):
        files = layout.snapshot_files(what)
        info.snapshot_days[what] = len(files)
        info.bytes += sum(f.stat().st_size for f in files)
    info.last_snapshot = layout.snapshots.get("last")
    return info


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover


def freshness(info: StoreInfo, now: dt.datetime | None = None) -> str:
    """One line for a report: up to when the events are stored and when the store was
    synced (``events up to 2026-11-26 06:00 UTC, synced 5 min ago``).

    >>> freshness(StoreInfo(Path("s")))
    'the store holds no events yet'
    """
    marks = [q for q in info.queries if q.watermark]
    if not marks:
        return "the store holds no events yet"
    now = now or dt.datetime.now(dt.UTC)
    upto = max(dt.datetime.fromisoformat(q.watermark or "") for q in marks)
    synced = max((q.last_sync for q in marks if q.last_sync), default=None)
    text = f"events up to {upto:%Y-%m-%d %H:%M} UTC"
    if synced:
        text += f", synced {_ago(now - dt.datetime.fromisoformat(synced))}"
    return text


def _ago(delta: dt.timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 90:
        return f"{seconds} s ago"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min ago"
    if seconds < 48 * 3600:
        return f"{round(seconds / 3600)} h ago"
    return f"{round(seconds / 86400)} days ago"


def describe_info(info: StoreInfo) -> list[str]:
    """``opslib store info``'s lines."""
    lines = [f"store: {info.path}"]
    if not info.base_url:
        return [*lines, "empty: nothing synced yet (opslib sync events --since -365d)"]
    lines.append(f"platform {info.base_url}, read by user {info.caller}; {_size(info.bytes)}")
    lines.append(freshness(info))
    for q in info.queries:
        window = "" if q.late_window_h is None else f", late window {q.late_window_h:g} h"
        lines.append(
            f"  {q.query}: {q.rows:,} rows in {q.days} days, {_size(q.bytes)}; "
            f"{q.since or '-'} .. {q.watermark or '-'} (watermark); last sync "
            f"{q.last_sync or 'never'}{window}"
        )
    snaps: list[Any] = [f"{what} {n}" for what, n in info.snapshot_days.items()]
    lines.append(f"  snapshots (days): {', '.join(snaps)}; last {info.last_snapshot or 'never'}")
    return lines
