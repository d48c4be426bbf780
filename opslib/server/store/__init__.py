"""SQLite storage of the reference platform.

Every SQL statement lives in this package, in keyword-only functions grouped by table
(``users``, ``tokens``, ``products``, ``devices``, ``events``, ...). This module opens the
database, creates the schema, and gives write transactions their ``BEGIN IMMEDIATE``.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

SCHEMA_VERSION = 2
log = logging.getLogger("opslib.server")
BUSY_TIMEOUT_MS = 5000

EVENT_INDEXES = (
    "CREATE INDEX IF NOT EXISTS events_order ON events (ts, event_id)",
    "CREATE INDEX IF NOT EXISTS events_type ON events (event_type, ts, event_id)",
    "CREATE INDEX IF NOT EXISTS events_device ON events (device_id, ts, event_id)",
    "CREATE INDEX IF NOT EXISTS events_user ON events (user_id, ts, event_id)",
)


def connect(path: str | Path) -> sqlite3.Connection:
    """Open ``path`` in WAL mode with autocommit off-by-default semantics handled by us.

    The connection uses ``isolation_level=None`` so that transactions are explicit:
    reads run outside a transaction, writes inside :func:`transaction`.
    """
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run a write transaction with ``BEGIN IMMEDIATE``; commit on success, else roll back."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def init_schema(conn: sqlite3.Connection, *, event_indexes: bool = True) -> None:
    """Create the schema if missing and record its version.

    ``event_indexes=False`` leaves the event indexes out, for a bulk load that builds them
    afterwards with :func:`create_event_indexes`.
    """
    sql = resources.files("opslib.server").joinpath("schema.sql").read_text(encoding="utf-8")
    conn.executescript(sql)
    with transaction(conn):
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
        elif int(row[0]) > SCHEMA_VERSION:
            raise RuntimeError(
                f"database schema version {row[0]} is newer than this opslib ({SCHEMA_VERSION})"
            )
        elif int(row[0]) < 2:
            _events_v2(conn, sql)
    if event_indexes:
        create_event_indexes(conn)


def _events_v2(conn: sqlite3.Connection, schema_sql: str) -> None:
    """Schema 1 → 2: the events table gains its stored ``wire`` column.

    SQLite adds a stored generated column only with the table, so the table is rebuilt
    (inside the caller's transaction): renamed, created anew from ``schema_sql``, filled,
    dropped with its indexes, which create_event_indexes then builds anew (16 s for a
    million events on the development machine).
    """
    (count,) = conn.execute("SELECT COUNT(*) FROM events").fetchone()
    log.info("converting %d events to schema 2 (stored records), once", count)
    columns = "event_id, device_id, user_id, event_type, properties, code, ts"
    conn.execute("ALTER TABLE events RENAME TO events_v1")  # its indexes go with it
    start = schema_sql.index("CREATE TABLE IF NOT EXISTS events (")
    conn.execute(schema_sql[start : schema_sql.index("\n);", start) + 3])  # its closing line
    conn.execute(f"INSERT INTO events ({columns}) SELECT {columns} FROM events_v1")
    conn.execute("DROP TABLE events_v1")
    conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")


def create_event_indexes(conn: sqlite3.Connection) -> None:
    """Create the event indexes (idempotent)."""
    for statement in EVENT_INDEXES:
        conn.execute(statement)


def schema_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0
