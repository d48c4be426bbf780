"""opslib.analysis on small frames built with the declared schemas (opslib.client._schemas)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from opslib import analysis, enums
from opslib.client import _schemas

T0 = pd.Timestamp("2024-05-06 00:00:00", tz="UTC")  # a Monday


def typed_frame(schema: _schemas.FrameSchema, rows: list[dict[str, Any]]) -> pd.DataFrame:
    """A frame with exactly the schema's fixed columns and dtypes (labels derived), plus
    any ``properties.<key>`` columns the rows carry, as the client returns them."""
    data: dict[str, Any] = {}
    for column in schema.columns:
        values = [r.get(column.name) for r in rows]
        if column.dtype == _schemas.TIME:
            data[column.name] = pd.to_datetime(pd.Series(values, dtype=object), utc=True).astype(
                _schemas.TIME
            )
        else:
            data[column.name] = pd.Series(values, dtype=object).astype(column.dtype)  # type: ignore[call-overload]
        if column.enum is not None:
            names = enums.labels(column.enum)
            data[column.label_name] = pd.Series(
                [names.get(v) if v is not None else None for v in values], dtype="object"
            ).astype(_schemas.label_dtype(column.enum))
    extra = sorted({k for r in rows for k in r if k.startswith("properties.")})
    for key in extra:
        data[key] = pd.Series([r.get(key) for r in rows], dtype=object).convert_dtypes()
    frame = pd.DataFrame(data) if rows else schema.empty()
    for name, dtype in schema.dtypes().items():
        assert str(frame[name].dtype) == str(dtype), name
    return frame


def make_devices() -> pd.DataFrame:
    """Eight devices: two users, three products, every status, groups and sub-devices."""
    rows = []
    spec = [
        # id, user, product, category, version, sdk, status, owned, group, sub, bind day, seen
        ("d1", "u1", "p-lamp", "1", "1.0.0", "2.1", 1, 1, 0, False, 0, T0 + pd.Timedelta(days=20)),
        ("d2", "u1", "p-lamp", "1", "1.0.0", "2.1", 2, 1, 7, False, 1, T0 + pd.Timedelta(days=2)),
        ("d3", "u1", "p-plug", "2", "1.1.0", "2.1", 3, 0, 7, True, 8, T0 + pd.Timedelta(days=19)),
        ("d4", "u2", "p-plug", "2", "1.1.0", "2.2", 0, 1, 0, False, 9, None),
        ("d5", "u2", "p-cam", "4", "", "2.2", 1, 1, 9, True, 15, T0 + pd.Timedelta(days=21)),
        ("d6", "u2", "p-cam", "4", "3.0.1", "2.2", 2, 1, 9, False, 15, T0 + pd.Timedelta(days=5)),
        ("d7", "u2", "p-lamp", "1", "1.0.0", "2.1", 0, 1, 0, False, 16, None),
        ("d8", "u1", "p-lamp", "1", "1.2.0", "2.1", 1, 1, 0, False, 17, T0 + pd.Timedelta(days=21)),
    ]
    for did, uid, pid, cat, ver, sdk, status, owned, group, sub, day, seen in spec:
        rows.append(
            {
                "device_id": did, "user_id": uid, "nick_name": f"nick {did}", "product_id": pid,
                "category_id": cat, "mac_addr": "AA:BB:CC:DD:EE:FF", "sdk_version": sdk,
                "version": ver, "net_addr": "", "status": status, "owned": owned,
                "group_id": group, "is_sub_device": sub,
                "gmt_bind": T0 + pd.Timedelta(days=day), "gmt_last_seen": seen,
                "properties.power": 5.0 if status == 1 else None,
            }
        )  # fmt: skip
    return typed_frame(_schemas.DEVICE, rows)


def make_events() -> pd.DataFrame:
    """A week of events for three devices: a day/night rhythm, outages, alarms, properties."""
    rows: list[dict[str, Any]] = []
    n = 0

    def add(device: str, at: pd.Timestamp, kind: int, code: str = "", **props: Any) -> None:
        nonlocal n
        n += 1
        row = {
            "event_id": f"e{n:05d}", "gmt_create": at, "device_id": device, "user_id": "u1",
            "event_type": kind, "code": code,
        }  # fmt: skip
        row.update({f"properties.{k}": v for k, v in props.items()})
        rows.append(row)

    for day in range(7):
        for hour in (8, 12, 20):
            at = T0 + pd.Timedelta(days=day, hours=hour)
            add("d1", at, 3, temperature=20.0 + hour / 4, humidity=40 + day)
            add("d2", at, 3, temperature=18.0 + day)
    # d1 is noisy: alarms every evening, one code per parity of the day
    for day in range(7):
        add("d1", T0 + pd.Timedelta(days=day, hours=21), 4, "E101" if day % 2 else "F201")
    # outages of d2: 2h on day 1, 30 min on day 3 (with a repeated offline), ongoing from day 6
    add("d2", T0 + pd.Timedelta(days=1, hours=2), 2)
    add("d2", T0 + pd.Timedelta(days=1, hours=4), 1)
    add("d2", T0 + pd.Timedelta(days=3, hours=10), 2)
    add("d2", T0 + pd.Timedelta(days=3, hours=10, minutes=10), 2)
    add("d2", T0 + pd.Timedelta(days=3, hours=10, minutes=30), 1)
    add("d2", T0 + pd.Timedelta(days=6, hours=23), 2)
    # d3 comes online (no offline before it: not an outage) and upgrades its firmware
    add("d3", T0 + pd.Timedelta(days=2), 1)
    add("d3", T0 + pd.Timedelta(days=2, hours=1), 6, version="1.2.0")
    frame = typed_frame(_schemas.EVENT, rows)
    return frame.sort_values(["gmt_create", "event_id"]).reset_index(drop=True)


WEEK = (T0, T0 + pd.Timedelta(days=7))


# --- fleet -------------------------------------------------------------------------------


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
    assert silent["silent_days"].iloc[0] == pytest.approx(20.0)
    assert analysis.silent_devices(devices, 30, now=now).empty
    with pytest.raises(ValueError, match="days"):
        analysis.silent_devices(devices, -1)


# --- events ------------------------------------------------------------------------------


def test_event_volume_is_long_and_complete() -> None:
    volume = analysis.event_volume(make_events(), "1D")
    assert list(volume.columns) == ["time", "event_type_name", "events"]
    assert str(volume["events"].dtype) == "Int64"
    # 7 days x 5 types present (online, offline, property report, alarm, firmware upgrade)
    assert len(volume) == 35
    reports = volume[volume["event_type_name"] == "property report"]
    assert set(reports["events"]) == {6}
    assert int(volume["events"].sum()) == len(make_events())


def test_event_volume_refuses_a_bad_frequency() -> None:
    with pytest.raises(ValueError, match="freq: 'often'"):
        analysis.event_volume(make_events(), "often")


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
    assert list(got.columns) == ["device_id", "offline_at", "online_at", "duration", "ongoing"]
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


def test_compare_periods_and_written_summary() -> None:
    current = make_events()
    previous = current[current["event_type"] != enums.EventType.ALARM].copy()
    previous["gmt_create"] = previous["gmt_create"] - pd.Timedelta(days=7)
    prev_window = analysis.previous_window(WEEK)
    assert prev_window == (T0 - pd.Timedelta(days=7), T0)
    table = analysis.compare_periods(
        current, previous, current_window=WEEK, previous_window=prev_window
    ).set_index("measure")
    assert table.loc["alarm events", "current"] == 7
    assert table.loc["alarm events", "previous"] == 0
    assert table.loc["alarm events", "change_pct"] is pd.NA
    text = analysis.change_summary(
        current, previous, current_window=WEEK, previous_window=prev_window
    )
    assert "- Period 2024-05-06 00:00 to 2024-05-13 00:00 UTC" in text
    assert "alarm new (0 → 7)" in text
    assert "New alarm codes: E101, F201." in text
    assert text.count("\n- ") >= 4


def test_resolve_window_shares_one_now() -> None:
    start, end = analysis.resolve_window("-7d", "now")
    assert end - start == pd.Timedelta(days=7)
    with pytest.raises(ValueError, match="start must be before end"):
        analysis.resolve_window("now", "-1d")


# --- catalogue ---------------------------------------------------------------------------

CATEGORIES = typed_frame(
    _schemas.CATEGORY,
    [
        {"category_id": 1, "category_name": "lighting", "category_icon": ""},
        {"category_id": 2, "category_name": "sockets", "category_icon": ""},
    ],
)


def products(*rows: dict[str, Any]) -> pd.DataFrame:
    base = {
        "product_icon": "", "category_name": "lighting", "vendor_type": 0, "encrypt_type": 0,
        "status": 1, "popular": 0, "gmt_create": T0, "gmt_modified": T0,
    }  # fmt: skip
    return typed_frame(_schemas.PRODUCT, [{**base, **r} for r in rows])


def csv_frame(text: str) -> pd.DataFrame:
    import io

    return analysis.read_catalogue(io.StringIO(text))


def test_validate_catalogue_accepts_numbers_and_labels() -> None:
    raw = csv_frame(
        "product_id,product_name,category_id,net_type,node_type,encrypt_type,status,product_secret\n"
        "p-lamp,Lamp,1,1,1,TLS,released,lamp-secret-1\n"
        "p-hub,Hub,2,Ethernet,gateway,,,hub-secret-1\n"
    )
    check = analysis.validate_catalogue(raw, CATEGORIES)
    assert check.ok
    desired = check.desired.set_index("product_id")
    assert desired.loc["p-lamp", "encrypt_type"] == 2
    assert desired.loc["p-lamp", "status"] == 1
    assert desired.loc["p-hub", "net_type"] == 5
    assert desired.loc["p-hub", "node_type"] == 2
    assert desired.loc["p-hub", "status"] == 0  # default
    assert str(check.desired["category_id"].dtype) == "Int64"


def test_validate_catalogue_names_each_problem_by_row_and_column() -> None:
    raw = csv_frame(
        "product_id,product_name,category_id,net_type,node_type,colour,product_secret\n"
        "p-ok,Fine,1,1,1,red,long-enough-secret\n"
        "bad id!,Lamp,9,7,1,red,short\n"
        "p-ok,,x,1,4,red,\n"
    )
    check = analysis.validate_catalogue(raw, CATEGORIES)
    assert not check.ok
    found = {(r.row if r.row is not pd.NA else None, r.column) for r in check.problems.itertuples()}
    assert found == {
        (None, "colour"),
        (2, "product_id"),
        (2, "category_id"),
        (2, "net_type"),
        (2, "product_secret"),
        (3, "product_id"),
        (3, "product_name"),
        (3, "category_id"),
        (3, "node_type"),
    }
    problems = check.problems.set_index(["row", "column"])
    assert (
        "unknown category; known: 1 (lighting), 2 (sockets)"
        in problems.loc[(2, "category_id"), "problem"]
    )
    assert "not one of 1 (Wi-Fi)" in problems.loc[(2, "net_type"), "problem"]
    assert problems.loc[(3, "product_id"), "problem"] == "duplicate product_id, first on row 1"
    assert problems.loc[(3, "category_id"), "problem"] == "not an integer"
    assert problems.loc[(2, "product_secret"), "value"] == analysis.SECRET_MASK
    assert list(check.problems["line"].dropna())[:1] == [1]
    assert list(check.desired["product_id"]) == ["p-ok"]


def test_validate_catalogue_reports_missing_required_columns() -> None:
    check = analysis.validate_catalogue(csv_frame("product_id,product_name\np1,One\n"))
    missing = check.problems[check.problems["problem"] == "required column is missing"]
    assert set(missing["column"]) == {"category_id", "net_type", "node_type"}


def test_plan_catalogue_adds_deletes_replaces_and_blocks() -> None:
    current = products(
        {
            "product_id": "p-keep",
            "product_name": "Keep",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
        {
            "product_id": "p-old",
            "product_name": "Old",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
        {
            "product_id": "p-used",
            "product_name": "Used",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
        {
            "product_id": "p-edit",
            "product_name": "Edit",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
        {
            "product_id": "p-busy",
            "product_name": "Busy",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
    )
    raw = csv_frame(
        "product_id,product_name,category_id,net_type,node_type,status,product_secret\n"
        "p-keep,Keep,1,1,1,1,\n"
        "p-edit,Edited,1,1,1,1,edit-secret-1\n"
        "p-busy,Busy,2,1,1,1,busy-secret-1\n"
        "p-new,New,2,3,3,0,new-secret-12\n"
        "p-nosecret,No secret,2,3,3,0,\n"
    )
    check = analysis.validate_catalogue(raw, CATEGORIES)
    assert check.ok, check.problems
    devices = make_devices()
    devices["product_id"] = ["p-used", "p-busy", "p-busy", "x", "x", "x", "x", "x"]
    plan = analysis.plan_catalogue(check.desired, current, devices=devices).set_index("product_id")
    assert plan["action"].to_dict() == {
        "p-new": "add",
        "p-nosecret": "add",
        "p-busy": "replace",
        "p-edit": "replace",
        "p-old": "delete",
        "p-used": "delete",
        "p-keep": "unchanged",
    }
    assert plan.loc["p-edit", "changes"] == "product_name: 'Edit' → 'Edited'"
    assert plan.loc["p-busy", "changes"] == "category_id: 1 → 2"
    assert not plan.loc["p-edit", "blocked"]
    assert "delete, then add" in plan.loc["p-edit", "note"]
    assert plan.loc["p-busy", "blocked"]
    assert plan.loc["p-busy", "devices"] == 2
    assert "refuses to delete it (409)" in plan.loc["p-busy", "note"]
    assert plan.loc["p-used", "blocked"]
    assert not plan.loc["p-old", "blocked"]
    assert plan.loc["p-nosecret", "blocked"]
    assert "product_secret" in plan.loc["p-nosecret", "note"]
    assert "product_secret" not in plan.columns


# --- users -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phone", "masked"),
    [("5550000001", "555*****01"), ("123456", "****56"), ("1234", "**34"), ("", ""), (None, "")],
)
def test_mask_phone(phone: str | None, masked: str) -> None:
    assert analysis.mask_phone(phone) == masked


def test_profile_and_settings_tables() -> None:
    user = typed_frame(
        _schemas.USER,
        [
            {
                "user_id": "u1",
                "area_code": "1",
                "phone": "5550000003",
                "status": 1,
                "gmt_register": T0,
            }
        ],
    )
    masked = analysis.profile_table(user).set_index("field")["value"]
    assert masked["phone"] == "555*****03"
    assert masked["status_name"] == "active"
    assert masked["gmt_logout"] == ""
    assert (
        analysis.profile_table(user, mask=False).set_index("field").loc["phone", "value"]
        == "5550000003"
    )
    settings = typed_frame(
        _schemas.SETTINGS,
        [{"user_id": "u1", "message_config.start": 1320, "message_config.end": 420}],
    )
    shown = analysis.settings_table(settings).set_index("field")["value"]
    assert shown["message_config.start"] == "22:00"
    assert shown["message_config.end"] == "07:00"


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
