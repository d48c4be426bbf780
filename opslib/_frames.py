"""Records to typed DataFrames, per the declarations of :mod:`opslib._schemas`.

All record-to-frame conversion lives here, in two steps built for bulk reads:

1. :func:`page_columns` turns one page of decoded records into typed pyarrow arrays, column
   by column (a list per column, then one ``pa.array`` call), never a list of flattened
   dicts. Worker threads do this as pages arrive, so only typed columns are kept.
2. :func:`build_frame` joins the pages' arrays column by column (strings stay Arrow memory,
   numbers become nullable ``Int64``/``Float64``/``boolean``, moments
   ``datetime64[ns, UTC]``) and adds the categorical ``*_name`` label beside each coded
   column, computed once on the joined codes.

Fixed columns come first, in the schema's order; members of open objects
(``properties``) follow as dotted columns (nested objects flattened), sorted, with dtypes
inferred from the data: ``Int64``, ``Float64`` (ints and floats together), ``boolean``,
``string``, else ``object``. An empty result has the fixed columns with their dtypes.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from operator import itemgetter
from typing import Any, TypeAlias

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from opslib._schemas import BOOL, FLOAT, INT, STRING, TIME, FrameSchema, label_dtype
from opslib._timeutil import GMT_FORMAT

__all__ = [
    "PageColumns",
    "build_frame",
    "finish",
    "label_array",
    "page_columns",
    "records_to_frame",
]

OBJECT = np.dtype(object)
_ARROW_TIME = pa.timestamp("ns", tz="UTC")
_ARROW = {
    id(STRING): pa.large_string(),
    id(INT): pa.int64(),
    id(BOOL): pa.bool_(),
    id(FLOAT): pa.float64(),
}
# Arrow type of a column → its pandas dtype.
_PANDAS: dict[Any, Any] = {
    pa.large_string(): STRING,
    pa.int64(): INT,
    pa.bool_(): BOOL,
    pa.float64(): FLOAT,
}

Chunk: TypeAlias = "pa.Array | list[Any]"
"""One page's values of one column: a typed Arrow array, or Python objects (mixed types)."""


@dataclass
class PageColumns:
    """One page's columns: the fixed ones as Arrow arrays, open-object members as chunks."""

    rows: int
    fixed: dict[str, pa.Array]
    members: dict[str, Chunk]


def _values(records: Sequence[dict[str, Any]], name: str) -> list[Any]:
    if "." not in name:
        try:
            return list(map(itemgetter(name), records))  # the usual case: every record has it
        except KeyError:
            return [r.get(name) for r in records]
    head, *rest = name.split(".")
    out: list[Any] = []
    for r in records:
        value: Any = r.get(head)
        for part in rest:
            value = value.get(part) if isinstance(value, dict) else None
        out.append(value)
    return out


def _fixed_array(values: list[Any], dtype: object, name: str) -> pa.Array:
    """One page of a declared column as an Arrow array of the column's type."""
    if dtype == TIME:
        try:
            text = pa.array(values, type=pa.string())
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            text = pa.array([v if v is None else str(v) for v in values], type=pa.string())
        return _parse_times(text)
    arrow_type = _ARROW[id(dtype)]
    try:
        return pa.array(values, type=arrow_type, from_pandas=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        pass
    if dtype == STRING:  # numbers where text was declared: keep them, as text
        return pa.array([v if v is None else str(v) for v in values], type=arrow_type)
    try:  # e.g. "3" where an int was declared: let pandas coerce, or say which column
        return pa.array(pd.array(values, dtype=dtype), type=arrow_type)  # type: ignore[call-overload]
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"column {name!r}: cannot read the platform's values as {dtype}: {exc}"
        ) from None


def _parse_times(text: pa.Array) -> pa.Array:
    """``YYYY-MM-DD HH:MM:SS`` (UTC) strings → timestamp[ns, UTC]; other ISO forms via pandas."""
    try:
        parsed = pc.strptime(text, format=GMT_FORMAT, unit="s", error_is_null=False)
        return parsed.cast(pa.timestamp("ns")).cast(_ARROW_TIME)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        series = pd.to_datetime(
            pd.Series(text.to_pylist(), dtype=object), utc=True, format="ISO8601"
        )
        return pa.array(series.astype("datetime64[ns, UTC]"), type=_ARROW_TIME)


def _member_chunks(name: str, values: list[Any]) -> Iterable[tuple[str, Chunk]]:
    """One page of an open-object member as typed chunks: pyarrow infers the type (ints with
    floats → double); nested objects become one chunk per leaf (``properties.a.b``)."""
    try:
        arr = pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        yield name, values  # mixed types: Python objects
        return
    yield from _arrow_leaves(name, arr)


def _arrow_leaves(name: str, arr: pa.Array) -> Iterable[tuple[str, Chunk]]:
    if pa.types.is_struct(arr.type):
        for field, child in zip(arr.type, arr.flatten(), strict=True):
            yield from _arrow_leaves(f"{name}.{field.name}", child)
    elif pa.types.is_string(arr.type):
        yield name, arr.cast(pa.large_string())
    elif arr.type in _PANDAS or pa.types.is_null(arr.type):
        yield name, arr
    else:
        yield name, arr.to_pylist()  # lists and the like: Python objects


def _members(objects: list[Any], n: int) -> dict[str, list[Any]]:
    """Column lists of an open object's members (one pass over the records)."""
    columns: dict[str, list[Any]] = {}
    for row, obj in enumerate(objects):
        if not obj:
            continue
        for key, value in obj.items():
            column = columns.get(key)
            if column is None:
                column = columns[key] = [None] * n
            column[row] = value
    return columns


def page_columns(records: Sequence[dict[str, Any]], schema: FrameSchema) -> PageColumns:
    """Convert one page of decoded records to typed Arrow columns (step 1)."""
    fixed = {
        c.name: _fixed_array(_values(records, c.name), c.dtype, c.name) for c in schema.columns
    }
    members: dict[str, Chunk] = {}
    n = len(records)
    for prefix in schema.open_objects:
        found = _members([r.get(prefix) for r in records], n)
        for key, values in found.items():
            for name, chunk in _member_chunks(f"{prefix}.{key}", values):
                if name not in fixed:
                    members[name] = chunk
    return PageColumns(n, fixed, members)


@functools.cache
def _label_dtype(enum: type[IntEnum]) -> pd.CategoricalDtype:
    return label_dtype(enum)


def label_array(codes: Any, enum: type[IntEnum]) -> pd.Categorical:
    """The categorical labels of a coded ``Int64`` array (unknown codes and NA → NaN)."""
    arr = codes if isinstance(codes, pd.arrays.IntegerArray) else pd.array(codes, dtype=INT)
    values = arr.to_numpy(dtype=np.int64, na_value=-(2**62))
    out = np.full(len(values), -1, dtype=np.int8)
    for i, member in enumerate(enum):
        out[values == int(member)] = i
    return pd.Categorical.from_codes(out, dtype=_label_dtype(enum), validate=False)


def _to_pandas(chunks: list[pa.Array], arrow_type: pa.DataType) -> Any:
    joined = pa.chunked_array(chunks, type=arrow_type)
    if arrow_type == _ARROW_TIME:
        return joined.to_pandas().array
    if arrow_type == pa.large_string():
        # One chunk: later pandas operations (sort, duplicated) are faster on it.
        return pd.arrays.ArrowStringArray(joined.combine_chunks())
    return _PANDAS[arrow_type].__from_arrow__(joined)


def _member_target(chunks: list[Chunk]) -> pa.DataType | None:
    """The common Arrow type of a member's chunks, None for Python objects."""
    kinds = {c.type for c in chunks if isinstance(c, pa.Array) and not pa.types.is_null(c.type)}
    if any(isinstance(c, list) for c in chunks) or not kinds:
        return None
    if len(kinds) == 1:
        return kinds.pop()
    if kinds == {pa.int64(), pa.float64()}:
        return pa.float64()
    return None


def _objects(chunks: list[Chunk]) -> np.ndarray:
    values: list[Any] = []
    for chunk in chunks:
        values.extend(chunk if isinstance(chunk, list) else chunk.to_pylist())
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _pop_member(page: PageColumns, name: str) -> Chunk:
    chunk = page.members.pop(name, None)
    return pa.nulls(page.rows) if chunk is None else chunk


def build_frame(pages: Sequence[PageColumns], schema: FrameSchema) -> pd.DataFrame:
    """Join pages' columns into one typed frame (step 2); no pages → the empty schema.

    The pages are consumed: each column's page arrays are released as soon as the column
    is built, so a large read peaks at about one copy of the data, not two.
    """
    if not pages:
        return schema.empty()
    data: dict[str, Any] = {}
    for col in schema.columns:
        arrow_type = _ARROW_TIME if col.dtype == TIME else _ARROW[id(col.dtype)]
        arr = _to_pandas([p.fixed.pop(col.name) for p in pages], arrow_type)
        data[col.name] = arr
        if col.enum is not None:
            data[col.label_name] = label_array(arr, col.enum)
    names = sorted({name for p in pages for name in p.members})
    for name in names:
        chunks: list[Chunk] = [_pop_member(p, name) for p in pages]
        target = _member_target(chunks)
        if target is None:
            data[name] = _objects(chunks)
        else:
            arrays = [c.cast(target) for c in chunks if not isinstance(c, list)]  # all Arrow here
            data[name] = _to_pandas(arrays, target)
    rows = sum(p.rows for p in pages)
    return pd.DataFrame(data, index=pd.RangeIndex(rows), copy=False)


def records_to_frame(records: Sequence[dict[str, Any]], schema: FrameSchema) -> pd.DataFrame:
    """Convert records (one page, or one object) to the schema's typed frame.

    Parameters
    ----------
    records
        Decoded JSON objects as the platform sends them (nested objects included).
    schema
        The frame's declaration from :mod:`opslib._schemas`.

    Returns
    -------
    pandas.DataFrame
        Fixed columns typed and labelled, then the open objects' members.

    Examples
    --------
    >>> from opslib import _schemas
    >>> df = records_to_frame([{"category_id": 1, "category_name": "Lighting"}], _schemas.CATEGORY)
    >>> str(df["category_id"].dtype)
    'Int64'
    """
    return build_frame([page_columns(records, schema)], schema)


def _is_sorted(df: pd.DataFrame, columns: Sequence[str]) -> bool:
    """Whether ``df`` is already in the order of one or two ``columns`` (without NA).

    Pages arrive in order, so this cheap check usually saves a full sort.
    """
    if len(df) < 2:
        return True
    if len(columns) > 2 or df[list(columns)].isna().to_numpy().any():
        return False
    first = df[columns[0]].array
    if len(columns) == 1:
        return bool(df[columns[0]].is_monotonic_increasing)
    ahead = np.asarray(first[1:] > first[:-1], dtype=bool)
    tied = np.asarray(first[1:] == first[:-1], dtype=bool)
    if not np.all(ahead | tied):
        return False
    if not tied.any():
        return True
    second = df[columns[1]].array
    return bool(np.all(np.asarray(second[1:] >= second[:-1], dtype=bool)[tied]))


def _has_duplicates(df: pd.DataFrame, key: Sequence[str]) -> bool:
    if len(key) == 1:
        return not df[key[0]].is_unique  # several times faster than duplicated()
    return bool(df.duplicated(subset=list(key)).any())


def finish(df: pd.DataFrame, schema: FrameSchema, *, dedupe: bool = True) -> pd.DataFrame:
    """Drop duplicate keys (the first seen wins) and sort stably by the schema's order."""
    if dedupe and schema.key and len(df) > 1 and _has_duplicates(df, schema.key):
        df = df.loc[~df.duplicated(subset=list(schema.key), keep="first").to_numpy()]
    if schema.order and not _is_sorted(df, schema.order):
        df = df.sort_values(list(schema.order), kind="stable", na_position="last")
    if not isinstance(df.index, pd.RangeIndex) or df.index.start != 0 or df.index.step != 1:
        df = df.reset_index(drop=True)
    return df
