"""Moments: the ``gmt_*`` columns as ``datetime64[ns, UTC]``, straight from the wire.

A page's moments are read by the platform's :class:`~opslib.protocol.times.TimeCodec`
(:func:`moments_array`): the reference platform's ``YYYY-MM-DD HH:MM:SS`` text (UTC,
protocol §1) by Arrow's ``strptime`` a column at a time, any other format value by value
into epoch milliseconds, never through text. (Events of the reference platform also carry
``ts``, their moment in epoch milliseconds, read by :mod:`~opslib.client.frames.build`.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from opslib.client.frames.properties import ARROW_TIME, POOL
from opslib.protocol.times import GMT_FORMAT, TimeCodec

__all__ = ["LAST_MS", "moments_array", "out_of_range", "parse_gmt_text"]


def moments_array(values: Sequence[Any], times: TimeCodec, name: str) -> pa.Array:
    """One page's values of a moment column as timestamp[ns, UTC], read by ``times``."""
    if times.plain:
        try:
            text = pa.array(values, type=pa.string(), memory_pool=POOL)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            text = None
        if text is not None:
            return parse_gmt_text(text, name)
    ms = pa.array(times.column_ms(values, field=name), type=pa.int64(), memory_pool=POOL)
    beyond = pc.or_(pc.less(ms, 0), pc.greater(ms, LAST_MS))
    if pc.any(beyond).as_py():
        raise out_of_range(name, values[pc.index(beyond, True).as_py()])
    return pc.multiply(ms, 1_000_000).view(ARROW_TIME)


# What a datetime64[ns, UTC] column shows, from the epoch on: a moment outside (a year
# before 1970 or after 2262) is refused by name, never wrapped round to another year.
LAST_MS = np.iinfo(np.int64).max // 1_000_000
_RANGE = "1970-01-01 00:00:00 to 2262-04-11 23:47:16 UTC"


def out_of_range(field: str, value: object) -> ValueError:
    return ValueError(
        f"{field}: the platform's moment {value!r} is not one a frame holds ({_RANGE})"
    )


def parse_gmt_text(text: pa.Array, field: str = "gmt") -> pa.Array:
    """``YYYY-MM-DD HH:MM:SS`` (UTC) strings → timestamp[ns, UTC]; other ISO forms via pandas.

    Raises
    ------
    ValueError
        A moment before 1970 or after 2262, naming ``field`` and the text.
    """
    try:
        parsed = pc.strptime(
            text, format=GMT_FORMAT, unit="s", error_is_null=False, memory_pool=POOL
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        parsed = None
    if parsed is not None:
        seconds = parsed.cast(pa.int64()).to_numpy(zero_copy_only=False)
        bad = np.flatnonzero((seconds < 0) | (seconds > LAST_MS // 1000))
        bad = bad[~np.asarray(parsed.is_null())[bad]] if len(bad) else bad
        if len(bad):
            raise out_of_range(field, text[int(bad[0])].as_py())
        return parsed.cast(pa.timestamp("ns"), memory_pool=POOL).view(ARROW_TIME)
    values = text.to_pylist()
    try:
        series = pd.to_datetime(pd.Series(values, dtype=object), utc=True, format="ISO8601")
        if not (series.dropna() >= pd.Timestamp(0, tz="UTC")).all():
            raise ValueError("before 1970")
        return pa.array(series.astype("datetime64[ns, UTC]"), type=ARROW_TIME)
    except (ValueError, OverflowError):  # OutOfBoundsDatetime is a ValueError
        raise out_of_range(field, _first_unreadable(values)) from None


def _first_unreadable(values: list[Any]) -> Any:
    """The first of ``values`` that is not a moment from 1970 a frame can hold."""
    for value in values:
        if value is None:
            continue
        try:
            moment = pd.Timestamp(value)
            if moment.tzinfo is None:
                moment = moment.tz_localize("UTC")
            if not pd.Timestamp(0, tz="UTC") <= moment <= pd.Timestamp.max.tz_localize("UTC"):
                return value
        except (ValueError, OverflowError):
            return value
    return values[0] if values else None
