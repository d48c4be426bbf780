"""SMS codes (hashed, one live code per phone and purpose) and the send log for throttling."""

from __future__ import annotations

import sqlite3

from opslib.server.store._rows import Row, all_rows, one


def get_code(conn: sqlite3.Connection, *, area_code: str, phone: str, purpose: int) -> Row | None:
    return one(
        conn,
        "SELECT * FROM sms_codes WHERE area_code = ? AND phone = ? AND purpose = ?",
        (area_code, phone, purpose),
    )


def codes_of(conn: sqlite3.Connection, *, area_code: str, phone: str) -> list[Row]:
    """Every code of the phone, one per purpose."""
    return all_rows(
        conn,
        "SELECT * FROM sms_codes WHERE area_code = ? AND phone = ? ORDER BY purpose",
        (area_code, phone),
    )


def put_code(
    conn: sqlite3.Connection,
    *,
    area_code: str,
    phone: str,
    purpose: int,
    code_hash: str,
    now: int,
    expires_at: int,
) -> None:
    """Store a new code, replacing any earlier one of the same phone and purpose."""
    conn.execute(
        "INSERT OR REPLACE INTO sms_codes (area_code, phone, purpose, code_hash, created_at,"
        " expires_at, attempts, used_at) VALUES (?, ?, ?, ?, ?, ?, 0, NULL)",
        (area_code, phone, purpose, code_hash, now, expires_at),
    )


def add_attempt(conn: sqlite3.Connection, *, area_code: str, phone: str, purpose: int) -> None:
    conn.execute(
        "UPDATE sms_codes SET attempts = attempts + 1"
        " WHERE area_code = ? AND phone = ? AND purpose = ?",
        (area_code, phone, purpose),
    )


def mark_used(
    conn: sqlite3.Connection, *, area_code: str, phone: str, purpose: int, now: int
) -> None:
    conn.execute(
        "UPDATE sms_codes SET used_at = ? WHERE area_code = ? AND phone = ? AND purpose = ?",
        (now, area_code, phone, purpose),
    )


def record_send(conn: sqlite3.Connection, *, area_code: str, phone: str, now: int) -> None:
    conn.execute(
        "INSERT INTO sms_sends (area_code, phone, sent_at) VALUES (?, ?, ?)",
        (area_code, phone, now),
    )


def sends_since(
    conn: sqlite3.Connection, *, area_code: str, phone: str, since: int
) -> tuple[int, int | None]:
    """How many sends to the phone since ``since``, and the latest of them."""
    row = conn.execute(
        "SELECT COUNT(*), MAX(sent_at) FROM sms_sends WHERE area_code = ? AND phone = ?"
        " AND sent_at >= ?",
        (area_code, phone, since),
    ).fetchone()
    return int(row[0]), row[1]


def sends_to_prefix_since(
    conn: sqlite3.Connection, *, area_code: str, prefix: str, since: int
) -> int:
    """How many sends since ``since`` to phones of ``area_code`` beginning with ``prefix``."""
    sql: str
    args: tuple[str, ...]
    if not prefix:
        sql, args = "area_code = ?", (area_code,)
    else:
        # digits only: the phones of the prefix sort from it up to (not with) its successor
        after = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        sql, args = "area_code = ? AND phone >= ? AND phone < ?", (area_code, prefix, after)
    row = conn.execute(
        f"SELECT COUNT(*) FROM sms_sends WHERE {sql} AND sent_at >= ?", (*args, since)
    ).fetchone()
    return int(row[0])


def sends_since_all(conn: sqlite3.Connection, *, since: int) -> int:
    """How many sends to any phone since ``since``."""
    row = conn.execute("SELECT COUNT(*) FROM sms_sends WHERE sent_at >= ?", (since,)).fetchone()
    return int(row[0])


def purge_sends(conn: sqlite3.Connection, *, before: int) -> None:
    """Drop sends older than every limit that counts them."""
    conn.execute("DELETE FROM sms_sends WHERE sent_at < ?", (before,))
