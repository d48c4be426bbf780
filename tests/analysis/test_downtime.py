"""opslib.analysis.downtime: each device starts in its state at the window's start."""

from __future__ import annotations

import pandas as pd
import pytest

from opslib import analysis
from opslib.client.frames import schema as _schemas

from .frames import T0, typed_frame

DAY = (T0, T0 + pd.Timedelta(days=1))


def _events(rows: list[tuple[str, pd.Timestamp, int]]) -> pd.DataFrame:
    return typed_frame(
        _schemas.EVENT,
        [
            {"event_id": f"e{n:03d}", "gmt_create": at, "device_id": device, "user_id": "u1",
             "event_type": kind, "code": ""}
            for n, (device, at, kind) in enumerate(rows)
        ],
    )  # fmt: skip


def _devices(rows: list[tuple[str, int, pd.Timestamp | None]]) -> pd.DataFrame:
    return typed_frame(
        _schemas.DEVICE,
        [
            {"device_id": device, "user_id": "u1", "product_id": "p-lamp", "category_id": "1",
             "status": status, "owned": 1, "group_id": 0, "is_sub_device": False,
             "gmt_bind": T0 - pd.Timedelta(days=30), "gmt_last_seen": seen}
            for device, status, seen in rows
        ],
    )  # fmt: skip


def test_a_device_offline_all_day_has_24_hours_of_downtime_in_a_one_day_window() -> None:
    # offline since three days before the window, no event in it: the listing tells
    devices = _devices([("gone", 2, T0 - pd.Timedelta(days=3)), ("fine", 1, T0)])
    events = _events([("fine", T0 + pd.Timedelta(hours=3), 3)])
    down = analysis.downtime(events, window=DAY, devices=devices)
    assert list(down["device_id"]) == ["gone"]
    row = down.iloc[0]
    assert row["downtime_hours"] == pytest.approx(24.0)
    assert row["availability"] == pytest.approx(0.0)
    assert bool(row["ongoing"])
    assert bool(row["since_before"])
    gaps = analysis.outages(
        events, start=DAY[0], end=DAY[1],
        down=analysis.start_states(DAY[0], after=events, devices=devices),
    )  # fmt: skip
    assert gaps.iloc[0]["since"] == T0 - pd.Timedelta(days=3)


def test_an_outage_begun_before_the_window_counts_from_its_start() -> None:
    # its first state event in the window is an online one: it was down until then
    events = _events([("d1", T0 + pd.Timedelta(hours=5), 1), ("d1", T0 + pd.Timedelta(hours=9), 2)])
    down = analysis.downtime(events, window=DAY, devices=_devices([("d1", 2, DAY[1])]))
    assert down.iloc[0]["outages"] == 2
    assert down.iloc[0]["downtime_hours"] == pytest.approx(5 + 15)
    assert analysis.downtime(events, window=DAY)["downtime_hours"].sum() == pytest.approx(15)


def test_the_last_state_event_before_the_window_decides_its_start() -> None:
    before = _events([("d1", T0 - pd.Timedelta(hours=2), 2), ("d2", T0 - pd.Timedelta(hours=1), 1)])
    states = analysis.start_states(DAY[0], before=before, after=_events([]))
    assert dict(zip(states["device_id"], states["state"], strict=True)) == {
        "d1": "offline",
        "d2": "online",
    }
    down = analysis.downtime(_events([]), window=DAY, before=before)
    assert list(down["device_id"]) == ["d1"]
    assert down.iloc[0]["downtime_hours"] == pytest.approx(24.0)


def test_a_device_up_at_the_start_and_quiet_has_no_downtime() -> None:
    # offline by the listing, but it reported inside the window: it went offline later
    devices = _devices([("d1", 2, T0 + pd.Timedelta(hours=20))])
    events = _events([("d1", T0 + pd.Timedelta(hours=20), 2)])
    down = analysis.downtime(events, window=DAY, devices=devices)
    assert down.iloc[0]["downtime_hours"] == pytest.approx(4.0)
    assert not bool(down.iloc[0]["since_before"])


def test_downtime_in_the_readers_zone_keeps_its_hours() -> None:
    window = analysis.resolve_window("2026-11-01", "2026-11-02", tz="America/New_York")
    devices = _devices([("gone", 2, window[0] - pd.Timedelta(days=1))])
    down = analysis.downtime(_events([]), window=window, devices=devices)
    assert down.iloc[0]["downtime_hours"] == pytest.approx(25.0)  # the day the clocks go back
    gaps = analysis.outages(
        _events([]), start=window[0], end=window[1],
        down=analysis.start_states(window[0], devices=devices, after=_events([])),
    )  # fmt: skip
    assert str(gaps["offline_at"].dt.tz) == "America/New_York"


def test_downtime_is_not_computed_when_a_filter_leaves_out_online_and_offline() -> None:
    events = _events([("d1", T0 + pd.Timedelta(hours=1), 2), ("d1", T0 + pd.Timedelta(hours=2), 1)])
    assert analysis.downtime_not_computed(events) == ""
    alarms = analysis.filter_events(events, event_types=["alarm"])
    assert analysis.downtime_not_computed(alarms) == (
        "Downtime not computed: the event types chosen (alarm) leave out the online and "
        "offline events it is measured from; choose them too, or no event type."
    )
    both = analysis.filter_events(events, event_types=["offline", "online"])
    assert analysis.downtime_not_computed(both) == ""
