"""Users, their settings, and failed logins."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from opslib.server.store._rows import Row, one, scalar

_PROFILE_COLUMNS = frozenset({"nick_name", "avatar", "identity_id", "network_ssid", "network_pw"})
_SETTING_COLUMNS = frozenset(
    {"recv_sys_notice", "recv_device_notice", "no_disturbing", "dnd_start", "dnd_end"}
)


def get_user(conn: sqlite3.Connection, *, user_id: str) -> Row | None:
    return one(conn, "SELECT * FROM users WHERE user_id = ?", (user_id,))


def get_user_by_phone(conn: sqlite3.Connection, *, area_code: str, phone: str) -> Row | None:
    return one(conn, "SELECT * FROM users WHERE area_code = ? AND phone = ?", (area_code, phone))


def get_user_by_identity(conn: sqlite3.Connection, *, identity_id: str) -> Row | None:
    return one(conn, "SELECT * FROM users WHERE identity_id = ?", (identity_id,))


def insert_user(
    conn: sqlite3.Connection,
    *,
    user_id: str,
    area_code: str,
    phone: str,
    password_hash: str,
    role: int,
    status: int,
    now: int,
    nick_name: str = "",
) -> None:
    conn.execute(
        "INSERT INTO users (user_id, area_code, phone, password_hash, role, status, nick_name,"
        " gmt_register, gmt_modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (user_id, area_code, phone, password_hash, role, status, nick_name, now, now),
    )
    conn.execute(
        "INSERT OR IGNORE INTO settings (user_id, gmt_modified) VALUES (?, ?)", (user_id, now)
    )


def set_password(conn: sqlite3.Connection, *, user_id: str, password_hash: str, now: int) -> None:
    conn.execute(
        "UPDATE users SET password_hash = ?, gmt_modified = ? WHERE user_id = ?",
        (password_hash, now, user_id),
    )


def set_last_login(conn: sqlite3.Connection, *, user_id: str, now: int) -> None:
    conn.execute("UPDATE users SET gmt_last_login = ? WHERE user_id = ?", (now, user_id))


def update_profile(
    conn: sqlite3.Connection, *, user_id: str, fields: Mapping[str, Any], now: int
) -> None:
    """Set the given profile columns (names checked against a fixed set)."""
    unknown = set(fields) - _PROFILE_COLUMNS
    if unknown:
        raise ValueError(f"not profile columns: {sorted(unknown)}")
    names = sorted(fields)
    assignments = ", ".join(f"{name} = ?" for name in names)
    conn.execute(
        f"UPDATE users SET {assignments}, gmt_modified = ? WHERE user_id = ?",
        (*[fields[n] for n in names], now, user_id),
    )


def get_settings(conn: sqlite3.Connection, *, user_id: str) -> Row | None:
    return one(conn, "SELECT * FROM settings WHERE user_id = ?", (user_id,))


def update_settings(
    conn: sqlite3.Connection, *, user_id: str, fields: Mapping[str, Any], now: int
) -> None:
    """Create the user's settings row if missing, then set the given columns."""
    unknown = set(fields) - _SETTING_COLUMNS
    if unknown:
        raise ValueError(f"not setting columns: {sorted(unknown)}")
    conn.execute(
        "INSERT OR IGNORE INTO settings (user_id, gmt_modified) VALUES (?, ?)", (user_id, now)
    )
    names = sorted(fields)
    assignments = ", ".join(f"{name} = ?" for name in names)
    conn.execute(
        f"UPDATE settings SET {assignments}, gmt_modified = ? WHERE user_id = ?",
        (*[fields[n] for n in names], now, user_id),
    )


def login_failures_since(
    conn: sqlite3.Connection, *, area_code: str, phone: str, since: int, address: str | None = None
) -> tuple[int, int | None, int | None]:
    """Failed logins of the phone since ``since`` (from ``address`` only, when given):
    how many, the oldest and the latest."""
    sql = "SELECT COUNT(*), MIN(at), MAX(at) FROM login_failures WHERE area_code = ? AND phone = ?"
    args: tuple[object, ...] = (area_code, phone)
    if address is not None:
        sql += " AND address = ?"
        args += (address,)
    row = conn.execute(sql + " AND at >= ?", (*args, since)).fetchone()
    return int(row[0]), row[1], row[2]


def add_login_failure(
    conn: sqlite3.Connection, *, area_code: str, phone: str, now: int, address: str = ""
) -> None:
    conn.execute(
        "INSERT INTO login_failures (area_code, phone, at, address) VALUES (?, ?, ?, ?)",
        (area_code, phone, now, address),
    )


def clear_login_failures(
    conn: sqlite3.Connection, *, area_code: str, phone: str, address: str | None = None
) -> None:
    """Forget the phone's failed logins (from ``address`` only, when given)."""
    if address is None:
        conn.execute(
            "DELETE FROM login_failures WHERE area_code = ? AND phone = ?", (area_code, phone)
        )
        return
    conn.execute(
        "DELETE FROM login_failures WHERE area_code = ? AND phone = ? AND address = ?",
        (area_code, phone, address),
    )


def purge_login_failures(conn: sqlite3.Connection, *, before: int) -> None:
    """Drop failed logins older than every window that counts them."""
    conn.execute("DELETE FROM login_failures WHERE at < ?", (before,))


def count_users(conn: sqlite3.Connection) -> int:
    return int(scalar(conn, "SELECT COUNT(*) FROM users"))
