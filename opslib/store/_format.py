"""A stored day of events and a stored snapshot: their Parquet form, both ways.

A query's day of events is one Parquet file: the fixed columns in the client's types
(``gmt_create`` as ``timestamp[ns, UTC]``), each ``properties.*`` member typed as a read
of that day alone types it (members of mixed kinds as JSON text), each row's raw
``properties`` object as JSON text (``__properties__``) and its moment in milliseconds
(``__ts__``: the platform orders events by it, and cuts ranges by it, where ``gmt_create``
shows only the second). Label columns are not stored: they follow from the codes and the
platform's labels (``store.json``).

The typed form is what DuckDB reads; the raw objects rebuild the property columns of any
subset of a day (a part of it, one device's rows) exactly as a read of that subset would
type them. This is the event cache's form (:mod:`opslib.client._event_cache`), with the
moments added.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa

from opslib.client._event_cache import (
    RAW,
    Stored,
    _from_table,
    _to_table,
    frame_to_columns,
)
from opslib.client._frames import PageColumns, page_columns
from opslib.client._schemas import EVENT, FrameSchema
from opslib.store._layout import atomic_write

__all__ = [
    "TS",
    "DayRows",
    "RawRecords",
    "frame_to_snapshot",
    "read_day",
    "select_rows",
    "write_day",
    "write_snapshot",
]

log = logging.getLogger("opslib")

TS = "__ts__"
# lz4 without dictionary pages read fastest for the event cache (docs/scaling.md)
PARQUET: dict[str, Any] = {"compression": "lz4", "use_dictionary": False}
_OPEN = FrameSchema("event_properties", (), open_objects=EVENT.open_objects)
HIDDEN = (RAW, TS)


class RawRecords:
    """Each fetched record's raw ``properties`` (JSON text) and moment in milliseconds, by
    event_id: an ``on_page`` hook of a read, lined up with its frame by :meth:`align`."""

    def __init__(self) -> None:
        self._by_id: dict[str, tuple[str | None, int | None]] = {}

    def add(self, data: Mapping[str, Any]) -> None:
        for record in data.get("events_list") or []:
            props = record.get("properties")
            text = None if props is None else orjson.dumps(props).decode()
            ts = record.get("ts")
            self._by_id[str(record.get("event_id"))] = (
                text,
                ts if isinstance(ts, int) and not isinstance(ts, bool) else None,
            )

    def align(self, df: pd.DataFrame) -> DayRows:
        """The frame's rows with their raw properties and moments (ms; from gmt_create
        where the platform sent no ``ts``)."""
        found = [self._by_id.get(e, (None, None)) for e in df["event_id"].tolist()]
        raw = [text for text, _ in found]
        seconds = df["gmt_create"].array.asi8 // 1_000_000 if len(df) else np.zeros(0, np.int64)
        ts = np.array(
            [ms if ms is not None else int(s) for (_, ms), s in zip(found, seconds, strict=True)],
            dtype=np.int64,
        )
        return DayRows(Stored(frame_to_columns(df), raw), ts)


@dataclass
class DayRows:
    """A day's rows: the typed columns with the raw properties, and each row's moment."""

    stored: Stored
    ts: np.ndarray

    @property
    def rows(self) -> int:
        return self.stored.cols.rows


def write_day(path: Path, day: DayRows) -> None:
    """Write a day's rows atomically (temporary file, then rename)."""
    import pyarrow.parquet as pq

    table = _to_table(day.stored).append_column(TS, pa.array(day.ts, type=pa.int64()))
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write(path, lambda p: pq.write_table(table, p, **PARQUET))


def read_day(path: Path, *, raw: bool) -> DayRows | None:
    """A stored day (with the raw properties if ``raw``); None when the file is gone (a
    sync replaced it meanwhile) or unreadable (then logged; the next sync writes it again)."""
    import pyarrow.dataset as ds
    from pyarrow import fs

    from opslib.client._arrow import POOL

    try:
        # Files are replaced, never rewritten: mapped, not read; decoded into the allocator
        # the frame is built in, as the event cache does (docs/scaling.md).
        mapped = fs.LocalFileSystem(use_mmap=True)
        dataset = ds.dataset(path, format="parquet", filesystem=mapped)
        names = [n for n in dataset.schema.names if raw or n != RAW]
        table = dataset.to_table(columns=names, memory_pool=POOL, use_threads=False)
    except FileNotFoundError:
        return None
    except (OSError, pa.ArrowException) as exc:
        log.warning("store: skipping the unreadable file %s: %s", path, exc)
        return None
    ts = table.column(TS).to_numpy() if TS in table.column_names else None
    if TS in table.column_names:
        table = table.drop_columns([TS])
    stored = _from_table(table)
    if ts is None:  # written without moments: the second of gmt_create
        ts = stored.cols.fixed["gmt_create"].cast(pa.int64()).to_numpy() // 1_000_000
    return DayRows(stored, np.asarray(ts, dtype=np.int64))


def _column_values(cols: PageColumns, name: str) -> np.ndarray:
    return np.asarray(cols.fixed[name].to_numpy(zero_copy_only=False))


def select_rows(
    day: DayRows,
    lo_ms: int,
    hi_ms: int,
    filters: Mapping[str, Any],
) -> tuple[PageColumns, np.ndarray]:
    """The rows of a day with ``lo_ms <= ts < hi_ms`` matching ``filters`` (column →
    value), as page columns, and their moments.

    All of the day: its stored columns as they are. A part of it: its property columns
    rebuilt from the rows' raw objects, as a read of just those rows types them (the
    day's own columns hold the members and types of the other rows too).
    """
    cols = day.stored.cols
    mask = (day.ts >= lo_ms) & (day.ts < hi_ms)
    for name, value in filters.items():
        mask &= _column_values(cols, name) == value
    if mask.all():
        return cols, day.ts
    idx = np.flatnonzero(mask)
    raw = day.stored.raw
    assert raw is not None, "a part of a day needs the raw properties"
    texts = [raw[i] for i in idx.tolist()]
    records = [{"properties": None if t is None else orjson.loads(t)} for t in texts]
    take = pa.array(idx, type=pa.int64())
    fixed = {k: v.take(take) for k, v in cols.fixed.items()}
    return PageColumns(len(idx), fixed, page_columns(records, _OPEN).properties), day.ts[idx]


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
                [None if _missing(v) else orjson.dumps(v).decode() for v in series.tolist()],
                type=pa.large_string(),
            )
        else:
            arrays[str(name)] = pa.array(series.array)
    return pa.table(arrays)


def _missing(value: Any) -> bool:
    with contextlib.suppress(TypeError, ValueError):
        return bool(pd.isna(value))
    return False


def write_snapshot(path: Path, table: pa.Table) -> None:
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write(path, lambda p: pq.write_table(table, p, **PARQUET))


def join_moments(parts: Sequence[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)
