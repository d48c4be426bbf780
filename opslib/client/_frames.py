"""Records to typed DataFrames, per the declarations of :mod:`opslib.client._schemas`.

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
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import IntEnum
from operator import itemgetter
from typing import Any, TypeAlias

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from opslib.client import _constants as C
from opslib.client._schemas import BOOL, FLOAT, INT, STRING, TIME, FrameSchema, label_dtype
from opslib.timeutil import GMT_FORMAT

__all__ = [
    "POOL",
    "PageColumns",
    "RawMember",
    "build_frame",
    "finish",
    "join_order",
    "label_array",
    "page_columns",
    "records_to_frame",
]

OBJECT = np.dtype(object)
# Arrow memory of the pages and of the joined columns comes from the C library's allocator,
# not pyarrow's default (mimalloc): here mimalloc gave each page's small arrays fresh
# transparent huge pages and zeroed them again and again (1M events: 1.7 s of system time
# with mimalloc, 0.6 s with the system allocator; docs/performance.md).
POOL = pa.system_memory_pool()
# Below this many rows a frame's columns are joined in the calling thread: threads cost more.
_PARALLEL_MIN_ROWS = 50_000
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
    """One page's columns: the fixed ones as Arrow arrays, open-object members as chunks.

    ``order`` holds each row's moment in epoch milliseconds when the records carried it
    (a column's ``ms_field``): :func:`finish` uses it to check the platform's order
    exactly instead of hashing every key.
    """

    rows: int
    fixed: dict[str, pa.Array]
    members: dict[str, Chunk]
    order: np.ndarray | None = None
    raw: dict[str, RawMember] = field(default_factory=dict)
    """Open-object members left untyped (``page_columns(..., defer=True)``): typed once
    for the whole read by :func:`build_frame` instead of once per page."""


@dataclass
class RawMember:
    """One page's values of one open-object member: the rows that have it, and the values.

    When the page's values are of one scalar kind (see :data:`_SCALAR_TYPES`) they are
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
            text = pa.array(values, type=pa.string(), memory_pool=POOL)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            strings = [v if v is None else str(v) for v in values]
            text = pa.array(strings, type=pa.string(), memory_pool=POOL)
        return _parse_times(text)
    arrow_type = _ARROW[id(dtype)]
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


def _parse_times(text: pa.Array) -> pa.Array:
    """``YYYY-MM-DD HH:MM:SS`` (UTC) strings → timestamp[ns, UTC]; other ISO forms via pandas."""
    try:
        parsed = pc.strptime(
            text, format=GMT_FORMAT, unit="s", error_is_null=False, memory_pool=POOL
        )
        return parsed.cast(pa.timestamp("ns"), memory_pool=POOL).view(_ARROW_TIME)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        series = pd.to_datetime(
            pd.Series(text.to_pylist(), dtype=object), utc=True, format="ISO8601"
        )
        return pa.array(series.astype("datetime64[ns, UTC]"), type=_ARROW_TIME)


def _member_chunks(name: str, values: list[Any]) -> Iterable[tuple[str, Chunk]]:
    """One page of an open-object member as typed chunks: pyarrow infers the type (ints with
    floats → double); nested objects become one chunk per leaf (``properties.a.b``)."""
    try:
        arr = pa.array(values, memory_pool=POOL)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        yield name, values  # mixed types: Python objects
        return
    yield from _arrow_leaves(name, arr)


def _arrow_leaves(name: str, arr: pa.Array) -> Iterable[tuple[str, Chunk]]:
    if pa.types.is_struct(arr.type):
        for field, child in zip(arr.type, arr.flatten(), strict=True):
            yield from _arrow_leaves(f"{name}.{field.name}", child)
    elif pa.types.is_string(arr.type):
        yield name, arr.cast(pa.large_string(), memory_pool=POOL)
    elif arr.type in _PANDAS or pa.types.is_null(arr.type):
        yield name, arr
    else:
        yield name, arr.to_pylist()  # lists and the like: Python objects


def _raw_members(objects: list[Any]) -> dict[str, RawMember]:
    """An open object's members as (rows, values), one pass over the records."""
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
    return {k: _raw_member(r, v) for k, (r, v) in found.items()}


_NONE = frozenset({type(None)})


def _raw_member(rows: list[int], values: list[Any]) -> RawMember:
    """One member's values on one page, as an Arrow array when they are of one scalar kind
    (an int beyond 64 bits, or mixed kinds, stay Python values)."""
    kinds = frozenset(map(type, values)) - _NONE
    arrow_type = _SCALAR_TYPES.get(kinds)
    if arrow_type is not None:
        try:
            typed = pa.array(values, type=arrow_type, from_pandas=False, memory_pool=POOL)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            pass
        else:
            return RawMember(np.array(rows, dtype=np.int64), [], kinds, typed)
    return RawMember(np.array(rows, dtype=np.int64), values, kinds, None)


def _members(objects: list[Any], n: int) -> dict[str, list[Any]]:
    """Column lists of an open object's members (one pass over the records)."""
    columns: dict[str, list[Any]] = {}
    for row, obj in enumerate(objects):
        if obj:
            for key, value in obj.items():
                try:
                    columns[key][row] = value
                except KeyError:
                    column = columns[key] = [None] * n
                    column[row] = value
    return columns


def _epoch_ms(records: Sequence[dict[str, Any]], field: str) -> np.ndarray | None:
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
    return arr.to_numpy()


def _seconds_from_ms(ms: np.ndarray) -> pa.Array:
    """Epoch ms → timestamp[ns, UTC] truncated to the second (as gmt_create shows it)."""
    ns = (ms // 1000) * 1_000_000_000
    return pa.array(ns, type=pa.int64()).view(_ARROW_TIME)


def page_columns(
    records: Sequence[dict[str, Any]], schema: FrameSchema, *, defer: bool = False
) -> PageColumns:
    """Convert one page of decoded records to typed Arrow columns (step 1).

    A moment column with an ``ms_field`` is built from the integer milliseconds when every
    record has them (no date text parsed), and they are kept as the page's ``order``.
    ``defer`` leaves the open objects' members as values (:class:`RawMember`), typed by
    :func:`build_frame` once for the whole read: a member is then one type inference over
    all its values instead of one per page over a mostly empty column (1M events, 23
    members: 0.8 s → 0.2 s; same frame).
    """
    fixed: dict[str, pa.Array] = {}
    order = None
    for c in schema.columns:
        ms = _epoch_ms(records, c.ms_field) if c.ms_field and records else None
        if ms is not None:
            fixed[c.name] = _seconds_from_ms(ms)
            order = ms if order is None else order
        else:
            fixed[c.name] = _fixed_array(_values(records, c.name), c.dtype, c.name)
    members: dict[str, Chunk] = {}
    raw: dict[str, RawMember] = {}
    n = len(records)
    for prefix in schema.open_objects:
        objects = [r.get(prefix) for r in records]
        if defer:
            for key, member in _raw_members(objects).items():
                raw[f"{prefix}.{key}"] = member
            continue
        for key, values in _members(objects, n).items():
            for name, chunk in _member_chunks(f"{prefix}.{key}", values):
                if name not in fixed:
                    members[name] = chunk
    return PageColumns(n, fixed, members, order, raw)


def _typed_raw(page: PageColumns, fixed: Iterable[str]) -> None:
    """Type a page's deferred members in place, as ``page_columns`` would have."""
    for name, member in page.raw.items():
        values: list[Any] = [None] * page.rows
        for row, value in zip(member.rows.tolist(), member.pyvalues(), strict=True):
            values[row] = value
        for leaf, chunk in _member_chunks(name, values):
            if leaf not in fixed:
                page.members[leaf] = chunk
    page.raw = {}


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


_NUMPY = {pa.int64(): np.dtype(np.int64), pa.float64(): np.dtype(np.float64)}
# Whether this pandas reads a NaN from Arrow as missing (pandas 3 does by default), so that
# _masked_numbers builds what ``Float64Dtype().__from_arrow__`` would.
_NAN_IS_NA = bool(_PANDAS[pa.float64()].__from_arrow__(pa.array([float("nan")])).isna()[0])


def _masked_numbers(chunks: list[pa.Array], arrow_type: pa.DataType) -> Any:
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


def _to_pandas(chunks: list[pa.Array], arrow_type: pa.DataType) -> Any:
    """The pages' arrays of one column as one pandas array.

    Numbers are copied once, straight into the pandas array (:func:`_masked_numbers`); text
    in large chunks stays chunked; other columns are joined into one Arrow array first (one
    C++ copy), then converted once: pandas converts a chunked array chunk by chunk, which
    over a thousand pages cost more than the join (docs/performance.md).
    """
    if (
        arrow_type == pa.large_string()
        and len(chunks) > 1
        and sum(map(len, chunks)) >= C.CHUNKED_STRINGS_MIN_ROWS * len(chunks)
    ):
        # Large chunks of text (cached windows, not pages) stay chunked: pandas keeps
        # Arrow memory as it is, so the text is not copied once more (1M events read from
        # the cache: 145 MB less resident, docs/scaling.md).
        typed = [
            c if c.type == arrow_type else c.cast(arrow_type, memory_pool=POOL) for c in chunks
        ]
        return pd.arrays.ArrowStringArray(pa.chunked_array(typed, type=arrow_type))
    if arrow_type in _NUMPY and len(chunks) > 1:
        return _masked_numbers(chunks, arrow_type)
    joined = chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks, memory_pool=POOL)
    if joined.type != arrow_type:
        joined = joined.cast(arrow_type, memory_pool=POOL)
    if arrow_type == _ARROW_TIME:
        return joined.to_pandas().array
    if arrow_type == pa.large_string():
        return pd.arrays.ArrowStringArray(joined)
    return _PANDAS[arrow_type].__from_arrow__(joined)


def _member_target(chunks: list[Chunk | None]) -> pa.DataType | None:
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


def _objects(chunks: list[Chunk | None], rows: list[int]) -> np.ndarray:
    values: list[Any] = []
    for chunk, n in zip(chunks, rows, strict=True):
        if chunk is None:
            values.extend([None] * n)
        else:
            values.extend(chunk if isinstance(chunk, list) else chunk.to_pylist())
    return _object_array(values)


def _typed(chunk: Chunk | None, rows: int, target: pa.DataType) -> pa.Array:
    if chunk is None:
        return pa.nulls(rows, type=target, memory_pool=POOL)
    assert not isinstance(chunk, list)  # a list makes the member's target None
    return chunk if chunk.type == target else chunk.cast(target, memory_pool=POOL)


def _object_array(values: list[Any]) -> np.ndarray:
    """Python objects as a 1-D object array, each value one element (lists too).

    ``np.fromiter`` takes each value as it is; assigning a list to an object array makes
    numpy look into every value for a second dimension, 5 times slower (1M values, 95 %
    None: 0.12 s against 0.024 s).
    """
    return np.fromiter(values, dtype=object, count=len(values))


def _scatter(leaf: Chunk, positions: np.ndarray, n: int) -> Any:
    """A member's values at ``positions`` of ``n`` rows, missing elsewhere: the pandas
    array the per-page chunks of the same values would have joined into."""
    if isinstance(leaf, list) or pa.types.is_null(leaf.type):
        objects = leaf if isinstance(leaf, list) else [None] * len(leaf)
        out = np.full(n, None, dtype=object)
        if objects:
            out[positions] = _object_array(objects)
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
    (``pc.take`` with a null-padded index copied every string: 1M events, 9 text members,
    0.18-0.25 s against 0.055-0.10 s).
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


def _join_member(chunks: list[Chunk | None], sizes: list[int]) -> Any:
    """One member's per-page chunks (None: absent from that page) as one pandas array."""
    target = _member_target(chunks)
    if target is None:
        return _objects(chunks, sizes)
    arrays = [_typed(c, n, target) for c, n in zip(chunks, sizes, strict=True)]
    return _to_pandas(arrays, target)


# The Python types of a member's values (None aside) → the Arrow type that typing page by
# page and joining gives them; any other mix is typed page by page.
_SCALAR_TYPES: dict[frozenset[type], pa.DataType] = {
    frozenset(): pa.null(),
    frozenset({int}): pa.int64(),
    frozenset({float}): pa.float64(),
    frozenset({int, float}): pa.float64(),
    frozenset({bool}): pa.bool_(),
    frozenset({str}): pa.large_string(),
}


def _cast(arr: pa.Array, arrow_type: pa.DataType) -> pa.Array:
    return arr if arr.type == arrow_type else arr.cast(arrow_type, safe=False, memory_pool=POOL)


def _join_raw(pages: Sequence[PageColumns], fixed: Iterable[str]) -> dict[str, Any]:
    """The deferred members of every page, each typed once over all its values.

    Equal to typing each page's values and joining the chunks: when the values are of one
    scalar kind (ints, ints and floats, floats, booleans, text; missing → NA) the type is
    the one the chunks would have been joined as; any other mix (a number and text, a
    boolean and a number, nested objects, lists) is typed page by page as
    :func:`page_columns` does and joined the same way.
    """
    sizes = [p.rows for p in pages]
    starts = np.cumsum([0, *sizes[:-1]])
    n = sum(sizes)
    out: dict[str, Any] = {}
    by_name: dict[str, dict[int, RawMember]] = {}
    for i, page in enumerate(pages):  # one pass over the pages, not one per member
        for name, member in page.raw.items():
            by_name.setdefault(name, {})[i] = member
        page.raw = {}
    for name in sorted(by_name):
        found = by_name.pop(name)  # released once its column is built
        rows = [m.rows for m in found.values()]
        positions = np.concatenate(rows) + np.repeat(starts[list(found)], [len(r) for r in rows])
        arrow_type = _SCALAR_TYPES.get(frozenset().union(*(m.kinds for m in found.values())))
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
                out[name] = _scatter(arr, positions, n)
            continue
        # Values of several kinds, or nested objects and lists: page by page, as
        # page_columns would have typed them (there, e.g., True beside 2.5 on one page
        # becomes 1.0, while a page of True alone stays boolean).
        chunks: dict[str, list[Chunk | None]] = {}
        for i, member in found.items():
            dense: list[Any] = [None] * sizes[i]
            for row, value in zip(member.rows.tolist(), member.pyvalues(), strict=True):
                dense[row] = value
            for leaf, chunk in _member_chunks(name, dense):
                if leaf not in fixed:
                    chunks.setdefault(leaf, [None] * len(pages))[i] = chunk
        for leaf, per_page in chunks.items():
            out[leaf] = _join_member(per_page, sizes)
    return out


def build_frame(pages: Sequence[PageColumns], schema: FrameSchema) -> pd.DataFrame:
    """Join pages' columns into one typed frame (step 2); no pages → the empty schema.

    The pages are consumed: each column's page arrays are released as soon as the column
    is built, so a large read peaks at about one copy of the data, not two.
    """
    if not pages:
        return schema.empty()
    names_fixed = {c.name for c in schema.columns}
    if any(p.raw for p in pages) and any(p.members for p in pages):
        for page in pages:  # deferred and typed pages together: type them all per page
            _typed_raw(page, names_fixed)
    sizes = [p.rows for p in pages]
    # One job per column; Arrow's concat and cast and numpy's copies release the GIL, so
    # columns join side by side (build of 1M events: see docs/performance.md). Each job
    # pops its column's page arrays, so they are released as soon as the column is built.
    jobs: list[tuple[str, Callable[[], Any]]] = []
    for col in schema.columns:
        arrow_type = _ARROW_TIME if col.dtype == TIME else _ARROW[id(col.dtype)]
        chunks = [p.fixed.pop(col.name) for p in pages]
        jobs.append((col.name, functools.partial(_fixed_column, chunks, arrow_type, col.enum)))
    for name in sorted({name for p in pages for name in p.members}):
        per_page = [p.members.pop(name, None) for p in pages]
        jobs.append((name, functools.partial(_join_member, per_page, sizes)))
    raw = functools.partial(_join_raw, pages, names_fixed)
    members: dict[str, Any] = {}
    if sum(sizes) < _PARALLEL_MIN_ROWS:
        results: Iterable[Any] = [job() for _, job in jobs]
        members.update(raw())
    else:
        with ThreadPoolExecutor(C.BUILD_THREADS, thread_name_prefix="opslib-build") as pool:
            deferred = pool.submit(raw)  # Python-bound: runs beside the Arrow jobs
            results = list(pool.map(lambda job: job(), [job for _, job in jobs]))
            members.update(deferred.result())
    jobs_done = dict(zip([name for name, _ in jobs], results, strict=True))
    jobs.clear()
    data: dict[str, Any] = {}
    for col in schema.columns:
        arr, labels = jobs_done.pop(col.name)
        data[col.name] = arr
        if col.enum is not None:
            data[col.label_name] = labels
    members.update(jobs_done)
    for name in sorted(members):
        data[name] = members.pop(name)
    return pd.DataFrame(data, index=pd.RangeIndex(sum(sizes)), copy=False)


def _fixed_column(
    chunks: list[pa.Array], arrow_type: pa.DataType, enum: type[IntEnum] | None
) -> tuple[Any, pd.Categorical | None]:
    """A fixed column's pages as one pandas array, and its labels when it has an enum."""
    arr = _to_pandas(chunks, arrow_type)
    chunks.clear()
    return arr, None if enum is None else label_array(arr, enum)


def records_to_frame(records: Sequence[dict[str, Any]], schema: FrameSchema) -> pd.DataFrame:
    """Convert records (one page, or one object) to the schema's typed frame.

    Parameters
    ----------
    records
        Decoded JSON objects as the platform sends them (nested objects included).
    schema
        The frame's declaration from :mod:`opslib.client._schemas`.

    Returns
    -------
    pandas.DataFrame
        Fixed columns typed and labelled, then the open objects' members.

    Examples
    --------
    >>> from opslib.client import _schemas
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


def join_order(pages: Sequence[PageColumns]) -> np.ndarray | None:
    """The pages' ``order`` milliseconds end to end, or None unless every page has them."""
    if not pages or any(p.order is None for p in pages):
        return None
    return np.concatenate([p.order for p in pages if p.order is not None])


def _strictly_ordered(order: np.ndarray, key: Any) -> bool:
    """Whether the rows strictly increase by (``order``, ``key``): then they are in the
    platform's order and no key is there twice (one pass, no hashing)."""
    if len(order) < 2:
        return True
    step = np.diff(order)
    if (step < 0).any():
        return False
    ties = np.flatnonzero(step == 0)
    if ties.size == 0:
        return True
    keys = pa.array(key)
    if keys.null_count:
        return False
    earlier, later = keys.take(ties), keys.take(ties + 1)
    return bool(pc.all(pc.less(earlier, later)).as_py())


def _restore_order(df: pd.DataFrame, order: np.ndarray, key: str, dedupe: bool) -> pd.DataFrame:
    """Drop repeated keys (the first seen wins), then sort stably by (``order``, ``key``)."""
    if dedupe:
        keep = ~df.duplicated(subset=[key], keep="first").to_numpy()
        df, order = df.loc[keep], order[keep]
    table = pa.table({"order": order, "key": pa.array(df[key].array)})
    positions = pc.sort_indices(table, sort_keys=[("order", "ascending"), ("key", "ascending")])
    return df.take(positions.to_numpy())


def finish(
    df: pd.DataFrame,
    schema: FrameSchema,
    *,
    dedupe: bool = True,
    order: np.ndarray | None = None,
) -> pd.DataFrame:
    """Drop duplicate keys (the first seen wins) and sort stably by the schema's order.

    ``order`` (from :func:`join_order`: each row's epoch milliseconds, which the platform
    sorts by before the key) makes both exact and cheap: rows strictly increasing by
    (order, key) are returned as they are, else they are sorted by (order, key), which
    also orders events within one second as the platform does.
    """
    if order is not None and len(schema.key) == 1 and len(order) == len(df):
        key = schema.key[0]
        if not _strictly_ordered(order, df[key].array):
            df = _restore_order(df, order, key, dedupe)
    else:
        if dedupe and schema.key and len(df) > 1 and _has_duplicates(df, schema.key):
            df = df.loc[~df.duplicated(subset=list(schema.key), keep="first").to_numpy()]
        if schema.order and not _is_sorted(df, schema.order):
            df = df.sort_values(list(schema.order), kind="stable", na_position="last")
    if not isinstance(df.index, pd.RangeIndex) or df.index.start != 0 or df.index.step != 1:
        df = df.reset_index(drop=True)
    return df
