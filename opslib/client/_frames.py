"""Records to typed DataFrames, per the declarations of :mod:`opslib.client._schemas`.

All record-to-frame conversion goes through here, in two steps built for bulk reads:

1. :func:`page_columns` turns one page of decoded records into typed pyarrow arrays, column
   by column, never a list of flattened dicts: the fixed columns
   (:mod:`~opslib.client._fixed_columns`; moments from :mod:`~opslib.client._moments`) and
   the properties (:mod:`~opslib.client._properties`). Pages are typed as they arrive, so
   only typed columns are kept.
2. :func:`build_frame` joins the pages' arrays column by column (strings stay Arrow memory,
   numbers become nullable ``Int64``/``Float64``/``boolean``, moments
   ``datetime64[ns, UTC]``) and adds the categorical ``*_name`` label beside each coded
   column, computed once on the joined codes.

Fixed columns come first, in the schema's order; properties follow as dotted columns
(nested objects flattened), sorted. An empty result has the fixed columns with their dtypes.
A read ends with :func:`~opslib.client._row_order.dedupe_and_sort`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from opslib.client import _constants as C
from opslib.client._arrow import ARROW_TIME, ARROW_TYPES
from opslib.client._fixed_columns import field_values, fixed_page_array, join_fixed_column
from opslib.client._moments import epoch_ms_of, seconds_from_ms
from opslib.client._properties import (
    PropertyChunk,
    PropertyValues,
    join_deferred_properties,
    join_property_chunks,
    page_property_values,
    property_lists,
    typed_property_chunks,
    untyped_values,
)
from opslib.client._schemas import TIME, FrameSchema
from opslib.protocol.times import DECODED, TimeCodec

__all__ = ["PageColumns", "build_frame", "join_order", "page_columns", "records_to_frame"]


_PARALLEL_MIN_ROWS = 50_000  # below: joined in the calling thread, where threads cost more


@dataclass
class PageColumns:
    """One page's columns: the fixed ones as Arrow arrays, the properties as typed chunks or
    as deferred values.

    ``order`` holds each row's moment in epoch milliseconds when the records carried it
    (a column's ``ms_field``): :func:`~opslib.client._row_order.dedupe_and_sort` uses it to
    check the platform's order exactly instead of hashing every key.
    """

    rows: int
    fixed: dict[str, pa.Array]
    properties: dict[str, PropertyChunk]
    order: np.ndarray | None = None
    deferred: dict[str, PropertyValues] = field(default_factory=dict)
    """Properties left untyped (``page_columns(..., defer=True)``): typed once for the whole
    read by :func:`build_frame` instead of once per page."""


def page_columns(
    records: Sequence[dict[str, Any]],
    schema: FrameSchema,
    *,
    defer: bool = False,
    times: TimeCodec = DECODED,
) -> PageColumns:
    """Convert one page of records to typed Arrow columns (step 1).

    Moments are read by ``times``: the platform's for a page as it came
    (:meth:`Codec.decode_answer <opslib.protocol.codec.Codec.decode_answer>` with
    ``moments="raw"``), else epoch milliseconds (a decoded answer). A moment column with
    an ``ms_field`` is built from the integer milliseconds when every record has them, and
    they are kept as the page's ``order``.
    ``defer`` leaves the properties as values (:class:`PropertyValues`), typed by
    :func:`build_frame` once for the whole read: a member is then one type inference over
    all its values instead of one per page over a mostly empty column (same frame).
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
    properties: dict[str, PropertyChunk] = {}
    deferred: dict[str, PropertyValues] = {}
    n = len(records)
    for prefix in schema.open_objects:
        objects = [r.get(prefix) for r in records]
        if defer:
            for key, member in page_property_values(objects).items():
                deferred[f"{prefix}.{key}"] = member
            continue
        for key, values in property_lists(objects, n).items():
            for name, chunk in typed_property_chunks(f"{prefix}.{key}", values):
                if name not in fixed:
                    properties[name] = chunk
    return PageColumns(n, fixed, properties, order, deferred)


def _type_deferred(page: PageColumns, fixed: Iterable[str]) -> None:
    """Type a page's deferred properties in place, as ``page_columns`` would have."""
    for name, member in page.deferred.items():
        for leaf, chunk in typed_property_chunks(name, untyped_values(member, page.rows)):
            if leaf not in fixed:
                page.properties[leaf] = chunk
    page.deferred = {}


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
        The frame's declaration from :mod:`opslib.client._schemas` (with the platform's
        labels, :meth:`FrameSchema.labelled <opslib.client._schemas.FrameSchema.labelled>`).
    times
        How the records' moments are written: epoch milliseconds (decoded), or the
        platform's own.

    Returns
    -------
    pandas.DataFrame
        Fixed columns typed and labelled, then the properties.

    Examples
    --------
    >>> from opslib.client import _schemas
    >>> df = records_to_frame([{"category_id": 1, "category_name": "Lighting"}], _schemas.CATEGORY)
    >>> str(df["category_id"].dtype)
    'Int64'
    """
    return build_frame([page_columns(records, schema, times=times)], schema)
