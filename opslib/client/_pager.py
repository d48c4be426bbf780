"""Every page of a paged read, N requests in flight, handed back typed and in page order.

A paged read is a page fetch (``fetch(page_no, page_size)``: one page's ``data`` by the
regular call, with its retries, token refresh and errors; :meth:`Session.page_fetch
<opslib.client._session.Session.page_fetch>`) and one :class:`Pager`:

1. the calling thread fetches the first page, which reveals ``total``;
2. the next pages are started ahead of the one being read, as many as
   :class:`~opslib.client._in_flight.InFlight` says (it adapts to the link, up to
   ``concurrency``), and each is typed into Arrow columns
   (:func:`~opslib.client._frames.page_columns`) as soon as it is taken, so a page's Python
   objects live only while it is typed and only typed columns are kept;
3. the calling thread takes the pages in page order.

How a page is started depends on the transport. Over opslib's own
(:mod:`opslib.client._stdlib_transport`, the default where no proxy applies) its request is sent
at once from the calling thread (``send``, :meth:`Session.page_send
<opslib.client._session.Session.page_send>`), and the calling thread reads and types each
answer in turn: no thread pool, nothing handed between threads. Only handshakes run in
threads: before a round starts more pages than there are idle connections, the missing
ones are opened side by side (``send.open_connections``), as a handshake costs a round trip
on a real link. A request sent that way takes a free connection or waits for the next
round (another read may hold the pool); anything but a clean answer to it (no connection,
a lost answer, a 401, 429 or 503, an error envelope) makes that page go through the
regular call. Over any other transport (httpx's own behind a proxy) a pool of up to
``concurrency`` threads fetches the pages by the regular call and types each in the thread
that fetched it.

Every page carries the same filters; only ``page_no`` changes. The first page's ``total``
says how many pages there are (``total`` counts records, or pages where the dialect says
so, ``paging.total``: the last page is then read second, to count its rows, and ``total``
is the records' count from there on); reading goes on to the last of them (or the limit)
whatever the size of the pages in between. A platform serving fewer rows than asked (a
page cap below the size asked, without an error) is followed: the rest is asked at the
size it served.

Invariant (:mod:`opslib.protocol.reads`, every check there): a read returns every row the
platform says exists, each once, or raises :class:`~opslib.IncompleteRead` naming expected,
got and the duplicates seen; a page's ``data`` that is not an object holding the list and a
``total`` (a non-negative integer) raises :class:`~opslib.ProtocolError`. A short page is
never taken as the end, and more rows than the total is an error, not a bonus; offset
paging over data that changes while it is read can show a record twice and skip another:
:meth:`Pager.frame` counts the rows after dropping duplicates, :meth:`Pager.pages` counts
each record's key once (hashed). Where ``total`` counts pages, the last page must hold
what that count allows and every page must say the same count.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from opslib.client import _constants as C
from opslib.client._frames import PageColumns, build_frame, join_order, page_columns
from opslib.client._http import EarlyAnswer
from opslib.client._in_flight import InFlight
from opslib.client._row_order import dedupe_and_sort
from opslib.client._schemas import FrameSchema
from opslib.client._session import FetchPage, SendPage
from opslib.dialects import Paging
from opslib.exceptions import IncompleteRead
from opslib.protocol import reads
from opslib.protocol.times import DECODED, TimeCodec

__all__ = ["Pager", "check_page_size"]


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
    total: int  # as the page says it (records, or pages: Paging.total)
    rows: int
    columns: PageColumns
    keys: np.ndarray | None = None  # its records' hashed keys, where the read counts them


@dataclass
class _Tally:
    """What one read was told and what it got, to check the invariant at its end."""

    first_no: int = 1
    last_no: int = 1
    size: int = 0
    total: int = 0  # the records the platform's total stands for
    rows: int = 0  # rows received, duplicates included
    short: list[int] | None = None  # pages before the last with fewer rows than served
    pages: int | None = None  # the first page's total where it counts pages


class _Started(Protocol):
    """A page on its way: a future of the pool, or a request sent early."""

    def result(self) -> _Page: ...

    def cancel(self) -> bool: ...


class _SentEarly:
    """A page whose request was sent early; read, or fetched again by the regular call."""

    def __init__(self, answer: EarlyAnswer | None, page: Callable[[dict[str, Any] | None], _Page]):
        self._answer = answer
        self._page = page

    def result(self) -> _Page:
        answer, self._answer = self._answer, None
        return self._page(answer.data() if answer is not None else None)

    def cancel(self) -> bool:
        answer, self._answer = self._answer, None
        if answer is not None:
            answer.drop()
        return True


class Pager:
    """One paged read: how its pages are fetched, the list in each page's ``data``, and the
    frame it makes.

    Parameters
    ----------
    fetch
        Returns the decoded ``data`` of page ``page_no`` of ``page_size`` rows.
    send
        Sends a page's request early (None where the transport cannot, see the module).
    list_key
        The list inside ``data`` (``device_list``, ``events_list``).
    schema
        The frame schema of one record.
    page_size, limit, progress
        As documented on the list methods.
    concurrency
        The most pages in flight after the first, besides the one being read.
    listen
        ``listen(callback)``: a block during which ``callback`` hears of every 429 or 503
        (:meth:`HTTP.throttle_listener <opslib.client._http.HTTP.throttle_listener>`).
    desc
        The progress bar's label.
    on_data
        Sees each page's ``data`` before it is typed (the event cache keeps each record's
        raw properties).
    paging
        The platform's paging (the dialect's): the largest page it serves, what ``total``
        counts. Default the reference platform's.
    operation
        The path read, named by :class:`~opslib.IncompleteRead`.
    first_fetch
        The fetch of the first page, where it differs from ``fetch`` (a fleet read whose
        first page also learns whether the fleet may be read).
    window, window_field
        The time range asked for, ``[start_ms, end_ms)``, and the records' moment that
        must lie in it (``gmt_create``): else :class:`~opslib.ProtocolError`.
    times
        How the pages' moments are written (the platform's
        :class:`~opslib.protocol.times.TimeCodec`; default epoch milliseconds).
    """

    def __init__(
        self,
        fetch: FetchPage,
        *,
        send: SendPage | None = None,
        list_key: str,
        schema: FrameSchema,
        page_size: int = C.DEFAULT_PAGE_SIZE,
        limit: int | None = None,
        progress: bool | None = None,
        concurrency: int = C.DEFAULT_CONCURRENCY,
        desc: str = "",
        on_data: Callable[[dict[str, Any]], None] | None = None,
        listen: Callable[[Callable[[], None]], AbstractContextManager[None]] | None = None,
        paging: Paging | None = None,
        operation: str = "",
        first_fetch: FetchPage | None = None,
        times: TimeCodec = DECODED,
        window: tuple[int, int] | None = None,
        window_field: str = "",
    ) -> None:
        self.times = times
        self.window = window
        self.window_field = window_field
        self._fetch = fetch
        self._first_fetch = first_fetch or fetch
        self._send = send
        self._on_data = on_data
        self.list_key = list_key
        self.schema = schema
        self.limit = _check_limit(limit)
        self.paging = paging if paging is not None else Paging()
        self.operation = operation or list_key
        size = min(check_page_size(page_size), self.paging.max_page_size)
        self.page_size = min(size, self.limit) if self.limit else size
        self._tally = _Tally()
        self._key = reads.key_fields(self.operation, list_key, schema.key)
        self._keys: reads.Keys | None = None  # each record's key, where pages() counts them
        self._stash: tuple[int, dict[str, Any]] | None = None  # a page read ahead of its turn
        self.progress = progress
        self.concurrency = max(1, concurrency)
        self.desc = desc
        self._listen = listen

    def frame(self) -> pd.DataFrame:
        """Every page (up to ``limit`` rows) as one typed, de-duplicated, sorted frame."""
        if self.limit == 0:
            return self.schema.empty()
        columns: list[PageColumns] = []
        for page in self._pages(1):
            if page.rows or page.page_no == 1:
                columns.append(page.columns)
        order = join_order(columns)
        df = build_frame(columns, self.schema)
        del columns
        df = dedupe_and_sort(df, self.schema, order=order)
        total = self._check(len(df), self._tally.rows - len(df))
        if self.limit is not None and len(df) > self.limit:
            df = df.iloc[: self.limit].reset_index(drop=True)
        df.attrs = {"total": total}
        return df

    def pages(self, page_no: int = 1) -> Iterator[pd.DataFrame]:
        """One typed frame per page, from ``page_no`` on, in page order.

        The next pages are fetched while the caller works on this one; stopping early drops
        them. Each frame's ``attrs`` holds ``page_no``, ``page_size`` and ``total``: enough
        to resume later with ``page_no=attrs["page_no"] + 1``. Rows repeating a record of an
        earlier page are not removed here, but every record's key is counted once (hashed,
        8 bytes a row): a page that only repeats rows already read raises at once, and the
        read raises at its end when the records counted differ from the total.
        """
        if isinstance(page_no, bool) or not isinstance(page_no, int) or page_no < 1:
            raise ValueError(f"page_no must be an int >= 1, got {page_no!r}")
        if self.limit == 0:
            return
        keys = self._keys = reads.Keys(self.operation, self._key)
        seen = 0
        for page in self._pages(page_no):
            df = build_frame([page.columns], self.schema)
            total = self._tally.total
            df.attrs = {"page_no": page.page_no, "page_size": self.page_size, "total": total}
            if self.limit is not None and seen + len(df) > self.limit:
                df = df.iloc[: self.limit - seen]
            seen += len(df)
            if page.rows:
                yield df
        unique = keys.unique
        self._check(unique, keys.rows - unique)

    # -- the one loop ------------------------------------------------------------------

    def _pages(self, first_no: int) -> Iterator[_Page]:
        """Pages from ``first_no`` on, in order, to the last one the total or the limit
        says; a short page in between does not end the read (:meth:`_check` raises)."""
        sent = time.monotonic()
        data = self._first_fetch(first_no, self.page_size)
        received = time.monotonic()
        first = self._page(first_no, data)
        del data
        typed = time.monotonic()
        window = InFlight(self.concurrency, latency=received - sent, per_page=typed - received)
        self._follow_cap(first_no, first)
        pages = first.total if self.paging.total == "pages" else None
        total = first.total if pages is None else self._records_of_pages(first_no, first)
        last_no = self._last_page(first_no, total)
        tally = _Tally(first_no, last_no, self.page_size, total, first.rows, [], pages)
        self._tally = tally
        self._take(first)
        yield first
        if first_no >= last_no:
            return
        bar = self._bar(last_no - first_no + 1)
        pool = None
        if self._send is None:
            pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="opslib-page")
        in_flight: deque[_Started] = deque()
        next_no = first_no + 1

        def start_more() -> None:
            nonlocal next_no
            more = min(last_no - next_no + 1, window.limit - len(in_flight))
            if self._send is not None and more > 1:
                self._send.open_connections(more)  # their handshakes side by side
            while next_no <= last_no and len(in_flight) < window.limit and window.start():
                started = self._start(next_no, pool, alone=not in_flight)
                if started is None:
                    return  # no free connection: this page waits for the next round
                in_flight.append(started)
                next_no += 1

        listening = self._listen(window.throttled) if self._listen else contextlib.nullcontext()
        try:
            with listening:
                while True:
                    start_more()
                    if not in_flight:
                        if next_no > last_no:
                            return
                        time.sleep(window.wait())  # the platform's rate: the next start
                        continue
                    started = in_flight.popleft()
                    start_more()  # pages stay in flight while this one is read and typed
                    page = started.result()
                    window.taken()
                    self._take(page)
                    tally.rows += page.rows
                    if page.rows < self.page_size and page.page_no < last_no:
                        assert tally.short is not None
                        tally.short.append(page.page_no)
                    if bar is not None:
                        bar.update(1)
                    yield page
        finally:
            for started in in_flight:
                started.cancel()
            if pool is not None:
                pool.shutdown(wait=True)
            if bar is not None:
                bar.close()

    def _start(
        self, page_no: int, pool: ThreadPoolExecutor | None, *, alone: bool
    ) -> _Started | None:
        """Start a page: in the pool, or its request sent early. None: it could not be sent
        and other pages are in flight (try again later); ``alone``, it goes by the regular
        call instead."""
        stash = self._stash
        if stash is not None and stash[0] == page_no:
            self._stash = None
            return _SentEarly(None, lambda _: self._page(page_no, stash[1]))
        if pool is not None:
            return pool.submit(self._page, page_no)
        assert self._send is not None
        answer = self._send(page_no, self.page_size)
        if answer is None and not alone:
            return None
        return _SentEarly(answer, lambda data: self._page(page_no, data))

    def _page(self, page_no: int, data: dict[str, Any] | None = None) -> _Page:
        """Type one page (in whichever thread runs this), fetching it by the regular call
        unless its ``data`` is given."""
        if data is None:
            data = self._fetch(page_no, self.page_size)
        records, total = reads.page(self.operation, self.list_key, data)
        try:
            if self._on_data is not None:
                self._on_data(data)
            keys = self._keys.hashes(records) if self._keys is not None else None
            columns = page_columns(records, self.schema, defer=True, times=self.times)
        except Exception:
            reads.objects(self.operation, self.list_key, records)  # a record that is not one
            raise
        if self.window is not None and records:
            self._check_window(columns)
        return _Page(page_no, total, len(records), columns, keys)

    def _check_window(self, columns: PageColumns) -> None:
        """Every record of the page in the window asked for (its time field)."""
        assert self.window is not None
        field = self.window_field
        moments = columns.fixed.get(field)
        if moments is None or len(moments) == moments.null_count:
            return
        low, high = pc.min_max(moments.cast(pa.int64())).values()
        first, last = low.as_py() // 1_000_000, high.as_py() // 1_000_000
        reads.in_window(self.operation, field, first, last, self.window)

    def _take(self, page: _Page) -> None:
        """The checks on each page as the reading thread takes it, in page order: the same
        count of pages on every page where ``total`` counts them; no page that only repeats
        records already read, where keys are counted."""
        t = self._tally
        if t.pages is not None and page.page_no != t.first_no:
            reads.same_pages(
                self.operation, first=t.pages, page_no=page.page_no, pages=page.total, size=t.size
            )
        if self._keys is not None and page.keys is not None:
            expected = max(0, t.total - (t.first_no - 1) * t.size)
            self._keys.add(page.page_no, page.keys, expected=expected)

    def _follow_cap(self, first_no: int, first: _Page) -> None:
        """A first page with fewer rows than asked while more exist: the platform caps its
        pages below the size asked (without an error). Ask the rest at the size served."""
        if first.rows >= self.page_size:
            return
        if self.paging.total == "pages":
            more = first.total > first_no
        else:
            more = first.total > (first_no - 1) * self.page_size + first.rows
        if not more:
            return
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
        rows are counted (one request more when it is not the first); the last page must
        hold what the count allows and say the same count
        (:func:`~opslib.protocol.reads.records_of_pages`)."""
        pages, size = first.total, self.page_size
        if pages < first_no:
            return 0  # read past the end: any row there is more than the total
        if pages == first_no:
            return reads.records_of_pages(self.operation, pages=pages, rows=first.rows, size=size)
        data = self._fetch(pages, size)
        records, total = reads.page(self.operation, self.list_key, data)
        reads.same_pages(self.operation, first=pages, page_no=pages, pages=total, size=size)
        self._stash = (pages, data)  # typed in its turn, not fetched again
        return reads.records_of_pages(self.operation, pages=pages, rows=len(records), size=size)

    def _check(self, got: int, duplicates: int) -> int:
        """The invariant at a read's end: ``got`` records (each once) against what the
        total promised, neither fewer nor more; raises :class:`~opslib.IncompleteRead`,
        else returns the total."""
        t = self._tally
        short = f"; short pages: {t.short[:10]}" if t.short else ""
        reads.check_count(
            self.operation,
            expected=max(0, t.total - (t.first_no - 1) * t.size),
            got=got,
            limit=self.limit,
            duplicates=duplicates,
            detail=(
                f"{t.rows} rows came in {t.last_no - t.first_no + 1} pages of "
                f"{t.size}{short}, duplicates dropped"
            ),
        )
        return t.total

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
