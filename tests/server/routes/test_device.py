"""``/device/*`` of the spec: bind, query, query_by_user, update_info, and who sees what."""

from __future__ import annotations

from typing import Any

import pytest

from ..helpers import Api

DEVICE_FIELDS = {
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
}
BIND = {
    "device_id": "dev-new",
    "device_secret": "new-device-secret",
    "product_id": "p-lamp",
    "mac_addr": "AA:bb:CC:00:11:22",
    "sdk_version": "1.2",
    "version": "3.4.5",
    "net_addr": "10.0.0.7",
    "status": 0,
    "group_id": 7,
    "is_sub_device": True,
    "owned": 1,
    "category_id": "1",
}


def test_query_device(api: Api) -> None:
    r = api.as_user("alice", "/device/query", {"device_id": "dev-a1"})
    assert r.status_code == 200
    device = r.json()["data"]
    assert set(device) == DEVICE_FIELDS
    assert "device_secret" not in device
    assert device["user_id"] == "u-alice"
    assert device["owned"] == 1
    assert device["category_id"] == "1"
    assert device["properties"] == {"power": "on"}
    assert device["is_sub_device"] is False
    assert device["gmt_last_seen"] is None


def test_query_by_user_lists_own_devices_in_bind_order(api: Api) -> None:
    r = api.as_user("alice", "/device/query_by_user", {"page_no": 1, "page_size": 1})
    data = r.json()["data"]
    assert (data["total"], data["page_no"], data["page_size"]) == (2, 1, 1)
    assert data["identity_id"] == ""
    assert [d["device_id"] for d in data["device_list"]] == ["dev-a1"]
    data = api.as_user("alice", "/device/query_by_user", {"page_no": 2, "page_size": 1}).json()
    assert [d["device_id"] for d in data["data"]["device_list"]] == ["dev-a2"]
    past = api.as_user("alice", "/device/query_by_user", {"page_no": 3, "page_size": 1}).json()
    assert past["data"]["total"] == 2
    assert past["data"]["device_list"] == []


def test_query_by_user_filters(api: Api) -> None:
    api.as_user("alice", "/device/update_info", {"device_id": "dev-a2", "group_id": 5})
    data = api.as_user("alice", "/device/query_by_user", {"group_id": 5}).json()["data"]
    assert [d["device_id"] for d in data["device_list"]] == ["dev-a2"]
    data = api.as_user("alice", "/device/query_by_user", {"owned": 0}).json()["data"]
    assert data["total"] == 0
    data = api.as_user("alice", "/device/query_by_user", {"is_sub_device": False}).json()["data"]
    assert data["total"] == 2


def test_fleet_listing_needs_ops(api: Api) -> None:
    r = api.as_user("alice", "/device/query_by_user", {"user_id": ""})
    assert r.status_code == 403
    data = api.as_user("ops", "/device/query_by_user", {"user_id": ""}).json()["data"]
    assert data["total"] == 3  # bound devices, one row each
    assert data["identity_id"] == ""
    data = api.as_user("ops", "/device/query_by_user", {"user_id": "u-bob"}).json()["data"]
    assert [d["device_id"] for d in data["device_list"]] == ["dev-b1"]


def test_user_b_cannot_see_user_a(api: Api) -> None:
    """Another user's object answers exactly like a nonexistent one."""
    cases: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("/device/query", {"device_id": "dev-a1"}, {"device_id": "dev-none"}),
        (
            "/device/update_info",
            {"device_id": "dev-a1", "group_id": 1},
            {"device_id": "dev-none", "group_id": 1},
        ),
        ("/device/query_by_user", {"user_id": "u-alice"}, {"user_id": "u-none"}),
        (
            "/device/query_record",
            {"query_model": 1, "device_id": "dev-a1", "start": 0, "end": 2**40},
            {"query_model": 1, "device_id": "dev-none", "start": 0, "end": 2**40},
        ),
        (
            "/device/query_record",
            {"query_model": 2, "user_id_param": "u-alice", "start": 0, "end": 2**40},
            {"query_model": 2, "user_id_param": "u-none", "start": 0, "end": 2**40},
        ),
    ]
    for path, theirs, missing in cases:
        a = api.as_user("bob", path, theirs)
        b = api.as_user("bob", path, missing)
        assert a.status_code == b.status_code == 404, (path, a.text)
        assert a.json()["error_msg"] == b.json()["error_msg"]
        assert a.json()["data"] == {}


def test_envelope_user_id_must_be_the_token_owner(api: Api) -> None:
    r = api.post(
        "/device/query", {"device_id": "dev-a1"}, token=api.token("alice"), user_id="u-bob"
    )
    assert r.status_code == 403
    assert r.json()["error_msg"].startswith("user_id:")


def test_params_user_id_of_device_query_must_be_the_caller(api: Api) -> None:
    ok = api.as_user("alice", "/device/query", {"device_id": "dev-a1", "user_id": "u-alice"})
    assert ok.status_code == 200
    r = api.as_user("alice", "/device/query", {"device_id": "dev-a1", "user_id": "u-bob"})
    assert r.status_code == 403


def test_ops_reads_any_device(api: Api) -> None:
    r = api.as_user("ops", "/device/query", {"device_id": "dev-b1"})
    assert r.status_code == 200
    assert r.json()["data"]["user_id"] == "u-bob"
    r = api.as_user("ops", "/device/query", {"device_id": "dev-free"})
    assert r.json()["data"]["user_id"] == ""


def test_bind_a_new_device(api: Api) -> None:
    r = api.as_user("alice", "/device/bind", BIND)
    assert r.status_code == 200, r.text
    assert r.json()["data"] == {}
    device = api.as_user("alice", "/device/query", {"device_id": "dev-new"}).json()["data"]
    assert device["user_id"] == "u-alice"
    assert (device["group_id"], device["is_sub_device"], device["status"]) == (7, True, 0)
    assert (device["mac_addr"], device["version"], device["category_id"]) == (
        "AA:bb:CC:00:11:22",
        "3.4.5",
        "1",
    )
    assert device["gmt_bind"] == "2024-05-01 00:00:00"
    # again by the same user: no change
    assert api.as_user("alice", "/device/bind", BIND).status_code == 200
    # by someone else: conflict
    assert api.as_user("bob", "/device/bind", BIND).status_code == 409


def test_bind_an_existing_unbound_device(api: Api) -> None:
    params = {"device_id": "dev-free", "device_secret": "wrong-secret", "product_id": "p-lamp"}
    assert api.as_user("bob", "/device/bind", params).status_code == 422
    params["device_secret"] = api.world.device_secret
    assert api.as_user("bob", "/device/bind", params).status_code == 200
    device = api.as_user("bob", "/device/query", {"device_id": "dev-free"}).json()["data"]
    assert device["user_id"] == "u-bob"


@pytest.mark.parametrize(
    ("change", "status", "field"),
    [
        ({"product_id": "p-none"}, 404, "params.product_id"),
        ({"category_id": "2"}, 400, "params.category_id"),
        ({"status": 1}, 403, "params.status"),
        ({"owned": 0}, 403, "params.owned"),
    ],
)
def test_bind_rules(api: Api, change: dict[str, Any], status: int, field: str) -> None:
    r = api.as_user("alice", "/device/bind", {**BIND, **change})
    assert r.status_code == status
    assert r.json()["error_msg"].startswith(field)


def test_update_info_of_own_binding(api: Api) -> None:
    r = api.as_user(
        "alice",
        "/device/update_info",
        {
            "device_id": "dev-a1",
            "group_id": 3,
            "is_sub_device": True,
            "user_id": "u-alice",
            "owned": 1,
        },
    )
    assert r.status_code == 200
    device = api.as_user("alice", "/device/query", {"device_id": "dev-a1"}).json()["data"]
    assert (device["group_id"], device["is_sub_device"]) == (3, True)


def test_update_info_ownership_transfer_is_admin_only(api: Api) -> None:
    r = api.as_user("alice", "/device/update_info", {"device_id": "dev-a1", "user_id": "u-bob"})
    assert r.status_code == 403
    r = api.as_user("alice", "/device/update_info", {"device_id": "dev-a1", "owned": 0})
    assert r.status_code == 403
    r = api.as_user("admin", "/device/update_info", {"device_id": "dev-a1", "user_id": "u-bob"})
    assert r.status_code == 200, r.text
    assert api.as_user("alice", "/device/query", {"device_id": "dev-a1"}).status_code == 404
    device = api.as_user("bob", "/device/query", {"device_id": "dev-a1"}).json()["data"]
    assert (device["user_id"], device["owned"]) == ("u-bob", 1)
    r = api.as_user("admin", "/device/update_info", {"device_id": "dev-a1", "user_id": "u-none"})
    assert r.status_code == 404
