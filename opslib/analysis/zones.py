"""Times in the reader's zone: the analyses bucket, group and show moments in a report's
``tz`` (an IANA name such as ``Asia/Shanghai``, or an offset such as ``+08:00``).

The client's frames and the event cache stay in UTC; these helpers convert what is shown.
A day is a local calendar day (23 or 25 hours when the clocks change), an hour an hour.

>>> import pandas as pd
>>> local(pd.Series(pd.to_datetime(["2026-11-24 16:30"], utc=True)), "Asia/Shanghai")[0].hour
0
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "UTC",
    "bucket_range",
    "bucket_starts",
    "local",
    "localize_wall",
    "period_alias",
    "zone",
    "zone_label",
]

UTC = "UTC"


@functools.cache
def zone(tz: str | dt.tzinfo | None = None) -> dt.tzinfo:
    """The tzinfo of ``tz`` (None or "" is UTC).

    Raises
    ------
    ValueError
        Naming the zone and what is accepted.

    Examples
    --------
    >>> zone("Europe/Berlin").key
    'Europe/Berlin'
    """
    if isinstance(tz, dt.tzinfo):
        return tz
    from opslib.dialects import zone_of

    text = str(tz or "").strip()
    if not text or text.upper() == "UTC":
        return dt.UTC
    if text.upper().startswith("UTC") and text[3:4] in "+-":  # as zone_label writes offsets
        text = text[3:]
    return zone_of(text)


def zone_label(tz: str | dt.tzinfo | None = None) -> str:
    """How a zone is named beside a time: its IANA name, an offset, or ``UTC``.

    Examples
    --------
    >>> zone_label(None), zone_label("Asia/Shanghai")
    ('UTC', 'Asia/Shanghai')
    """
    info = zone(tz)
    if info is dt.UTC:
        return UTC
    key = getattr(info, "key", None)
    return str(key) if key else str(info)


def local(moments: pd.Series, tz: str | dt.tzinfo | None = None) -> pd.Series:
    """UTC moments (or naive ones, taken as UTC) in ``tz``.

    Examples
    --------
    >>> s = pd.Series(pd.to_datetime(["2026-03-08 12:00"], utc=True))
    >>> str(local(s, "America/New_York")[0])
    '2026-03-08 08:00:00-04:00'
    """
    if not isinstance(moments.dtype, pd.DatetimeTZDtype):
        moments = pd.to_datetime(moments, utc=True)
    return moments.dt.tz_convert(zone(tz))


def localize_wall(wall: pd.Series | pd.DatetimeIndex, tz: str | dt.tzinfo | None) -> pd.Series:
    """Naive wall-clock times read in ``tz``: a time the clocks skip moves forward, a
    repeated one is its first occurrence.

    Examples
    --------
    >>> w = pd.Series(pd.to_datetime(["2026-03-08 02:30"]))
    >>> str(localize_wall(w, "America/New_York")[0])
    '2026-03-08 03:00:00-04:00'
    """
    series = pd.Series(wall)
    first = np.ones(len(series), dtype=bool)  # ambiguous: the first (summer) occurrence
    return series.dt.tz_localize(zone(tz), ambiguous=first, nonexistent="shift_forward")


def _sub_day(freq: str) -> int:
    """The bucket's length in ns when it is shorter than a day (hours, minutes...), else 0."""
    from pandas.tseries.frequencies import to_offset
    from pandas.tseries.offsets import Tick

    offset = to_offset(freq)
    if isinstance(offset, Tick) and offset.nanos < 86_400 * 10**9:
        return int(offset.nanos)
    return 0


def _wall_floor(wall: pd.Series, freq: str) -> pd.Series:
    try:
        return wall.dt.floor(freq)
    except ValueError:  # weeks, months: calendar periods
        return wall.dt.to_period(period_alias(freq)).dt.start_time


def bucket_starts(
    moments: pd.Series, freq: str, tz: str | dt.tzinfo | None, *, anchor: pd.Timestamp
) -> pd.Series:
    """The start of each moment's bucket, in ``tz``.

    Buckets shorter than a day are that long, counted from local midnight of ``anchor``'s
    day (an hour stays an hour when the clocks change); a day or longer is local calendar
    days, weeks or months (a day is 23 or 25 hours when the clocks change).

    Examples
    --------
    >>> m = pd.Series(pd.to_datetime(["2026-11-01 15:00"], utc=True))
    >>> a = pd.Timestamp("2026-11-01", tz="America/New_York")
    >>> str(bucket_starts(m, "1D", "America/New_York", anchor=a)[0])
    '2026-11-01 00:00:00-04:00'
    """
    info = zone(tz)
    moments = local(moments, info)
    step = _sub_day(freq)
    if step:
        origin = _midnight(anchor, info)
        offsets = (moments - origin) // pd.Timedelta(step, "ns")
        return origin + offsets * pd.Timedelta(step, "ns")
    wall = moments.dt.tz_localize(None)
    return localize_wall(_wall_floor(wall, freq), info).set_axis(moments.index)


def bucket_range(
    first: pd.Timestamp, last: pd.Timestamp, freq: str, tz: str | dt.tzinfo | None, *,
    anchor: pd.Timestamp,
) -> tuple[pd.DatetimeIndex, pd.DatetimeIndex]:  # fmt: skip
    """Every bucket from the one holding ``first`` to the one holding ``last``: their
    starts and their ends (the next start), in ``tz``."""
    info = zone(tz)
    ends = pd.Series([first, last])
    starts = bucket_starts(ends, freq, info, anchor=anchor)
    step = _sub_day(freq)
    if step:
        index = pd.date_range(starts[0], starts[1], freq=pd.Timedelta(step, "ns"))
        return index, index + pd.Timedelta(step, "ns")
    wall = pd.date_range(
        starts[0].tz_localize(None), starts[1].tz_localize(None), freq=_calendar(freq)
    )
    nxt = wall + _calendar_offset(freq)
    begin = pd.DatetimeIndex(localize_wall(pd.Series(wall), info))
    return begin, pd.DatetimeIndex(localize_wall(pd.Series(nxt), info))


def _calendar(freq: str) -> str:
    try:
        pd.Series(pd.to_datetime(["2026-01-01"])).dt.floor(freq)
        return freq
    except ValueError:
        alias = period_alias(freq)
        return {"W": "W-MON", "M": "MS", "Q": "QS", "Y": "YS"}.get(alias, alias)


def _calendar_offset(freq: str) -> Any:
    from pandas.tseries.frequencies import to_offset

    return to_offset(_calendar(freq))


def _midnight(moment: pd.Timestamp, info: dt.tzinfo) -> pd.Timestamp:
    wall = pd.Timestamp(moment).tz_convert(info).tz_localize(None).normalize()
    return pd.Timestamp(localize_wall(pd.Series([wall]), info).iloc[0])


def period_alias(freq: str) -> str:
    """Accept the offset aliases people type ("ME", "1W") as period aliases."""
    alias = freq.strip().upper().lstrip("1") or "W"
    alias = {"ME": "M", "MS": "M", "QE": "Q", "QS": "Q", "YE": "Y", "YS": "Y", "A": "Y"}.get(
        alias, alias
    )
    try:
        period = pd.Period("2024-01-01", freq=alias)
    except (ValueError, TypeError):
        period = None
    if period is None or period.freq.n <= 0:  # pandas' own words name no parameter
        raise ValueError(f"freq: {freq!r} is not a period; use e.g. 'D', 'W', 'M', 'Q' or 'Y'")
    return alias
