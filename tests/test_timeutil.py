"""Moments to epoch milliseconds, and gmt_* strings to UTC timestamps."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from opslib.timeutil import parse_gmt, time_range, to_epoch_ms

MAY_1 = 1_714_521_600_000  # 2024-05-01T00:00:00Z


@pytest.mark.parametrize(
    "value",
    [
        dt.datetime(2024, 5, 1),  # naive: UTC
        dt.datetime(2024, 5, 1, tzinfo=dt.UTC),
        dt.datetime(2024, 5, 1, 2, tzinfo=dt.timezone(dt.timedelta(hours=2))),
        dt.date(2024, 5, 1),
        pd.Timestamp("2024-05-01"),
        pd.Timestamp("2024-04-30 20:00", tz="America/New_York"),
        np.datetime64("2024-05-01T00:00:00"),
        "2024-05-01",
        "2024-05-01T00:00:00Z",
        "2024-05-01 02:00:00+02:00",
        1_714_521_600,  # seconds
        1_714_521_600.0,
        MAY_1,  # milliseconds
        np.int64(MAY_1),
        "1714521600",
    ],
)
def test_every_form_of_a_moment(value: object) -> None:
    assert to_epoch_ms(value) == MAY_1  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "offset_ms"),
    [
        ("now", 0),
        ("-7d", -7 * 86_400_000),
        ("-36h", -36 * 3_600_000),
        ("-15m", -15 * 60_000),
        ("-30s", -30_000),
        ("+1w", 7 * 86_400_000),
        ("-1.5h", -5_400_000),
        (" -2d ", -2 * 86_400_000),
        ("-15min", -15 * 60_000),  # as pandas writes minutes, and freq takes them
        ("-1D", -86_400_000),
        ("-500ms", -500),
    ],
)
def test_relative_moments(text: str, offset_ms: int) -> None:
    from opslib.reports._times import epoch_ms

    assert to_epoch_ms(text, now_ms=MAY_1) == MAY_1 + offset_ms
    assert epoch_ms(text, MAY_1) == MAY_1 + offset_ms  # the check before a run, the same


def test_seconds_and_milliseconds_are_told_apart_by_magnitude() -> None:
    assert to_epoch_ms(99_999_999_999) == 99_999_999_999_000  # seconds (year 5138)
    assert to_epoch_ms(100_000_000_000) == 100_000_000_000  # milliseconds (1973)


@pytest.mark.parametrize("bad", ["yesterday", "7d", "-7x", ""])
def test_unreadable_strings_say_what_is_accepted(bad: str) -> None:
    with pytest.raises(ValueError, match="-7d"):
        to_epoch_ms(bad)


@pytest.mark.parametrize("bad", [True, None, object(), float("nan"), float("inf"), -np.inf])
def test_unreadable_values(bad: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        to_epoch_ms(bad)  # type: ignore[arg-type]


def test_time_range_shares_one_now() -> None:
    start, end = time_range("-1h", "now")
    assert end - start == 3_600_000


def test_time_range_refuses_start_not_before_end_naming_both() -> None:
    with pytest.raises(ValueError, match=r"start='2024-05-02'.*end='2024-05-01'"):
        time_range("2024-05-02", "2024-05-01")
    with pytest.raises(ValueError, match="start"):
        time_range(MAY_1, MAY_1)


def test_parse_gmt() -> None:
    arr = parse_gmt(["2024-05-01 00:00:00", None, "2024-05-01 12:30:05"])
    assert str(arr.dtype) == "datetime64[ns, UTC]"
    assert arr[0] == pd.Timestamp("2024-05-01", tz="UTC")
    assert arr[1] is pd.NaT
    assert arr[2] == pd.Timestamp("2024-05-01 12:30:05", tz="UTC")


def test_parse_gmt_other_iso_forms_fall_back() -> None:
    arr = parse_gmt(["2024-05-01T00:00:00Z", "2024-05-01T02:00:00+02:00"])
    assert str(arr.dtype) == "datetime64[ns, UTC]"
    assert list(arr) == [pd.Timestamp("2024-05-01", tz="UTC")] * 2


def test_parse_gmt_empty() -> None:
    assert str(parse_gmt([]).dtype) == "datetime64[ns, UTC]"


def test_time_range_names_a_moment_beyond_the_calendar() -> None:
    # 1e20 is milliseconds past any date pandas can show: it said OutOfBoundsDatetime
    with pytest.raises(ValueError, match=r"start=1e\+20 \(100000000000000000000 ms from 1970\)"):
        time_range(1e20)
    with pytest.raises(ValueError, match=r"end=1e\+20 .* is after the year 9999"):
        time_range("-1d", 1e20)
    with pytest.raises(ValueError, match=r"start='-1000000000d' \(.* ms from 1970\) is before"):
        time_range("-1000000000d")
    assert time_range("-1d", "9999-12-31")[1] == 253_402_214_400_000
