"""opslib.server.store.devices: devices, bindings and the wire view of them."""

from __future__ import annotations

import sqlite3

import pytest

from opslib.server.store import devices
from opslib.server.store.devices import DEVICE_VIEW_COLUMNS


def test_a_device_as_its_owner_and_as_ops_see_it(conn: sqlite3.Connection) -> None:
    mine = devices.view_device(conn, device_id="dev-a1", user_id="u-alice")
    assert mine is not None
    assert tuple(mine) == DEVICE_VIEW_COLUMNS
    assert (mine["user_id"], mine["owned"], mine["category_id"]) == ("u-alice", 1, "1")
    assert len(mine["gmt_bind"]) == len("2024-05-01 00:00:00")
    assert devices.view_device(conn, device_id="dev-a1", user_id="u-bob") is None
    assert devices.view_device_unbound(conn, device_id="dev-a1") == mine
    stock = devices.view_device_unbound(conn, device_id="dev-free")
    assert stock is not None
    assert (stock["user_id"], stock["gmt_bind"]) == ("", None)
    assert devices.view_device_unbound(conn, device_id="dev-none") is None


def test_the_fleet_lists_owner_bindings_by_bind_time(conn: sqlite3.Connection) -> None:
    assert devices.count_bound(conn, user_id=None) == 3  # dev-free is not bound
    assert devices.count_bound(conn, user_id="u-alice") == 2
    fleet = devices.list_bound(conn, user_id=None, limit=10, offset=0)
    assert [row[0] for row in fleet] == ["dev-a1", "dev-a2", "dev-b1"]
    page = devices.list_bound(conn, user_id=None, limit=1, offset=1)
    assert [row[0] for row in page] == ["dev-a2"]


def test_sharing_adds_a_binding_the_owner_view_keeps(conn: sqlite3.Connection) -> None:
    devices.insert_binding(
        conn, device_id="dev-a1", user_id="u-bob", owned=0, group_id=4, is_sub_device=True, now=9
    )
    shared = devices.view_device(conn, device_id="dev-a1", user_id="u-bob")
    assert shared is not None
    assert (shared["user_id"], shared["owned"], shared["group_id"]) == ("u-alice", 0, 4)
    assert devices.count_bound(conn, user_id=None) == 3  # still one owner binding each
    assert devices.count_bound(conn, user_id="u-bob", owned=0, is_sub_device=True) == 1
    owner = devices.get_owner_binding(conn, device_id="dev-a1")
    assert owner is not None
    assert owner["user_id"] == "u-alice"
    devices.update_binding(conn, device_id="dev-a1", user_id="u-bob", fields={"group_id": 5})
    binding = devices.get_binding(conn, device_id="dev-a1", user_id="u-bob")
    assert binding is not None
    assert binding["group_id"] == 5
    devices.delete_binding(conn, device_id="dev-a1", user_id="u-bob")
    assert devices.get_binding(conn, device_id="dev-a1", user_id="u-bob") is None


def test_updates_take_known_columns_only(conn: sqlite3.Connection) -> None:
    devices.update_device(conn, device_id="dev-a2", fields={"status": 3, "version": "2.0"})
    device = devices.get_device(conn, device_id="dev-a2")
    assert device is not None
    assert (device["status"], device["version"]) == (3, "2.0")
    with pytest.raises(ValueError, match=r"not device columns: \['product_id'\]"):
        devices.update_device(conn, device_id="dev-a2", fields={"product_id": "p-spare"})
    with pytest.raises(ValueError, match=r"not binding columns: \['user_id'\]"):
        devices.update_binding(
            conn, device_id="dev-a2", user_id="u-alice", fields={"user_id": "u-bob"}
        )
