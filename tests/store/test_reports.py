"""The reports read events from the local store with ``source store``: the same figures
as from the platform, the store's freshness written in the report, and fleet_inventory's
devices by status per day from the snapshots."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest
from reports.runs import platform_env

from opslib.reports import run_report
from opslib.store import StoreGap, StoreMismatch, report_source, status_per_day, sync

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def test_report_source_reads_events_from_the_store(
    platform: ServedPlatform, tmp_path: Path
) -> None:
    client = platform.connect()
    store = tmp_path / "store"
    for days_ago in (1, 0):
        moment = pd.Timestamp.now(tz="UTC") - pd.Timedelta(days=days_ago)
        sync(client, since="-4d", store=store, now=moment, progress=False)
    reading = report_source(client, "store", store)
    assert "events up to" in reading.freshness
    pd.testing.assert_frame_equal(reading.events.list("-3d"), client.events.list("-3d"))
    users = client.devices.list()["user_id"].dropna().unique()[:3].tolist()
    mine = reading.events.list("-3d", users=users)
    assert set(mine["user_id"]) <= set(users)
    assert len(mine) == len(client.events.list("-3d", users=users))
    # A report of a range the store does not hold counted what was there: 1 day of 7,
    # "ok". It is refused, with the sync that would fill it.
    with pytest.raises(
        StoreGap,
        match=r"holds events from .* only; this read starts at .*"
        r"run `opslib sync --since -10d` first, or read from the platform",
    ):
        reading.events.list("-10d")
    assert report_source(client, "platform") is client
    with pytest.raises(ValueError, match="source: 'disk'"):
        report_source(client, "disk")
    with pytest.raises(StoreMismatch):
        report_source(platform.connect("user"), "store", store)
    by_day = status_per_day(store)
    assert len(by_day) == 2
    assert by_day.sum(axis=1).tolist() == [len(client.devices.list())] * 2


@pytest.mark.slow  # two papermill kernels: half a minute or more
def test_fleet_inventory_and_event_analysis_from_the_store(
    platform: ServedPlatform, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    # event_analysis compares with the period before: -6d to -3d must be stored too
    sync(platform.connect(), since="-8d", store=store, progress=False)
    env = platform_env(platform)
    for name, params in (
        ("fleet_inventory", {}),
        ("event_analysis", {"start": "-3d", "freq": "6h"}),
    ):
        result = run_report(
            name,
            {"interactive": False, "source": "store", "store": str(store), **params},
            out_dir=tmp_path / "reports",
            env=env,
            cell_timeout=120,
            run_timeout=240,
        )
        assert result.outcome == "ok", result
        html = Path(result.html).read_text()
        assert "Events from the local store" in html
        assert "synced" in html
        if name == "fleet_inventory":
            assert "Devices by status on each day" in html


def test_the_parameters_sentence_names_the_store() -> None:
    from opslib.reports._describe import describe_parameters

    assert describe_parameters({"silent_days": 7, "source": "platform", "store": ""}) == (
        "Whole fleet, silent after 7 days."
    )
    assert describe_parameters({"silent_days": 7, "source": "store", "store": "/s"}) == (
        "Whole fleet, silent after 7 days, events from the local store /s."
    )
