"""The paging algorithm, driven by a page function (the HTTP side is tested on a real platform)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from opslib.client import _schemas as S
from opslib.client._pager import PagedRead, check_page_size


class Pages:
    """Serves ``rows`` records in pages and records every request (page_no, page_size)."""

    def __init__(self, rows: int, *, shrink_after: int | None = None) -> None:
        self.rows = rows
        self.shrink_after = shrink_after
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
        lo = (page_no - 1) * page_size
        events = [
            {"event_id": f"e-{i:06d}", "gmt_create": "2024-05-01 00:00:00", "event_type": 1}
            for i in range(lo, min(lo + page_size, rows))
        ]
        return {
            "total": self.rows,
            "page_no": page_no,
            "page_size": page_size,
            "events_list": events,
        }


def read(pages: Pages, **kw: Any) -> PagedRead:
    return PagedRead(pages, list_key="events_list", schema=S.EVENT, progress=False, **kw)


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
    # Only decoding is one thread at a time (DECODE_LOCK): four fetches must be waiting at
    # once, or the barrier breaks.
    barrier = threading.Barrier(4, timeout=10)
    inner = Pages(500)

    def fetch(page_no: int, page_size: int) -> dict[str, Any]:
        if page_no > 1:
            barrier.wait()
        return inner(page_no, page_size)

    df = PagedRead(
        fetch, list_key="events_list", schema=S.EVENT, progress=False, page_size=100, concurrency=4
    ).frame()
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


def test_stops_after_a_short_page() -> None:
    pages = Pages(1_000, shrink_after=1)  # data halves after the first page
    df = read(pages, page_size=100, concurrency=1).frame()
    assert len(df) == 500
    assert max(p for p, _ in pages.calls) <= 7


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
    PagedRead(Pages(300), list_key="events_list", schema=S.EVENT, page_size=100).frame()
    assert "page" not in capsys.readouterr().err
    PagedRead(Pages(1_000), list_key="events_list", schema=S.EVENT, page_size=100).frame()
    assert "page" in capsys.readouterr().err
    PagedRead(
        Pages(1_000), list_key="events_list", schema=S.EVENT, page_size=100, progress=False
    ).frame()
    assert "page" not in capsys.readouterr().err


# -- pages sent ahead from one thread ----------------------------------------------------


class SentPages:
    """``send`` for PagedRead over :class:`Pages`: records sends, results and closes, and how
    many requests were out at once."""

    def __init__(self, pages: Pages, *, fail_on: int | None = None) -> None:
        self.pages = pages
        self.fail_on = fail_on
        self.log: list[tuple[str, int]] = []
        self.out = 0
        self.most_out = 0

    def __call__(self, page_no: int, page_size: int) -> Any:
        book = self
        book.log.append(("send", page_no))
        book.out += 1
        book.most_out = max(book.most_out, book.out)

        class Sent:
            def result(self) -> dict[str, Any]:
                book.out -= 1
                book.log.append(("result", page_no))
                if page_no == book.fail_on:
                    raise RuntimeError(f"page {page_no} failed")
                return book.pages(page_no, page_size)

            def close(self) -> None:
                book.out -= 1
                book.log.append(("close", page_no))

        return Sent()


def test_pages_sent_ahead_are_read_by_the_calling_thread_in_order() -> None:
    pages = Pages(2_050)
    send = SentPages(pages)
    df = read(pages, page_size=100, send=send, concurrency=3).frame()
    assert len(df) == 2_050
    assert df["event_id"].is_monotonic_increasing
    assert pages.threads == {threading.current_thread().name}  # no thread of its own
    assert [p for what, p in send.log if what == "result"] == list(range(2, 22))
    assert send.most_out == 3
    assert send.out == 0
    # the next request goes out before an answer is decoded: page 5 right after page 2's
    assert send.log[:5] == [("send", 2), ("send", 3), ("send", 4), ("result", 2), ("send", 5)]


def test_a_short_page_stops_the_read_and_drops_what_was_sent_ahead() -> None:
    pages = Pages(1_000, shrink_after=3)  # from the 4th request on, half the rows
    send = SentPages(pages)
    df = read(pages, page_size=100, send=send, concurrency=4).frame()
    assert df["event_id"].is_unique
    closed = [p for what, p in send.log if what == "close"]
    assert closed
    assert send.out == 0
    assert max(p for what, p in send.log if what == "result") < min(closed)


def test_a_failing_page_raises_and_drops_what_was_sent_ahead() -> None:
    pages = Pages(2_000)
    send = SentPages(pages, fail_on=6)
    with pytest.raises(RuntimeError, match="page 6 failed"):
        read(pages, page_size=100, send=send, concurrency=4).frame()
    assert send.out == 0
    assert {p for what, p in send.log if what == "close"} == {7, 8, 9}  # 10 never went


def test_without_send_ahead_the_thread_pool_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    from opslib.client import _constants as C

    monkeypatch.setattr(C, "SEND_AHEAD", False)
    pages = Pages(2_050)
    send = SentPages(pages)
    df = read(pages, page_size=100, send=send).frame()
    assert len(df) == 2_050
    assert not send.log
    assert any(t.startswith("opslib-page") for t in pages.threads)


def test_iter_pages_asks_for_the_next_page_while_the_caller_has_this_one() -> None:
    pages = Pages(1_000)
    send = SentPages(pages)
    it = read(pages, page_size=100, send=send).pages()
    first = next(it)
    assert first.attrs["page_no"] == 1
    assert send.log == [("send", 2)]  # page 2 is on its way while the caller has page 1
    second = next(it)
    assert second["event_id"].iloc[0] == "e-000100"
    assert send.log == [("send", 2), ("result", 2), ("send", 3)]
    it.close()  # the caller stops: page 3 was asked for and is dropped
    assert send.log[-1] == ("close", 3)
    assert send.out == 0


def test_iter_pages_asks_for_nothing_past_the_limit_or_the_total() -> None:
    for kw, sends in (({"limit": 250}, [2, 3]), ({}, [2, 3])):
        pages = Pages(300)
        send = SentPages(pages)
        frames = list(read(pages, page_size=100, send=send, **kw).pages())
        assert [len(f) for f in frames] == ([100, 100, 50] if kw else [100, 100, 100])
        assert [p for what, p in send.log if what == "send"] == sends
        assert send.out == 0
