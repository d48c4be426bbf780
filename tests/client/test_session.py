"""The session's per-user facts: whether the caller may read the whole fleet."""

from __future__ import annotations

from typing import TYPE_CHECKING

from client.faults import Faults

if TYPE_CHECKING:
    from tests.conftest import Platform


def test_fleet_is_tried_once_per_user(platform: Platform) -> None:
    faults = Faults()
    user = platform.connect("user", transport=faults)
    mine = user.devices.list()
    owner_rows = mine[mine["owned"] == 1]
    assert set(owner_rows["user_id"]) == {user.user_id}  # shared rows show their owner
    user.devices.list()
    user.events.list("-30d")
    fleet_probes = [
        s
        for s in faults.to("/device/query_by_user")
        if s.body and s.body["params"]["user_id"] == ""
    ]
    assert len(fleet_probes) == 1  # learned once, then remembered
    ops = platform.connect()
    fleet = ops.devices.list()
    assert len(fleet) > len(mine)
    assert fleet["user_id"].nunique() > 1


def fleet_probes(faults: Faults) -> int:
    return sum(
        1
        for s in faults.to("/device/query_by_user")
        if s.body and s.body["params"] == {**s.body["params"], "user_id": "", "page_size": 1}
    )


def test_switching_user_forgets_the_fleet_answer(platform: Platform) -> None:
    faults = Faults()
    client = platform.connect("user", transport=faults)
    client.devices.list()
    client.devices.list()
    assert fleet_probes(faults) == 1  # refused once (403), then remembered
    client.auth.login(platform.area_code, platform.ops_phone, password=platform.ops_password)
    assert client.devices.list()["user_id"].nunique() > 1
    assert fleet_probes(faults) == 2  # the new user is asked again
