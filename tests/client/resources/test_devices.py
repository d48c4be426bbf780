"""client.devices on the real platform: the fleet and one's own, filters, paging, writes."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pytest

import opslib
from client.resources.dialected import (
    bind_fields,
    empty,
    error_code,
    fleet_devices,
    has_fleet,
    own_devices,
    owners,
)
from opslib.client.frames import schema as S

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def assert_fixed_columns(df: pd.DataFrame, schema: S.FrameSchema, platform: ServedPlatform) -> None:
    fixed = empty(schema, platform).dtypes.to_dict()
    assert list(df.columns[: len(fixed)]) == list(fixed)
    assert {c: df.dtypes[c] for c in fixed} == fixed
    assert all(c.startswith("properties.") for c in df.columns[len(fixed) :])


def test_fleet_listing(platform: ServedPlatform) -> None:
    df = fleet_devices(platform.connect(), platform)
    assert_fixed_columns(df, S.DEVICE, platform)
    if has_fleet(platform):
        assert len(df) == df.attrs["total"]
    else:  # per user, each user's read exact; a shared device is read once
        totals = df.attrs["totals"]
        assert sorted(totals) == owners(platform)
        assert max(totals.values()) <= len(df) <= sum(totals.values())
    assert df["device_id"].is_unique
    assert str(df["status"].dtype) == "Int64"
    assert str(df["status_name"].dtype) == "category"
    assert str(df["is_sub_device"].dtype) == "boolean"
    assert str(df["gmt_bind"].dtype) == "datetime64[ns, UTC]"
    ordered = df.sort_values(["gmt_bind", "device_id"], kind="stable", ignore_index=True)
    assert df["device_id"].equals(ordered["device_id"])
    numeric = [c for c in df.columns if c.startswith("properties.")]
    assert numeric
    assert any(str(df[c].dtype) in ("Int64", "Float64") for c in numeric)


def test_small_pages_read_the_same_devices(platform: ServedPlatform) -> None:
    client = platform.connect()
    whole = fleet_devices(client, platform)
    paged = fleet_devices(client, platform, page_size=7)
    assert paged["device_id"].tolist() == whole["device_id"].tolist()


def test_a_user_lists_its_own(platform: ServedPlatform) -> None:
    user = platform.connect("user")
    df = own_devices(user, platform)
    assert_fixed_columns(df, S.DEVICE, platform)
    assert len(df) > 0
    assert df.loc[df["owned"] == 1, "user_id"].eq(user.user_id).all()
    assert user.devices.list(user.user_id)["device_id"].tolist() == df["device_id"].tolist()
    with pytest.raises(opslib.NotFound):
        user.devices.list("u-someone-else")


def test_ops_list_another_users_devices(platform: ServedPlatform) -> None:
    ops = platform.connect()
    user_id = platform.connect("user").user_id
    df = ops.devices.list(user_id)
    assert len(df) > 0
    assert df.attrs["total"] == len(df)


@pytest.mark.parametrize(
    ("filters", "column", "value"),
    [
        ({"owned": 1}, "owned", 1),
        ({"owned": "owner"}, "owned", 1),
        ({"group_id": 2}, "group_id", 2),
        ({"is_sub_device": True}, "is_sub_device", True),
    ],
)
def test_filters_hold_on_every_page(
    platform: ServedPlatform, filters: dict[str, object], column: str, value: object
) -> None:
    df = fleet_devices(platform.connect(), platform, page_size=3, **filters)
    assert len(df) > 0
    assert (df[column] == value).all()


def test_limit(platform: ServedPlatform) -> None:
    if has_fleet(platform):
        df = platform.connect().devices.list(limit=5)
        assert df.attrs["total"] > 5
    else:  # per user: the user with the most devices
        client = platform.connect()
        whole = client.devices.list(users=owners(platform))
        user = whole["user_id"].mode().iloc[0]
        df = client.devices.list(user, limit=5)
        assert df.attrs["total"] > 5
    assert len(df) == 5


def test_empty_result_keeps_the_schema(platform: ServedPlatform) -> None:
    df = fleet_devices(platform.connect(), platform, group_id=2**31 - 1)
    assert len(df) == 0
    assert list(df.columns) == list(S.DEVICE.dtypes())
    assert df.dtypes.to_dict() == empty(S.DEVICE, platform).dtypes.to_dict()


def test_iter_pages(platform: ServedPlatform) -> None:
    client = platform.connect()
    whose: dict[str, str] = {}
    if not has_fleet(platform):  # per user: the user with the most devices
        with pytest.raises(opslib.Unsupported, match="users="):
            list(client.devices.iter_pages(page_size=10))
        whole = client.devices.list(users=owners(platform))
        whose["user_id"] = whole["user_id"].mode().iloc[0]
    pages = list(client.devices.iter_pages(page_size=10, **whose))
    total = pages[0].attrs["total"]
    assert sum(len(p) for p in pages) == total
    assert [p.attrs["page_no"] for p in pages] == list(range(1, len(pages) + 1))
    assert all(p.attrs["page_size"] == 10 for p in pages)
    for page in pages:
        assert_fixed_columns(page, S.DEVICE, platform)
    assert len(pages) > 1
    resumed = list(client.devices.iter_pages(page_size=10, page_no=2, **whose))
    assert [p["device_id"].tolist() for p in resumed] == [
        p["device_id"].tolist() for p in pages[1:]
    ]


def test_get(platform: ServedPlatform) -> None:
    client = platform.connect()
    listed = fleet_devices(client, platform, limit=1).head(1)
    df = client.devices.get(listed["device_id"].item())
    assert_fixed_columns(df, S.DEVICE, platform)
    assert len(df) == 1
    assert df["device_id"].item() == listed["device_id"].item()
    assert df["product_id"].item() == listed["product_id"].item()


def test_get_unknown(platform: ServedPlatform) -> None:
    with pytest.raises(opslib.NotFound):
        platform.connect().devices.get("dev-nope")


def test_options_of_the_wrong_kind_are_refused_by_name(platform: ServedPlatform) -> None:
    client = platform.connect()
    for options, said in [
        ({"is_sub_device": "no"}, "is_sub_device must be True, False or None, got 'no'"),
        ({"include_secrets": "no"}, "include_secrets must be True or False, got 'no'"),
        ({"group_id": "x"}, "group_id must be an integer, got 'x'"),
        ({"group_id": 2.7}, "group_id must be an integer, got 2.7"),  # int() cut it to 2
    ]:  # "no" is true to Python: the opposite filter, or the secrets kept
        with pytest.raises(TypeError, match=re.escape(said)):
            client.devices.list(client.user_id, **options)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="include_secrets must be True or False"):
        client.devices.get("dev-nope", include_secrets="no")  # type: ignore[arg-type]
    for device_id in (None, ""):  # None was sent as the id "None"
        with pytest.raises(TypeError, match="device_id must be a non-empty string"):
            client.devices.get(device_id)  # type: ignore[arg-type]
    # A frame's cells are numpy's integers: taken like Python's.
    assert len(fleet_devices(client, platform, limit=np.int64(3), page_size=np.int64(2))) == 3
    by_group = fleet_devices(client, platform, group_id=np.int64(2))
    assert len(by_group) > 0
    assert (by_group["group_id"] == 2).all()


def test_bind_a_new_device(fresh_platform: ServedPlatform) -> None:
    user = fresh_platform.connect("user")
    product = user.products.list(1)["product_id"].iloc[0]
    df = user.devices.bind(
        "dev-client-001",
        device_secret="device-secret-1",
        product_id=product,
        group_id=5,
        **{**bind_fields(fresh_platform), "mac_addr": "AA:BB:CC:DD:EE:01", "version": "1.0.0"},
    )
    assert list(df.columns) == list(S.DEVICE_WRITE_RESULT.dtypes())
    assert df.dtypes.to_dict() == S.DEVICE_WRITE_RESULT.empty().dtypes.to_dict()
    assert df["ok"].tolist() == [True]
    device = user.devices.get("dev-client-001").iloc[0]
    assert device["owned"] == 1
    assert device["status_name"] == "inactive"
    assert device["group_id"] == 5
    assert device["user_id"] == user.user_id
    assert device["category_id"] == "1"


def test_bulk_bind_reports_per_row(fresh_platform: ServedPlatform) -> None:
    user = fresh_platform.connect("user")
    product = user.products.list(1)["product_id"].iloc[0]
    taken = "dev-client-012"  # bound by someone else first, with the same secret
    fresh_platform.connect("admin").devices.bind(
        taken, device_secret="device-secret-12", product_id=product, **bind_fields(fresh_platform)
    )
    rows = pd.DataFrame(
        {
            "device_id": ["dev-client-010", "dev-client-011", taken],
            "device_secret": ["device-secret-10", "device-secret-11", "device-secret-12"],
            "product_id": [product, "p-unknown", product],
        }
    )
    df = user.devices.bind(rows, is_sub_device=False, **bind_fields(fresh_platform))
    assert df["device_id"].tolist() == rows["device_id"].tolist()
    assert df["ok"].tolist() == [True, False, False]
    assert df["error_code"].tolist() == [
        200,
        error_code(fresh_platform, 404, "product"),  # chint: 8110 product does not exist
        error_code(fresh_platform, 409),
    ]  # unknown product; bound to another


def test_update_one_and_many(fresh_platform: ServedPlatform) -> None:
    user = fresh_platform.connect("user")
    mine = own_devices(user, fresh_platform, owned=1)
    first = mine["device_id"].iloc[0]
    df = user.devices.update(first, group_id=42)
    assert df["ok"].tolist() == [True]
    assert user.devices.get(first)["group_id"].item() == 42
    batch = mine[["device_id"]].head(3).assign(group_id=[7, 8, 9])
    out = user.devices.update(batch)
    assert out["ok"].all()
    after = (
        own_devices(user, fresh_platform, owned=1)
        .set_index("device_id")
        .loc[batch["device_id"], "group_id"]
    )
    assert after.tolist() == [7, 8, 9]


def test_update_refusals(fresh_platform: ServedPlatform) -> None:
    user = fresh_platform.connect("user")
    device = own_devices(user, fresh_platform, owned=1)["device_id"].iloc[0]
    other = (
        fresh_platform.connect()
        .users.get(area_code="1", phone=fresh_platform.ops_phone)["user_id"]
        .item()
    )
    with pytest.raises(opslib.PermissionDenied):
        user.devices.update(device, user_id=other)
    with pytest.raises(ValueError, match="device_secret"):
        user.devices.update(device, device_secret="x")
    with pytest.raises(ValueError, match="no device_id"):
        user.devices.update([{"group_id": 1}])
    for nothing in (device, [device]):  # was sent, and answered ok with nothing changed
        with pytest.raises(ValueError, match=r"rows \[0\] change nothing; give user_id"):
            user.devices.update(nothing)
    with pytest.raises(TypeError, match=r"devices\.update: give a device_id, a list of them"):
        user.devices.update(None, group_id=3)  # type: ignore[arg-type]
    before = own_devices(user, fresh_platform, owned=1).set_index("device_id")
    for flag in ("no", "false"):  # both true to Python: it became a sub-device
        with pytest.raises(TypeError, match=f"is_sub_device must be True or False .*'{flag}'"):
            user.devices.update(device, is_sub_device=flag)
    after = own_devices(user, fresh_platform, owned=1).set_index("device_id")
    assert after.loc[device, "is_sub_device"] == before.loc[device, "is_sub_device"]


def test_update_takes_a_list_of_ids(fresh_platform: ServedPlatform) -> None:
    user = fresh_platform.connect("user")
    mine = own_devices(user, fresh_platform, owned=1)["device_id"].head(2).tolist()
    done = user.devices.update(mine, group_id=7)  # it said "item 0 is a str, not a mapping"
    assert done["ok"].tolist() == [True, True]
    groups = own_devices(user, fresh_platform, owned=1).set_index("device_id")["group_id"]
    assert groups[mine].tolist() == [7, 7]
