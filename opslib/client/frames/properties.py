"""Typed columns: Arrow arrays to pandas arrays, and the members of open objects (an event's
``properties``) as dotted columns whose dtypes follow the data.

Every column ends here: a column's pages (Arrow arrays, built in the system allocator's
memory, :data:`POOL`) join into one pandas array (:func:`arrays_to_pandas`).

The members of an open object are typed one way. Each page keeps, per member, the rows
that have it and its values (:class:`PropertyValues`): an Arrow array when they are of one
scalar kind (:func:`page_property_values`).
:func:`join_deferred_properties` types each member once for the whole read: ints,
floats (ints and floats together), booleans and text become ``Int64``, ``Float64``,
``boolean`` and ``string``; any other mix (a number and text, nested objects, lists) is
typed page by page (:func:`typed_property_chunks`) and joined, as typing each page alone
would have (``object`` where the pages disagree).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import pandas as pd
import pyarrow as pa

from opslib.client import _constants as C
from opslib.client.frames.schema import BOOL, FLOAT, INT, STRING

__all__ = [
    "ARROW_TIME",
    "ARROW_TYPES",
    "PANDAS_DTYPES",
    "POOL",
    "SCALAR_TYPES",
    "PropertyChunk",
    "PropertyValues",
    "arrays_to_pandas",
    "join_deferred_properties",
    "join_property_chunks",
    "object_array",
    "page_property_values",
    "typed_property_chunks",
    "untyped_values",
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
    C++ copy), then converted once: pandas converts a chunked array chunk by chunk, and a
    conversion per page (a thousand in a 1M-event read) costs more than one join and one
    conversion.
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


# -- the members of open objects ----------------------------------------------------------

PropertyChunk: TypeAlias = "pa.Array | list[Any]"
"""One page's values of one column: a typed Arrow array, or Python objects (mixed types)."""


# The Python types of a member's values (None aside) → the Arrow type that typing page by
# page and joining gives them; any other mix is typed page by page.
SCALAR_TYPES: dict[frozenset[type], pa.DataType] = {
    frozenset(): pa.null(),
    frozenset({int}): pa.int64(),
    frozenset({float}): pa.float64(),
    frozenset({int, float}): pa.float64(),
    frozenset({bool}): pa.bool_(),
    frozenset({str}): pa.large_string(),
}


@dataclass
class PropertyValues:
    """One page's values of one open-object member: the rows that have it, and the values.

    When the page's values are of one scalar kind (see :data:`SCALAR_TYPES`) they are
    already an Arrow array (``typed``, ``values`` empty), built in the worker thread that
    decoded the page; ``kinds`` holds their Python types, so that the whole read's type is
    the union of the pages' kinds, as if every value had been typed at once.
    """

    rows: np.ndarray
    values: list[Any]
    kinds: frozenset[type] = frozenset()
    typed: pa.Array | None = None

    def pyvalues(self) -> list[Any]:
        """The values as Python objects (from ``typed`` when the list was dropped)."""
        return self.values if self.typed is None else self.typed.to_pylist()


def typed_property_chunks(name: str, values: list[Any]) -> Iterable[tuple[str, PropertyChunk]]:
    """One page of an open-object member as typed chunks: pyarrow infers the type (ints with
    floats → double); nested objects become one chunk per leaf (``properties.a.b``)."""
    try:
        arr = pa.array(values, memory_pool=POOL)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        yield name, values  # mixed types: Python objects
        return
    yield from _leaf_chunks(name, arr)


def _leaf_chunks(name: str, arr: pa.Array) -> Iterable[tuple[str, PropertyChunk]]:
    if pa.types.is_struct(arr.type):
        for field, child in zip(arr.type, arr.flatten(), strict=True):
            yield from _leaf_chunks(f"{name}.{field.name}", child)
    elif pa.types.is_string(arr.type):
        yield name, arr.cast(pa.large_string(), memory_pool=POOL)
    elif arr.type in PANDAS_DTYPES or pa.types.is_null(arr.type):
        yield name, arr
    else:
        yield name, arr.to_pylist()  # lists and the like: Python objects


def page_property_values(objects: list[Any]) -> dict[str, PropertyValues]:
    """An open object's members on one page, each as the rows that have it and its values
    (one pass over the records: a record holds few of a page's members)."""
    found: dict[str, tuple[list[int], list[Any]]] = {}
    for row, obj in enumerate(objects):
        if obj:
            for key, value in obj.items():
                try:
                    rows, values = found[key]
                except KeyError:
                    rows, values = found[key] = ([], [])
                rows.append(row)
                values.append(value)
    return {k: _property_values(r, v) for k, (r, v) in found.items()}


_NONE = frozenset({type(None)})


def _property_values(rows: list[int], values: list[Any]) -> PropertyValues:
    """One member's values on one page, as an Arrow array when they are of one scalar kind
    (an int beyond 64 bits, or mixed kinds, stay Python values)."""
    kinds = frozenset(map(type, values)) - _NONE
    arrow_type = SCALAR_TYPES.get(kinds)
    if arrow_type is not None:
        try:
            typed = pa.array(values, type=arrow_type, from_pandas=False, memory_pool=POOL)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            pass
        else:
            return PropertyValues(np.array(rows, dtype=np.int64), [], kinds, typed)
    return PropertyValues(np.array(rows, dtype=np.int64), values, kinds, None)


def untyped_values(member: PropertyValues, rows: int) -> list[Any]:
    """A member's values on its page's ``rows`` rows, None where a record lacks it."""
    values: list[Any] = [None] * rows
    for row, value in zip(member.rows.tolist(), member.pyvalues(), strict=True):
        values[row] = value
    return values


def _common_type(chunks: list[PropertyChunk | None]) -> pa.DataType | None:
    """The common Arrow type of a member's chunks (None: absent from that page), None for
    Python objects."""
    kinds = set()
    for c in chunks:
        if isinstance(c, list):
            return None
        if c is not None and not pa.types.is_null(c.type):
            kinds.add(c.type)
    if not kinds:
        return None
    if len(kinds) == 1:
        return kinds.pop()
    if kinds == {pa.int64(), pa.float64()}:
        return pa.float64()
    return None


def _object_column(chunks: list[PropertyChunk | None], rows: list[int]) -> np.ndarray:
    values: list[Any] = []
    for chunk, n in zip(chunks, rows, strict=True):
        if chunk is None:
            values.extend([None] * n)
        else:
            values.extend(chunk if isinstance(chunk, list) else chunk.to_pylist())
    return object_array(values)


def _chunk_as(chunk: PropertyChunk | None, rows: int, target: pa.DataType) -> pa.Array:
    if chunk is None:
        return pa.nulls(rows, type=target, memory_pool=POOL)
    assert not isinstance(chunk, list)  # a list makes the member's target None
    return chunk if chunk.type == target else chunk.cast(target, memory_pool=POOL)


def _spread_over_rows(leaf: PropertyChunk, positions: np.ndarray, n: int) -> Any:
    """A member's values at ``positions`` of ``n`` rows, missing elsewhere: the pandas
    array the per-page chunks of the same values would have joined into."""
    if isinstance(leaf, list) or pa.types.is_null(leaf.type):
        objects = leaf if isinstance(leaf, list) else [None] * len(leaf)
        out = np.full(n, None, dtype=object)
        if objects:
            out[positions] = object_array(objects)
        return out
    if pa.types.is_large_string(leaf.type):
        return pd.arrays.ArrowStringArray(_spread_text(leaf, positions, n))
    kind = leaf.type
    mask = np.ones(n, dtype=bool)
    if leaf.null_count:
        mask[positions] = ~leaf.is_valid().to_numpy(zero_copy_only=False)
        leaf = leaf.fill_null(False if kind == pa.bool_() else 0)
    else:
        mask[positions] = False
    dense = leaf.to_numpy(zero_copy_only=False)
    values = np.zeros(n, dtype=dense.dtype)
    values[positions] = dense
    if kind == pa.int64():
        return pd.arrays.IntegerArray(values, mask)
    if kind == pa.float64():
        return pd.arrays.FloatingArray(values, mask)
    return pd.arrays.BooleanArray(values, mask)


def _spread_text(leaf: pa.Array, positions: np.ndarray, n: int) -> pa.Array:
    """``leaf``'s strings at ``positions`` (increasing) of ``n`` rows, null elsewhere.

    The result shares ``leaf``'s characters; only new offsets and validity are built
    (``pc.take`` with a null-padded index copied every string).
    """
    if len(leaf) == 0:
        return pa.nulls(n, type=leaf.type, memory_pool=POOL)
    _, offsets, data = leaf.buffers()
    ends = np.frombuffer(offsets, dtype=np.int64, count=leaf.offset + len(leaf) + 1)
    ends = ends[leaf.offset :]
    # Each row's end offset: a row without a value ends where the one before it ends.
    out = np.zeros(n + 1, dtype=np.int64)
    out[positions + 1] = np.diff(ends)
    np.cumsum(out, out=out)
    out += ends[0]
    present = np.zeros(n, dtype=bool)
    present[positions] = leaf.is_valid().to_numpy(zero_copy_only=False) if leaf.null_count else True
    bitmap = np.packbits(present, bitorder="little")
    buffers = [pa.py_buffer(bitmap), pa.py_buffer(out), data]
    return pa.Array.from_buffers(leaf.type, n, buffers, null_count=n - int(present.sum()))


def join_property_chunks(chunks: list[PropertyChunk | None], sizes: list[int]) -> Any:
    """One member's per-page chunks (None: absent from that page) as one pandas array."""
    target = _common_type(chunks)
    if target is None:
        return _object_column(chunks, sizes)
    arrays = [_chunk_as(c, n, target) for c, n in zip(chunks, sizes, strict=True)]
    return arrays_to_pandas(arrays, target)


def _cast(arr: pa.Array, arrow_type: pa.DataType) -> pa.Array:
    return arr if arr.type == arrow_type else arr.cast(arrow_type, safe=False, memory_pool=POOL)


def join_deferred_properties(
    deferred: Sequence[dict[str, PropertyValues]], sizes: list[int], fixed: Iterable[str]
) -> dict[str, Any]:
    """The deferred members of every page (``deferred[i]``, of ``sizes[i]`` rows; emptied
    here), each typed once over all its values.

    Equal to typing each page's values and joining the chunks: when the values are of one
    scalar kind (ints, ints and floats, floats, booleans, text; missing → NA) the type is
    the one the chunks would have been joined as; any other mix (a number and text, a
    boolean and a number, nested objects, lists) is typed page by page as
    :func:`typed_property_chunks` does and joined the same way.
    """
    starts = np.cumsum([0, *sizes[:-1]])
    n = sum(sizes)
    out: dict[str, Any] = {}
    by_name: dict[str, dict[int, PropertyValues]] = {}
    for i, page in enumerate(deferred):  # one pass over the pages, not one per member
        for name, member in page.items():
            by_name.setdefault(name, {})[i] = member
        page.clear()
    for name in sorted(by_name):
        found = by_name.pop(name)  # released once its column is built
        rows = [m.rows for m in found.values()]
        positions = np.concatenate(rows) + np.repeat(starts[list(found)], [len(r) for r in rows])
        arrow_type = SCALAR_TYPES.get(frozenset().union(*(m.kinds for m in found.values())))
        arr = None
        if arrow_type is not None and all(m.typed is not None for m in found.values()):
            # Every page typed its values already: cast (ints to double, safe=False as
            # pa.array converts them) and join; no Python object is touched again.
            typed = [_cast(m.typed, arrow_type) for m in found.values() if m.typed is not None]
            arr = typed[0] if len(typed) == 1 else pa.concat_arrays(typed, memory_pool=POOL)
        elif arrow_type is not None:
            values: list[Any] = []
            for m in found.values():
                values.extend(m.pyvalues())
            try:
                arr = pa.array(values, type=arrow_type, from_pandas=False, memory_pool=POOL)
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
                arr = None  # an int beyond 64 bits: typed page by page, as before
        if isinstance(arr, pa.Array):
            if name not in fixed:
                out[name] = _spread_over_rows(arr, positions, n)
            continue
        # Values of several kinds, or nested objects and lists: page by page, as typing
        # each page would have (there, e.g., True beside 2.5 on one page becomes 1.0,
        # while a page of True alone stays boolean).
        chunks: dict[str, list[PropertyChunk | None]] = {}
        for i, member in found.items():
            for leaf, chunk in typed_property_chunks(name, untyped_values(member, sizes[i])):
                if leaf not in fixed:
                    chunks.setdefault(leaf, [None] * len(deferred))[i] = chunk
        for leaf, per_page in chunks.items():
            out[leaf] = join_property_chunks(per_page, sizes)
    return out
