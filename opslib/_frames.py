"""Records to typed DataFrames, per the declarations of :mod:`opslib._schemas`.

All record-to-frame conversion lives here. A page of records becomes one typed frame
column by column (a list per column, then one typed array: pyarrow-backed strings, nullable
``Int64``/``boolean``, ``datetime64[ns, UTC]`` parsed by pyarrow), never through a list of
flattened dicts. Pages are concatenated once, typed. Fixed columns come first in the
schema's order, each coded column followed by its categorical ``*_name`` label; members of
open objects (``properties``) follow as dotted columns, sorted, with dtypes inferred from the
data (``Int64``, ``Float64``, ``boolean``, ``string``, else ``object``). An empty result has
the fixed columns with their dtypes.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from enum import IntEnum
from operator import itemgetter
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from opslib._schemas import BOOL, FLOAT, INT, STRING, TIME, FrameSchema, label_dtype
from opslib._timeutil import parse_gmt

__all__ = ["concat_frames", "finish", "label_array", "records_to_frame"]

OBJECT = np.dtype(object)


def _column_values(records: Sequence[dict[str, Any]], name: str) -> list[Any]:
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


def _from_arrow(arr: pa.Array) -> Any:
    """A pandas nullable array of a flat pyarrow array (None when there is no good one)."""
    kind = arr.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return pd.arrays.ArrowStringArray(arr.cast(pa.large_string()))
    if not (pa.types.is_int64(kind) or pa.types.is_float64(kind) or pa.types.is_boolean(kind)):
        return None
    mask = arr.is_null().to_numpy(zero_copy_only=False)
    filled = arr.fill_null(False if pa.types.is_boolean(kind) else 0)
    data = np.asarray(filled.to_numpy(zero_copy_only=False))
    if pa.types.is_int64(kind):
        return pd.arrays.IntegerArray(data, mask)
    if pa.types.is_float64(kind):
        return pd.arrays.FloatingArray(data, mask)
    return pd.arrays.BooleanArray(data, mask)


_ARROW_TYPES = {id(STRING): pa.large_string(), id(INT): pa.int64(), id(BOOL): pa.bool_()}


def _typed(values: list[Any], dtype: object) -> Any:
    """One typed array of ``values`` for a declared dtype (pyarrow does the converting)."""
    if dtype == TIME:
        try:
            text = pa.array(values, type=pa.string())
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            text = pa.array([v if v is None else str(v) for v in values], type=pa.string())
        return parse_gmt(text)
    arrow_type = _ARROW_TYPES.get(id(dtype))
    if arrow_type is not None:
        try:
            out = _from_arrow(pa.array(values, type=arrow_type, from_pandas=False))
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            out = None
        if out is not None:
            return out
    if dtype == STRING:  # numbers where strings were declared: keep them, as text
        return pd.array([v if v is None else str(v) for v in values], dtype=STRING)
    return pd.array(values, dtype=dtype)  # type: ignore[call-overload]


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


def _infer(values: list[Any]) -> Any:
    """The array of an open-object member: numeric where the data is numeric.

    pyarrow infers the type (ints and floats together become float); mixed or nested
    values stay Python objects.
    """
    try:
        out = _from_arrow(pa.array(values))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        out = None
    if out is not None:
        return out
    obj = np.empty(len(values), dtype=object)
    obj[:] = values
    return obj


def _members(objects: list[Any], n: int) -> dict[tuple[str, ...], list[Any]]:
    """Column lists of an open object's members, keyed by path; nested objects flattened."""
    columns: dict[tuple[str, ...], list[Any]] = {}
    for row, obj in enumerate(objects):
        if not obj or type(obj) is not dict:
            continue
        for key, value in obj.items():
            if type(value) is dict and value:
                for path, leaf in _leaves(value, (key,)):
                    column = columns.get(path)
                    if column is None:
                        column = columns[path] = [None] * n
                    column[row] = leaf
                continue
            path = (key,)
            column = columns.get(path)
            if column is None:
                column = columns[path] = [None] * n
            column[row] = value
    return columns


def _leaves(obj: dict[str, Any], path: tuple[str, ...]) -> Iterable[tuple[tuple[str, ...], Any]]:
    for key, value in obj.items():
        if type(value) is dict and value:
            yield from _leaves(value, (*path, key))
        else:
            yield (*path, key), value


def records_to_frame(records: Sequence[dict[str, Any]], schema: FrameSchema) -> pd.DataFrame:
    """Convert one page (or one object) of platform records to the schema's typed frame.

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
    data: dict[str, Any] = {}
    for col in schema.columns:
        arr = _typed(_column_values(records, col.name), col.dtype)
        data[col.name] = arr
        if col.enum is not None:
            data[col.label_name] = label_array(arr, col.enum)
    n = len(records)
    for prefix in schema.open_objects:
        members = _members([r.get(prefix) for r in records], n)
        named = {".".join((prefix, *path)): values for path, values in members.items()}
        for name in sorted(named):
            if name not in data:
                data[name] = _infer(named[name])
    return pd.DataFrame(data, index=pd.RangeIndex(n), copy=False)


def _common_dtype(dtypes: Iterable[Any]) -> Any:
    unique = list(dict.fromkeys(dtypes))
    if len(unique) == 1:
        return unique[0]
    if set(unique) <= {INT, FLOAT}:
        return FLOAT
    return OBJECT


def concat_frames(frames: Sequence[pd.DataFrame], schema: FrameSchema) -> pd.DataFrame:
    """Concatenate typed page frames; members missing on some pages become typed NA.

    A member whose dtype differs between pages is widened (``Int64`` + ``Float64`` →
    ``Float64``, anything else → ``object``) before concatenating, so pandas never has to
    guess.
    """
    frames = [f for f in frames if len(f.columns)]
    if not frames:
        return schema.empty()
    if len(frames) == 1:
        return frames[0]
    fixed = list(schema.dtypes())
    extra: dict[str, list[Any]] = {}
    for frame in frames:
        for name in frame.columns[len(fixed) :]:
            extra.setdefault(name, []).append(frame.dtypes[name])
    targets = {name: _common_dtype(dts) for name, dts in extra.items()}
    order = fixed + sorted(targets)
    aligned = []
    for frame in frames:
        add: dict[str, Any] = {}
        for name, target in targets.items():
            if name not in frame.columns:
                add[name] = (
                    np.full(len(frame), None, dtype=object)
                    if target == OBJECT
                    else pd.array([None] * len(frame), dtype=target)
                )
            elif frame.dtypes[name] != target:
                add[name] = frame[name].astype(target)
        if add:
            frame = frame.assign(**add)
        aligned.append(frame[order] if list(frame.columns) != order else frame)
    return pd.concat(aligned, ignore_index=True)


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


def finish(df: pd.DataFrame, schema: FrameSchema, *, dedupe: bool = True) -> pd.DataFrame:
    """Drop duplicate keys (the first seen wins) and sort stably by the schema's order."""
    if dedupe and schema.key and len(df) > 1:
        duplicated = df.duplicated(subset=list(schema.key), keep="first")
        if duplicated.any():
            df = df.loc[~duplicated.to_numpy()]
    if schema.order and not _is_sorted(df, schema.order):
        df = df.sort_values(list(schema.order), kind="stable", na_position="last")
    if not isinstance(df.index, pd.RangeIndex) or df.index.start != 0 or df.index.step != 1:
        df = df.reset_index(drop=True)
    return df
