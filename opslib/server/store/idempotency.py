"""First responses of idempotent writes, keyed by (caller, operation, message_id)."""

from __future__ import annotations

import sqlite3

from opslib.server.store._rows import Row, one, scalar


def get_record(
    conn: sqlite3.Connection, *, caller: str, operation: str, message_id: str, since: int
) -> Row | None:
    """The recorded response, if recorded at or after ``since``."""
    return one(
        conn,
        "SELECT fingerprint, status, body FROM idempotency"
        " WHERE caller = ? AND operation = ? AND message_id = ? AND created_at >= ?",
        (caller, operation, message_id, since),
    )


def put_record(
    conn: sqlite3.Connection,
    *,
    caller: str,
    operation: str,
    message_id: str,
    fingerprint: str,
    status: int,
    body: bytes,
    now: int,
) -> None:
    """Record a response (replacing an expired record of the same key)."""
    conn.execute(
        "INSERT OR REPLACE INTO idempotency (caller, operation, message_id, fingerprint,"
        " status, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (caller, operation, message_id, fingerprint, status, body, now),
    )


def purge(conn: sqlite3.Connection, *, before: int) -> None:
    conn.execute("DELETE FROM idempotency WHERE created_at < ?", (before,))


def fingerprint_key(conn: sqlite3.Connection, *, new_key: str) -> str:
    """The database's secret key for params fingerprints, created on first use.

    Fingerprints are keyed so that a stored fingerprint of params holding a password is
    not an unsalted hash of that password.
    """
    conn.execute(
        "INSERT OR IGNORE INTO meta (key, value) VALUES ('idempotency_key', ?)", (new_key,)
    )
    return str(scalar(conn, "SELECT value FROM meta WHERE key = 'idempotency_key'"))
