"""Compressed pages: what the client offers, and that it decodes what the platform sends."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
from pandas.testing import assert_frame_equal

from client.faults import Faults, Sent
from opslib.client import _constants as C

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

RECORDS = "/device/query_record"


def page_no(sent: Sent) -> int:
    return int((sent.body or {}).get("params", {}).get("page_no", 0))


class Codings(httpx.BaseTransport):
    """Each answer's path, the codings the request offered, and the answer's coding."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.answers: list[tuple[str, str, str]] = []  # path, offered, coding

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        offered = request.headers.get("accept-encoding", "")
        coding = response.headers.get("content-encoding", "")
        self.answers.append((request.url.path, offered, coding))
        return response

    def close(self) -> None:
        self.inner.close()


def test_compression_is_offered_to_every_platform_loopback_too(platform: ServedPlatform) -> None:
    """Whatever the address (a tunnel's is a loopback one, with a network behind it), every
    request offers zstd first; the platform's pages come compressed."""
    seen = Codings()
    client = platform.connect(transport=seen)
    client.events.list("-30d", end="2100-01-01", page_size=20)
    assert {offered for _, offered, _ in seen.answers} == {C.ACCEPT_ENCODING}
    assert C.ACCEPT_ENCODING.startswith("zstd")
    assert {coding for path, _, coding in seen.answers if path == RECORDS} == {"zstd"}


def test_compressed_pages_are_decoded_into_the_same_frame(platform: ServedPlatform) -> None:
    """Pages read compressed make the frame the same pages make uncompressed (a transport
    that offers no coding: httpx then sends ``identity``)."""

    class Identity(httpx.BaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.HTTPTransport()

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            request.headers["Accept-Encoding"] = "identity"
            return self.inner.handle_request(request)

    plain = platform.connect(transport=Identity())
    whole = plain.events.list("-30d", end="2100-01-01", page_size=20)
    seen = Codings()
    df = platform.connect(transport=seen).events.list("-30d", end="2100-01-01", page_size=20)
    assert_frame_equal(df, whole)
    assert {coding for path, _, coding in seen.answers if path == RECORDS} == {"zstd"}


def test_a_page_that_does_not_decode_is_read_again(platform: ServedPlatform) -> None:
    """A zstd answer that is not zstd (a broken proxy, a cut body): that page is asked for
    again, as a lost answer is, and the frame is whole."""
    whole = platform.connect().events.list("-30d", end="2100-01-01", page_size=20)
    faults = Faults()

    def garbled(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"Content-Encoding": "zstd"}, content=b"not zstd")

    faults._add(RECORDS, "garbled", garbled, 1, lambda sent: page_no(sent) == 3)
    df = platform.connect(transport=faults).events.list("-30d", end="2100-01-01", page_size=20)
    assert_frame_equal(df, whole)
    third = [s for s in faults.to(RECORDS) if page_no(s) == 3]
    assert [s.fault for s in third] == ["garbled", ""]
