"""The session's per-user facts: whether the caller may read the whole fleet."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from client.faults import Faults

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def test_fleet_is_tried_once_per_user(platform: ServedPlatform) -> None:
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


def test_switching_user_forgets_the_fleet_answer(platform: ServedPlatform) -> None:
    faults = Faults()
    client = platform.connect("user", transport=faults)
    client.devices.list()
    client.devices.list()
    assert fleet_probes(faults) == 1  # refused once (403), then remembered
    client.auth.login(platform.area_code, platform.ops_phone, password=platform.ops_password)
    assert client.devices.list()["user_id"].nunique() > 1
    assert fleet_probes(faults) == 2  # the new user is asked again


def record_models(faults: Faults) -> list[int]:
    return [s.body["params"]["query_model"] for s in faults.to("/device/query_record") if s.body]


def test_a_fleet_event_read_is_its_own_fleet_check(platform: ServedPlatform) -> None:
    # The first page of the fleet's events holds records: the fleet may be read, learned
    # without the fleet check's round trip, and remembered for the next read.
    faults = Faults()
    ops = platform.connect(transport=faults)
    df = ops.events.list("-30d", end="2100-01-01")
    assert len(df) == df.attrs["total"] > 0
    assert df["user_id"].nunique() > 1
    assert set(record_models(faults)) == {3}
    ops.devices.list()
    assert fleet_probes(faults) == 0


def test_a_refused_fleet_event_read_reads_the_callers_own(platform: ServedPlatform) -> None:
    # A plain user's fleet read is refused (403) on its first page: that page and the rest
    # are the caller's own devices' events, and the refusal is remembered.
    faults = Faults()
    user = platform.connect("user", transport=faults)
    df = user.events.list("-30d", end="2100-01-01")
    own = user.events.list("-30d", end="2100-01-01", user_id=user.user_id)
    assert df["event_id"].tolist() == own["event_id"].tolist()
    assert len(df) > 0
    assert record_models(faults)[:2] == [3, 2]
    user.devices.list()
    assert fleet_probes(faults) == 0


def test_an_empty_fleet_event_page_is_not_taken_as_access(
    platform_factory: Callable[..., ServedPlatform],
) -> None:
    # The vendor platform answers a fleet read the caller may not make with an empty page:
    # the fleet check decides (no), and the caller's own events are read.
    vendor = platform_factory(dialect="vendor")
    faults = Faults()
    user = vendor.connect("user", transport=faults)
    df = user.events.list("-30d", end="2100-01-01")
    own = user.events.list("-30d", end="2100-01-01", user_id=user.user_id)
    assert df["event_id"].tolist() == own["event_id"].tolist()
    assert len(df) > 0
    assert record_models(faults)[0] == 3
    assert fleet_probes(faults) == 1
