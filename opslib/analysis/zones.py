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

import numpy as np
import pandas as pd

__all__ = ["UTC", "local", "localize_wall", "zone", "zone_label"]

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
