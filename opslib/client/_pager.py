"""Every page of a paged read, as one typed frame or one frame per page.

The first page reveals ``total``. The remaining pages are read by the calling thread alone:
it keeps :data:`~opslib.client._constants.DEFAULT_CONCURRENCY` requests sent ahead and turns each
answer into typed Arrow columns while the platform works on the next ones, so only typed
columns are kept (1M events: 3.60-3.70 s with four threads each fetching and decoding,
2.63-2.77 s from one thread, same benchmark runs, docs/performance.md: the threads spent
most of the difference handing the GIL to each other). Where requests cannot be sent ahead
(httpx's own transport, behind a proxy), a small thread pool fetches and decodes them.
Every page carries the same filters; only ``page_no`` changes. Reading stops at the first
empty or short page. Offset paging over data that grows while it is read can show a record
twice; the assembled frame keeps the first and is sorted by the schema's order.
"""

from __future__ import annotations

import contextlib
import gc
import math
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import pandas as pd

from opslib.client import _constants as C
from opslib.client._frames import PageColumns, build_frame, finish, join_order, page_columns
from opslib.client._http import DECODE_LOCK
from opslib.client._schemas import FrameSchema

__all__ = ["PagedRead", "bulk_gc", "check_page_size"]

_gc_lock = threading.Lock()
_gc_reads = 0
_gc_saved: tuple[int, ...] = ()


@contextlib.contextmanager
def bulk_gc() -> Iterator[None]:
    """Run Python's cyclic garbage collector less often while a bulk read runs (re-entrant).

    Decoding a page makes about two thousand dicts, each tracked by the collector, so with
    the default threshold (700) it ran three passes a page over records that reference
    counting frees anyway a moment later: decoding a 1000-event page took 0.9 ms, 0.55 ms
    with the threshold at :data:`~opslib.client._constants.BULK_GC_THRESHOLD`. The collector is
    not turned off: httpx responses sit in reference cycles, and without passes every
    page's body (230 kB) would stay until the end. The previous thresholds come back when
    the last concurrent read ends.
    """
    global _gc_reads, _gc_saved
    with _gc_lock:
        if _gc_reads == 0:
            _gc_saved = gc.get_threshold()
            first, *rest = _gc_saved
            gc.set_threshold(max(first, C.BULK_GC_THRESHOLD), *rest)
        _gc_reads += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_reads -= 1
            if _gc_reads == 0:
                gc.set_threshold(*_gc_saved)


_T = TypeVar("_T")  # a page started: a request sent, or a fetch submitted
_G = TypeVar("_G")  # its answer

FetchPage = Callable[..., Any]
"""``fetch(page_no, page_size)`` → the decoded ``data`` of one page."""


class Sent(Protocol):
    """A page request already sent (:class:`opslib.client._http.SentRead`)."""

    def result(self) -> Any:
        """The page's decoded ``data`` (the regular call when the early one failed)."""

    def close(self) -> None:
        """Drop the answer unread."""


SendPage = Callable[[int, int], Sent]
"""``send(page_no, page_size)`` sends the page's request now and returns it; ``result()``
gives what ``fetch`` would have."""


def check_page_size(page_size: int) -> int:
    """Refuse a page size the platform would refuse (1..1000), naming the bounds."""
    if isinstance(page_size, bool) or not isinstance(page_size, int):
        raise TypeError(f"page_size must be an int, got {type(page_size).__name__}")
    if not 1 <= page_size <= C.MAX_PAGE_SIZE:
        raise ValueError(f"page_size must be between 1 and {C.MAX_PAGE_SIZE}, got {page_size}")
    return page_size


def _check_limit(limit: int | None) -> int | None:
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"limit must be a non-negative int or None, got {limit!r}")
    return limit


@dataclass
class _Page:
    page_no: int
    total: int
    rows: int
    columns: PageColumns

    def frame(self, schema: FrameSchema, page_size: int) -> pd.DataFrame:
        df = build_frame([self.columns], schema)
        df.attrs = {"page_no": self.page_no, "page_size": page_size, "total": self.total}
        return df


class PagedRead:
    """One paged read: the fetch function, what its list is called, and how to show it.

    Parameters
    ----------
    fetch
        Returns the decoded ``data`` of page ``page_no`` of ``page_size`` rows.
    list_key
        The list inside ``data`` (``device_list``, ``events_list``).
    schema
        The frame schema of one record.
    page_size, limit, progress
        As documented on the list methods.
    concurrency
        Pages fetched at once after the first; None: :data:`~opslib.client._constants.
        DEFAULT_CONCURRENCY`, read when the read is made (the benchmarks set it).
    desc
        The progress bar's label.
    send
        Sends a page's request ahead of reading its answer; pass it only where requests can
        be sent ahead (``HTTP.can_send_ahead``). Given, pages after the first are read by the
        calling thread alone.
    """

    def __init__(
        self,
        fetch: FetchPage,
        *,
        list_key: str,
        schema: FrameSchema,
        page_size: int = C.DEFAULT_PAGE_SIZE,
        limit: int | None = None,
        progress: bool | None = None,
        concurrency: int | None = None,
        desc: str = "",
        send: SendPage | None = None,
    ) -> None:
        self._fetch = fetch
        self._send = send
        self.list_key = list_key
        self.schema = schema
        self.limit = _check_limit(limit)
        size = check_page_size(page_size)
        self.page_size = min(size, self.limit) if self.limit else size
        self.progress = progress
        self.concurrency = max(
            1, int(C.DEFAULT_CONCURRENCY if concurrency is None else concurrency)
        )
        self.desc = desc

    def _page(self, page_no: int) -> _Page:
        return self._decoded(page_no, self._fetch(page_no, self.page_size))

    def _decoded(self, page_no: int, data: Any) -> _Page:
        records = data.get(self.list_key) or []
        # Typed here, in the worker thread, one thread at a time (DECODE_LOCK); the decoded
        # records are dropped on return.
        with DECODE_LOCK:
            columns = page_columns(records, self.schema, defer=True)
        return _Page(page_no, int(data.get("total") or 0), len(records), columns)

    def _bar(self, pages: int) -> Any:
        show = self.progress if self.progress is not None else pages > C.PROGRESS_MIN_PAGES
        if not show:
            return None
        from tqdm.auto import tqdm

        return tqdm(
            total=pages, initial=1, unit="page", desc=self.desc or self.list_key, leave=False
        )

    def _wanted(self, total: int) -> int:
        return total if self.limit is None else min(total, self.limit)

    def frame(self) -> pd.DataFrame:
        """Every page (up to ``limit`` rows) as one typed, de-duplicated, sorted frame."""
        if self.limit == 0:
            return self.schema.empty()
        with bulk_gc():
            first = self._page(1)
            columns = [first.columns]
            pages = math.ceil(self._wanted(first.total) / self.page_size)
            if first.rows == self.page_size and pages > 1:
                columns += self._rest(pages)
            order = join_order(columns)
            df = build_frame(columns, self.schema)
            del columns
            df = finish(df, self.schema, order=order)
        if self.limit is not None and len(df) > self.limit:
            df = df.iloc[: self.limit].reset_index(drop=True)
        df.attrs = {"total": first.total}
        return df

    def _rest(self, pages: int) -> list[PageColumns]:
        """Pages 2..pages in page order; stop after a short one."""
        if self._send is not None and C.SEND_AHEAD:
            send = self._send
            # One slot stays free for the regular call of a page whose early attempt failed.
            ahead = min(self.concurrency, C.DEFAULT_MAX_CONNECTIONS - 1)
            return self._in_order(
                pages,
                ahead,
                start=lambda n: (n, send(n, self.page_size)),
                wait=lambda sent: (sent[0], sent[1].result()),
                decode=lambda got: self._decoded(*got),
                drop=lambda sent: sent[1].close(),
            )
        workers = min(self.concurrency, pages - 1)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="opslib-page") as pool:
            # Each worker fetches and decodes its page. At most two pages a worker are queued
            # ahead of the one awaited, so a short page stops the read after a few more
            # requests, not after every page was asked for.
            return self._in_order(
                pages,
                2 * workers,
                start=lambda n: pool.submit(self._page, n),
                wait=lambda future: future.result(),
                decode=lambda page: page,
                drop=lambda future: future.cancel(),
            )

    def _in_order(
        self,
        pages: int,
        ahead: int,
        *,
        start: Callable[[int], _T],
        wait: Callable[[_T], _G],
        decode: Callable[[_G], _Page],
        drop: Callable[[_T], object],
    ) -> list[PageColumns]:
        """Pages 2..pages in page order, ``ahead`` of them started before the one awaited.

        ``start(page_no)`` starts a page (sends its request, or submits its fetch), ``wait``
        takes the oldest one's answer, ``decode`` types it; the next page is started between
        the two, so the platform works while this one is decoded. Pages still started when
        the read stops (a short page, an error) are dropped.
        """
        bar = self._bar(pages)
        out: list[PageColumns] = []
        started: deque[_T] = deque()
        next_no = 2
        try:
            while True:
                while next_no <= pages and len(started) < ahead:
                    started.append(start(next_no))
                    next_no += 1
                if not started:
                    break
                answer = wait(started.popleft())
                if next_no <= pages:  # keep the platform busy while this page is decoded
                    started.append(start(next_no))
                    next_no += 1
                page = decode(answer)
                if page.rows:
                    out.append(page.columns)
                if bar is not None:
                    bar.update(1)
                if page.rows < self.page_size:
                    break  # the data shrank while we read: later pages are empty
        finally:
            for item in started:
                drop(item)
            if bar is not None:
                bar.close()
        return out

    def pages(self, page_no: int = 1) -> Iterator[pd.DataFrame]:
        """One typed frame per page, from ``page_no`` on, sequentially.

        While the caller works on a page, the next one is already asked for (when requests
        can be sent ahead); stopping early drops it. Each frame's ``attrs`` holds
        ``page_no``, ``page_size`` and ``total``: enough to resume later with
        ``page_no=attrs["page_no"] + 1``. Duplicates across pages are not removed here (that
        would need every key in memory).
        """
        if isinstance(page_no, bool) or not isinstance(page_no, int) or page_no < 1:
            raise ValueError(f"page_no must be an int >= 1, got {page_no!r}")
        if self.limit == 0:
            return
        seen = 0
        bar = None
        sent: Sent | None = None  # the next page, requested while the caller has this one
        ahead = self._send is not None and C.SEND_AHEAD
        try:
            while True:
                if sent is not None:
                    request, sent = sent, None
                    page = self._decoded(page_no, request.result())
                else:
                    page = self._page(page_no)
                frame = page.frame(self.schema, self.page_size)
                if self.limit is not None and seen + len(frame) > self.limit:
                    frame = frame.iloc[: self.limit - seen]
                if bar is None and page_no == 1:
                    bar = self._bar(math.ceil(self._wanted(page.total) / self.page_size))
                elif bar is not None:
                    bar.update(1)
                seen += len(frame) if page.rows else 0
                done = page_no * self.page_size >= page.total
                last = (
                    page.rows < self.page_size
                    or done
                    or (self.limit is not None and seen >= self.limit)
                )
                if not last and ahead:
                    assert self._send is not None
                    sent = self._send(page_no + 1, self.page_size)
                if page.rows:
                    yield frame
                if last:
                    return
                page_no += 1
        finally:
            if sent is not None:  # the caller stopped early: drop the page asked for
                sent.close()
            if bar is not None:
                bar.close()
