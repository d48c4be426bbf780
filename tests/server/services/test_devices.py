"""opslib.server.services.devices: one device, a user's page of devices, binding."""

from __future__ import annotations

import pytest

from opslib.server.errors import ApiError
from opslib.server.models import BindParams, QueryByUserParams
from opslib.server.services import devices
from opslib.server.store import devices as devices_store

from ..factories import World
from .conftest import MakeContext


def test_a_device_is_seen_through_a_binding_or_by_ops(ctx: MakeContext) -> None:
    mine = devices.query_device(ctx("alice"), device_id="dev-a1")
    assert (mine["device_id"], mine["user_id"], mine["owned"]) == ("dev-a1", "u-alice", 1)
    with pytest.raises(ApiError, match="not found") as hidden:
        devices.query_device(ctx("bob"), device_id="dev-a1")
    assert hidden.value.status == 404
    stock = devices.query_device(ctx("ops"), device_id="dev-free")  # unbound: ops only
    assert (stock["device_id"], stock["user_id"]) == ("dev-free", "")


def test_a_page_of_devices_for_the_caller_or_the_fleet(ctx: MakeContext) -> None:
    own = devices.query_by_user(ctx("alice"), QueryByUserParams(access_token="t"))
    assert own["total"] == 2
    assert [d["device_id"] for d in own["device_list"]] == ["dev-a1", "dev-a2"]
    fleet = QueryByUserParams(access_token="t", user_id="", page_size=2, page_no=2)
    page = devices.query_by_user(ctx("ops"), fleet)
    assert (page["total"], [d["device_id"] for d in page["device_list"]]) == (3, ["dev-b1"])
    with pytest.raises(ApiError, match="needs the ops role") as refused:
        devices.query_by_user(ctx("alice"), fleet)
    assert refused.value.status == 403


def test_binding_a_new_device_makes_the_caller_its_owner(ctx: MakeContext) -> None:
    p = BindParams(
        access_token="t",
        device_id="dev-new",
        device_secret="new-device-secret",
        product_id="p-plug",
    )
    assert devices.bind(ctx("bob"), p) == {}
    request = ctx("bob")
    owner = devices_store.get_owner_binding(request.conn, device_id="dev-new")
    assert owner is not None
    assert owner["user_id"] == "u-bob"
    assert devices.bind(ctx("bob"), p) == {}  # binding again changes nothing
    with pytest.raises(ApiError, match="bound to another user") as taken:
        devices.bind(ctx("alice"), p)
    assert taken.value.status == 409
    wrong = p.model_copy(update={"device_secret": "not-the-secret"})
    with pytest.raises(ApiError, match="does not match the device") as mismatch:
        devices.bind(ctx("alice"), wrong)
    assert mismatch.value.status == 422


def test_binding_an_unknown_product_is_refused(ctx: MakeContext, world: World) -> None:
    p = BindParams(
        access_token="t", device_id="dev-x", device_secret=world.device_secret, product_id="p-no"
    )
    with pytest.raises(ApiError, match=r"params\.product_id: product not found") as unknown:
        devices.bind(ctx("bob"), p)
    assert unknown.value.status == 404
