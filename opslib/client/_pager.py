"""A paged read: every page, N requests in flight, handed back typed and in page order.

:class:`Pager` holds the session, the operation and its params, and reads in one loop:

1. the calling thread fetches the first page (:meth:`Pager.fetch`: the session's call,
   with its retries, token refresh and errors), which reveals ``total``;
2. a pool of threads fetches the next pages, as many at once as :class:`InFlight` says (up
   to ``concurrency``), each parsed and typed in one turn (:class:`~opslib.client._http.Decoding`;
   pages under ``TYPING_BATCH_ROWS`` rows typed by :meth:`Pager.frame`, that many at once);
3. the calling thread takes the pages in page order and checks each; :meth:`Pager.frame`
   joins them, :meth:`Pager.pages` yields one frame a page.

Reading goes on to the last page the first page's ``total`` says (or the limit); where
``total`` counts pages the last page starts with the second, to count its rows; a page cap
below the size asked is followed (:meth:`Pager._follow_cap`).

The invariant (:mod:`opslib.protocol.reads`, every check there): a read returns every row
the platform says exists, each once, or raises :class:`~opslib.IncompleteRead`; a page
that is not one raises :class:`~opslib.ProtocolError`. :meth:`Pager.frame` counts the rows
after dropping duplicates, :meth:`Pager.pages` counts each record's key once (hashed).
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from opslib.client import _constants as C
from opslib.client._http import DECODING, Safety
from opslib.client._session import Session, check_flag, check_limit, check_page_size
from opslib.client.frames.build import (
    PageColumns,
    build_frame,
    dedupe_and_sort,
    join_order,
    moment_span,
    page_columns,
)
from opslib.client.frames.schema import FrameSchema
from opslib.dialects import Paging
from opslib.exceptions import IncompleteRead, PermissionDenied
from opslib.protocol import reads
from opslib.protocol.operations import Operation

__all__ = ["InFlight", "Pager"]


@dataclass
class _Page:
    page_no: int
    total: int  # as the page says it (records, or pages: Paging.total)
    rows: int
    columns: PageColumns | None  # None: ``records`` are typed with the next pages' (frame)
    keys: np.ndarray | None = None  # its records' hashed keys, where the read counts them
    records: list[dict[str, Any]] | None = None


class Pager:
    """One paged read of ``op`` with ``params`` through ``session``: its pages, the checks
    on them, and the frame they make.

    Parameters
    ----------
    session
        Every page is read through it; its codec gives the paging and the moments, its
        ``concurrency`` the most pages in flight.
    op, params, schema
        A paged operation of :mod:`opslib.protocol.operations`, its params but
        ``page_no`` and ``page_size``, and the frame schema of one record.
    page_size, limit, progress, desc
        As documented on the list methods; ``desc`` labels the progress bar.
    on_data
        Sees each page's ``data`` before it is typed (the event cache's raw properties).
    own
        A fleet read by a caller not yet known to may read the fleet: where the first page
        (:meth:`_fetch_first`) says no, these params (the caller's devices') are read.
    concurrency, paging
        Where they differ from the session's (tests).
    """

    def __init__(
        self,
        session: Session,
        op: Operation,
        params: dict[str, Any],
        *,
        schema: FrameSchema,
        page_size: int = C.DEFAULT_PAGE_SIZE,
        limit: int | None = None,
        progress: bool | None = None,
        desc: str = "",
        on_data: Callable[[dict[str, Any]], None] | None = None,
        own: dict[str, Any] | None = None,
        concurrency: int | None = None,
        paging: Paging | None = None,
    ) -> None:
        assert op.paged is not None
        self.session = session
        self.op = op
        self.params = params
        self.own = own
        self.times = session.codec.times
        self.paging = paging if paging is not None else session.codec.paging
        self.concurrency = max(1, concurrency or session.concurrency)
        self.operation = op.path
        self.list_key = op.paged.list_key
        ranged = op.window and all(name in params for name in op.window)
        self.time_field = op.paged.time_field if ranged else ""  # its records lie in the range
        self.schema = schema
        self.limit = check_limit(limit)
        size = min(check_page_size(page_size), self.paging.max_page_size)
        self.page_size = min(size, self.limit) if self.limit else size
        self.progress = check_flag("progress", progress, optional=True)
        self.desc = desc
        self._on_data = on_data
        self._tally = reads.Tally()
        self._key = reads.key_fields(self.operation, self.list_key, schema.key)
        self._keys: reads.Keys | None = None  # each record's key, where pages() counts them
        self._ahead: tuple[int, Future[_Page]] | None = None  # started ahead of its turn
        self._answered = threading.Semaphore(0)  # released as each page started is answered
        self._in_flight = 0  # pages started, less the answers the reading thread has counted

    def frame(self) -> pd.DataFrame:
        """Every page (up to ``limit`` rows) as one typed, de-duplicated, sorted frame."""
        if self.limit == 0:
            return self.schema.empty()
        columns: list[PageColumns] = []
        held: list[dict[str, Any]] = []  # small pages' records, typed together
        for page in self._pages(1):  # the first page typed alone, the rest alike
            if page.columns is not None and (page.rows or page.page_no == 1):
                columns.append(page.columns)
            held += page.records or ()
            if len(held) >= C.TYPING_BATCH_ROWS:
                columns.append(self._typed(held)[0])
                held = []
        if held:
            columns.append(self._typed(held)[0])
        order = join_order(columns)
        df = build_frame(columns, self.schema)
        del columns
        df = dedupe_and_sort(df, self.schema, order=order)
        duplicates = self._tally.rows - len(df)
        total = self._tally.check(self.operation, len(df), limit=self.limit, duplicates=duplicates)
        if self.limit is not None and len(df) > self.limit:
            df = df.iloc[: self.limit].reset_index(drop=True)
        df.attrs = {"total": total}
        return df

    def pages(self, page_no: int = 1) -> Iterator[pd.DataFrame]:
        """One typed frame per page, from ``page_no`` on, in page order (``attrs``:
        ``page_no``, ``page_size``, ``total``); stopping early drops the pages in flight.
        Rows repeating an earlier page's record stay, but each record's key is counted once
        (hashed): a page of repeats raises at once, a count unlike the total at the end."""
        if isinstance(page_no, bool) or not isinstance(page_no, int) or page_no < 1:
            raise ValueError(f"page_no must be an int >= 1, got {page_no!r}")
        if self.limit == 0:
            return
        keys = self._keys = reads.Keys(self.operation, self._key)
        seen = 0
        for page in self._pages(page_no):
            assert page.columns is not None  # only frame() types pages together
            df = build_frame([page.columns], self.schema)
            total = self._tally.total
            df.attrs = {"page_no": page.page_no, "page_size": self.page_size, "total": total}
            if self.limit is not None and seen + len(df) > self.limit:
                df = df.iloc[: self.limit - seen]
            seen += len(df)
            if page.rows:
                yield df
        unique = keys.unique
        self._tally.check(self.operation, unique, limit=self.limit, duplicates=keys.rows - unique)

    def fetch(self, page_no: int) -> dict[str, Any]:
        """Page ``page_no``'s ``data`` by the session's call, moments as the platform wrote them."""
        page = {**self.params, "page_no": page_no, "page_size": self.page_size}
        data: dict[str, Any] = self.session.call(
            self.op, page, auth=self.op.token, safety=Safety.READ, moments="raw"
        )
        return data

    def _pages(self, first_no: int) -> Iterator[_Page]:
        """Pages from ``first_no`` on, in order, to the last the total or the limit says."""
        sent = time.monotonic()
        data = self._fetch_first(first_no)
        received = time.monotonic()
        first = self._page(first_no, data, alone=True)
        del data
        typed = time.monotonic()
        self._follow_cap(first_no, first)
        size = self.page_size
        throttles = self.session.throttles
        flight = InFlight(
            self.concurrency, latency=received - sent, per_page=typed - received, rows=size
        )
        pages = first.total if self.paging.total == "pages" else None
        last_no = self._last_page(first_no, first.total if pages is None else pages * size)
        pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="opslib-page")
        started: deque[Future[_Page]] = deque()
        next_no = first_no + 1
        bar = self._bar(last_no - first_no + 1) if last_no > first_no else None
        try:
            if pages is not None and pages > first_no:  # its rows count the records: read now
                flight.start()  # its share of the platform's rate (the bucket starts full)
                self._ahead = (pages, pool.submit(self._page, pages))
                next_no = self._start(pool, started, flight, next_no, last_no)  # beside it
            total = first.total if pages is None else self._records_of_pages(first_no, first)
            self._tally = tally = reads.Tally(first_no, last_no, size, total, first.rows, [], pages)
            self._take(first)
            yield first
            while first_no < last_no:
                next_no = self._start(pool, started, flight, next_no, last_no)
                if not started:
                    if next_no > last_no:
                        return
                    time.sleep(flight.wait())  # the platform's rate: the next start
                    continue
                if not started[0].done():  # a page answered meanwhile makes room for one
                    self._answered.acquire()
                    self._in_flight -= 1
                    continue
                page = started.popleft().result()
                if self.session.throttles != throttles:  # a 429 or 503 since the last page
                    throttles = self.session.throttles
                    flight.throttled()
                flight.taken()
                self._take(page)
                tally.rows += page.rows
                if page.rows < self.page_size and page.page_no < last_no:
                    tally.short.append(page.page_no)
                if bar is not None:
                    bar.update(1)
                yield page
        finally:
            for future in started:
                future.cancel()
            self._ahead = None
            pool.shutdown(wait=True)
            if bar is not None:
                bar.close()

    def _start(
        self,
        pool: ThreadPoolExecutor,
        started: deque[Future[_Page]],
        flight: InFlight,
        next_no: int,
        last_no: int,
    ) -> int:
        """Start pages in the pool while :class:`InFlight` and the platform's rate allow;
        the next page not started yet. A page answered and waiting for its turn is not in
        flight; the pages held, answered or not, stay under ``PAGES_HELD`` times the limit."""
        while self._answered.acquire(blocking=False):  # the answers since the last look
            self._in_flight -= 1
        while next_no <= last_no and len(started) < C.PAGES_HELD * flight.limit:
            if self._in_flight >= flight.limit or not flight.start():
                break
            ahead = self._ahead  # a page started already is taken in its turn
            future = ahead[1] if ahead is not None and ahead[0] == next_no else None
            started.append(future or pool.submit(self._page, next_no))
            self._in_flight += 1
            started[-1].add_done_callback(lambda _: self._answered.release())
            next_no += 1
        return next_no

    def _fetch_first(self, page_no: int) -> dict[str, Any]:
        """The first page; where ``own`` is given and the fleet access not known, it learns
        it: records say yes, a refusal (403) no, an empty page asks the session."""
        own, session = self.own, self.session
        if own is None or session.fleet_access() is not None:
            if own is not None and not session.fleet_access():
                self.params = own
            return self.fetch(page_no)
        try:
            data = self.fetch(page_no)
        except PermissionDenied:
            session.learned_fleet_access(False)
        else:
            if data.get(self.list_key):
                session.learned_fleet_access(True)
                return data
            if session.may_read_fleet():  # an empty page: not proof either way
                return data
        self.params = own
        return self.fetch(page_no)

    def _page(self, page_no: int, data: dict[str, Any] | None = None, alone: bool = False) -> _Page:
        """Type one page in the thread running this, fetching it unless ``data`` is given,
        its answer parsed and typed in one turn; a small page but the first (``alone``) of a
        read that counts no keys (:meth:`frame`) is left to type with the next ones."""
        with DECODING.page():
            if data is None:
                data = self.fetch(page_no)
            records, total = reads.page(self.operation, self.list_key, data)
            if self._on_data is not None:
                with self._objects(records):
                    self._on_data(data)
            if self._keys is None and not alone and self.page_size < C.TYPING_BATCH_ROWS:
                return _Page(page_no, total, len(records), None, records=records)
            columns, keys = self._typed(records)
            del data, records  # they die in the turn, while the collector pauses (Decoding)
            return _Page(page_no, total, columns.rows, columns, keys)

    def _typed(self, records: list[dict[str, Any]]) -> tuple[PageColumns, np.ndarray | None]:
        """Records typed into columns, checked against the time range asked for, and their
        keys hashed where the read counts them."""
        with DECODING, self._objects(records):  # threads take turns on it, not on the GIL
            keys = self._keys.hashes(records) if self._keys is not None else None
            columns = page_columns(records, self.schema, times=self.times)
        span = moment_span(columns, self.time_field) if self.time_field and records else None
        if span is not None:  # every record in the time range asked for
            window = (self.params[self.op.window[0]], self.params[self.op.window[1]])
            reads.in_window(self.operation, self.time_field, *span, window)
        return columns, keys

    @contextlib.contextmanager
    def _objects(self, records: list[Any]) -> Iterator[None]:
        """Where the body fails on ``records``, one that is not a record is named."""
        try:
            yield
        except Exception:
            reads.objects(self.operation, self.list_key, records)
            raise

    def _take(self, page: _Page) -> None:
        """The checks on each page taken, in page order: the same count of pages on each where
        ``total`` counts them; no page of repeats only, where keys are counted."""
        t = self._tally
        if t.pages is not None and page.page_no != t.first_no:
            reads.same_pages(
                self.operation, first=t.pages, page_no=page.page_no, pages=page.total, size=t.size
            )
        if self._keys is not None and page.keys is not None:
            self._keys.add(page.page_no, page.keys, expected=t.expected)

    def _follow_cap(self, first_no: int, first: _Page) -> None:
        """A first page with fewer rows than asked while more exist: the platform caps its
        pages below the size asked (without an error). Ask the rest at the size served."""
        if first.rows >= self.page_size:
            return
        pages = self.paging.total == "pages"
        if first.total <= (first_no if pages else (first_no - 1) * self.page_size + first.rows):
            return  # no more exist
        if first.rows == 0 or first_no != 1:
            raise IncompleteRead(
                operation=self.operation,
                expected=first.total,
                got=first.rows,
                detail=(
                    f"page {first_no} held {first.rows} rows where {self.page_size} were asked "
                    f"and the total says more exist (paging.total counts "
                    f"{self.paging.total}); if the platform caps its pages, set "
                    "paging.max_page_size in its dialect"
                ),
            )
        self.page_size = first.rows

    def _records_of_pages(self, first_no: int, first: _Page) -> int:
        """The records a total counting pages stands for: full pages but the last, whose
        rows are counted (:func:`reads.records_of_pages`; read ahead unless it is the first)."""
        pages, size = first.total, self.page_size
        if pages < first_no:
            return 0  # read past the end: any row there is more than the total
        if pages == first_no:
            return reads.records_of_pages(self.operation, pages=pages, rows=first.rows, size=size)
        assert self._ahead is not None
        last = self._ahead[1].result()
        reads.same_pages(self.operation, first=pages, page_no=pages, pages=last.total, size=size)
        return reads.records_of_pages(self.operation, pages=pages, rows=last.rows, size=size)

    def _last_page(self, first_no: int, total: int) -> int:
        last = math.ceil(total / self.page_size)
        if self.limit is not None:
            last = min(last, first_no - 1 + math.ceil(self.limit / self.page_size))
        return last

    def _bar(self, pages: int) -> Any:
        show = self.progress if self.progress is not None else pages > C.PROGRESS_MIN_PAGES
        if not show:
            return None
        from tqdm.auto import tqdm

        return tqdm(
            total=pages, initial=1, unit="page", desc=self.desc or self.list_key, leave=False
        )


class InFlight:
    """How many pages a read keeps in flight (:attr:`limit`), fed by the reading thread.

    A far platform needs many requests in flight to keep its link busy (40 ms of round
    trip and 4 ms of a page on the wire: about 11), a near one few. The number is found as
    the read goes, between 1 and ``cap``, by TCP Vegas's rule on whole requests:

    - **the start**: one round trip of pages, the first page's latency over its typing's
      time (at least ``INITIAL_IN_FLIGHT``);
    - **rounds**: every ``limit`` pages taken end a round; by Little's law ``throughput ×
      the first page's latency`` pages are all the link and the platform hold, and
      ``limit`` minus that queue somewhere. Slow start doubles the limit each round while
      throughput grows by an eighth and nothing queues; then it grows by one while fewer
      than ``QUEUE_LOW`` pages queue and shrinks by one when more than ``QUEUE_HIGH`` do
      (pages of the largest size: as many rows in pages of ``rows``);
    - **a 429 or a 503** (:meth:`throttled`) halves it and ends slow start;
    - **the platform's rate** (protocol §8): ``MAX_PAGE_RATE`` a second, ``PAGE_RATE_BURST``.

    ``latency``: what the first page took alone; ``per_page``: what typing it took (None:
    unknown); ``rows``: a page's; ``clock``: monotonic seconds. Constants: ``_constants``.
    """

    def __init__(
        self,
        cap: int,
        *,
        latency: float,
        per_page: float | None = None,
        rows: int = C.MAX_PAGE_SIZE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cap = max(1, cap)
        start = C.INITIAL_IN_FLIGHT
        if per_page is not None and per_page > 0:
            start = max(start, math.ceil(latency / per_page))
        self.limit = min(start, self.cap)
        smaller = C.MAX_PAGE_SIZE / max(1, min(rows, C.MAX_PAGE_SIZE))
        self.queue = (C.QUEUE_LOW * smaller, C.QUEUE_HIGH * smaller)  # pages queued: bounds
        self.base_latency = max(latency, 1e-6)
        self.slow_start = True
        self._clock = clock
        self._round_start = clock()
        self._round_pages = 0
        self._last_rate = 0.0
        self._throttled = False  # a 429 or 503 since the last page taken
        # starts allowed by the platform's rate: a token bucket
        self._tokens = float(C.PAGE_RATE_BURST)
        self._refilled = self._round_start

    def taken(self) -> None:
        """One page taken by the reading thread (a clean answer, typed)."""
        if self._throttled:
            self._throttled = False
            self.limit = max(1, self.limit // 2)
            self.slow_start = False
            self._round_start = self._clock()
            self._round_pages = 0
        self._round_pages += 1
        if self._round_pages < self.limit:
            return
        now = self._clock()
        elapsed = now - self._round_start
        if elapsed > 0:
            self._end_round(self._round_pages / elapsed)
        self._round_start = now
        self._round_pages = 0

    def throttled(self) -> None:
        """The platform answered 429 or 503 (once or more): halve at the next page taken."""
        self._throttled = True

    def _end_round(self, rate: float) -> None:
        queued = self.limit - rate * self.base_latency
        grew = rate >= self._last_rate * C.SLOW_START_GROWTH
        self._last_rate = rate
        low, high = self.queue
        if self.slow_start and grew and queued < low:
            self.limit = min(self.cap, self.limit * 2)
            return
        self.slow_start = False
        if queued < low:
            self.limit = min(self.cap, self.limit + 1)
        elif queued > high:
            self.limit = max(1, self.limit - 1)

    def start(self) -> bool:
        """Take leave to start one page now (False: the rate's bucket is empty)."""
        self._refill()
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    def wait(self) -> float:
        """Seconds until a page may start."""
        self._refill()
        return max(0.0, (1 - self._tokens) / C.MAX_PAGE_RATE)

    def _refill(self) -> None:
        now = self._clock()
        refill = (now - self._refilled) * C.MAX_PAGE_RATE
        self._tokens = min(float(C.PAGE_RATE_BURST), self._tokens + refill)
        self._refilled = now
