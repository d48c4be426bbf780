"""Fleet reads without a fleet query: ``users=[...]`` fans out per user,
and a platform without a fleet mode refuses a fleet read with opslib.Unsupported."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import pytest

import opslib
from client.faults import Faults
from opslib.dialects import Dialect

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def _owners(client: object, n: int) -> list[str]:
    devices = client.devices.list()  # type: ignore[attr-defined]
    return devices["user_id"].dropna().drop_duplicates().head(n).tolist()


def test_events_per_user_equal_the_users_reads_joined(platform: ServedPlatform) -> None:
    ops = platform.connect()
    users = _owners(ops, 3)
    joined = ops.events.list("-30d", users=[*users, users[0]])  # a duplicate user: read once
    singles = [ops.events.list("-30d", user_id=u) for u in users]
    expected = set().union(*(set(s["event_id"]) for s in singles))
    assert joined["event_id"].is_unique
    assert set(joined["event_id"]) == expected
    assert joined.attrs["totals"] == {
        u: s.attrs["total"] for u, s in zip(users, singles, strict=True)
    }
    assert joined["gmt_create"].is_monotonic_increasing
    assert str(joined["event_type"].dtype) == "Int64"
    assert list(joined.columns[:7]) == list(singles[0].columns[:7])


def test_devices_per_user_equal_the_users_reads_joined(platform: ServedPlatform) -> None:
    ops = platform.connect()
    users = _owners(ops, 4)
    joined = ops.devices.list(users=users)
    singles = [ops.devices.list(u) for u in users]
    expected = pd.concat(singles)["device_id"].drop_duplicates()
    assert sorted(joined["device_id"]) == sorted(expected)
    assert joined["device_id"].is_unique
    assert len(ops.devices.list(users=users, limit=3)) == 3


def test_users_is_checked() -> None:
    client = opslib.connect()
    with pytest.raises(TypeError, match="list of user ids"):
        client.devices.list(users="u1")
    with pytest.raises(ValueError, match="at least one"):
        client.events.list("-1d", users=[])
    with pytest.raises(ValueError, match="not both"):
        client.events.list("-1d", user_id="u1", users=["u2"])


def test_no_fleet_query_raises_unsupported_before_sending(platform: ServedPlatform) -> None:
    faults = Faults()
    client = platform.connect(transport=faults)
    no_fleet = Dialect().replace(capabilities={"fleet_events": False})
    client._session.dialect = no_fleet  # what connect(dialect=...) sets
    sent = len(faults.sent)
    with pytest.raises(opslib.Unsupported, match="users="):
        client.events.list("-7d")
    assert len(faults.sent) == sent
    for other in (client.events.iter_pages, client.events.to_dask):  # they take no users=
        with pytest.raises(opslib.Unsupported) as caught:
            other("-7d")
        assert "pass device_id= or user_id= (events.list(users=[...]) reads" in str(caught.value)
    assert isinstance(opslib.Unsupported("x"), opslib.OpsError)
    users = _owners(client, 2)
    assert len(client.events.list("-7d", users=users)) > 0
    with pytest.raises(opslib.NotFound) as caught:  # the user the platform does not know
        client.events.list("-7d", users=[users[0], "u-nobody"])
    assert str(caught.value).startswith("/device/query_record for user 'u-nobody': 404 ")


def test_per_user_device_listing_raises_unsupported(platform: ServedPlatform) -> None:
    client = platform.connect()
    per_user = Dialect().replace(required={"/device/query_by_user": ("user_id",)})
    client._session.dialect = per_user
    with pytest.raises(opslib.Unsupported, match="per user"):
        client.devices.list()
    assert client.devices.list(client.user_id).columns[0] == "device_id"
