"""A local cache of event records: closed time windows, fetched once, kept as Parquet.

``client.events.list(..., cache=True)`` cuts ``[start, end)`` into windows aligned to
:data:`~opslib.client._constants.CACHE_WINDOW_MS` (whole UTC days). A window whose end is older
than now minus :data:`~opslib.client._constants.CACHE_CLOSED_MARGIN_MS` is *closed*: it is read
from the cache, or fetched whole from the platform and stored. The still-open part of the
range is always fetched. A closed window the range only overlaps is still fetched whole, so
that tomorrow's ``"-30d"`` finds it; the rows outside the range are cut off on read.

Layout (``OPSLIB_CACHE_DIR`` replaces ``<user cache dir>/opslib/events``)::

    events/v1/<digest>/key.json                  base_url, caller, query, window size
    events/v1/<digest>/<start_ms>-<end_ms>.parquet

The digest is a hash of everything that changes the answer: the platform (base_url), the
caller (user_id: two users see different events), the query (query_model, device_id or
user_id_param, event_type) and the window size. A window is never served to another.

Equal to an uncached read, dtypes included. A window is stored as the typed Arrow columns
an uncached read of it builds, and a cached read joins windows exactly as an uncached read
joins pages (:func:`opslib.client.frames.build.build_frame`): ``properties.*`` members absent
from some
windows, or ints in one and floats in another, come out as they would uncached. Members of
mixed Python objects are stored as JSON text. Each row's raw ``properties`` object is kept
too: a window the range only partly covers is cut, and its property columns are rebuilt
from the kept rows' raw objects, as a page of those rows would build them. Uncached reads
themselves depend on page boundaries in one corner (a member that is a number on one page
and text on another is an ``object`` column whose numbers follow their page's type); a
cached read has the same corner at window boundaries.

Writes go to a temporary file in the same directory, then ``os.replace``: a crash leaves no
half window. Late reports: an event reported more than the margin after its window closed
is not in a window cached before it arrived; ``opslib cache clear`` drops windows.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa

from opslib.client import _constants as C
from opslib.client.frames.build import PageColumns, build_frame, dedupe_and_sort, page_columns
from opslib.client.frames.properties import POOL
from opslib.client.frames.schema import BOOL, EVENT, FLOAT, INT, STRING, TIME, FrameSchema

__all__ = [
    "EventCache",
    "RawProperties",
    "Stored",
    "cache_dir",
    "frame_to_columns",
    "read_cached",
    "windows",
]

log = logging.getLogger("opslib")

FORMAT = "v1"  # bump when the stored layout changes; old windows are then ignored
KEY_FILE = "key.json"
_JSON_COLUMNS = b"opslib.json_columns"  # schema metadata: members stored as JSON text
RAW = "__properties__"  # each row's raw properties object, JSON text
# lz4 without dictionary pages reads faster than the default snappy with them, for a few
# more bytes (docs/scaling.md).
_PARQUET: dict[str, Any] = {"compression": "lz4", "use_dictionary": False}
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

FetchFrame = Callable[[int, int], tuple[pd.DataFrame, list[str | None]]]
"""``fetch(start_ms, end_ms)`` → the uncached typed frame of ``[start_ms, end_ms)`` and each
row's raw ``properties`` as JSON text (see :class:`RawProperties`)."""


def cache_dir() -> Path:
    """The event cache: ``OPSLIB_CACHE_DIR``, else ``<user cache dir>/opslib/events``.

    Examples
    --------
    >>> cache_dir().name  # doctest: +SKIP
    'events'
    """
    explicit = os.environ.get(C.CACHE_DIR_ENV)
    if explicit:
        return Path(explicit).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir(C.APP_NAME)) / "events"


def windows(start_ms: int, end_ms: int, size_ms: int) -> list[tuple[int, int]]:
    """The windows of ``size_ms`` (aligned to the epoch, so UTC days) that ``[start, end)``
    touches, each whole.

    Examples
    --------
    >>> day = 86_400_000
    >>> windows(day + 5, 3 * day, day) == [(day, 2 * day), (2 * day, 3 * day)]
    True
    """
    first = start_ms - start_ms % size_ms
    return [(w, w + size_ms) for w in range(first, end_ms, size_ms)]


# -- frames <-> stored columns -----------------------------------------------------------


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


def _to_table(stored: Stored) -> pa.Table:
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


def _from_table(table: pa.Table, schema: FrameSchema = EVENT) -> Stored:
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


def _slice(stored: Stored, lo_ms: int, hi_ms: int) -> PageColumns:
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


# -- the store ---------------------------------------------------------------------------


def _atomic_write(path: Path, write: Callable[[Path], object]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


class EventCache:
    """The cached windows of one (platform, caller, query, window size).

    Parameters
    ----------
    base_url
        The platform.
    caller
        The logged-in user's id: different users see different events.
    query
        The query params without the time range and page (``query_model``, ``device_id``
        or ``user_id_param``, ``event_type``).
    window_ms
        The window size.
    root
        The cache directory (default :func:`cache_dir`).

    Examples
    --------
    >>> cache = EventCache("http://127.0.0.1:8000", "u-1", {"query_model": 3})
    >>> cache.key["caller"]
    'u-1'
    """

    def __init__(
        self,
        base_url: str,
        caller: str,
        query: Mapping[str, Any],
        *,
        window_ms: int = C.CACHE_WINDOW_MS,
        root: Path | None = None,
    ) -> None:
        self.key = {
            "base_url": base_url.rstrip("/"),
            "caller": caller,
            "query": dict(sorted(query.items())),
            "window_ms": window_ms,
        }
        digest = hashlib.sha256(orjson.dumps(self.key, option=orjson.OPT_SORT_KEYS)).hexdigest()
        self.dir = (root or cache_dir()) / FORMAT / digest[:32]
        self.window_ms = window_ms

    def path(self, window: tuple[int, int]) -> Path:
        return self.dir / f"{window[0]}-{window[1]}.parquet"

    def load(self, window: tuple[int, int], *, raw: bool = False) -> Stored | None:
        """The stored window (with the rows' raw properties if ``raw``), or None when it is
        missing or unreadable (then removed)."""
        import pyarrow.dataset as ds
        from pyarrow import fs

        path = self.path(window)
        try:
            # Files are replaced, never rewritten: mapped, not read. The columns come from
            # the allocator the frame is built in (frames.properties.POOL), not pyarrow's
            # default (mimalloc), as the pages' do (docs/scaling.md).
            mapped = fs.LocalFileSystem(use_mmap=True)
            window_file = ds.dataset(path, format="parquet", filesystem=mapped)
            names = [n for n in window_file.schema.names if raw or n != RAW]
            table = window_file.to_table(columns=names, memory_pool=POOL, use_threads=False)
            return _from_table(table)
        except FileNotFoundError:
            return None
        except (OSError, pa.ArrowException, KeyError, ValueError, orjson.JSONDecodeError) as exc:
            log.warning("dropping an unreadable cached window %s: %s", path.name, exc)
            with contextlib.suppress(OSError):
                path.unlink()
            return None

    def store(self, window: tuple[int, int], stored: Stored) -> None:
        """Write a window atomically; a failure to write is logged, never raised."""
        import pyarrow.parquet as pq

        table = _to_table(stored)
        try:
            self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            key_path = self.dir / KEY_FILE
            if not key_path.exists():
                doc = orjson.dumps(self.key, option=orjson.OPT_INDENT_2)
                _atomic_write(key_path, lambda p: p.write_bytes(doc))
            _atomic_write(self.path(window), lambda p: pq.write_table(table, p, **_PARQUET))
        except OSError as exc:
            log.warning("could not cache the window %s: %s", self.path(window).name, exc)


# -- the cached read ---------------------------------------------------------------------


def _ceil_s(ms: int) -> int:
    return -(-ms // 1000) * 1000


def _plan(
    start_ms: int, end_ms: int, cutoff_ms: int, window_ms: int
) -> list[tuple[str, int, int, tuple[int, int] | None]]:
    """The pieces of ``[start, end)`` in time order: ``("window", lo, hi, window)`` read
    from a closed window (cut to ``[lo, hi)``, whole seconds) or ``("direct", lo, hi, None)``
    fetched from the platform."""
    pieces: list[tuple[str, int, int, tuple[int, int] | None]] = []

    def direct(lo: int, hi: int) -> None:
        if lo >= hi:
            return
        if pieces and pieces[-1][0] == "direct" and pieces[-1][2] == lo:
            lo = pieces.pop()[1]
        pieces.append(("direct", lo, hi, None))

    for window in windows(start_ms, end_ms, window_ms):
        lo, hi = max(window[0], start_ms), min(window[1], end_ms)
        if window[1] > cutoff_ms:
            direct(lo, hi)
            continue
        # gmt_create is shown to the second (truncated), so a cached window can be cut
        # exactly only at whole seconds; the sub-second slivers come from the platform.
        inner_lo, inner_hi = _ceil_s(lo), hi - hi % 1000
        if inner_lo >= inner_hi:
            direct(lo, hi)
            continue
        direct(lo, inner_lo)
        pieces.append(("window", inner_lo, inner_hi, window))
        direct(inner_hi, hi)
    return pieces


def read_cached(
    fetch: FetchFrame,
    cache: EventCache,
    start_ms: int,
    end_ms: int,
    *,
    now_ms: int | None = None,
    margin_ms: int = C.CACHE_CLOSED_MARGIN_MS,
    concurrency: int = C.CACHE_FETCH_CONCURRENCY,
    progress: bool | None = None,
    schema: FrameSchema = EVENT,
) -> pd.DataFrame:
    """``[start, end)`` from the cached closed windows, fetching the missing and open parts.

    Parameters
    ----------
    fetch
        The uncached read of a range (``fetch(start_ms, end_ms)`` → typed frame).
    cache
        Where the windows of this query are kept.
    start_ms, end_ms
        The range, epoch milliseconds.
    now_ms
        The present (default: the clock), which decides which windows are closed.
    margin_ms
        A window is closed when its end is at least this long ago.
    concurrency
        Missing parts fetched at once.
    progress
        A progress bar over the parts to fetch; None: when more than a few are missing.
    schema
        The frame's schema with the platform's labels.

    Returns
    -------
    pandas.DataFrame
        Equal to ``fetch(start_ms, end_ms)``, dtypes included.

    Examples
    --------
    >>> df = read_cached(fetch, EventCache(url, user, query), start, end)  # doctest: +SKIP
    """
    now = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    pieces = _plan(start_ms, end_ms, now - margin_ms, cache.window_ms)

    def cached(piece: tuple[str, int, int, tuple[int, int] | None]) -> PageColumns | None:
        kind, lo, hi, window = piece
        if kind != "window":
            return None
        assert window is not None
        stored = cache.load(window, raw=(lo, hi) != window)
        return None if stored is None else _slice(stored, lo, hi)

    # Parquet decoding releases the GIL: windows load side by side.
    with ThreadPoolExecutor(C.CACHE_READ_THREADS, thread_name_prefix="opslib-cache") as pool:
        parts = list(pool.map(cached, pieces))
    todo = [i for i, part in enumerate(parts) if part is None]

    def get(i: int) -> PageColumns:
        kind, lo, hi, window = pieces[i]
        if kind == "direct":
            return frame_to_columns(fetch(lo, hi)[0])
        assert window is not None
        df, raw = fetch(*window)
        whole = Stored(frame_to_columns(df), raw)
        cache.store(window, whole)
        return _slice(whole, lo, hi)

    if todo:
        log.debug("event cache: %d of %d parts to fetch", len(todo), len(pieces))
        for i, cols in zip(todo, _run(get, todo, concurrency, progress), strict=True):
            parts[i] = cols
    pages = [p for p in parts if p is not None]
    # Parts are disjoint in time and each was de-duplicated when it was read; an event has
    # one gmt_create, so no key repeats across parts and none is looked for.
    df = dedupe_and_sort(build_frame(pages, schema), schema, dedupe=False)
    df.attrs = {"total": len(df)}
    return df


def _run(
    get: Callable[[int], PageColumns], todo: list[int], concurrency: int, progress: bool | None
) -> Iterator[PageColumns]:
    show = progress if progress is not None else len(todo) > C.PROGRESS_MIN_PAGES
    bar = None
    if show:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), unit="window", desc="events", leave=False)
    workers = max(1, min(concurrency, len(todo)))
    try:
        with ThreadPoolExecutor(workers, thread_name_prefix="opslib-cache") as pool:
            for cols in pool.map(get, todo):
                if bar is not None:
                    bar.update(1)
                yield cols
    finally:
        if bar is not None:
            bar.close()
