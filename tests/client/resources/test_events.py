"""client.events on the real platform: any time range, every query model, paging."""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING

import pandas as pd
import pytest

import opslib
from client.faults import Faults
from client.resources.dialected import empty, fleet_events, has_fleet, own_events, owners
from opslib.client.frames import schema as S

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def assert_fixed_columns(df: pd.DataFrame, platform: ServedPlatform) -> None:
    fixed = empty(S.EVENT, platform).dtypes.to_dict()
    assert list(df.columns[: len(fixed)]) == list(fixed)
    assert {c: df.dtypes[c] for c in fixed} == fixed


def test_fleet_events(platform: ServedPlatform) -> None:
    df = fleet_events(platform.connect(), platform, "-30d")
    assert_fixed_columns(df, platform)
    assert len(df) > 0
    if has_fleet(platform):
        assert len(df) == df.attrs["total"]
    else:  # per user, each user's read exact; a shared device's events are read once
        totals = df.attrs["totals"]
        assert sorted(totals) == owners(platform)
        assert max(totals.values()) <= len(df) <= sum(totals.values())
    assert df["event_id"].is_unique
    assert str(df["gmt_create"].dtype) == "datetime64[ns, UTC]"
    assert str(df["event_type"].dtype) == "Int64"
    assert str(df["event_type_name"].dtype) == "category"
    assert df["gmt_create"].is_monotonic_increasing  # ties keep the platform's order
    assert str(df["properties.temperature"].dtype) == "Float64"


def test_small_pages_and_concurrency_read_the_same_events(platform: ServedPlatform) -> None:
    client = platform.connect()
    whole = fleet_events(client, platform, "-30d")
    faults = Faults()
    paged = fleet_events(platform.connect(transport=faults), platform, "-30d", page_size=25)
    assert paged["event_id"].tolist() == whole["event_id"].tolist()
    bodies = [s.body for s in faults.to("/device/query_record") if s.body]
    assert bodies
    assert {b["params"]["start"] for b in bodies} == {bodies[0]["params"]["start"]}  # one range
    pages = {(b["params"].get("user_id_param"), b["params"]["page_no"]) for b in bodies}
    assert len(pages) == len(bodies)  # no page read twice (per user without a fleet query)


def test_by_device(platform: ServedPlatform) -> None:
    client = platform.connect()
    device = fleet_events(client, platform, "-30d")["device_id"].mode().iloc[0]
    df = client.events.list("-30d", device_id=device)
    assert_fixed_columns(df, platform)
    assert len(df) > 0
    assert (df["device_id"] == device).all()


def test_by_user_and_the_callers_own(platform: ServedPlatform) -> None:
    user = platform.connect("user")
    own = own_events(user, platform, "-30d")
    assert_fixed_columns(own, platform)
    assert len(own) > 0
    assert (own["user_id"] == user.user_id).all()
    by_id = platform.connect().events.list("-30d", user_id=user.user_id)
    assert by_id["event_id"].tolist() == own["event_id"].tolist()


def test_event_type_filter(platform: ServedPlatform) -> None:
    client = platform.connect()
    # the dialect's own label and code for faults (chint: "fault and system report", 1)
    label, code = ("fault and system report", 1) if platform.dialect == "chint" else ("alarm", 4)
    alarms = fleet_events(client, platform, "-30d", event_type=label)
    assert len(alarms) > 0
    assert (alarms["event_type"] == code).all()
    assert set(alarms["event_type_name"]) == {label}
    by_code = fleet_events(client, platform, "-30d", event_type=code)
    assert by_code["event_id"].tolist() == alarms["event_id"].tolist()
    # Several types said "event_type must be one of 1 (online)...", though each was one.
    with pytest.raises(ValueError, match=r"event_type takes one type, got \[4, 2\]: the"):
        client.events.list("-30d", user_id=client.user_id, event_type=[4, 2])


def test_every_form_of_time_range_agrees(platform: ServedPlatform) -> None:
    client = platform.connect()
    end = pd.Timestamp.now(tz="UTC").floor("s")
    start = end - pd.Timedelta(days=30)
    reference = fleet_events(client, platform, start, end)["event_id"].tolist()
    assert reference
    forms = [
        (start.to_pydatetime(), end.to_pydatetime()),
        (start.tz_localize(None).to_pydatetime(), end.tz_localize(None).isoformat()),  # naive: UTC
        (int(start.timestamp()), int(end.timestamp())),  # epoch seconds
        (int(start.timestamp() * 1000), int(end.timestamp() * 1000)),  # epoch ms
        (start.isoformat(), end.isoformat()),
    ]
    for a, b in forms:
        assert fleet_events(client, platform, a, b)["event_id"].tolist() == reference


def test_empty_range_keeps_the_schema(platform: ServedPlatform) -> None:
    client = platform.connect()
    df = fleet_events(client, platform, dt.datetime(2001, 1, 1), dt.datetime(2001, 1, 2))
    assert len(df) == 0
    assert list(df.columns) == list(S.EVENT.dtypes())
    assert df.dtypes.to_dict() == empty(S.EVENT, platform).dtypes.to_dict()


def test_start_not_before_end_is_refused_before_any_request(platform: ServedPlatform) -> None:
    faults = Faults()
    client = platform.connect(transport=faults)
    before = len(faults.sent)
    with pytest.raises(ValueError, match="start must be before end"):
        client.events.list("now", "-1d")
    assert len(faults.sent) == before


@pytest.mark.parametrize(
    ("option", "said"),
    [
        ({"cache": "no"}, "cache must be True or False, got 'no'"),
        ({"cache": None}, "cache must be True or False, got None"),
        ({"progress": "off"}, "progress must be True, False or None, got 'off'"),
        ({"progress": 0}, "progress must be True, False or None, got 0"),
    ],
)
def test_a_flag_that_is_not_true_or_false_is_refused_before_any_request(
    platform: ServedPlatform, option: dict[str, object], said: str
) -> None:
    faults = Faults()
    client = platform.connect(transport=faults)
    before = len(faults.sent)
    with pytest.raises(TypeError, match=f"^{re.escape(said)}$"):
        client.events.list("-1d", **option)  # type: ignore[arg-type]
    assert len(faults.sent) == before
    if has_fleet(platform):  # else a fleet listing is refused first
        with pytest.raises(TypeError, match="progress must be True, False or None"):
            client.devices.list(progress="off")  # type: ignore[arg-type]


def test_device_and_user_together_are_refused(platform: ServedPlatform) -> None:
    with pytest.raises(ValueError, match="not both"):
        platform.connect().events.list("-1d", device_id="d", user_id="u")


def test_a_user_reading_others_is_not_found(platform: ServedPlatform) -> None:
    with pytest.raises(opslib.NotFound):
        platform.connect("user").events.list("-30d", user_id="u-someone-else")


def test_limit_and_iter_pages(platform: ServedPlatform) -> None:
    client = platform.connect()
    whose: dict[str, str] = {}
    if not has_fleet(platform):  # per user: the user with the most events
        whole = client.events.list("-30d", users=owners(platform))
        whose["user_id"] = whole["user_id"].mode().iloc[0]
    assert len(fleet_events(client, platform, "-30d", limit=30)) == 30
    assert len(client.events.list("-30d", limit=30, **whose)) == 30
    end = pd.Timestamp.now(tz="UTC")
    start = end - pd.Timedelta(days=30)
    pages = list(client.events.iter_pages(start, end, page_size=50, **whose))
    total = pages[0].attrs["total"]
    assert sum(len(p) for p in pages) == total
    for page in pages:
        assert_fixed_columns(page, platform)
    assert len(pages) >= 3
    resumed = list(client.events.iter_pages(start, end, page_size=50, page_no=3, **whose))
    assert resumed[0]["event_id"].tolist() == pages[2]["event_id"].tolist()
