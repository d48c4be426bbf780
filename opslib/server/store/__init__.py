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

from opslib.protocol import operations as ops

SCHEMA_VERSION = 4
log = logging.getLogger("opslib.server")
BUSY_TIMEOUT_MS = 5000

# Created after the conversions (which may refuse, and must then change nothing).
SCHEMA_4_INDEXES = (
    "CREATE INDEX IF NOT EXISTS login_failures_address"
    " ON login_failures (area_code, phone, address, at)",
    "CREATE INDEX IF NOT EXISTS login_failures_at ON login_failures (at)",
    "CREATE INDEX IF NOT EXISTS sms_sends_time ON sms_sends (sent_at)",
)

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
        else:
            if int(row[0]) < 2:
                _events_v2(conn, sql)
            if int(row[0]) < 3:
                _phones_v3(conn)
            if int(row[0]) < 4:
                _addresses_v4(conn)
        for statement in SCHEMA_4_INDEXES:
            conn.execute(statement)
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


def _phones_v3(conn: sqlite3.Connection) -> None:
    """Schema 2 → 3: phone numbers without leading zeros (area code and phone, protocol §5).

    Users, SMS codes and sends, login failures and the phone-keyed idempotency records are
    rewritten in the caller's transaction. Two users whose numbers become one cannot both
    keep theirs: the conversion then stops with an error naming them and changes nothing.
    """
    from opslib.server.fields import strip_zeros

    def norm(area_code: str, phone: str) -> tuple[str, str]:
        return strip_zeros(area_code), strip_zeros(phone)

    holders: dict[tuple[str, str], list[str]] = {}
    for user_id, area_code, phone in conn.execute("SELECT user_id, area_code, phone FROM users"):
        holders.setdefault(norm(area_code, phone), []).append(user_id)
    clashes = {k: v for k, v in holders.items() if len(v) > 1}
    if clashes:
        listed = "; ".join(
            f"+{a} {p}: users {', '.join(sorted(v))}" for (a, p), v in clashes.items()
        )
        raise RuntimeError(
            "cannot convert the database to schema 3 (phone numbers without leading zeros):"
            f" these users would share a number: {listed}. Change their numbers first."
        )
    changed = 0
    for user_id, area_code, phone in conn.execute(
        "SELECT user_id, area_code, phone FROM users"
    ).fetchall():
        if norm(area_code, phone) != (area_code, phone):
            conn.execute(
                "UPDATE users SET area_code = ?, phone = ? WHERE user_id = ?",
                (*norm(area_code, phone), user_id),
            )
            changed += 1
    # One live code per number and purpose: of codes that become one, the newest stays.
    codes = conn.execute("SELECT * FROM sms_codes ORDER BY created_at").fetchall()
    conn.execute("DELETE FROM sms_codes")
    for code in codes:
        conn.execute(
            "INSERT OR REPLACE INTO sms_codes (area_code, phone, purpose, code_hash, created_at,"
            " expires_at, attempts, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (*norm(code[0], code[1]), *code[2:8]),
        )
    for table in ("sms_sends", "login_failures"):
        for rowid, area_code, phone in conn.execute(
            f"SELECT rowid, area_code, phone FROM {table}"
        ).fetchall():
            if norm(area_code, phone) != (area_code, phone):
                conn.execute(
                    f"UPDATE {table} SET area_code = ?, phone = ? WHERE rowid = ?",
                    (*norm(area_code, phone), rowid),
                )
    # Pre-login writes are keyed by "<client_id or reset>|<area_code>|<phone>" (routes).
    keyed_by_phone = (ops.AUTH_CODE.path, ops.REGISTER.path, ops.UPDATE_PWD.path)
    for caller, operation, message_id in conn.execute(
        "SELECT caller, operation, message_id FROM idempotency WHERE operation IN (?, ?, ?)",
        keyed_by_phone,
    ).fetchall():
        parts = caller.rsplit("|", 2)
        if len(parts) != 3 or not (parts[1].isdigit() and parts[2].isdigit()):
            continue
        key = "|".join((parts[0], *norm(parts[1], parts[2])))
        if key != caller:
            conn.execute(
                "UPDATE OR IGNORE idempotency SET caller = ?"
                " WHERE caller = ? AND operation = ? AND message_id = ?",
                (key, caller, operation, message_id),
            )
    log.info("schema 3: %d users' phone numbers without leading zeros", changed)
    conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")


def _addresses_v4(conn: sqlite3.Connection) -> None:
    """Schema 3 → 4: failed logins say which client address they came from (protocol §8:
    the failed-login limit is per phone and address). Earlier failures keep ``''``."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(login_failures)")}
    if "address" not in columns:
        conn.execute("ALTER TABLE login_failures ADD COLUMN address TEXT NOT NULL DEFAULT ''")
    conn.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")


def create_event_indexes(conn: sqlite3.Connection) -> None:
    """Create the event indexes (idempotent)."""
    for statement in EVENT_INDEXES:
        conn.execute(statement)


def schema_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0
