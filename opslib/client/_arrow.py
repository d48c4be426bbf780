"""Arrow arrays to pandas arrays, for every column of a frame.

The frames keep their data in Arrow memory from the system allocator (:data:`POOL`), map
each declared pandas dtype to the Arrow type its pages are built in, and join one column's
pages into one pandas array (:func:`arrays_to_pandas`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from opslib.client import _constants as C
from opslib.client._schemas import BOOL, FLOAT, INT, STRING

__all__ = [
    "ARROW_TIME",
    "ARROW_TYPES",
    "PANDAS_DTYPES",
    "POOL",
    "arrays_to_pandas",
    "object_array",
]


# The C library's allocator, not pyarrow's default (mimalloc), which zeroed fresh huge
# pages for every page's small arrays (docs/performance.md).
POOL = pa.system_memory_pool()
ARROW_TIME = pa.timestamp("ns", tz="UTC")
# A declared column's pandas dtype (by identity) → the Arrow type its pages are built in.
ARROW_TYPES = {
    id(STRING): pa.large_string(),
    id(INT): pa.int64(),
    id(BOOL): pa.bool_(),
    id(FLOAT): pa.float64(),
}
# Arrow type of a column → its pandas dtype.
PANDAS_DTYPES: dict[Any, Any] = {
    pa.large_string(): STRING,
    pa.int64(): INT,
    pa.bool_(): BOOL,
    pa.float64(): FLOAT,
}
_NUMPY = {pa.int64(): np.dtype(np.int64), pa.float64(): np.dtype(np.float64)}
# Whether this pandas reads a NaN from Arrow as missing (pandas 3 does by default), so that
# _numbers_to_pandas builds what ``Float64Dtype().__from_arrow__`` would.
_NAN_IS_NA = bool(PANDAS_DTYPES[pa.float64()].__from_arrow__(pa.array([float("nan")])).isna()[0])


def _numbers_to_pandas(chunks: list[pa.Array], arrow_type: pa.DataType) -> Any:
    """Pages of int64 or float64 straight into one ``Int64``/``Float64`` pandas array.

    Each chunk's values are copied once, into the final numpy array, from a view of its
    Arrow buffer; joining in Arrow first and then converting (pandas copies again) touched
    every value twice (docs/scaling.md, the cached read).
    """
    dtype = _NUMPY[arrow_type]
    n = sum(len(c) for c in chunks)
    values: Any = np.empty(n, dtype=dtype)
    mask = np.zeros(n, dtype=bool)
    at = 0
    for chunk in chunks:
        size = len(chunk)
        if not size:
            continue
        if chunk.type != arrow_type:
            chunk = chunk.cast(arrow_type, memory_pool=POOL)
        if chunk.null_count == size:  # all missing (also a null-typed chunk)
            values[at : at + size] = 0
            mask[at : at + size] = True
        else:
            validity, data = chunk.buffers()[:2]
            view = np.frombuffer(data, dtype=dtype, count=chunk.offset + size)
            values[at : at + size] = view[chunk.offset :]
            if validity is not None and chunk.null_count:
                mask[at : at + size] = chunk.is_null().to_numpy(zero_copy_only=False)
        at += size
    if dtype.kind == "f":
        if _NAN_IS_NA:
            mask |= np.isnan(values)
        return pd.arrays.FloatingArray(values, mask)
    return pd.arrays.IntegerArray(values, mask)


def arrays_to_pandas(chunks: list[pa.Array], arrow_type: pa.DataType) -> Any:
    """The pages' arrays of one column as one pandas array.

    Numbers are copied once, straight into the pandas array (:func:`_numbers_to_pandas`);
    text in large chunks stays chunked; other columns are joined into one Arrow array first (one
    C++ copy), then converted once: pandas converts a chunked array chunk by chunk, which
    over a thousand pages cost more than the join (docs/performance.md).
    """
    if (
        arrow_type == pa.large_string()
        and len(chunks) > 1
        and sum(map(len, chunks)) >= C.CHUNKED_STRINGS_MIN_ROWS * len(chunks)
    ):
        # Large chunks of text (cached windows, not pages) stay chunked: pandas keeps
        # Arrow memory as it is, so the text is not copied once more (docs/scaling.md).
        typed = [
            c if c.type == arrow_type else c.cast(arrow_type, memory_pool=POOL) for c in chunks
        ]
        return pd.arrays.ArrowStringArray(pa.chunked_array(typed, type=arrow_type))
    if arrow_type in _NUMPY and len(chunks) > 1:
        return _numbers_to_pandas(chunks, arrow_type)
    joined = chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks, memory_pool=POOL)
    if joined.type != arrow_type:
        joined = joined.cast(arrow_type, memory_pool=POOL)
    if arrow_type == ARROW_TIME:
        return joined.to_pandas().array
    if arrow_type == pa.large_string():
        return pd.arrays.ArrowStringArray(joined)
    return PANDAS_DTYPES[arrow_type].__from_arrow__(joined)


def object_array(values: list[Any]) -> np.ndarray:
    """Python objects as a 1-D object array, each value one element (lists too).

    ``np.fromiter`` takes each value as it is; assigning a list to an object array makes
    numpy look into every value for a second dimension, which is much slower.
    """
    return np.fromiter(values, dtype=object, count=len(values))
