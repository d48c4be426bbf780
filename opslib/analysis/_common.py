"""Small helpers shared by the analysis modules: windows, labels, checks."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from opslib.timeutil import Moment, time_range

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
"""A half-open ``[start, end)`` time window in UTC."""


def resolve_window(start: Moment, end: Moment = "now") -> Window:
    """Turn ``start``/``end`` (ISO, epoch, ``"-7d"``, ``"now"``...) into UTC timestamps.

    Both ends share one "now", so ``("-7d", "now")`` is exactly seven days long.

    Parameters
    ----------
    start, end
        Any moment the client accepts.

    Returns
    -------
    tuple of pandas.Timestamp
        ``(start, end)`` in UTC, start before end.

    Examples
    --------
    >>> start, end = resolve_window("2024-05-01", "2024-05-02")
    >>> start.isoformat(), (end - start).days
    ('2024-05-01T00:00:00+00:00', 1)
    """
    start_ms, end_ms = time_range(start, end)
    return (
        pd.Timestamp(start_ms, unit="ms", tz="UTC"),
        pd.Timestamp(end_ms, unit="ms", tz="UTC"),
    )


def previous_window(window: Window) -> Window:
    """The window of equal length that ends where ``window`` starts.

    Examples
    --------
    >>> w = resolve_window("2024-05-08", "2024-05-15")
    >>> [t.date().isoformat() for t in previous_window(w)]
    ['2024-05-01', '2024-05-08']
    """
    start, end = window
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
