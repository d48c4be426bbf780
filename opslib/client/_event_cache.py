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
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pyarrow as pa

from opslib.client import _constants as C
from opslib.client._event_table import (
    RAW,
    Stored,
    frame_to_columns,
    from_table,
    slice_rows,
    to_table,
)
from opslib.client.frames.build import PageColumns, build_frame, dedupe_and_sort
from opslib.client.frames.properties import POOL
from opslib.client.frames.schema import EVENT, FrameSchema

__all__ = [
    "EventCache",
    "cache_dir",
    "read_cached",
    "windows",
]

log = logging.getLogger("opslib")

FORMAT = "v1"  # bump when the stored layout changes; old windows are then ignored
KEY_FILE = "key.json"
# lz4 without dictionary pages reads faster than the default snappy with them, for a few
# more bytes (docs/scaling.md).
_PARQUET: dict[str, Any] = {"compression": "lz4", "use_dictionary": False}
FetchFrame = Callable[[int, int], tuple[pd.DataFrame, list[str | None]]]
"""``fetch(start_ms, end_ms)`` → the uncached typed frame of ``[start_ms, end_ms)`` and each
row's raw ``properties`` as JSON text (see :class:`~opslib.client._event_table.RawProperties`)."""


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
            return from_table(table)
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

        table = to_table(stored)
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
        return None if stored is None else slice_rows(stored, lo, hi)

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
        return slice_rows(whole, lo, hi)

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
