"""Bulk loading SQL for the data generator (:mod:`opslib.server.seed`).

Every function takes the connection and keyword-only row sources. Row tuples follow the
column order given in each docstring; the caller opens the transaction (the generator
loads every table inside one transaction so that a failed seed leaves nothing behind).
Nothing here hashes, generates or validates: it only writes what it is given, fast.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "begin_bulk_load",
    "count_rows",
    "end_bulk_load",
    "existing_user_count",
    "insert_bindings",
    "insert_categories",
    "insert_clients",
    "insert_devices",
    "insert_events",
    "insert_products",
    "insert_settings",
    "insert_users",
    "rebuild_event_counts",
    "set_meta",
]

Row = tuple[Any, ...]

# Tables whose rows the generator reports; a fixed set, so it is safe to format into SQL.
_COUNTED_TABLES = (
    "clients",
    "users",
    "settings",
    "categories",
    "products",
    "devices",
    "bindings",
    "events",
    "event_counts",
)


def existing_user_count(conn: sqlite3.Connection) -> int:
    """Return how many users the database holds (0 when it has no ``users`` table yet).

    Parameters
    ----------
    conn
        Any connection, read-only is enough.

    Returns
    -------
    int
        The number of rows of ``users``.
    """
    row = conn.execute(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'users'"
    ).fetchone()
    if not row or not row[0]:
        return 0
    return int(conn.execute("SELECT COUNT(*) FROM users").fetchone()[0])


def begin_bulk_load(conn: sqlite3.Connection) -> str:
    """Switch the connection to fast, unsafe-on-power-loss settings for a bulk load.

    ``synchronous=OFF`` and a rollback journal (``journal_mode=DELETE``) instead of WAL:
    on an empty database the rollback journal stays tiny while WAL would write every page
    twice (docs/performance.md has the measurement). A bigger
    page cache and sorter threads speed up the index builds.

    Parameters
    ----------
    conn
        A connection with no open transaction and no other connection on the file
        (otherwise the journal mode stays WAL, which is only slower).

    Returns
    -------
    str
        The journal mode in effect.
    """
    conn.execute("PRAGMA synchronous = OFF")
    mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()
    conn.execute("PRAGMA cache_size = -131072")
    conn.execute("PRAGMA threads = 2")
    return str(mode[0]) if mode else ""


def end_bulk_load(conn: sqlite3.Connection) -> None:
    """Restore the platform's safe settings (WAL, ``synchronous=NORMAL``, default cache).

    Parameters
    ----------
    conn
        The connection :func:`begin_bulk_load` was called on, with no open transaction.
    """
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA cache_size = -2000")
    conn.execute("PRAGMA threads = 0")


def set_meta(conn: sqlite3.Connection, *, items: Mapping[str, str]) -> None:
    """Insert or replace ``meta`` rows.

    Parameters
    ----------
    conn
        The connection, inside a write transaction.
    items
        key -> value.
    """
    conn.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        sorted(items.items()),
    )


def insert_clients(conn: sqlite3.Connection, *, rows: Iterable[Row]) -> None:
    """Insert or replace registered clients.

    Parameters
    ----------
    conn
        The connection, inside a write transaction.
    rows
        ``(client_id, secret_hash, name, gmt_create)``.
    """
    conn.executemany(
        "INSERT OR REPLACE INTO clients (client_id, secret_hash, name, gmt_create) "
        "VALUES (?, ?, ?, ?)",
        rows,
    )


def insert_users(conn: sqlite3.Connection, *, rows: Iterable[Row]) -> None:
    """Insert users.

    Parameters
    ----------
    conn
        The connection, inside a write transaction.
    rows
        ``(user_id, area_code, phone, password_hash, role, status, identity_id, nick_name,
        avatar, network_ssid, network_pw, gmt_register, gmt_modified, gmt_last_login,
        gmt_logout)``.
    """
    conn.executemany(
        "INSERT INTO users (user_id, area_code, phone, password_hash, role, status, "
        "identity_id, nick_name, avatar, network_ssid, network_pw, gmt_register, "
        "gmt_modified, gmt_last_login, gmt_logout) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


def insert_settings(conn: sqlite3.Connection, *, rows: Iterable[Row]) -> None:
    """Insert per-user settings.

    Parameters
    ----------
    conn
        The connection, inside a write transaction.
    rows
        ``(user_id, dev_page_size, recv_sys_notice, recv_device_notice, no_disturbing,
        dnd_start, dnd_end, unread_notice_num, gmt_modified)``.
    """
    conn.executemany(
        "INSERT INTO settings (user_id, dev_page_size, recv_sys_notice, recv_device_notice, "
        "no_disturbing, dnd_start, dnd_end, unread_notice_num, gmt_modified) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


def insert_categories(conn: sqlite3.Connection, *, rows: Iterable[Row]) -> None:
    """Insert product categories.

    Parameters
    ----------
    conn
        The connection, inside a write transaction.
    rows
        ``(category_id, category_name, category_icon)``.
    """
    conn.executemany(
        "INSERT INTO categories (category_id, category_name, category_icon) VALUES (?, ?, ?)",
        rows,
    )


def insert_products(conn: sqlite3.Connection, *, rows: Iterable[Row]) -> None:
    """Insert products.

    Parameters
    ----------
    conn
        The connection, inside a write transaction.
    rows
        ``(product_id, secret_hash, product_name, product_icon, category_id, vendor_type,
        net_type, encrypt_type, node_type, status, popular, gmt_create, gmt_modified)``.
    """
    conn.executemany(
        "INSERT INTO products (product_id, secret_hash, product_name, product_icon, "
        "category_id, vendor_type, net_type, encrypt_type, node_type, status, popular, "
        "gmt_create, gmt_modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


def insert_devices(conn: sqlite3.Connection, *, rows: Iterable[Row]) -> None:
    """Insert devices.

    Parameters
    ----------
    conn
        The connection, inside a write transaction.
    rows
        ``(device_id, secret_hash, product_id, category_id, mac_addr, sdk_version,
        version, net_addr, status, properties, nick_name, gmt_create, gmt_last_seen)``.
    """
    conn.executemany(
        "INSERT INTO devices (device_id, secret_hash, product_id, category_id, mac_addr, "
        "sdk_version, version, net_addr, status, properties, nick_name, gmt_create, "
        "gmt_last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


def insert_bindings(conn: sqlite3.Connection, *, rows: Iterable[Row]) -> None:
    """Insert device bindings.

    Parameters
    ----------
    conn
        The connection, inside a write transaction.
    rows
        ``(device_id, user_id, owned, group_id, is_sub_device, gmt_bind)``.
    """
    conn.executemany(
        "INSERT INTO bindings (device_id, user_id, owned, group_id, is_sub_device, gmt_bind) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        rows,
    )


def insert_events(conn: sqlite3.Connection, *, rows: Iterable[Row]) -> None:
    """Insert device events (one ``executemany`` over an iterator: pass chunks freely).

    Parameters
    ----------
    conn
        The connection, inside a write transaction.
    rows
        ``(event_id, device_id, user_id, event_type, properties, code, ts)``.
    """
    conn.executemany(
        "INSERT INTO events (event_id, device_id, user_id, event_type, properties, code, ts) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


def rebuild_event_counts(conn: sqlite3.Connection, *, bucket_ms: int = 600_000) -> None:
    """Recompute ``event_counts`` from ``events`` in one ``INSERT ... SELECT ... GROUP BY``.

    Parameters
    ----------
    conn
        The connection, inside a write transaction.
    bucket_ms
        Bucket width; the schema's buckets are ``ts // 600000``.
    """
    conn.execute("DELETE FROM event_counts")
    conn.execute(
        "INSERT INTO event_counts (bucket, event_type, n) "
        "SELECT ts / ?, event_type, COUNT(*) FROM events GROUP BY 1, 2",
        (int(bucket_ms),),
    )


def count_rows(conn: sqlite3.Connection) -> dict[str, int]:
    """Count the rows of every table the generator fills.

    Parameters
    ----------
    conn
        Any connection.

    Returns
    -------
    dict of str to int
        table name -> row count.
    """
    return {
        table: int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
        for table in _COUNTED_TABLES
    }
