"""Fixed columns: the columns a schema declares, one page's values to one Arrow array, and
the pages' arrays to one typed pandas column with its ``*_name`` label.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from opslib.client._arrow import ARROW_TYPES, POOL, arrays_to_pandas
from opslib.client._moments import moments_array
from opslib.client._schemas import INT, STRING, TIME, label_dtype
from opslib.protocol.times import TimeCodec

__all__ = ["field_values", "fixed_page_array", "join_fixed_column", "label_array"]


def field_values(records: Sequence[dict[str, Any]], name: str) -> list[Any]:
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


def fixed_page_array(values: list[Any], dtype: object, name: str, times: TimeCodec) -> pa.Array:
    """One page of a declared column as an Arrow array of the column's type; moments are
    read by ``times`` (the platform's, or the decoded epoch milliseconds')."""
    if dtype == TIME:
        return moments_array(values, times, name)
    arrow_type = ARROW_TYPES[id(dtype)]
    try:
        return pa.array(values, type=arrow_type, from_pandas=False, memory_pool=POOL)
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


@functools.cache
def _label_dtype(labels: tuple[tuple[int, str], ...]) -> pd.CategoricalDtype:
    return label_dtype(dict(labels))


def label_array(codes: Any, labels: Mapping[int, str]) -> pd.Categorical:
    """The categorical labels of a coded ``Int64`` array (unknown codes and NA → NaN)."""
    arr = codes if isinstance(codes, pd.arrays.IntegerArray) else pd.array(codes, dtype=INT)
    values = arr.to_numpy(dtype=np.int64, na_value=-(2**62))
    dtype = _label_dtype(tuple(labels.items()))
    position = {label: i for i, label in enumerate(dtype.categories)}
    out = np.full(len(values), -1, dtype=np.int8)
    for code, label in labels.items():
        out[values == int(code)] = position[label]
    return pd.Categorical.from_codes(out, dtype=dtype, validate=False)


def join_fixed_column(
    chunks: list[pa.Array], arrow_type: pa.DataType, labels: Mapping[int, str] | None
) -> tuple[Any, pd.Categorical | None]:
    """A fixed column's pages as one pandas array, and its labels when it is coded."""
    arr = arrays_to_pandas(chunks, arrow_type)
    chunks.clear()
    return arr, None if labels is None else label_array(arr, labels)
