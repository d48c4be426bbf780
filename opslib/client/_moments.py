"""Moments: the ``gmt_*`` columns as ``datetime64[ns, UTC]``, straight from the wire.

A page's moments are read by the platform's :class:`~opslib.protocol.times.TimeCodec`
(:func:`moments_array`): the reference platform's ``YYYY-MM-DD HH:MM:SS`` text (UTC,
protocol §1) by Arrow's ``strptime`` a column at a time, any other format value by value
into epoch milliseconds, never through text. Events of the reference platform also carry
``ts``, their moment in epoch milliseconds, which is cheaper to read and, kept as the
page's order, lets the read check the platform's order exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from opslib.client._arrow import ARROW_TIME, POOL
from opslib.protocol.times import TimeCodec
from opslib.timeutil import GMT_FORMAT

__all__ = ["epoch_ms_of", "moments_array", "parse_gmt_text", "seconds_from_ms"]


def moments_array(values: Sequence[Any], times: TimeCodec, name: str) -> pa.Array:
    """One page's values of a moment column as timestamp[ns, UTC], read by ``times``."""
    if times.plain:
        try:
            text = pa.array(values, type=pa.string(), memory_pool=POOL)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            text = None
        if text is not None:
            return parse_gmt_text(text)
    ms = pa.array(times.column_ms(values, field=name), type=pa.int64(), memory_pool=POOL)
    return pc.multiply(ms, 1_000_000).view(ARROW_TIME)


def parse_gmt_text(text: pa.Array) -> pa.Array:
    """``YYYY-MM-DD HH:MM:SS`` (UTC) strings → timestamp[ns, UTC]; other ISO forms via pandas."""
    try:
        parsed = pc.strptime(
            text, format=GMT_FORMAT, unit="s", error_is_null=False, memory_pool=POOL
        )
        return parsed.cast(pa.timestamp("ns"), memory_pool=POOL).view(ARROW_TIME)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        series = pd.to_datetime(
            pd.Series(text.to_pylist(), dtype=object), utc=True, format="ISO8601"
        )
        return pa.array(series.astype("datetime64[ns, UTC]"), type=ARROW_TIME)


def epoch_ms_of(records: Sequence[dict[str, Any]], field: str) -> np.ndarray | None:
    """Every record's integer ``field`` as int64, or None when one lacks it (or it is not
    an integer): the moment is then read from its text."""
    try:
        values = list(map(itemgetter(field), records))
        # Refuses text and booleans; a float is truncated to the millisecond (harmless).
        arr = pa.array(values, type=pa.int64(), from_pandas=False, memory_pool=POOL)
    except (KeyError, TypeError, pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        return None
    if arr.null_count:
        return None
    ms: np.ndarray = arr.to_numpy()
    return ms


def seconds_from_ms(ms: np.ndarray) -> pa.Array:
    """Epoch ms → timestamp[ns, UTC] truncated to the second (as gmt_create shows it)."""
    ns = (ms // 1000) * 1_000_000_000
    return pa.array(ns, type=pa.int64()).view(ARROW_TIME)
