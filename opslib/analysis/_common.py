"""Small helpers shared by the analysis modules: windows, labels, checks."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable

import pandas as pd

from opslib.analysis.zones import localize_wall, zone
from opslib.timeutil import Moment, to_epoch_ms

__all__ = [
    "NONE_LABEL",
    "Window",
    "parquet_ready",
    "previous_window",
    "require_columns",
    "resolve_window",
]

NONE_LABEL = "(none)"
"""How an empty or missing value is shown in a count table."""

Window = tuple[pd.Timestamp, pd.Timestamp]
"""A half-open ``[start, end)`` time window, in the reader's zone (UTC by default)."""


_DAYS = re.compile(r"^\s*-\s*(\d+)\s*([dDw])\s*$")  # local days ("D": pandas' day)


def resolve_window(start: Moment, end: Moment = "now", *, tz: str | None = None) -> Window:
    """Turn ``start``/``end`` (ISO, epoch, ``"-7d"``, ``"now"``...) into a window in ``tz``.

    Both ends share one "now", so ``("-7d", "now")`` is exactly seven days long. Days and
    weeks back are local calendar days: ``-7d`` is the same local time seven days ago, 167
    or 169 hours when the clocks changed in between; hours and minutes are hours and
    minutes. An ISO time without an offset is a local time of ``tz``.

    Parameters
    ----------
    start, end
        Any moment the client accepts.
    tz
        The reader's zone (IANA name or offset; default UTC).

    Returns
    -------
    tuple of pandas.Timestamp
        ``(start, end)`` in ``tz``, start before end.

    Examples
    --------
    >>> start, end = resolve_window("2024-05-01", "2024-05-02")
    >>> start.isoformat(), (end - start).days
    ('2024-05-01T00:00:00+00:00', 1)
    >>> s, e = resolve_window("2026-03-07", "2026-03-10", tz="America/New_York")
    >>> (e - s) / pd.Timedelta(hours=1)
    71.0
    """
    info = zone(tz)
    now = pd.Timestamp(to_epoch_ms("now"), unit="ms", tz="UTC").tz_convert(info)
    try:
        first, last = _moment(start, now, info), _moment(end, now, info)
    except (OverflowError, pd.errors.OutOfBoundsDatetime):  # pandas' ns end in 2262
        raise ValueError(
            f"start {start!r} or end {end!r} is outside the years 1677-2262 a window can span"
        ) from None
    if not first < last:
        raise ValueError(f"start must be before end: start {first}, end {last}")
    if first.value < 0:
        raise ValueError(f"start {first} is before 1970")
    return first, last


def _moment(value: Moment, now: pd.Timestamp, info: dt.tzinfo) -> pd.Timestamp:
    """One end of a window in ``info``: local days back, local ISO times, else the client's
    reading (UTC)."""
    text = value.strip() if isinstance(value, str) else None
    if text is not None:
        days = _DAYS.match(text)
        if days:
            count = int(days.group(1)) * (7 if days.group(2) == "w" else 1)
            wall = now.tz_localize(None) - pd.Timedelta(days=count)
            return pd.Timestamp(localize_wall(pd.Series([wall]), info).iloc[0])
        if text and (text[0].isdigit() and not text.replace(".", "", 1).isdigit()):
            moment = pd.Timestamp(text)
            if moment.tzinfo is None:
                return pd.Timestamp(localize_wall(pd.Series([moment]), info).iloc[0])
            return moment.tz_convert(info)
    if text is not None and text.lower() == "now":
        return now
    ms = to_epoch_ms(value, now_ms=now.value // 1_000_000)
    return pd.Timestamp(ms, unit="ms", tz="UTC").tz_convert(info)


def previous_window(window: Window) -> Window:
    """The window of equal length that ends where ``window`` starts; equal in local days
    when ``window`` is whole days of its zone (a 7-day window before a clock change is
    still 7 days).

    Examples
    --------
    >>> w = resolve_window("2024-05-08", "2024-05-15")
    >>> [t.date().isoformat() for t in previous_window(w)]
    ['2024-05-01', '2024-05-08']
    """
    start, end = window
    if start.tzinfo is None:
        return start - (end - start), start
    wall = end.tz_localize(None) - start.tz_localize(None)
    if wall % pd.Timedelta(days=1) == pd.Timedelta(0):
        begin = localize_wall(pd.Series([start.tz_localize(None) - wall]), start.tzinfo)
        return pd.Timestamp(begin.iloc[0]), start
    return start - (end - start), start


def require_columns(frame: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    """Raise ``ValueError`` naming the missing columns when ``frame`` lacks any of them."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} needs the columns {missing}; the frame has {list(frame.columns)}")


def fill_label(values: pd.Series) -> pd.Series:
    """Values as plain strings with missing and empty ones shown as ``(none)``."""
    text = values.astype("string").fillna(NONE_LABEL)
    return text.mask(text.str.strip() == "", NONE_LABEL)


def parquet_ready(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every column Parquet can store: mixed object columns become text.

    Open-ended ``properties.<key>`` columns may hold numbers for one device and text for
    another; Arrow refuses such a column, so it is written as strings.
    """
    import pyarrow as pa

    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object:
            try:
                pa.array(out[column], from_pandas=True)
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                out[column] = (
                    out[column].map(lambda v: None if v is None else str(v)).astype("string")
                )
    return out
