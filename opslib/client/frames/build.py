"""Records to typed DataFrames, per the declarations of :mod:`opslib.client.frames.schema`.

Every record-to-frame conversion goes through here, in three steps built for bulk reads:

1. :func:`page_columns` turns one page of decoded records into typed pyarrow arrays, column
   by column, never a list of flattened dicts: each fixed column (moments from their epoch
   milliseconds where the records carry them, else :mod:`~opslib.client.frames.moments`),
   and the open objects' members kept as values
   (:func:`~opslib.client.frames.properties.page_property_values`). Pages are typed as
   they arrive, so only typed columns are kept.
2. :func:`build_frame` joins the pages' arrays column by column (strings stay Arrow memory,
   numbers become nullable ``Int64``/``Float64``/``boolean``, moments
   ``datetime64[ns, UTC]``), types each member once for the whole read, and adds the
   categorical ``*_name`` label beside each coded column, computed once on the joined codes.
3. :func:`dedupe_and_sort`: the rows in the platform's order, each record once. Pages
   arrive in order, so a read usually only checks that it is (one pass, no hashing).

Fixed columns come first, in the schema's order; properties follow as dotted columns
(nested objects flattened), sorted. An empty result has the fixed columns with their dtypes.
A read's frame then loses its secret columns (:func:`drop_secrets`) unless asked for.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from opslib.client import _constants as C
from opslib.client.frames.moments import LAST_MS, moments_array, out_of_range
from opslib.client.frames.properties import (
    ARROW_TIME,
    ARROW_TYPES,
    POOL,
    PropertyChunk,
    PropertyValues,
    arrays_to_pandas,
    join_deferred_properties,
    join_property_chunks,
    page_property_values,
    typed_property_chunks,
    untyped_values,
)
from opslib.client.frames.schema import INT, STRING, TIME, FrameSchema, label_dtype
from opslib.protocol.times import DECODED, TimeCodec

__all__ = [
    "PageColumns",
    "build_frame",
    "dedupe_and_sort",
    "drop_secrets",
    "join_order",
    "label_array",
    "moment_span",
    "page_columns",
    "records_to_frame",
    "secret_columns",
]

_PARALLEL_MIN_ROWS = 50_000  # below: joined in the calling thread, where threads cost more


@dataclass
class PageColumns:
    """One page's columns: the fixed ones as Arrow arrays, the properties as typed chunks or
    as deferred values.

    ``order`` holds each row's moment in epoch milliseconds when the records carried it
    (a column's ``ms_field``): :func:`dedupe_and_sort` uses it to
    check the platform's order exactly instead of hashing every key.
    """

    rows: int
    fixed: dict[str, pa.Array]
    properties: dict[str, PropertyChunk]
    order: np.ndarray | None = None
    deferred: dict[str, PropertyValues] = field(default_factory=dict)
    """The open objects' members as values (:func:`page_columns`): typed once for the whole
    read by :func:`build_frame`. ``properties`` holds typed chunks instead (a cached
    window's, read back from Parquet)."""


def page_columns(
    records: Sequence[dict[str, Any]], schema: FrameSchema, *, times: TimeCodec = DECODED
) -> PageColumns:
    """Convert one page of records to typed Arrow columns (step 1).

    Moments are read by ``times``: the platform's for a page as it came
    (:meth:`Codec.decode_answer <opslib.protocol.codec.Codec.decode_answer>` with
    ``moments="raw"``), else epoch milliseconds (a decoded answer). A moment column with
    an ``ms_field`` is built from the integer milliseconds when every record has them, and
    they are kept as the page's ``order``.
    The open objects' members stay values (:class:`PropertyValues`), typed by
    :func:`build_frame` once for the whole read.
    """
    fixed: dict[str, pa.Array] = {}
    order = None
    for c in schema.columns:
        ms = epoch_ms_of(records, c.ms_field) if c.ms_field and records else None
        if ms is not None:
            fixed[c.name] = seconds_from_ms(ms, c.name)
            order = ms if order is None else order
        else:
            fixed[c.name] = fixed_page_array(field_values(records, c.name), c.dtype, c.name, times)
    deferred: dict[str, PropertyValues] = {}
    for prefix in schema.open_objects:
        objects = [r.get(prefix) for r in records]
        for key, member in page_property_values(objects).items():
            deferred[f"{prefix}.{key}"] = member
    return PageColumns(len(records), fixed, {}, order, deferred)


def _type_deferred(page: PageColumns, fixed: Iterable[str]) -> None:
    """Type a page's deferred properties in place, as ``page_columns`` would have."""
    for name, member in page.deferred.items():
        for leaf, chunk in typed_property_chunks(name, untyped_values(member, page.rows)):
            if leaf not in fixed:
                page.properties[leaf] = chunk
    page.deferred = {}


def moment_span(page: PageColumns, name: str) -> tuple[int, int] | None:
    """The earliest and latest of a page's moment column ``name``, in epoch ms (None: no
    such column, or no moment on the page)."""
    moments = page.fixed.get(name)
    if moments is None or moments.null_count == len(moments):
        return None
    ns = moments.view(pa.int64())
    if ns.null_count:
        low, high = (v.as_py() for v in pc.min_max(ns).values())
    else:  # the usual page: numpy's min and max of the buffer as it is
        values = ns.to_numpy()
        low, high = int(values.min()), int(values.max())
    return low // 1_000_000, high // 1_000_000


def join_order(pages: Sequence[PageColumns]) -> np.ndarray | None:
    """The pages' ``order`` milliseconds end to end, or None unless every page has them."""
    if not pages or any(p.order is None for p in pages):
        return None
    return np.concatenate([p.order for p in pages if p.order is not None])


def build_frame(pages: Sequence[PageColumns], schema: FrameSchema) -> pd.DataFrame:
    """Join pages' columns into one typed frame (step 2); no pages → the empty schema.

    The pages are consumed: each column's page arrays are released as soon as the column
    is built, so a large read peaks at about one copy of the data, not two.
    """
    if not pages:
        return schema.empty()
    names_fixed = {c.name for c in schema.columns}
    if any(p.deferred for p in pages) and any(p.properties for p in pages):
        for page in pages:  # deferred and typed pages together: type them all per page
            _type_deferred(page, names_fixed)
    sizes = [p.rows for p in pages]
    # One job per column; Arrow's concat and cast and numpy's copies release the GIL, so
    # columns join side by side. Each job
    # pops its column's page arrays, so they are released as soon as the column is built.
    jobs: list[tuple[str, Callable[[], Any]]] = []
    for col in schema.columns:
        arrow_type = ARROW_TIME if col.dtype == TIME else ARROW_TYPES[id(col.dtype)]
        chunks = [p.fixed.pop(col.name) for p in pages]
        labels = col.label_map if col.enum is not None else None
        jobs.append((col.name, functools.partial(join_fixed_column, chunks, arrow_type, labels)))
    for name in sorted({name for p in pages for name in p.properties}):
        per_page = [p.properties.pop(name, None) for p in pages]
        jobs.append((name, functools.partial(join_property_chunks, per_page, sizes)))
    deferred = [p.deferred for p in pages]
    type_deferred = functools.partial(join_deferred_properties, deferred, sizes, names_fixed)
    properties: dict[str, Any] = {}
    if sum(sizes) < _PARALLEL_MIN_ROWS:
        results: Iterable[Any] = [job() for _, job in jobs]
        properties.update(type_deferred())
    else:
        with ThreadPoolExecutor(C.BUILD_THREADS, thread_name_prefix="opslib-build") as pool:
            typed_later = pool.submit(type_deferred)  # Python-bound: beside the Arrow jobs
            results = list(pool.map(lambda job: job(), [job for _, job in jobs]))
            properties.update(typed_later.result())
    jobs_done = dict(zip([name for name, _ in jobs], results, strict=True))
    jobs.clear()
    data: dict[str, Any] = {}
    for col in schema.columns:
        arr, labels = jobs_done.pop(col.name)
        data[col.name] = arr
        if col.enum is not None:
            data[col.label_name] = labels
    properties.update(jobs_done)
    for name in sorted(properties):
        data[name] = properties.pop(name)
    return pd.DataFrame(data, index=pd.RangeIndex(sum(sizes)), copy=False)


def records_to_frame(
    records: Sequence[dict[str, Any]], schema: FrameSchema, *, times: TimeCodec = DECODED
) -> pd.DataFrame:
    """Convert records (one page, or one object) to the schema's typed frame.

    Parameters
    ----------
    records
        Decoded JSON objects (nested objects included).
    schema
        The frame's declaration from :mod:`opslib.client.frames.schema` (with the
        platform's labels, :meth:`FrameSchema.labelled
        <opslib.client.frames.schema.FrameSchema.labelled>`).
    times
        How the records' moments are written: epoch milliseconds (decoded), or the
        platform's own.

    Returns
    -------
    pandas.DataFrame
        Fixed columns typed and labelled, then the properties.

    Examples
    --------
    >>> from opslib.client.frames import schema
    >>> df = records_to_frame([{"category_id": 1, "category_name": "Lighting"}], schema.CATEGORY)
    >>> str(df["category_id"].dtype)
    'Int64'
    """
    return build_frame([page_columns(records, schema, times=times)], schema)


# -- fixed columns ---------------------------------------------------------------------


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


def epoch_ms_of(records: Sequence[dict[str, Any]], field: str) -> np.ndarray | None:
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
    ms: np.ndarray = arr.to_numpy()
    return ms


def seconds_from_ms(ms: np.ndarray, field: str = "ts") -> pa.Array:
    """Epoch ms → timestamp[ns, UTC] truncated to the second (as gmt_create shows it).

    Raises
    ------
    ValueError
        A moment before 1970 or after 2262, naming ``field`` and the milliseconds.
    """
    if len(ms) and (ms.min() < 0 or ms.max() > LAST_MS):
        value = int(ms[(ms < 0) | (ms > LAST_MS)][0])
        raise out_of_range(field, f"{value} ms")
    ns = (ms // 1000) * 1_000_000_000
    return pa.array(ns, type=pa.int64()).view(ARROW_TIME)


# -- the rows in the platform's order, each once ------------------------------------------


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
        return not df[key[0]].is_unique  # cheaper than duplicated()
    return bool(df.duplicated(subset=list(key)).any())


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


def dedupe_and_sort(
    df: pd.DataFrame,
    schema: FrameSchema,
    *,
    dedupe: bool = True,
    order: np.ndarray | None = None,
    by: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Drop duplicate keys (the first seen wins) and sort stably by ``by`` (default: the
    schema's order).

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
        by = schema.order if by is None else by
        if by and not _is_sorted(df, by):
            df = df.sort_values(list(by), kind="stable", na_position="last")
    if not isinstance(df.index, pd.RangeIndex) or df.index.start != 0 or df.index.step != 1:
        df = df.reset_index(drop=True)
    return df


def secret_columns(columns: Iterable[str], secrets: Iterable[str]) -> list[str]:
    """The columns named by a secret: ``device_secret`` or ``properties.device_secret``."""
    names = frozenset(secrets)
    return [c for c in columns if c in names or c.rsplit(".", 1)[-1] in names]


def drop_secrets(frame: pd.DataFrame, secrets: Iterable[str]) -> pd.DataFrame:
    """``frame`` without its secret columns (the same object when it has none)."""
    found = secret_columns(frame.columns, secrets)
    return frame.drop(columns=found) if found else frame
