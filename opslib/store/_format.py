"""A stored day of events and a stored snapshot, written as Parquet.

The day's table is the client's stored form (:mod:`opslib.client.stored`: typed columns,
each row's raw properties and moment); snapshots are client frames with labels and
members of mixed kinds as text, and the snapshot's day and moment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pyarrow as pa

from opslib._missing import is_missing
from opslib.client.stored import DayRows, day_table
from opslib.store._layout import atomic_write

__all__ = ["PARQUET", "frame_to_snapshot", "write_day", "write_snapshot"]

# lz4 without dictionary pages, as the event cache: the layout that decodes fastest for its
# size (docs/scaling.md)
PARQUET: dict[str, Any] = {"compression": "lz4", "use_dictionary": False}


def write_day(path: Path, day: DayRows) -> None:
    """Write a day's rows atomically (temporary file, then rename)."""
    import pyarrow.parquet as pq

    table = day_table(day)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write(path, lambda p: pq.write_table(table, p, **PARQUET))


# -- snapshots --------------------------------------------------------------------------


def frame_to_snapshot(df: pd.DataFrame, day: str, synced_at: pd.Timestamp) -> pa.Table:
    """A client frame (devices, products, categories) as a Parquet table: labels as text,
    members of mixed kinds as JSON text, then the snapshot's day and moment.

    Examples
    --------
    >>> df = pd.DataFrame({"device_id": pd.array(["d1"], dtype="string")})
    >>> frame_to_snapshot(df, "2026-11-26", pd.Timestamp("2026-11-26", tz="UTC")).column_names
    ['snapshot_day', 'synced_at', 'device_id']
    """
    arrays: dict[str, pa.Array] = {
        "snapshot_day": pa.array([pd.Timestamp(day).date()] * len(df), type=pa.date32()),
        "synced_at": pa.array([synced_at] * len(df), type=pa.timestamp("ns", tz="UTC")),
    }
    for name in df.columns:
        series = df[name]
        if isinstance(series.dtype, pd.CategoricalDtype):
            arrays[str(name)] = pa.array(series.astype("string").array, type=pa.large_string())
        elif series.dtype == object:
            arrays[str(name)] = pa.array(
                [None if is_missing(v) else orjson.dumps(v).decode() for v in series.tolist()],
                type=pa.large_string(),
            )
        else:
            arrays[str(name)] = pa.array(series.array)
    return pa.table(arrays)


def write_snapshot(path: Path, table: pa.Table) -> None:
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write(path, lambda p: pq.write_table(table, p, **PARQUET))
