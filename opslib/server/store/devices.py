"""Devices and bindings (who a device is bound to, and how)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from opslib.server.store._rows import Row, one

_GMT = "'%Y-%m-%d %H:%M:%S'"
_DEVICE_FIELDS = frozenset(
    {"mac_addr", "sdk_version", "version", "net_addr", "status", "properties", "gmt_last_seen"}
)
_BINDING_FIELDS = frozenset({"group_id", "is_sub_device", "owned"})

# One Device of the wire (protocol §6.9) per binding row ``b``; ``o`` is the owner binding.
_DEVICE_COLUMNS = (
    "SELECT d.device_id, {owner} AS user_id, d.mac_addr, d.sdk_version,"
    " d.version, d.net_addr, d.status, b.owned, b.group_id, b.is_sub_device, d.product_id,"
    " CAST(d.category_id AS TEXT) AS category_id, d.properties, d.nick_name,"
    f" strftime({_GMT}, b.gmt_bind / 1000, 'unixepoch') AS gmt_bind,"
    f" strftime({_GMT}, d.gmt_last_seen / 1000, 'unixepoch') AS gmt_last_seen"
)
_DEVICE_VIEW = (
    _DEVICE_COLUMNS.format(owner="COALESCE(o.user_id, '')")
    + " FROM bindings b JOIN devices d ON d.device_id = b.device_id"
    " LEFT JOIN bindings o ON o.device_id = b.device_id AND o.owned = 1"
)
DEVICE_VIEW_COLUMNS = (
    "device_id",
    "user_id",
    "mac_addr",
    "sdk_version",
    "version",
    "net_addr",
    "status",
    "owned",
    "group_id",
    "is_sub_device",
    "product_id",
    "category_id",
    "properties",
    "nick_name",
    "gmt_bind",
    "gmt_last_seen",
)


def get_device(conn: sqlite3.Connection, *, device_id: str) -> Row | None:
    return one(conn, "SELECT * FROM devices WHERE device_id = ?", (device_id,))


def insert_device(conn: sqlite3.Connection, *, device: Mapping[str, Any], now: int) -> None:
    """Insert ``device`` (column -> value; the secret already hashed as ``secret_hash``)."""
    columns = sorted(device)
    conn.execute(
        f"INSERT INTO devices ({', '.join(columns)}, gmt_create)"
        f" VALUES ({', '.join('?' for _ in columns)}, ?)",
        (*[device[c] for c in columns], now),
    )


def update_device(conn: sqlite3.Connection, *, device_id: str, fields: Mapping[str, Any]) -> None:
    unknown = set(fields) - _DEVICE_FIELDS
    if unknown:
        raise ValueError(f"not device columns: {sorted(unknown)}")
    if not fields:
        return
    names = sorted(fields)
    conn.execute(
        f"UPDATE devices SET {', '.join(f'{n} = ?' for n in names)} WHERE device_id = ?",
        (*[fields[n] for n in names], device_id),
    )


def get_binding(conn: sqlite3.Connection, *, device_id: str, user_id: str) -> Row | None:
    return one(
        conn,
        "SELECT * FROM bindings WHERE device_id = ? AND user_id = ?",
        (device_id, user_id),
    )


def get_owner_binding(conn: sqlite3.Connection, *, device_id: str) -> Row | None:
    return one(conn, "SELECT * FROM bindings WHERE device_id = ? AND owned = 1", (device_id,))


def insert_binding(
    conn: sqlite3.Connection,
    *,
    device_id: str,
    user_id: str,
    owned: int,
    group_id: int,
    is_sub_device: bool,
    now: int,
) -> None:
    conn.execute(
        "INSERT INTO bindings (device_id, user_id, owned, group_id, is_sub_device, gmt_bind)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (device_id, user_id, owned, group_id, int(is_sub_device), now),
    )


def update_binding(
    conn: sqlite3.Connection, *, device_id: str, user_id: str, fields: Mapping[str, Any]
) -> None:
    unknown = set(fields) - _BINDING_FIELDS
    if unknown:
        raise ValueError(f"not binding columns: {sorted(unknown)}")
    if not fields:
        return
    names = sorted(fields)
    conn.execute(
        f"UPDATE bindings SET {', '.join(f'{n} = ?' for n in names)}"
        " WHERE device_id = ? AND user_id = ?",
        (*[int(fields[n]) for n in names], device_id, user_id),
    )


def delete_binding(conn: sqlite3.Connection, *, device_id: str, user_id: str) -> None:
    conn.execute("DELETE FROM bindings WHERE device_id = ? AND user_id = ?", (device_id, user_id))


def _binding_filter(
    *, user_id: str | None, owned: int | None, group_id: int | None, is_sub_device: bool | None
) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    args: list[Any] = []
    if user_id is None:  # the fleet: one row per device, its owner's binding
        clauses.append("b.owned = 1")
    else:
        clauses.append("b.user_id = ?")
        args.append(user_id)
    if owned is not None:
        clauses.append("b.owned = ?")
        args.append(owned)
    if group_id is not None:
        clauses.append("b.group_id = ?")
        args.append(group_id)
    if is_sub_device is not None:
        clauses.append("b.is_sub_device = ?")
        args.append(int(is_sub_device))
    return " AND ".join(clauses), args


def count_bound(
    conn: sqlite3.Connection,
    *,
    user_id: str | None,
    owned: int | None = None,
    group_id: int | None = None,
    is_sub_device: bool | None = None,
) -> int:
    """How many bindings match (``user_id=None``: owner bindings of the whole fleet)."""
    where, args = _binding_filter(
        user_id=user_id, owned=owned, group_id=group_id, is_sub_device=is_sub_device
    )
    return int(conn.execute(f"SELECT COUNT(*) FROM bindings b WHERE {where}", args).fetchone()[0])


def list_bound(
    conn: sqlite3.Connection,
    *,
    user_id: str | None,
    limit: int,
    offset: int,
    owned: int | None = None,
    group_id: int | None = None,
    is_sub_device: bool | None = None,
) -> list[tuple[Any, ...]]:
    """One page of wire Devices (columns :data:`DEVICE_VIEW_COLUMNS`), by (gmt_bind, id)."""
    where, args = _binding_filter(
        user_id=user_id, owned=owned, group_id=group_id, is_sub_device=is_sub_device
    )
    # Skip on the bindings index alone, then join only the page's rows: a deep page does
    # not pay the device and owner lookups of every skipped row.
    page = (
        f"SELECT b.device_id, b.user_id FROM bindings b WHERE {where}"
        " ORDER BY b.gmt_bind, b.device_id LIMIT ? OFFSET ?"
    )
    if user_id is None:  # the fleet lists owner bindings: the owner is b itself
        view = _DEVICE_COLUMNS.format(owner="b.user_id") + " FROM page p"
    else:
        view = _DEVICE_COLUMNS.format(owner="COALESCE(o.user_id, '')") + " FROM page p"
    view += (
        " JOIN bindings b ON b.device_id = p.device_id AND b.user_id = p.user_id"
        " JOIN devices d ON d.device_id = b.device_id"
    )
    if user_id is not None:
        view += " LEFT JOIN bindings o ON o.device_id = b.device_id AND o.owned = 1"
    return conn.execute(
        f"WITH page AS MATERIALIZED ({page}) {view} ORDER BY b.gmt_bind, b.device_id",
        (*args, limit, offset),
    ).fetchall()


def view_device(conn: sqlite3.Connection, *, device_id: str, user_id: str) -> Row | None:
    """The wire Device as seen through ``user_id``'s binding, or None if not bound."""
    return one(
        conn, f"{_DEVICE_VIEW} WHERE b.device_id = ? AND b.user_id = ?", (device_id, user_id)
    )


def view_device_unbound(conn: sqlite3.Connection, *, device_id: str) -> Row | None:
    """The wire Device through its owner's binding, or with empty binding fields (ops)."""
    row = one(conn, f"{_DEVICE_VIEW} WHERE b.device_id = ? AND b.owned = 1", (device_id,))
    if row is not None:
        return row
    return one(
        conn,
        "SELECT device_id, '' AS user_id, mac_addr, sdk_version, version, net_addr, status,"
        " 1 AS owned, 0 AS group_id, 0 AS is_sub_device, product_id,"
        " CAST(category_id AS TEXT) AS category_id, properties, nick_name, NULL AS gmt_bind,"
        f" strftime({_GMT}, gmt_last_seen / 1000, 'unixepoch') AS gmt_last_seen"
        " FROM devices WHERE device_id = ?",
        (device_id,),
    )
