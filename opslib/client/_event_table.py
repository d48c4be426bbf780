"""A window of events as it is stored: the typed columns of its frame as an Arrow table
(Parquet), with each row's raw ``properties`` object as JSON text, and back.

The event cache (:mod:`opslib.client._event_cache`) and the local store
(:mod:`opslib.client.stored`) keep windows so; a stored window joins other windows as a
read's pages join (:func:`opslib.client.frames.build.build_frame`). Members of mixed Python
objects are stored as JSON text (the table's schema metadata names them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa

from opslib.client.frames.build import PageColumns, page_columns
from opslib.client.frames.schema import BOOL, EVENT, FLOAT, INT, STRING, TIME, FrameSchema

__all__ = [
    "RAW",
    "RawProperties",
    "Stored",
    "frame_to_columns",
    "from_table",
    "slice_rows",
    "to_table",
]

_JSON_COLUMNS = b"opslib.json_columns"  # schema metadata: members stored as JSON text
RAW = "__properties__"  # each row's raw properties object, JSON text
_OPEN = FrameSchema("event_properties", (), open_objects=EVENT.open_objects)
_TIME_ARROW = pa.timestamp("ns", tz="UTC")
# pandas dtype of a column → the Arrow type it is stored as
_STORED: list[tuple[object, pa.DataType]] = [
    (STRING, pa.large_string()),
    (INT, pa.int64()),
    (FLOAT, pa.float64()),
    (BOOL, pa.bool_()),
    (TIME, _TIME_ARROW),
]


def _stored_type(dtype: object) -> pa.DataType | None:
    for pandas_dtype, arrow_type in _STORED:
        if dtype == pandas_dtype:
            return arrow_type
    return None


def _one_array(values: pa.ChunkedArray) -> pa.Array:
    """The chunks as one array; a single chunk as it is (combine_chunks would copy it)."""
    if values.num_chunks == 1:
        return values.chunk(0)
    return values.combine_chunks()


def _as_arrow(values: Any, arrow_type: pa.DataType) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        arr = _one_array(values)
    elif isinstance(values, pa.Array):
        arr = values
    else:
        arr = pa.array(values)  # pandas arrays hand over their Arrow memory
        if isinstance(arr, pa.ChunkedArray):
            arr = _one_array(arr)
    return arr if arr.type == arrow_type else arr.cast(arrow_type)


def frame_to_columns(df: pd.DataFrame, schema: FrameSchema = EVENT) -> PageColumns:
    """A typed frame back to the columns :func:`~opslib.client.frames.build.build_frame` joins.

    Fixed columns become Arrow arrays of their declared type; members become Arrow arrays
    of their dtype, or Python objects for ``object`` columns (all-missing ones: nulls).
    Label columns are left out: build_frame computes them from the codes.

    Examples
    --------
    >>> from opslib.client.frames.build import records_to_frame
    >>> df = records_to_frame([{"event_id": "e1", "properties": {"on": True}}], EVENT)
    >>> cols = frame_to_columns(df)
    >>> cols.rows, sorted(cols.properties)
    (1, ['properties.on'])
    """
    fixed: dict[str, pa.Array] = {}
    for col in schema.columns:
        arrow_type = _stored_type(col.dtype)
        assert arrow_type is not None, col
        fixed[col.name] = _as_arrow(df[col.name].array, arrow_type)
    labels = {c.label_name for c in schema.columns if c.enum is not None}
    members: dict[str, Any] = {}
    for name in df.columns:
        if name in fixed or name in labels:
            continue
        series = df[name]
        arrow_type = _stored_type(series.dtype)
        if arrow_type is not None:
            members[name] = _as_arrow(series.array, arrow_type)
            continue
        values = series.tolist()  # build_frame's object members hold None for missing
        if all(v is None for v in values):
            members[name] = pa.nulls(len(values))
        else:
            members[name] = values
    return PageColumns(len(df), fixed, members)


class RawProperties:
    """Each fetched record's raw ``properties`` as JSON text, by event_id (an ``on_page``
    hook of the read), then lined up with the frame's rows by :meth:`align`."""

    def __init__(self) -> None:
        self._by_id: dict[str, str | None] = {}

    def add(self, data: Mapping[str, Any]) -> None:
        for record in data.get("events_list") or []:
            props = record.get("properties")
            text = None if props is None else orjson.dumps(props).decode()
            self._by_id[str(record.get("event_id"))] = text

    def align(self, df: pd.DataFrame) -> tuple[pd.DataFrame, list[str | None]]:
        return df, [self._by_id.get(e) for e in df["event_id"].tolist()]


@dataclass
class Stored:
    """One window: its typed columns, and the rows' raw properties when they were asked for."""

    cols: PageColumns
    raw: list[str | None] | None


def to_table(stored: Stored) -> pa.Table:
    """Stored form: fixed and typed members as they are, object members and the raw
    properties as JSON text."""
    arrays: dict[str, pa.Array] = dict(stored.cols.fixed)
    json_names = []
    for name, chunk in stored.cols.properties.items():
        if isinstance(chunk, list):
            json_names.append(name)
            arrays[name] = pa.array(
                [None if v is None else orjson.dumps(v).decode() for v in chunk],
                type=pa.large_string(),
            )
        else:
            arrays[name] = chunk
    arrays[RAW] = pa.array(stored.raw or [None] * stored.cols.rows, type=pa.large_string())
    table = pa.table(arrays)
    return table.replace_schema_metadata({_JSON_COLUMNS: orjson.dumps(json_names)})


def from_table(table: pa.Table, schema: FrameSchema = EVENT) -> Stored:
    """The stored form back to build_frame's columns (checked against the schema)."""
    meta = table.schema.metadata or {}
    json_names = set(orjson.loads(meta.get(_JSON_COLUMNS, b"[]")))
    fixed: dict[str, pa.Array] = {}
    for col in schema.columns:
        arrow_type = _stored_type(col.dtype)
        fixed[col.name] = _as_arrow(table.column(col.name), arrow_type)
    members: dict[str, Any] = {}
    raw = None
    for name in table.column_names:
        if name in fixed:
            continue
        column = _one_array(table.column(name))
        if name == RAW:
            raw = column.to_pylist()
        elif name in json_names:
            members[name] = _json_values(column)
        else:
            members[name] = column
    return Stored(PageColumns(table.num_rows, fixed, members), raw)


def _json_values(column: pa.Array) -> list[Any]:
    """A member stored as JSON text back to its Python objects (None where missing).

    Only the present values are decoded: such members are mostly missing, and listing
    every row from Arrow cost more.
    """
    values: list[Any] = [None] * len(column)
    present = np.flatnonzero(column.is_valid().to_numpy(zero_copy_only=False))
    for i, text in zip(present.tolist(), column.drop_null().to_pylist(), strict=True):
        values[i] = orjson.loads(text)
    return values


def slice_rows(stored: Stored, lo_ms: int, hi_ms: int) -> PageColumns:
    """Rows with ``lo_ms <= gmt_create < hi_ms`` (whole seconds; the rows are in order).

    A part of a window gets its property columns from its rows' raw objects, as a page of
    those rows would: the window's own columns may hold members and types of other rows.
    """
    cols = stored.cols
    times = cols.fixed["gmt_create"].cast(pa.int64()).to_numpy(zero_copy_only=False)
    i, j = np.searchsorted(times, [lo_ms * 1_000_000, hi_ms * 1_000_000], side="left")
    i, j = int(i), int(j)
    if (i, j) == (0, cols.rows):
        return cols
    assert stored.raw is not None, "a part of a window needs the raw properties"
    records = [
        {"properties": None if text is None else orjson.loads(text)} for text in stored.raw[i:j]
    ]
    fixed = {k: v.slice(i, j - i) for k, v in cols.fixed.items()}
    return PageColumns(j - i, fixed, {}, deferred=page_columns(records, _OPEN).deferred)
