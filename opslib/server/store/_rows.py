"""Row helpers shared by the store modules: rows come back as plain dicts."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

Row = dict[str, Any]


def one(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> Row | None:
    """The first row of ``sql`` as a dict, or None."""
    cur = conn.execute(sql, params)
    row = cur.fetchone()
    if row is None:
        return None
    return dict(zip([d[0] for d in cur.description], row, strict=True))


def all_rows(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> list[Row]:
    """Every row of ``sql`` as dicts."""
    cur = conn.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def scalar(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> Any:
    """The first column of the first row, or None."""
    row = conn.execute(sql, params).fetchone()
    return None if row is None else row[0]
