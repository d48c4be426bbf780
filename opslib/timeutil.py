"""Moments in, epoch milliseconds out; platform time strings in, UTC timestamps out.

The platform speaks epoch milliseconds (UTC) on ``/device/query_record`` and
``YYYY-MM-DD HH:MM:SS`` (UTC) in every ``gmt_*`` field (protocol §1, §9).
"""

from __future__ import annotations

import datetime as dt
import re
import time
from typing import Any, TypeAlias

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from opslib._offsets import OFFSET, UNIT_MS
from opslib.protocol.times import GMT_FORMAT, SECONDS_LIMIT  # the wire's, for user input too

__all__ = ["GMT_FORMAT", "SECONDS_LIMIT", "Moment", "parse_gmt", "time_range", "to_epoch_ms"]

Moment: TypeAlias = dt.datetime | dt.date | pd.Timestamp | np.datetime64 | str | int | float
"""Anything :func:`to_epoch_ms` accepts."""


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def to_epoch_ms(value: Moment, *, now_ms: int | None = None) -> int:
    """Convert a moment to integer epoch milliseconds (UTC).

    Parameters
    ----------
    value
        A ``datetime``/``date``/``pandas.Timestamp``/``numpy.datetime64`` (naive means UTC),
        an ISO 8601 string (naive means UTC), ``"now"``, a relative offset from now such as
        ``"-7d"``, ``"-36h"``, ``"-15m"``, ``"-30s"``, ``"+1w"``, or epoch seconds or
        milliseconds as a number (told apart by magnitude: below 1e11 is seconds).
    now_ms
        The moment ``"now"`` and relative offsets refer to (default: the current time), so
        that the two ends of a range share one "now".

    Returns
    -------
    int
        Epoch milliseconds.

    Examples
    --------
    >>> to_epoch_ms("2024-05-01T00:00:00Z")
    1714521600000
    >>> to_epoch_ms(1714521600)
    1714521600000
    >>> to_epoch_ms("-1h", now_ms=1714521600000)
    1714518000000
    """
    now = _now_ms() if now_ms is None else now_ms
    if isinstance(value, bool):
        raise TypeError("a moment cannot be a bool")
    if isinstance(value, int | float | np.integer | np.floating):
        if value != value:  # NaN
            raise ValueError("a moment cannot be NaN")
        number = float(value)
        if abs(number) == float("inf"):
            raise ValueError(f"a moment cannot be {value!r}")
        return round(number * 1000) if abs(number) < SECONDS_LIMIT else round(number)
    if isinstance(value, str):
        return _from_string(value, now)
    if isinstance(value, np.datetime64):
        value = pd.Timestamp(value)
    if isinstance(value, dt.datetime):  # includes pandas.Timestamp
        ts = pd.Timestamp(value)
        if ts is pd.NaT:
            raise ValueError("a moment cannot be NaT")
        ts = ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
        return _ms(ts)
    if isinstance(value, dt.date):
        return _ms(pd.Timestamp(value).tz_localize("UTC"))
    raise TypeError(
        f"cannot read a moment from {type(value).__name__}; give a datetime, a pandas "
        "Timestamp, an ISO string, epoch seconds or milliseconds, 'now' or '-7d'"
    )


def _ms(ts: pd.Timestamp) -> int:
    """Epoch ms of a UTC Timestamp, past 2262 too (where nanoseconds overflow)."""
    try:
        return int(ts.value // 1_000_000)
    except OverflowError:
        return int(ts.as_unit("ms").asm8.view("i8"))


def _from_string(text: str, now: int) -> int:
    stripped = text.strip()
    if stripped.lower() == "now":
        return now
    match = OFFSET.match(stripped)
    if match:
        sign, amount, unit = match.groups()
        offset = round(float(amount) * UNIT_MS[unit])
        return now - offset if sign == "-" else now + offset
    if re.fullmatch(r"\d+(\.\d+)?", stripped):
        return to_epoch_ms(float(stripped))
    try:
        ts: Any = pd.Timestamp(stripped)
    except ValueError:
        ts = pd.NaT
    if ts is pd.NaT:
        raise ValueError(
            f"cannot read a moment from {text!r}; give an ISO 8601 time "
            "('2024-05-01', '2024-05-01T12:00:00Z'), 'now', or an offset such as "
            "'-7d', '-36h', '-15m'"
        )
    return to_epoch_ms(ts, now_ms=now)


def time_range(start: Moment, end: Moment = "now") -> tuple[int, int]:
    """Convert ``start`` and ``end`` to epoch ms with one shared "now"; require start < end.

    Raises
    ------
    ValueError
        When start is not before end (the message names both), start is before 1970 or end
        after the year 9999.

    Examples
    --------
    >>> time_range("2024-05-01", "2024-05-02")
    (1714521600000, 1714608000000)
    """
    now = _now_ms()
    start_ms = to_epoch_ms(start, now_ms=now)
    end_ms = to_epoch_ms(end, now_ms=now)
    if start_ms >= end_ms:
        raise ValueError(
            f"start must be before end: start={start!r} ({_iso(start_ms)}) is not before "
            f"end={end!r} ({_iso(end_ms)})"
        )
    if start_ms < 0:
        raise ValueError(
            f"start={start!r} ({_iso(start_ms)}) is before 1970, which the platform refuses"
        )
    if end_ms > _LAST_MS:
        raise ValueError(f"end={end!r} ({_iso(end_ms)}) is after the year 9999")
    return start_ms, end_ms


_LAST_MS = 253_402_300_800_000  # 10000-01-01T00:00:00Z: a platform's times end before it


def _iso(ms: int) -> str:
    try:
        return pd.Timestamp(ms, unit="ms", tz="UTC").isoformat()
    except (OverflowError, ValueError):  # pandas' range is 1677-2262
        return f"{ms} ms from 1970"


_NAT = np.iinfo(np.int64).min
_TIME = pd.DatetimeTZDtype(unit="ns", tz="UTC")


def parse_gmt(values: list[str | None] | pa.Array) -> pd.arrays.DatetimeArray:
    """Parse platform ``gmt_*`` strings into a ``datetime64[ns, UTC]`` array (None → NaT).

    Uses pyarrow's vectorised strptime, much faster than ``pd.to_datetime``.
    A value in another ISO form falls back to pandas for the whole array.
    """
    arr = values if isinstance(values, pa.Array) else pa.array(values, type=pa.string())
    try:
        parsed = pc.strptime(arr, format=GMT_FORMAT, unit="s", error_is_null=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        series = pd.to_datetime(
            pd.Series(arr.to_pylist(), dtype=object), utc=True, format="ISO8601"
        )
        return series.astype("datetime64[ns, UTC]").array
    seconds = parsed.cast(pa.int64())
    mask = seconds.is_null().to_numpy(zero_copy_only=False)
    ns = seconds.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64) * 1_000_000_000
    if mask.any():
        ns[mask] = _NAT
    return pd.array(ns, dtype=_TIME)
