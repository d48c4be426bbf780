"""Device event records, their per-bucket counts, and paged reads.

A fleet page at a deep offset does not skip offset rows: :func:`fleet_page` sums the
per-bucket counts of ``event_counts`` to find the bucket holding the offset, seeks to it
with ``ts >= bucket start`` and skips only inside that bucket (protocol §9). The partial
buckets at the two ends of ``[start, end)`` are counted exactly through the index.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from typing import Any

EventRow = tuple[str, str, str, int, str, str, int]
"""(event_id, device_id, user_id, event_type, properties JSON text, code, ts)"""

# The wire columns of one event record; gmt_create formatted by SQLite itself.
_COLUMNS = (
    "device_id, user_id, event_id, event_type, properties, code,"
    " strftime('%Y-%m-%d %H:%M:%S', ts / 1000, 'unixepoch')"
)
_ORDER = "ORDER BY ts, event_id LIMIT ? OFFSET ?"

# Scope of a per-device or per-user read: (index, column).
SCOPES = {
    "device": ("events_device", "device_id"),
    "user": ("events_user", "user_id"),
}


def insert_events(conn: sqlite3.Connection, *, rows: Sequence[EventRow], bucket_ms: int) -> None:
    """Insert events and add them to ``event_counts``, in the caller's transaction."""
    conn.executemany(
        "INSERT INTO events (event_id, device_id, user_id, event_type, properties, code, ts)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    counts = Counter((row[6] // bucket_ms, row[3]) for row in rows)
    conn.executemany(
        "INSERT INTO event_counts (bucket, event_type, n) VALUES (?, ?, ?)"
        " ON CONFLICT (bucket, event_type) DO UPDATE SET n = n + excluded.n",
        [(bucket, event_type, n) for (bucket, event_type), n in counts.items()],
    )


def scoped_count(
    conn: sqlite3.Connection,
    *,
    scope: str,
    key: str,
    start: int,
    end: int,
    event_type: int | None,
) -> int:
    """Events of one device or one user in ``[start, end)``."""
    index, column = SCOPES[scope]
    sql = (
        f"SELECT COUNT(*) FROM events INDEXED BY {index} WHERE {column} = ? AND ts >= ? AND ts < ?"
    )
    args: list[Any] = [key, start, end]
    if event_type is not None:
        sql += " AND event_type = ?"
        args.append(event_type)
    return int(conn.execute(sql, args).fetchone()[0])


def scoped_page(
    conn: sqlite3.Connection,
    *,
    scope: str,
    key: str,
    start: int,
    end: int,
    event_type: int | None,
    limit: int,
    offset: int,
) -> list[tuple[Any, ...]]:
    """One page of a device's or a user's events, wire columns, by (ts, event_id)."""
    index, column = SCOPES[scope]
    sql = (
        f"SELECT {_COLUMNS} FROM events INDEXED BY {index}"
        f" WHERE {column} = ? AND ts >= ? AND ts < ?"
    )
    args: list[Any] = [key, start, end]
    if event_type is not None:
        sql += " AND event_type = ?"
        args.append(event_type)
    return conn.execute(f"{sql} {_ORDER}", (*args, limit, offset)).fetchall()


def _range_count(conn: sqlite3.Connection, *, start: int, end: int, event_type: int | None) -> int:
    if start >= end:
        return 0
    if event_type is None:
        row = conn.execute(
            "SELECT COUNT(*) FROM events INDEXED BY events_order WHERE ts >= ? AND ts < ?",
            (start, end),
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT COUNT(*) FROM events INDEXED BY events_type"
            " WHERE event_type = ? AND ts >= ? AND ts < ?",
            (event_type, start, end),
        ).fetchone()
    return int(row[0])


def _range_page(
    conn: sqlite3.Connection,
    *,
    start: int,
    end: int,
    event_type: int | None,
    limit: int,
    offset: int,
) -> list[tuple[Any, ...]]:
    if event_type is None:
        return conn.execute(
            f"SELECT {_COLUMNS} FROM events INDEXED BY events_order"
            f" WHERE ts >= ? AND ts < ? {_ORDER}",
            (start, end, limit, offset),
        ).fetchall()
    return conn.execute(
        f"SELECT {_COLUMNS} FROM events INDEXED BY events_type"
        f" WHERE event_type = ? AND ts >= ? AND ts < ? {_ORDER}",
        (event_type, start, end, limit, offset),
    ).fetchall()


def bucket_counts(
    conn: sqlite3.Connection, *, first: int, stop: int, event_type: int | None
) -> list[tuple[int, int]]:
    """(bucket, events) for the buckets in ``[first, stop)``, in bucket order."""
    if event_type is None:
        return conn.execute(
            "SELECT bucket, SUM(n) FROM event_counts WHERE bucket >= ? AND bucket < ?"
            " GROUP BY bucket ORDER BY bucket",
            (first, stop),
        ).fetchall()
    return conn.execute(
        "SELECT bucket, n FROM event_counts WHERE bucket >= ? AND bucket < ?"
        " AND event_type = ? ORDER BY bucket",
        (first, stop, event_type),
    ).fetchall()


def fleet_page(
    conn: sqlite3.Connection,
    *,
    start: int,
    end: int,
    event_type: int | None,
    limit: int,
    offset: int,
    bucket_ms: int,
) -> tuple[int, list[tuple[Any, ...]]]:
    """The total and one page of every device's events in ``[start, end)``.

    Parameters
    ----------
    conn
        A connection inside a read transaction (total and rows from one snapshot).
    start, end
        Epoch ms, half-open.
    event_type
        Only this type, or all.
    limit, offset
        The page.
    bucket_ms
        Width of an ``event_counts`` bucket.

    Returns
    -------
    tuple
        ``(total, rows)``, rows in wire column order.
    """
    first_full = -(-start // bucket_ms)  # first bucket wholly inside [start, end)
    stop_full = end // bucket_ms  # buckets [first_full, stop_full) are wholly inside
    if first_full >= stop_full:  # shorter than two buckets: count and skip directly
        total = _range_count(conn, start=start, end=end, event_type=event_type)
        if offset >= total:
            return total, []
        return total, _range_page(
            conn, start=start, end=end, event_type=event_type, limit=limit, offset=offset
        )
    middle_start, middle_end = first_full * bucket_ms, stop_full * bucket_ms
    lead = _range_count(conn, start=start, end=middle_start, event_type=event_type)
    trail = _range_count(conn, start=middle_end, end=end, event_type=event_type)
    buckets = bucket_counts(conn, first=first_full, stop=stop_full, event_type=event_type)
    middle = sum(n for _, n in buckets)
    total = lead + middle + trail
    if offset >= total:
        return total, []
    if offset < lead:
        seek, skip = start, offset
    elif offset < lead + middle:
        seek, skip = middle_start, offset - lead
        for bucket, n in buckets:
            if skip < n:
                seek = bucket * bucket_ms
                break
            skip -= n
    else:
        seek, skip = middle_end, offset - lead - middle
    rows = _range_page(conn, start=seek, end=end, event_type=event_type, limit=limit, offset=skip)
    return total, rows
