"""opslib.analysis.events on small frames, and against plain pandas on random ones."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from opslib import analysis, enums, plots
from opslib.client.frames import schema as _schemas

from .frames import T0, WEEK, make_events


def test_event_volume_is_long_and_complete() -> None:
    volume = analysis.event_volume(make_events(), "1D")
    assert list(volume.columns) == ["time", "event_type_name", "events", "partial"]
    assert not volume["partial"].any()
    assert str(volume["events"].dtype) == "Int64"
    # 7 days x 5 types present (online, offline, property report, alarm, firmware upgrade)
    assert len(volume) == 35
    reports = volume[volume["event_type_name"] == "property report"]
    assert set(reports["events"]) == {6}
    assert int(volume["events"].sum()) == len(make_events())


def test_event_volume_covers_the_window_and_marks_partial_buckets() -> None:
    events = make_events()
    window = (T0 - pd.Timedelta(hours=36), T0 + pd.Timedelta(days=7, hours=12))
    volume = analysis.event_volume(events, "1D", window=window)
    times = volume["time"].drop_duplicates()
    # little data: the buckets still cover the whole requested window
    assert times.min() == T0 - pd.Timedelta(days=2)
    assert times.max() == T0 + pd.Timedelta(days=7)
    partial = volume.groupby("time")["partial"].first()
    assert partial.to_dict() == {t: t in (times.min(), times.max()) for t in times}
    assert int(volume["events"].sum()) == len(events)


def test_event_volume_refuses_a_bad_frequency() -> None:
    with pytest.raises(ValueError, match="freq: 'often'"):
        analysis.event_volume(make_events(), "often")
    # A notebook run by hand with freq 1s over a week drew 604,800 points a line.
    with pytest.raises(ValueError, match="freq: '1s' cuts the window into 604,800 buckets"):
        analysis.event_volume(make_events(), "1s", window=WEEK)
    assert len(analysis.event_volume(make_events(), "1min", window=WEEK)) > 0
    for empty in ("0h", "-1h"):  # '0h' ended in a ZeroDivisionError
        with pytest.raises(ValueError, match=f"freq: '{empty}' is not longer than zero"):
            analysis.event_volume(make_events(), empty)


def test_hour_weekday_matrix() -> None:
    matrix = analysis.hour_weekday_matrix(make_events())
    assert matrix.shape == (7, 24)
    assert list(matrix.index) == list(analysis.WEEKDAYS)
    assert matrix.loc["Monday", 8] == 2
    assert matrix.loc["Tuesday", 21] == 1
    assert int(matrix.to_numpy().sum()) == len(make_events())
    assert analysis.hour_weekday_matrix(_schemas.EVENT.empty()).to_numpy().sum() == 0


def test_noisiest_devices() -> None:
    noisy = analysis.noisiest_devices(make_events(), 2, window=WEEK)
    assert list(noisy["device_id"]) == ["d1", "d2"]
    assert list(noisy["events"]) == [28, 27]
    assert noisy.loc[0, "alarm"] == 7
    assert noisy.loc[0, "top_type"] == "property report"
    assert noisy.loc[0, "events_per_day"] == pytest.approx(4.0)
    for n in (-1, 0, 2.5):  # -1 gave every device but the quietest
        with pytest.raises(ValueError, match="n: give a number of devices of 1 or more"):
            analysis.noisiest_devices(make_events(), n)  # type: ignore[arg-type]


def test_alarm_codes() -> None:
    codes = analysis.alarm_codes(make_events())
    assert list(codes["code"]) == ["F201", "E101"]
    assert list(codes["severity"]) == ["fault", "alarm"]
    assert list(codes["alarms"]) == [4, 3]
    assert list(codes["devices"]) == [1, 1]
    assert codes.loc[0, "first_seen"] == T0 + pd.Timedelta(hours=21)


def test_outages_and_downtime() -> None:
    events = make_events()
    gaps = analysis.outages(events, end=WEEK[1])
    d2 = gaps[gaps["device_id"] == "d2"]
    assert list(d2["duration"]) == [
        pd.Timedelta(hours=2),
        pd.Timedelta(minutes=30),
        pd.Timedelta(hours=1),
    ]
    assert list(d2["ongoing"]) == [False, False, True]
    assert gaps[gaps["device_id"] == "d3"].empty  # an online with no offline before it
    down = analysis.downtime(events, window=WEEK)
    assert list(down["device_id"]) == ["d2"]
    row = down.iloc[0]
    assert row["outages"] == 3
    assert row["downtime_hours"] == pytest.approx(3.5)
    assert row["longest_hours"] == pytest.approx(2.0)
    assert bool(row["ongoing"])
    assert row["availability"] == pytest.approx(1 - 3.5 / (7 * 24))


def _pandas_outages(events: pd.DataFrame, end: pd.Timestamp) -> pd.DataFrame:
    """Outages as groupby and shift compute them (the reference)."""
    state = events[events["event_type"].isin([1, 2])][["device_id", "event_type", "gmt_create"]]
    state = state.dropna().assign(event_id=events["event_id"])
    state = state.sort_values(["device_id", "gmt_create", "event_id"], kind="stable")
    prev_type = state.groupby("device_id")["event_type"].shift(1)
    changes = state[(prev_type != state["event_type"]) | prev_type.isna()]
    next_type = changes.groupby("device_id")["event_type"].shift(-1)
    next_time = changes.groupby("device_id")["gmt_create"].shift(-1)
    offline = changes["event_type"] == 2
    online_at = next_time[offline].where(next_type[offline] == 1)
    out = pd.DataFrame(
        {
            "device_id": changes.loc[offline, "device_id"].astype("string"),
            "offline_at": changes.loc[offline, "gmt_create"].astype("datetime64[ns, UTC]"),
            "online_at": online_at.astype("datetime64[ns, UTC]"),
        }
    )
    out["duration"] = (out["online_at"].fillna(end) - out["offline_at"]).clip(lower=pd.Timedelta(0))
    out["ongoing"] = out["online_at"].isna().astype("boolean")
    return out.reset_index(drop=True)


@pytest.mark.parametrize("seed", range(30))
def test_outages_equal_a_groupby_and_shift(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 300))
    events = make_events().iloc[:0].reindex(range(n))
    events["event_id"] = pd.array([f"e{i:04d}" for i in rng.permutation(n)], dtype="string")
    devices = rng.choice(["d1", "d2", "d10", "a", None], n, p=[0.3, 0.3, 0.2, 0.15, 0.05])
    events["device_id"] = pd.array(devices, dtype="string")
    events["event_type"] = pd.array(rng.choice([1, 2, 2, 3], n), dtype="Int64")
    seconds = rng.integers(0, 50, n) * 60  # many events share a minute
    events["gmt_create"] = T0 + pd.to_timedelta(seconds, unit="s")
    end = T0 + pd.Timedelta(hours=2)
    got = analysis.outages(events, end=end)
    expected = _pandas_outages(events, end)
    columns = ["device_id", "offline_at", "online_at", "duration", "ongoing"]
    assert list(got.columns) == [*columns, "before_window", "since"]
    assert not got["before_window"].any()  # no state at the start given: none assumed
    got = got[columns]
    assert got.dtypes.to_dict() == expected[list(got.columns)].dtypes.to_dict()
    assert_frame_equal(got, expected[list(got.columns)])


def test_downtime_of_no_outages_is_empty_but_typed() -> None:
    down = analysis.downtime(_schemas.EVENT.empty())
    assert down.empty
    assert str(down["availability"].dtype) == "Float64"


def test_property_stats_keeps_numeric_properties_only() -> None:
    stats = analysis.property_stats(make_events())
    assert list(stats["property"]) == ["humidity", "temperature"]  # version is text
    temp = stats.set_index("property").loc["temperature"]
    assert temp["reports"] == 42
    assert temp["devices"] == 2
    assert temp["max"] == pytest.approx(25.0)
    assert temp["min"] == pytest.approx(18.0)


def _pandas_property_stats(events: pd.DataFrame) -> pd.DataFrame:
    """The statistics as plain pandas computes them, per column (the reference)."""
    rows = []
    for column in analysis.property_columns(events):
        values = pd.to_numeric(events[column], errors="coerce").astype("float64")
        data = values[values.notna()]
        rows.append(
            {
                "property": column.removeprefix("properties."),
                "reports": len(data),
                "devices": events.loc[values.notna(), "device_id"].nunique(),
                "mean": data.mean(),
                "std": data.std(),
                "min": data.min(),
                "p05": data.quantile(0.05),
                "median": data.median(),
                "p95": data.quantile(0.95),
                "max": data.max(),
            }
        )
    stats = ["mean", "std", "min", "p05", "median", "p95", "max"]
    dtypes = {"property": "string", "reports": "Int64", "devices": "Int64"}
    return pd.DataFrame(rows).astype({**dtypes, **dict.fromkeys(stats, "Float64")})


@pytest.mark.parametrize("seed", range(20))
def test_property_stats_equal_plain_pandas(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    events = make_events().iloc[:0].reindex(range(n))
    events["device_id"] = pd.array(rng.choice(["d1", "d2", "d3", None], n), dtype="string")
    ints = rng.integers(-50, 50, n).astype(object)
    ints[rng.random(n) < 0.3] = None
    events["properties.level"] = pd.array(ints, dtype="Int64")
    floats = rng.normal(20, 5, n)
    floats[rng.random(n) < 0.5] = np.nan
    events["properties.temp"] = pd.array(floats, dtype="Float64")
    mixed = [float(v) if rng.random() < 0.95 else "x" for v in rng.normal(0, 1, n)]
    events["properties.mixed"] = pd.Series(mixed, dtype=object)
    events["properties.lonely"] = pd.array([7] + [None] * (n - 1), dtype="Int64")
    expected = _pandas_property_stats(events)
    assert_frame_equal(analysis.property_stats(events), expected, check_exact=False, rtol=1e-9)


@pytest.mark.parametrize("seed", range(20))
def test_property_columns_of_text_count_every_value(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    events = make_events().iloc[:0].reindex(range(n))
    expected = []
    for i, share in enumerate((0.0, 0.85, 0.9, 0.95, 1.0)):
        words = [str(round(v, 1)) if rng.random() < share else "on" for v in rng.normal(0, 9, n)]
        column = f"properties.t{i}"
        events[column] = pd.array(
            [None if rng.random() < 0.2 else w for w in words], dtype="string[pyarrow]"
        )
        present = events[column].dropna()
        parsed = pd.to_numeric(present.astype(object), errors="coerce").notna()
        if len(present) and parsed.mean() >= 0.9:
            expected.append(column)
    assert analysis.property_columns(events) == sorted(expected)


def test_filter_events_by_type_label_device_and_time() -> None:
    events = make_events()
    alarms = analysis.filter_events(events, event_types=["alarm"])
    assert set(alarms["event_type"]) == {4}
    some = analysis.filter_events(
        events, event_types=[1, "offline"], device_id="d2", start=T0 + pd.Timedelta(days=2)
    )
    assert len(some) == 4
    with pytest.raises(ValueError, match="event_types: unknown event type 'reboot'"):
        analysis.filter_events(events, event_types=["reboot"])


def _noisiest_reference(events: pd.DataFrame, n: int) -> pd.DataFrame:
    """The crosstab formulation noisiest_devices had before its bincount (same order)."""
    labels = list(enums.labels(enums.EventType).values())
    type_label = events["event_type"].map(enums.labels(enums.EventType)).astype("string")
    table = pd.crosstab(events["device_id"], type_label.fillna("(none)"))
    table = table.reindex(columns=labels, fill_value=0)
    total = table.sum(axis=1)
    return table.loc[total.sort_values(ascending=False, kind="stable").head(n).index]


@pytest.mark.parametrize("seed", range(20))
def test_noisiest_devices_counts_equal_a_crosstab(seed: int) -> None:
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 400))
    devices = rng.choice(["d-1", "d-2", "d-3", "d-10", "d-b", None], size=size)
    types = rng.choice([1, 2, 3, 4, 5, 6, 99, None], size=size)  # 99: unknown type
    events = pd.DataFrame(
        {
            "device_id": pd.array(devices, dtype="string"),
            "event_type": pd.array(types, dtype="Int64"),
            "gmt_create": pd.Timestamp("2026-01-01", tz="UTC"),
        }
    )
    want = _noisiest_reference(events, 4)
    got = analysis.noisiest_devices(events, 4)
    assert list(got["device_id"]) == list(want.index)
    for label in want.columns:
        assert list(got[label]) == list(want[label]), label
    assert list(got["events"]) == list(want.sum(axis=1))
    assert list(got["top_type"]) == list(want.idxmax(axis=1))


def test_value_by_command_keeps_unrelated_quantities_apart() -> None:
    events = make_events().iloc[:6].copy()
    events["properties.command"] = pd.array(
        ["set_brightness", "set_brightness", "set_temperature", "set_temperature", None, None],
        dtype="string",
    )
    events["properties.value"] = pd.array([80, 20, 21, 23, 5, None], dtype="Int64")
    split = analysis.value_by_command(events)
    stats = analysis.property_stats(split).set_index("property")
    assert stats.loc["value (set_brightness)", "mean"] == 50
    assert stats.loc["value (set_temperature)", "mean"] == 22
    assert stats.loc["value", "reports"] == 1  # a value without a command stays as it is
    plain = make_events()
    assert list(analysis.value_by_command(plain).columns) == list(plain.columns)


def test_chart_properties_leave_out_switches_and_rank_by_reports() -> None:
    events = make_events()
    n = len(events)
    events = events.assign(
        **{
            "properties.on": [i % 2 for i in range(n)],  # a 0/1 switch
            "properties.watts": [float(i) for i in range(n)],  # reported by every event
        }
    )
    ranked = analysis.chart_properties(events)
    assert "properties.on" not in ranked
    assert ranked[0] == "properties.watts"
    assert set(ranked) == {"properties.watts", "properties.humidity", "properties.temperature"}


def test_day_buckets_are_the_readers_calendar_days_across_a_clock_change() -> None:
    zone = "America/New_York"
    window = analysis.resolve_window("2026-10-31", "2026-11-03", tz=zone)
    moments = pd.to_datetime(
        ["2026-10-31 16:00", "2026-11-01 04:30", "2026-11-02 04:30", "2026-11-02 05:30"], utc=True
    )  # noon on Oct 31, 00:30 (EDT) and 23:30 (EST) on Nov 1, 00:30 on Nov 2, local
    events = make_events().iloc[:4].assign(gmt_create=moments)
    volume = analysis.event_volume(events, "1D", window=window)
    per_day = volume.groupby("time")["events"].sum()
    assert [t.strftime("%Y-%m-%d %H:%M %z") for t in per_day.index] == [
        "2026-10-31 00:00 -0400", "2026-11-01 00:00 -0400", "2026-11-02 00:00 -0500",
    ]  # fmt: skip
    assert per_day.tolist() == [1, 2, 1]  # Nov 1 is a 25-hour day holding two events
    assert not volume["partial"].any()
    hours = analysis.event_volume(events, "1h", window=window)
    assert hours["time"].nunique() == 73  # three days, one of 25 hours
    assert str(hours["time"].dt.tz) == zone


def test_a_one_day_window_has_the_rows_of_its_weekdays_in_the_readers_hours() -> None:
    # Tuesday 12:00 to Wednesday 12:00 in Shanghai
    window = analysis.resolve_window("2024-05-07T12:00", "2024-05-08T12:00", tz="Asia/Shanghai")
    events = (
        make_events()
        .iloc[:1]
        .assign(
            gmt_create=pd.to_datetime(["2024-05-07 13:00"], utc=True)  # 21:00 in Shanghai
        )
    )
    matrix = analysis.hour_weekday_matrix(events, window=window)
    assert list(matrix.index) == ["Tuesday", "Wednesday"]
    assert matrix.loc["Tuesday", 21] == 1
    week = analysis.hour_weekday_matrix(events)
    assert len(week.index) == 7
    assert week.loc["Tuesday", 13] == 1  # UTC without a zone


def test_a_volume_chart_over_a_long_window_gets_a_bucket_that_fits() -> None:
    from opslib.reports import notebook as nb

    # user_lookup drew 1h buckets whatever its days: 1000 days would be 24,000 of them.
    for days, bucket in ((7, "1h"), (31, "1h"), (1000, "1D"), (20_000, "1D"), (20_001, "1W")):
        window = (T0, T0 + pd.Timedelta(days=days))
        assert nb.volume_bucket(window) == bucket
        analysis.event_volume(make_events(), bucket, window=window)  # within the cap


def _as_chint(events: pd.DataFrame) -> pd.DataFrame:
    """The events as a chint platform's frame: codes 0 (property report) and 1 (fault and
    system report), and those labels in its attrs, as the client puts them."""
    chint = events.assign(event_type=events["event_type"].map(lambda t: 0 if t == 3 else 1))
    chint.attrs["event_kinds"] = {
        "kinds": {0: "property", 1: "fault", 2: "fault"},
        "labels": {0: "property report", 1: "fault and system report", 2: "fault"},
    }
    return chint


def test_event_types_are_named_by_the_platforms_labels() -> None:
    """Under chint, code 1 is "fault and system report": never our "online", and its
    property reports (0, no code of ours) never "(none)"."""
    events = _as_chint(make_events())
    volume = analysis.event_volume(events, "1D")
    assert set(volume["event_type_name"]) == {"property report", "fault and system report"}
    noisy = analysis.noisiest_devices(events, 3)
    assert {"property report", "fault and system report", "fault"} < set(noisy.columns)
    assert "online" not in noisy.columns
    kept = analysis.filter_events(events, event_types=["fault and system report"])
    assert len(kept) == int((events["event_type"] == 1).sum()) > 0
    with pytest.raises(ValueError, match="unknown event type 'alarm'; allowed: property report"):
        analysis.filter_events(events, event_types=["alarm"])
    figure = plots.noisiest_chart(noisy)
    assert {trace.name for trace in figure.data} == {"property report", "fault and system report"}
