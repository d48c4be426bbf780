"""The pager, driven by a page function through a stand-in session (:class:`Through`), and
over a real platform with faults injected by the transport."""

from __future__ import annotations

import gc
import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import opslib
from client.faults import Faults, Sent
from opslib.client import _constants as C
from opslib.client._pager import Pager
from opslib.client._session import check_page_size
from opslib.client.frames import schema as S
from opslib.dialects import Dialect
from opslib.protocol import operations as ops
from opslib.protocol.codec import Codec

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


class Pages:
    """Serves ``rows`` records in pages and records every request (page_no, page_size)."""

    def __init__(
        self,
        rows: int,
        *,
        shrink_after: int | None = None,
        cap: int | None = None,
        total_in_pages: bool = False,
    ) -> None:
        self.rows = rows
        self.shrink_after = shrink_after
        self.cap = cap  # the platform serves at most this many rows a page, without an error
        self.total_in_pages = total_in_pages
        self.calls: list[tuple[int, int]] = []
        self.threads: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, page_no: int, page_size: int) -> dict[str, Any]:
        with self._lock:
            self.calls.append((page_no, page_size))
            self.threads.add(threading.current_thread().name)
            rows = self.rows
            if self.shrink_after is not None and len(self.calls) > self.shrink_after:
                rows = rows // 2
        if self.cap is not None:
            page_size = min(page_size, self.cap)
        lo = (page_no - 1) * page_size
        events = [
            {"event_id": f"e-{i:06d}", "gmt_create": "2024-05-01 00:00:00", "event_type": 1}
            for i in range(lo, min(lo + page_size, rows))
        ]
        return {
            "total": -(-self.rows // page_size) if self.total_in_pages else self.rows,
            "page_no": page_no,
            "page_size": page_size,
            "events_list": events,
        }


class Through:
    """The session a pager reads through, serving each page from ``fetch(page_no,
    page_size)``: the reference platform's codec, no throttling."""

    def __init__(self, fetch: Callable[[int, int], Any]) -> None:
        self.fetch = fetch
        self.codec = Codec()
        self.concurrency = C.DEFAULT_CONCURRENCY
        self.throttles = 0

    def call(self, op: ops.Operation, params: dict[str, Any], **options: Any) -> Any:
        return self.fetch(params["page_no"], params["page_size"])


def read(fetch: Callable[[int, int], Any], **kw: Any) -> Pager:
    kw.setdefault("progress", False)
    return Pager(Through(fetch), ops.QUERY_RECORD, {}, schema=S.EVENT, **kw)


def test_reads_every_page_concurrently_in_order() -> None:
    pages = Pages(2_050)
    df = read(pages, page_size=100).frame()
    assert len(df) == 2_050
    assert df["event_id"].is_unique
    assert df["event_id"].is_monotonic_increasing
    assert sorted(p for p, _ in pages.calls) == list(range(1, 22))
    assert {s for _, s in pages.calls} == {100}
    assert any(t.startswith("opslib-page") for t in pages.threads)
    assert df.attrs["total"] == 2_050


def test_pages_wait_for_the_network_side_by_side() -> None:
    # Four fetches must be waiting at once, or the barrier breaks.
    barrier = threading.Barrier(4, timeout=10)
    inner = Pages(500)

    def fetch(page_no: int, page_size: int) -> dict[str, Any]:
        if page_no > 1:
            barrier.wait()
        return inner(page_no, page_size)

    df = read(fetch, page_size=100, concurrency=4).frame()
    assert len(df) == 500


def test_exact_multiple_needs_no_extra_request() -> None:
    pages = Pages(300)
    assert len(read(pages, page_size=100).frame()) == 300
    assert len(pages.calls) == 3


def test_limit_caps_rows_and_requests() -> None:
    pages = Pages(10_000)
    df = read(pages, page_size=100, limit=250).frame()
    assert len(df) == 250
    assert len(pages.calls) == 3
    pages = Pages(10_000)
    df = read(pages, page_size=1000, limit=5).frame()
    assert len(df) == 5
    assert pages.calls == [(1, 5)]  # a small limit asks for a small page


def test_limit_zero_and_empty_results_keep_the_schema() -> None:
    for df in (read(Pages(0)).frame(), read(Pages(10), limit=0).frame()):
        assert len(df) == 0
        assert df.dtypes.to_dict() == S.EVENT.empty().dtypes.to_dict()


def test_a_short_page_is_not_the_end_and_fewer_rows_than_the_total_raise() -> None:
    pages = Pages(1_000, shrink_after=1)  # data halves after the first page
    with pytest.raises(opslib.IncompleteRead, match="says 1000 rows exist, the read got 500") as e:
        read(pages, page_size=100, concurrency=1).frame()
    assert (e.value.expected, e.value.got) == (1_000, 500)
    assert sorted(p for p, _ in pages.calls) == list(range(1, 11))  # every page was asked


def test_a_page_cap_below_the_size_asked_is_followed_to_the_total() -> None:
    # A platform capping page_size at 100 without an error: 100 of 1,567 rows came back.
    pages = Pages(1_567, cap=100)
    df = read(pages, page_size=1000).frame()
    assert len(df) == 1_567
    assert df["event_id"].is_unique
    assert pages.calls[0] == (1, 1000)
    assert {s for _, s in pages.calls[1:]} == {100}
    frames = list(read(pages, page_size=1000).pages())
    assert sum(len(f) for f in frames) == 1_567


def test_a_total_counting_pages_reads_every_page() -> None:
    # total counts pages: 16 pages of 100 for 1,567 rows (read as 16 rows, before).
    pages = Pages(1_567, cap=100, total_in_pages=True)
    paging = opslib.Dialect.named("vendor").paging
    df = read(pages, page_size=1000, paging=paging).frame()
    assert len(df) == 1_567
    assert df.attrs["total"] == 1_567
    assert {s for _, s in pages.calls} == {100}  # the dialect's cap asked from the start
    # with the cap unknown to the dialect (1000), the cap is found and followed
    df = read(
        Pages(1_567, cap=100, total_in_pages=True),
        page_size=1000,
        paging=opslib.dialects.Paging(total="pages"),
    ).frame()
    assert len(df) == 1_567


def test_a_total_counting_pages_with_a_short_page_in_between_raises() -> None:
    pages = Pages(1_000, shrink_after=2, total_in_pages=True)
    with pytest.raises(opslib.IncompleteRead, match="short pages"):
        read(
            pages, page_size=100, concurrency=1, paging=opslib.dialects.Paging(total="pages")
        ).frame()


def test_a_cap_found_on_a_resumed_read_raises() -> None:
    pages = Pages(1_000, cap=100)
    with pytest.raises(opslib.IncompleteRead, match=r"paging\.max_page_size"):
        list(read(pages, page_size=500).pages(2))


def test_duplicates_standing_for_missed_rows_raise() -> None:
    inner = Pages(300)

    def fetch(page_no: int, page_size: int) -> dict[str, Any]:
        data = inner(page_no, page_size)
        if page_no == 2:  # a record inserted before page 2: its first row repeats page 1's
            data["events_list"] = [
                inner(1, page_size)["events_list"][-1],
                *data["events_list"][:-1],
            ]
        return data

    with pytest.raises(opslib.IncompleteRead, match="says 300 rows exist, the read got 299"):
        read(fetch, page_size=100).frame()


def test_iter_pages_counts_each_record_once() -> None:
    """A record of page 1 shown again on page 2 (a record inserted before page 2) stands
    for the record missed: the 300 rows iter_pages yielded are 299 records of 300."""
    inner = Pages(300)

    def fetch(page_no: int, page_size: int) -> dict[str, Any]:
        data = inner(page_no, page_size)
        if page_no == 2:
            data["events_list"] = [
                inner(1, page_size)["events_list"][-1],
                *data["events_list"][:-1],
            ]
        return data

    with pytest.raises(opslib.IncompleteRead, match="says 300 rows exist, the read got 299") as e:
        list(read(fetch, page_size=100).pages())
    assert e.value.duplicates == 1


@pytest.mark.parametrize("total", [250, 150, 2])
def test_more_rows_than_the_total_raise(total: int) -> None:
    """A total below the rows served (too low, or counting pages: 2 for 300 records in
    pages of 100): the rows past it were never going to be asked for."""
    inner = Pages(300)

    def fetch(page_no: int, page_size: int) -> dict[str, Any]:
        return {**inner(page_no, page_size), "total": total}

    with pytest.raises(opslib.IncompleteRead, match="more rows than the total") as e:
        read(fetch, page_size=100).frame()
    assert e.value.expected == total
    assert e.value.got > total
    with pytest.raises(opslib.IncompleteRead, match="more rows than the total"):
        list(read(fetch, page_size=100).pages())
    if total > 100:  # within a limit (pages of 100) the rows read may not pass it either
        with pytest.raises(opslib.IncompleteRead, match="more rows than the total"):
            read(fetch, page_size=100, limit=total).frame()


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        "",
        "ok",
        {"events_list": []},
        {"total": -1, "events_list": []},
        {"total": True, "events_list": []},
        {"total": 3, "events_list": None},
        {"total": 1, "events_list": ["e-1"]},
    ],
    ids=repr,
)
def test_a_page_that_is_not_one_raises_naming_the_field(data: Any) -> None:
    with pytest.raises(opslib.ProtocolError, match=r"^/device/query_record: data") as e:
        read(lambda page_no, page_size: data).frame()
    assert e.value.operation == RECORDS


def test_a_total_counting_pages_whose_last_page_is_empty_raises() -> None:
    """3 pages of 5 said on page 1, none on page 3: 3 of 13 records were deleted after
    page 1 was read. Read as 2 pages the result was 10 rows, 3 deleted among them."""
    inner = Pages(13, total_in_pages=True)

    def fetch(page_no: int, page_size: int) -> dict[str, Any]:
        if page_no > 1:
            inner.rows = 10  # 3 records deleted once page 1 was read
        return inner(page_no, page_size)

    with pytest.raises(opslib.IncompleteRead, match=r"page 1 said 3 pages of 5, page 3 says 2"):
        read(fetch, page_size=5, paging=opslib.dialects.Paging(total="pages")).frame()


def test_a_total_counting_pages_that_changes_during_the_read_raises() -> None:
    """Page 3 (read second) agrees with page 1; page 2, read after a deletion, says 2."""
    inner = Pages(13, total_in_pages=True)

    def fetch(page_no: int, page_size: int) -> dict[str, Any]:
        inner.rows = 13 if page_no in (1, 3) else 10
        return inner(page_no, page_size)

    paging = opslib.dialects.Paging(total="pages")
    with pytest.raises(opslib.IncompleteRead, match=r"page 1 said 3 pages of 5, page 2 says 2"):
        read(fetch, page_size=5, paging=paging, concurrency=1).frame()

    def last_page_empty(page_no: int, page_size: int) -> dict[str, Any]:
        data = inner(page_no, page_size)
        return {**data, "events_list": [] if page_no == 3 else data["events_list"]}

    inner.rows = 13
    with pytest.raises(opslib.IncompleteRead, match=r"holds 1 to 5 rows; it held 0"):
        read(last_page_empty, page_size=5, paging=paging).frame()


def test_iter_pages_yields_typed_pages_with_resume_position() -> None:
    pages = Pages(250)
    frames = list(read(pages, page_size=100).pages())
    assert [len(f) for f in frames] == [100, 100, 50]
    assert [f.attrs["page_no"] for f in frames] == [1, 2, 3]
    assert all(f.attrs["total"] == 250 and f.attrs["page_size"] == 100 for f in frames)
    assert str(frames[0]["gmt_create"].dtype) == "datetime64[ns, UTC]"
    resumed = list(read(Pages(250), page_size=100).pages(page_no=2))
    assert [f.attrs["page_no"] for f in resumed] == [2, 3]


def test_iter_pages_limit() -> None:
    frames = list(read(Pages(1_000), page_size=100, limit=150).pages())
    assert sum(len(f) for f in frames) == 150


@pytest.mark.parametrize("bad", [0, 1001, -1])
def test_page_size_bounds(bad: int) -> None:
    with pytest.raises(ValueError, match="between 1 and 1000"):
        check_page_size(bad)


def test_bad_limit_and_page_no() -> None:
    with pytest.raises(ValueError, match="limit"):
        read(Pages(1), limit=-1)
    with pytest.raises(ValueError, match="page_no"):
        list(read(Pages(1)).pages(page_no=0))


def test_progress_bar_only_for_many_pages(capsys: pytest.CaptureFixture[str]) -> None:
    read(Pages(300), page_size=100, progress=None).frame()
    assert "page" not in capsys.readouterr().err
    read(Pages(1_000), page_size=100, progress=None).frame()
    assert "page" in capsys.readouterr().err
    read(Pages(1_000), page_size=100, progress=False).frame()
    assert "page" not in capsys.readouterr().err


def test_a_failing_page_raises_and_nothing_past_the_pages_in_flight_is_asked_for() -> None:
    inner = Pages(3_000)

    def fetch(page_no: int, page_size: int) -> dict[str, Any]:
        if page_no == 6:
            raise RuntimeError("page 6 failed")
        return inner(page_no, page_size)

    with pytest.raises(RuntimeError, match="page 6 failed"):
        read(fetch, page_size=100, concurrency=4).frame()
    asked = sorted(p for p, _ in inner.calls)
    assert asked[:5] == [1, 2, 3, 4, 5]
    # at most the pages held (in flight, or answered and waiting) when page 6 failed
    assert max(asked) <= 5 + C.PAGES_HELD * 4


def test_iter_pages_keeps_n_in_flight_and_stopping_asks_for_no_more() -> None:
    pages = Pages(10_000)
    it = read(pages, page_size=100, concurrency=3).pages()
    first = next(it)
    assert first.attrs["page_no"] == 1
    second = next(it)
    assert second["event_id"].iloc[0] == "e-000100"
    it.close()  # the caller stops: the pages in flight are dropped, no more are asked for
    asked = len(pages.calls)
    assert asked <= 2 + C.PAGES_HELD * 3  # the pages held, answered or not
    assert len(pages.calls) == asked


def waiting(inner: Pages, slow: int, until: int) -> Callable[[int, int], dict[str, Any]]:
    """``inner``'s pages, page ``slow`` answered only once page ``until`` is asked (within
    10 s, else that page fails the read)."""
    asked = threading.Event()

    def fetch(page_no: int, page_size: int) -> dict[str, Any]:
        if page_no == slow:
            assert asked.wait(10), f"page {until} was not asked while page {slow} was awaited"
        if page_no == until:
            asked.set()
        return inner(page_no, page_size)

    return fetch


def test_a_page_answered_ahead_of_its_turn_does_not_hold_a_request_back() -> None:
    """Page 2 is slow; pages 3, 4 and 5 answer. With 3 in flight, page 6 starts while page 2
    is still awaited (before, answered pages held the places of pages not asked)."""
    fetch = waiting(Pages(1_000), slow=2, until=6)
    assert len(read(fetch, page_size=100, concurrency=3).frame()) == 1_000


def test_a_total_counting_pages_reads_its_last_page_beside_the_next_ones() -> None:
    """The last page counts the records; it is asked beside page 2, not alone before it
    (a round trip of its own)."""
    inner = Pages(1_000, total_in_pages=True)
    paging = opslib.dialects.Paging(total="pages")
    df = read(waiting(inner, slow=10, until=2), page_size=100, paging=paging).frame()
    assert len(df) == 1_000
    assert sorted(p for p, _ in inner.calls) == list(range(1, 11))  # the last page once


def test_iter_pages_asks_for_no_other_page_until_the_caller_wants_the_second() -> None:
    """A caller who looks at the first page only (or moves a clock, as a token expiring
    mid-read in tests/client/test_tokens.py) has sent one request."""
    pages = Pages(1_000)
    it = read(pages, page_size=100).pages()
    assert next(it).attrs["page_no"] == 1
    time.sleep(0.2)  # long enough for a page started in the pool to be asked
    assert [p for p, _ in pages.calls] == [1]
    assert [f.attrs["page_no"] for f in it] == list(range(2, 11))


def test_iter_pages_asks_for_nothing_past_the_limit_or_the_total() -> None:
    for kw, asked in (({"limit": 250}, [1, 2, 3]), ({}, [1, 2, 3])):
        pages = Pages(300)
        frames = list(read(pages, page_size=100, **kw).pages())
        assert [len(f) for f in frames] == ([100, 100, 50] if kw else [100, 100, 100])
        assert sorted(p for p, _ in pages.calls) == asked


def test_iter_pages_from_a_later_page_with_a_limit() -> None:
    pages = Pages(1_000)
    frames = list(read(pages, page_size=100, limit=150).pages(page_no=4))
    assert [f.attrs["page_no"] for f in frames] == [4, 5]
    assert sum(len(f) for f in frames) == 150
    assert sorted(p for p, _ in pages.calls) == [4, 5]


def test_a_read_leaves_the_collector_as_it_was() -> None:
    """Reading changes no process-wide state: the collector's thresholds stay the user's."""
    before = gc.get_threshold()
    seen: set[tuple[int, ...]] = set()
    inner = Pages(2_000)

    def fetch(page_no: int, page_size: int) -> dict[str, Any]:
        seen.add(gc.get_threshold())
        return inner(page_no, page_size)

    assert len(read(fetch, page_size=100).frame()) == 2_000
    assert seen == {before}
    assert gc.get_threshold() == before


PAGE = 20  # rows a page: the test platform's 30 days are many pages
RECORDS = "/device/query_record"


def page_no(sent: Sent) -> int:
    return int((sent.body or {})["params"]["page_no"])


def on_page(n: int) -> Callable[[Sent], bool]:
    return lambda sent: (sent.body or {}).get("params", {}).get("page_no") == n


@pytest.fixture
def whole(platform: ServedPlatform) -> pd.DataFrame:
    """The fleet's events of 30 days, read without faults."""
    return platform.connect().events.list("-30d", end="2100-01-01", page_size=PAGE)


def test_a_pool_fetches_the_pages_after_the_first(
    platform: ServedPlatform, whole: pd.DataFrame
) -> None:
    """The calling thread reads the first page; the pool's threads the others, several at
    a time, through httpx's transport (each thread connects on its own: the handshakes of
    a growing window run side by side)."""
    faults = Faults()
    threads: list[tuple[int, str]] = []
    faults.before = lambda sent: threads.append(
        (page_no(sent) if sent.path == RECORDS else 0, threading.current_thread().name)
    )
    client = platform.connect(transport=faults)
    df = client.events.list("-30d", end="2100-01-01", page_size=PAGE)
    assert_frame_equal(df, whole)
    by_page = dict(threads)
    assert by_page[1] == threading.current_thread().name
    pool = {f"opslib-page_{i}" for i in range(C.MAX_CONCURRENCY)}
    assert {by_page[n] for n in by_page if n > 1} <= pool
    pages = list(client.events.iter_pages("-30d", end="2100-01-01", page_size=PAGE))
    assert sum(map(len, pages)) == len(whole)


@pytest.mark.parametrize("fault", ["503", "429", "drop", "refuse", "401", "401 in 200"])
def test_a_page_that_fails_is_read_again(
    platform: ServedPlatform, whole: pd.DataFrame, fault: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Anything but a clean answer for page 3 (fetched by a pool thread): the session's
    call reads it again, with its retries and token refresh, and the frame is the same."""
    faults = Faults()
    refused = {"times": 1, "when": on_page(3)}
    third = {"when": on_page(3)}
    if fault == "503":
        faults.status(RECORDS, 503, **third)
    elif fault == "429":
        faults.status(RECORDS, 429, headers={"Retry-After": "0"}, **third)
    elif fault == "drop":
        faults.drop_response(RECORDS, **third)
    elif fault == "refuse":
        faults.refuse(RECORDS, **third)
    elif fault == "401":
        faults.status(RECORDS, 401, **refused)
    else:
        faults.error_in_200(RECORDS, 401, **refused)
    client = platform.connect(transport=faults)
    refreshes = faults.count("/token/access")
    caplog.set_level(logging.DEBUG, logger="opslib")
    df = client.events.list("-30d", end="2100-01-01", page_size=PAGE)
    assert_frame_equal(df, whole)
    faulted = [s for s in faults.to(RECORDS) if s.fault]
    assert {page_no(s) for s in faulted} == {3}
    again = [s for s in faults.to(RECORDS) if page_no(s) == 3 and not s.fault]
    assert len(again) == 1
    assert (faults.count("/token/access") > refreshes) == fault.startswith("401")
    messages = [r.getMessage() for r in caplog.records]
    assert any("retrying" in m or "refreshing" in m for m in messages)


@pytest.mark.parametrize("fault", ["403", "403 in 200"])
def test_a_business_error_on_a_page_is_raised_and_frees_the_pool(
    platform: ServedPlatform, fault: str
) -> None:
    faults = Faults()
    if fault == "403":
        faults.status(RECORDS, 403, times=None, when=on_page(4))
    else:
        faults.error_in_200(RECORDS, 403, times=None, when=on_page(4))
    client = platform.connect(transport=faults)
    for _ in range(6):  # 6 reads x 4 in flight: more than the pool holds, were any kept
        with pytest.raises(opslib.PermissionDenied, match="injected") as info:
            client.events.list("-30d", end="2100-01-01", page_size=PAGE)
        assert info.value.code == 403
    faults.clear()
    assert len(client.events.list("-30d", end="2100-01-01", page_size=PAGE)) > 0


def test_iter_pages_over_the_platform_equals_the_read(
    platform: ServedPlatform, whole: pd.DataFrame
) -> None:
    client = platform.connect()
    pages = list(client.events.iter_pages("-30d", end="2100-01-01", page_size=PAGE))
    assert sum(map(len, pages)) == len(whole)
    assert [p.attrs["page_no"] for p in pages] == list(range(1, len(pages) + 1))


def test_small_pages_are_typed_together_into_the_frame_of_large_ones(
    platform: ServedPlatform, whole: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read of pages under TYPING_BATCH_ROWS rows types their records that many at a time
    (typing costs a fixed time per call and per page joined): the first page alone, then
    batches; the frame is the one 1000-row pages make."""
    from opslib.client import _pager

    client = platform.connect()
    large = client.events.list("-30d", end="2100-01-01")
    typed: list[int] = []
    page_columns = _pager.page_columns

    def spy(records: list[dict[str, Any]], *args: Any, **kw: Any) -> Any:
        typed.append(len(records))
        return page_columns(records, *args, **kw)

    monkeypatch.setattr(_pager, "page_columns", spy)
    monkeypatch.setattr(C, "TYPING_BATCH_ROWS", 5 * PAGE)  # the small seed has few events
    assert_frame_equal(whole, large)
    small = client.events.list("-30d", end="2100-01-01", page_size=PAGE)
    assert_frame_equal(small, large)
    assert len(large) > 3 * C.TYPING_BATCH_ROWS  # several batches
    assert typed[0] == PAGE
    assert all(n >= C.TYPING_BATCH_ROWS for n in typed[1:-1])
    assert sum(typed) == len(large)
    typed.clear()
    pages = list(client.events.iter_pages("-30d", end="2100-01-01", page_size=PAGE))
    assert typed == [len(page) for page in pages]  # one frame a page: typed a page at a time


def test_no_collection_runs_while_a_page_is_parsed_and_typed(
    platform: ServedPlatform, whole: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page's records live only in its decoding turn, and the collector waits for the
    turn's end: made eager (a pass every 10 allocations), it starts no pass inside a turn,
    and every page's records are released before its turn ends (so no later pass walks
    them, nor moves them to the generation that full passes walk)."""
    from opslib.client import _http
    from opslib.protocol import reads

    monkeypatch.setattr(C, "TYPING_BATCH_ROWS", PAGE)  # each page typed in its own turn
    mine = threading.local()
    page = reads.page

    def spy_page(*args: Any, **kw: Any) -> Any:
        records, total = page(*args, **kw)
        mine.records = records
        return records, total

    others: list[int] = []  # references to a page's records as its turn ends, not ours
    give_back = _http.Decoding.give_back

    def spy_give_back(turns: _http.Decoding) -> None:
        if getattr(turns._local, "kept", False) and getattr(mine, "records", None) is not None:
            others.append(sys.getrefcount(mine.records) - 2)
            mine.records = None
        give_back(turns)

    in_turn: list[int] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and getattr(_http.DECODING._local, "kept", False):
            in_turn.append(info["generation"])

    monkeypatch.setattr(reads, "page", spy_page)
    monkeypatch.setattr(_http.Decoding, "give_back", spy_give_back)
    client = platform.connect()
    before = gc.get_threshold()
    gc.callbacks.append(watch)
    gc.set_threshold(10, *before[1:])
    try:
        df = client.events.list("-30d", end="2100-01-01", page_size=PAGE)
    finally:
        gc.set_threshold(*before)
        gc.callbacks.remove(watch)
    assert_frame_equal(df, whole)
    assert len(others) > len(whole) // PAGE // 2  # the pool's pages, each in its turn
    assert others == [0] * len(others)
    assert in_turn == []
    assert gc.isenabled()


def first_try(pages: range) -> Callable[[Sent], bool]:
    """The first request of each page of ``pages`` (its retry then goes through)."""
    tried: set[int] = set()

    def first(sent: Sent) -> bool:
        n = page_no(sent)
        if n not in pages or n in tried:
            return False
        tried.add(n)
        return True

    return first


class Limits:
    """Each page taken with the pages in flight then allowed (``InFlight.limit``), in the
    order the reading thread takes them: what the pager decided, whatever the timing of
    the threads (the requests out at once at the transport follow it a page or two late)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from opslib.client import _pager

        self.seen: list[int] = []
        taken = _pager.InFlight.taken

        def spy(flight: _pager.InFlight) -> None:
            taken(flight)
            self.seen.append(flight.limit)

        monkeypatch.setattr(_pager.InFlight, "taken", spy)

    def halved(self) -> tuple[int, int]:
        """The limit before it first fell, and what it fell to. A 429 reaches the reading
        thread when a pool thread meets it, which may be before or after the reader takes
        the pages just before the throttled one: not at a page number known in advance."""
        fell = next(i for i in range(1, len(self.seen)) if self.seen[i] < self.seen[i - 1])
        return max(self.seen[:fell]), self.seen[fell]


def test_pages_in_flight_halve_when_the_platform_throttles(
    platform: ServedPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 429 to the first request of pages 30 to 33: the read has fewer requests out at once
    after them than before (each page's retry reads it), and the frame is whole."""
    faults = Faults()
    throttled = range(30, 34)
    when = first_try(throttled)
    faults.status(RECORDS, 429, headers={"Retry-After": "0"}, times=None, when=when)
    client = platform.connect(transport=faults, concurrency=C.INITIAL_IN_FLIGHT)
    limits = Limits(monkeypatch)
    df = client.events.list("-30d", end="2100-01-01", page_size=5)
    assert df["event_id"].is_unique
    assert len(df) == df.attrs["total"] > 45 * 5
    assert sorted(page_no(s) for s in faults.to(RECORDS) if s.fault) == list(throttled)
    before, after = limits.halved()
    assert before == C.INITIAL_IN_FLIGHT  # the cap
    assert after == C.INITIAL_IN_FLIGHT // 2  # halved (then grows back one page a round)


def test_pages_in_flight_halve_on_a_rate_limit_code_in_a_200_body(
    platform_factory: Callable[..., ServedPlatform], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A vendor platform says "too many requests" only in the body of an HTTP 200 (its code
    10008, RateLimited in its dialect), here to the first request of pages 30 to 33: the
    read has fewer requests out at once after them than before, and the frame is whole."""
    vendor = platform_factory(dialect="vendor")
    codes = Dialect.named("vendor").errors.codes
    rate_limited = next(c for c, n in codes.items() if n == "RateLimited")
    throttled = range(30, 34)
    faults = Faults()
    faults.error_in_200(RECORDS, rate_limited, times=None, when=first_try(throttled))
    client = vendor.connect(transport=faults, concurrency=C.INITIAL_IN_FLIGHT)
    limits = Limits(monkeypatch)
    df = client.events.list("-30d", end="2100-01-01", page_size=5)
    assert df["event_id"].is_unique
    assert len(df) == df.attrs["total"] > 45 * 5
    assert sorted(page_no(s) for s in faults.to(RECORDS) if s.fault) == list(throttled)
    before, after = limits.halved()
    assert before == C.INITIAL_IN_FLIGHT
    assert after == C.INITIAL_IN_FLIGHT // 2
