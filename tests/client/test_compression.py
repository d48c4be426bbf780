"""Compressed pages: what the client offers, and that it decodes what the platform sends."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx
import pytest
from pandas.testing import assert_frame_equal

from client.faults import Faults, Sent
from opslib.client import _constants as C
from opslib.client import _http
from opslib.client._http import accept_encoding
from opslib.client._stdlib_transport import StdlibTransport

if TYPE_CHECKING:
    from tests.conftest import Platform

RECORDS = "/device/query_record"


def page_no(sent: Sent) -> int:
    return int((sent.body or {}).get("params", {}).get("page_no", 0))


class Seen:
    """Over opslib's transport: each answer's path, Content-Encoding and bytes on the wire."""

    def __init__(self, seen: Codings, request: httpx.Request, pending: Any) -> None:
        self._seen, self._request, self._pending = seen, request, pending

    def finish(self) -> httpx.Response:
        return self._seen.note(self._request, self._pending.finish(), early=True)

    def abandon(self) -> None:
        self._pending.abandon()


class Codings(httpx.BaseTransport):
    def __init__(self) -> None:
        self.inner = StdlibTransport()
        self.answers: list[tuple[str, str, str, bool]] = []  # path, offered, coding, early

    def note(self, request: httpx.Request, response: httpx.Response, *, early: bool) -> Any:
        offered = request.headers.get("accept-encoding", "")
        coding = response.headers.get("content-encoding", "")
        self.answers.append((request.url.path, offered, coding, early))
        return response

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.note(request, self.inner.handle_request(request), early=False)

    def start(self, request: httpx.Request) -> Seen:
        return Seen(self, request, self.inner.start(request))

    def close(self) -> None:
        self.inner.close()


@pytest.mark.parametrize(
    ("url", "offered"),
    [
        ("http://127.0.0.1:8000", "identity"),
        ("http://127.1.2.3", "identity"),
        ("http://localhost:8000", "identity"),
        ("http://[::1]:8000", "identity"),
        ("https://platform.example", C.ACCEPT_ENCODING),
        ("http://192.0.2.10:8000", C.ACCEPT_ENCODING),
        ("http://[2001:db8::1]", C.ACCEPT_ENCODING),
    ],
)
def test_compression_is_offered_to_any_host_but_a_loopback_one(url: str, offered: str) -> None:
    assert accept_encoding(url) == offered


def test_a_loopback_platform_is_read_uncompressed(platform: Platform) -> None:
    seen = Codings()
    client = platform.connect(transport=seen)
    client.events.list("-30d", end="2100-01-01", page_size=20)
    assert seen.answers
    assert {(offered, coding) for _, offered, coding, _ in seen.answers} == {("identity", "")}


def test_compressed_pages_are_decoded_into_the_same_frame(
    platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client of a far platform offers zstd; the pages sent early and the regular calls
    come compressed, and the frame is the one read uncompressed."""
    whole = platform.connect().events.list("-30d", end="2100-01-01", page_size=20)
    monkeypatch.setattr(_http, "accept_encoding", lambda base_url: C.ACCEPT_ENCODING)
    seen = Codings()
    client = platform.connect(transport=seen)
    df = client.events.list("-30d", end="2100-01-01", page_size=20)
    assert_frame_equal(df, whole)
    pages = [(coding, early) for path, _, coding, early in seen.answers if path == RECORDS]
    assert {coding for coding, _ in pages} == {"zstd"}
    assert {early for _, early in pages} == {True, False}  # both ways of reading a page


@pytest.mark.parametrize("transport", [StdlibTransport, httpx.HTTPTransport])
def test_a_page_that_does_not_decode_is_read_again(
    platform: Platform, transport: type[httpx.BaseTransport]
) -> None:
    """A zstd answer that is not zstd (a broken proxy, a cut body): that page is asked for
    again, as a lost answer is, and the frame is whole."""
    whole = platform.connect().events.list("-30d", end="2100-01-01", page_size=20)
    faults = Faults(transport())

    def garbled(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"Content-Encoding": "zstd"}, content=b"not zstd")

    faults._add(RECORDS, "garbled", garbled, 1, lambda sent: page_no(sent) == 3)
    df = platform.connect(transport=faults).events.list("-30d", end="2100-01-01", page_size=20)
    assert_frame_equal(df, whole)
    third = [s for s in faults.to(RECORDS) if page_no(s) == 3]
    assert [s.fault for s in third] == ["garbled", ""]
