"""Device event records, their per-bucket counts, and paged reads.

Reads force the index that serves them (``INDEXED BY``): the planner has no statistics on
a freshly seeded database and could otherwise pick the type index for a one-device read.
The deep-page seek over ``event_counts`` is in :mod:`opslib.server.services.paging`.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from typing import Any

EventRow = tuple[str, str, str, int, str, str, int]
"""(event_id, device_id, user_id, event_type, properties JSON text, code, ts)"""

# A page is one row holding the JSON array of its records' stored ``wire`` texts (the
# record as the API sends it, written once by SQLite when the event is stored: schema.sql),
# so the work happens inside sqlite3_step, where Python's sqlite3 releases the GIL.
# Fetching 1000 rows of 7 columns instead released and took the GIL back 1000 times and
# built 8000 objects with it: with 4 requests in flight the server then spent more time
# handing the GIL over than building pages (docs/performance.md).
_ORDER = "ORDER BY ts, event_id LIMIT ? OFFSET ?"


def _page_json(conn: sqlite3.Connection, inner: str, args: Sequence[Any]) -> str:
    """The JSON array of the records ``inner`` selects (``SELECT <record> AS j ...``), in its
    order; ``[]`` when none."""
    sql = f"SELECT '[' || group_concat(j, ',') || ']' FROM ({inner})"
    (text,) = conn.execute(sql, args).fetchone()
    return text or "[]"


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
    owner: str | None = None,
) -> int:
    """Events of one device or one user in ``[start, end)`` (stored with user ``owner``)."""
    index, column = SCOPES[scope]
    sql = (
        f"SELECT COUNT(*) FROM events INDEXED BY {index} WHERE {column} = ? AND ts >= ? AND ts < ?"
    )
    args: list[Any] = [key, start, end]
    if event_type is not None:
        sql += " AND event_type = ?"
        args.append(event_type)
    if owner is not None:
        sql += " AND user_id = ?"
        args.append(owner)
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
    owner: str | None = None,
) -> str:
    """One page of a device's or a user's events as a JSON array, by (ts, event_id); only
    those stored with user ``owner`` when given."""
    index, column = SCOPES[scope]
    sql = (
        f"SELECT wire AS j FROM events INDEXED BY {index} WHERE {column} = ? AND ts >= ? AND ts < ?"
    )
    args: list[Any] = [key, start, end]
    if event_type is not None:
        sql += " AND event_type = ?"
        args.append(event_type)
    if owner is not None:
        sql += " AND user_id = ?"
        args.append(owner)
    return _page_json(conn, f"{sql} {_ORDER}", (*args, limit, offset))


def range_count(conn: sqlite3.Connection, *, start: int, end: int, event_type: int | None) -> int:
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


def range_page(
    conn: sqlite3.Connection,
    *,
    start: int,
    end: int,
    event_type: int | None,
    limit: int,
    offset: int,
) -> str:
    """One page of every device's events in ``[start, end)`` as a JSON array."""
    if event_type is None:
        return _page_json(
            conn,
            f"SELECT wire AS j FROM events INDEXED BY events_order"
            f" WHERE ts >= ? AND ts < ? {_ORDER}",
            (start, end, limit, offset),
        )
    return _page_json(
        conn,
        f"SELECT wire AS j FROM events INDEXED BY events_type"
        f" WHERE event_type = ? AND ts >= ? AND ts < ? {_ORDER}",
        (event_type, start, end, limit, offset),
    )


def bucket_counts(conn: sqlite3.Connection, *, event_type: int | None) -> list[tuple[int, int]]:
    """(bucket, events) of every non-empty bucket, in bucket order (one type, or all)."""
    if event_type is None:
        return conn.execute(
            "SELECT bucket, SUM(n) FROM event_counts GROUP BY bucket ORDER BY bucket"
        ).fetchall()
    return conn.execute(
        "SELECT bucket, n FROM event_counts WHERE event_type = ? AND n > 0 ORDER BY bucket",
        (event_type,),
    ).fetchall()


def events_stamp(conn: sqlite3.Connection) -> int:
    """A value that changes whenever events are added: the largest rowid (O(log n)).

    Events are only ever appended (reports, bulk seeds), and ``event_counts`` changes in
    the same transaction, so an unchanged stamp means unchanged bucket counts.
    """
    row = conn.execute("SELECT MAX(rowid) FROM events").fetchone()
    return int(row[0] or 0)
