"""opslib.analysis.fleet on small frames built with the declared schemas."""

from __future__ import annotations

import pandas as pd
import pytest

from opslib import analysis, plots
from opslib.client.frames import schema as _schemas

from .frames import T0, make_devices, typed_frame


def test_count_by_status_lists_every_status_with_share() -> None:
    counts = analysis.count_by(make_devices(), "status_name")
    assert list(counts.columns) == ["status_name", "devices", "share"]
    assert str(counts["devices"].dtype) == "Int64"
    assert str(counts["share"].dtype) == "Float64"
    by = dict(zip(counts["status_name"], counts["devices"], strict=True))
    assert by == {"online": 3, "offline": 2, "inactive": 2, "fault": 1}
    assert counts["share"].sum() == pytest.approx(1.0)
    assert counts["devices"].is_monotonic_decreasing


def test_count_by_firmware_shows_empty_version_as_none() -> None:
    counts = analysis.count_by(make_devices(), "version")
    by = dict(zip(counts["version"], counts["devices"], strict=True))
    assert by == {"1.0.0": 3, "1.1.0": 2, "1.2.0": 1, "3.0.1": 1, "(none)": 1}


def test_count_by_category_names_categories_and_keeps_empty_ones() -> None:
    categories = typed_frame(
        _schemas.CATEGORY,
        [
            {"category_id": 1, "category_name": "lighting", "category_icon": ""},
            {"category_id": 2, "category_name": "sockets", "category_icon": ""},
            {"category_id": 3, "category_name": "sensors", "category_icon": ""},
            {"category_id": 4, "category_name": "cameras", "category_icon": ""},
        ],
    )
    counts = analysis.count_by_category(make_devices(), categories)
    by = dict(zip(counts["category_name"], counts["devices"], strict=True))
    assert by == {"lighting": 4, "sockets": 2, "cameras": 2, "sensors": 0}
    assert counts["category_name"].iloc[0] == "lighting"


def test_count_by_unknown_column_names_it() -> None:
    with pytest.raises(ValueError, match="firmware"):
        analysis.count_by(make_devices(), "firmware")


def test_filter_devices_by_each_filter() -> None:
    devices = make_devices()
    assert set(analysis.filter_devices(devices, status="online")["device_id"]) == {"d1", "d5", "d8"}
    assert set(analysis.filter_devices(devices, status=3)["device_id"]) == {"d3"}
    assert set(analysis.filter_devices(devices, category_id=2)["device_id"]) == {"d3", "d4"}
    assert len(analysis.filter_devices(devices, category_id=0)) == 8
    lamps_of_u1 = analysis.filter_devices(devices, user_id="u1", product_id="p-lamp")
    assert set(lamps_of_u1["device_id"]) == {"d1", "d2", "d8"}
    with pytest.raises(ValueError, match="status: unknown device status 'sleeping'"):
        analysis.filter_devices(devices, status="sleeping")


def test_bind_cohorts_weekly_with_outcome_per_status() -> None:
    cohorts = analysis.bind_cohorts(make_devices(), "W")
    assert list(cohorts["cohort"].dt.strftime("%Y-%m-%d")) == [
        "2024-05-06",
        "2024-05-13",
        "2024-05-20",
    ]
    assert list(cohorts["devices"]) == [2, 2, 4]
    assert list(cohorts["never_online"]) == [0, 1, 1]
    assert list(cohorts["online"]) == [1, 0, 2]
    assert cohorts["online_share"].iloc[2] == pytest.approx(0.5)
    assert str(cohorts["cohort"].dtype) == "datetime64[ns, UTC]"


def test_bind_cohorts_of_no_devices_is_empty_but_typed() -> None:
    for bad in ("0D", "bogus"):  # pandas said "Frequency must be positive" / "Invalid"
        with pytest.raises(ValueError, match=f"freq: '{bad}' is not a period; use e.g. 'D'"):
            analysis.bind_cohorts(make_devices(), bad)
    empty = analysis.bind_cohorts(_schemas.DEVICE.empty())
    assert empty.empty
    assert "never_online" in empty.columns


def test_ownership_and_groups() -> None:
    devices = make_devices()
    summary = dict(zip(*analysis.ownership_summary(devices).to_dict("list").values(), strict=True))
    assert summary == {
        "devices": 8, "owned": 7, "shared": 1, "sub-devices": 2, "direct devices": 6,
        "in a group": 4, "groups": 2,
    }  # fmt: skip
    groups = analysis.group_summary(devices)
    assert list(groups["group_id"]) == [0, 7, 9]
    assert list(groups["devices"]) == [4, 2, 2]
    assert list(groups["sub_devices"]) == [0, 1, 1]


def test_never_online_and_silent() -> None:
    devices = make_devices()
    assert list(analysis.never_online(devices)["device_id"]) == ["d4", "d7"]
    now = T0 + pd.Timedelta(days=22)
    silent = analysis.silent_devices(devices, 7, now=now)
    assert list(silent["device_id"]) == ["d2", "d6"]
    assert silent["days_silent"].iloc[0] == pytest.approx(20.0)
    assert "silent_days" not in silent.columns  # the report parameter's name, not a column
    assert analysis.silent_devices(devices, 30, now=now).empty
    with pytest.raises(ValueError, match="days"):
        analysis.silent_devices(devices, -1)
    for days in (float("nan"), float("inf")):  # NaN said "cannot convert float NaN"
        with pytest.raises(ValueError, match="days: must be a finite number of 0 or more"):
            analysis.silent_devices(devices, days)


def test_statuses_are_the_platforms_labels() -> None:
    """Under chint 3 is "disabled" and 4 "activated": cohorts, filters and charts say so,
    never our "fault" for its 3."""
    devices = make_devices()
    chint = ["inactive", "online", "offline", "disabled", "activated"]
    labels = devices["status"].map(dict(enumerate(chint))).astype(pd.CategoricalDtype(chint))
    devices = devices.assign(status_name=labels)
    assert list(analysis.filter_devices(devices, status="disabled")["device_id"]) == ["d3"]
    assert list(analysis.filter_devices(devices, status=3)["device_id"]) == ["d3"]
    with pytest.raises(ValueError, match="unknown device status 'fault'; allowed: inactive, "):
        analysis.filter_devices(devices, status="fault")
    cohorts = analysis.bind_cohorts(devices, "M")
    assert "disabled" in cohorts.columns
    assert "fault" not in cohorts.columns
    assert int(cohorts["disabled"].sum()) == 1
    figure = plots.cohorts_chart(cohorts)
    assert "disabled" in {trace.name for trace in figure.data}
    assert int(analysis.group_summary(devices)["online"].sum()) == 3
