"""Page decoding in helper processes (opslib/_offload.py), against the real platform."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import httpx
import orjson
import pandas as pd
import pytest

from client.faults import Faults, Sent
from opslib.client import _constants as C
from opslib.client import _schemas as S
from opslib.client._frames import build_frame, page_columns
from opslib.client._offload import DecoderPool, check_processes, decode_page, default_processes
from opslib.exceptions import ConfigError, PermissionDenied

if TYPE_CHECKING:
    from tests.conftest import Platform

READY_TIMEOUT = 60.0


@pytest.fixture
def few_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let helpers start for and take reads of a few pages (the small seed is small)."""
    monkeypatch.setattr(C, "OFFLOAD_MIN_PAGES", 2)
    monkeypatch.setattr(C, "OFFLOAD_START_PAGES", 2)


@pytest.fixture
def pool() -> Iterator[DecoderPool]:
    """One helper, started and ready; closed after the test."""
    helpers = DecoderPool(1)
    try:
        assert helpers.wait_ready(READY_TIMEOUT)
        yield helpers
    finally:
        helpers.close()


def _page_body(platform: Platform, page_size: int = 50) -> bytes:
    client = platform.connect(decode_processes=0)
    try:
        data = client.call(
            "/device/query_record",
            {
                "query_model": 3,
                "start": 0,
                "end": 4_102_444_800_000,
                "page_no": 1,
                "page_size": page_size,
            },
        )
    finally:
        client.close()
    return orjson.dumps({"error_code": 200, "message_id": "m", "data": data})


def test_decode_page_types_a_success_envelope_like_the_client(platform: Platform) -> None:
    body = _page_body(platform)
    page = decode_page(body, S.EVENT, "events_list")
    assert page is not None
    data = orjson.loads(body)["data"]
    assert page.rows == len(data["events_list"]) > 0
    assert page.total == data["total"]
    expected = build_frame([page_columns(data["events_list"], S.EVENT, defer=True)], S.EVENT)
    pd.testing.assert_frame_equal(build_frame([page.columns], S.EVENT), expected)


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b'"success"',
        b'{"error_code": 401, "error_msg": "token expired", "message_id": "m", "data": {}}',
        b'{"error_code": 200, "message_id": "m", "data": []}',
        b'{"error_code": 200, "message_id": "m", "data": {"events_list": {}}}',
        b'{"message_id": "m", "data": {"events_list": []}}',
    ],
    ids=[
        "not-json",
        "bare-string",
        "error-envelope",
        "data-not-object",
        "list-not-array",
        "no-error-code",
    ],
)
def test_anything_but_a_success_page_is_left_to_the_caller(body: bytes) -> None:
    assert decode_page(body, S.EVENT, "events_list") is None


def test_a_helper_decodes_pages_and_gives_back_what_it_cannot(
    platform: Platform, pool: DecoderPool
) -> None:
    body = _page_body(platform)
    page = pool.decode(body, S.EVENT)
    assert page is not None
    expected = decode_page(body, S.EVENT, "events_list")
    assert expected is not None
    pd.testing.assert_frame_equal(
        build_frame([page.columns], S.EVENT), build_frame([expected.columns], S.EVENT)
    )
    # An error envelope and a page that fails to type come back as None, and the
    # helper stays usable.
    assert pool.decode(b'{"error_code": 403, "data": {}}', S.EVENT) is None
    bad = b'{"error_code": 200, "data": {"events_list": [1, 2]}}'
    assert pool.decode(bad, S.EVENT) is None
    assert pool.decode(body, S.EVENT) is not None
    assert pool.decoded == 2
    assert pool.alive == 1


def test_a_helper_that_dies_is_dropped_and_the_page_decoded_here(
    platform: Platform, pool: DecoderPool
) -> None:
    body = _page_body(platform)
    (helper,) = pool._helpers
    os.kill(helper.proc.pid, signal.SIGKILL)
    helper.proc.wait()
    assert pool.decode(body, S.EVENT) is None
    assert pool.alive == 0
    assert pool.decode(body, S.EVENT) is None  # no helper left: never waits


def test_a_helper_closed_under_a_reader_gives_the_page_back(
    platform: Platform, pool: DecoderPool
) -> None:
    """``close()`` from another thread while a read uses a helper: the page is decoded here."""
    body = _page_body(platform)
    pool._helpers[0].stdin.close()  # what close() does to a helper a reader holds
    assert pool.decode(body, S.EVENT) is None
    assert pool.alive == 0


def test_close_stops_the_helpers(platform: Platform) -> None:
    pool = DecoderPool(2)
    assert pool.wait_ready(READY_TIMEOUT)
    deadline = time.monotonic() + READY_TIMEOUT
    while pool.alive < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    procs = [h.proc for h in pool._helpers]
    assert len(procs) == 2
    pool.close()
    assert all(p.poll() is not None for p in procs)
    assert pool.decode(_page_body(platform), S.EVENT) is None


@pytest.mark.usefixtures("few_pages")
def test_events_read_with_a_helper_equals_the_read_without(platform: Platform) -> None:
    plain = platform.connect(decode_processes=0)
    helped = platform.connect(decode_processes=1)
    try:
        expected = plain.events.list("-30d", page_size=20)
        assert helped._decoders.wait_ready(READY_TIMEOUT)
        got = helped.events.list("-30d", page_size=20)
        assert len(got) > 100  # enough pages for the helper to take some
        assert helped._decoders.decoded > 0
        assert plain._decoders.decoded == 0
        pd.testing.assert_frame_equal(got, expected)
        assert got.attrs == expected.attrs
    finally:
        plain.close()
        helped.close()


@pytest.mark.usefixtures("few_pages")
def test_devices_read_with_a_helper_equals_the_read_without(platform: Platform) -> None:
    plain = platform.connect(decode_processes=0)
    helped = platform.connect(decode_processes=1)
    try:
        expected = plain.devices.list(page_size=2)
        assert helped._decoders.wait_ready(READY_TIMEOUT)
        got = helped.devices.list(page_size=2)
        assert helped._decoders.decoded > 0
        pd.testing.assert_frame_equal(got, expected)
    finally:
        plain.close()
        helped.close()


def test_small_reads_start_no_helper(platform: Platform) -> None:
    client = platform.connect(decode_processes=1)
    try:
        client.events.list("-30d")  # one page of 1000
        client.events.list("-30d", page_size=100)  # a few pages: below OFFLOAD_MIN_PAGES
        assert not client._decoders._started
        assert client._decoders.alive == 0
    finally:
        client.close()


def test_mid_reads_use_running_helpers_but_start_none(
    platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(C, "OFFLOAD_MIN_PAGES", 2)
    monkeypatch.setattr(C, "OFFLOAD_START_PAGES", 10_000)
    client = platform.connect(decode_processes=1)
    try:
        client.events.list("-30d", page_size=20)
        assert not client._decoders._started  # too short to pay for a helper's start
        assert client._decoders.wait_ready(READY_TIMEOUT)  # started by a longer read, say
        client.events.list("-30d", page_size=20)
        assert client._decoders.decoded > 0
    finally:
        client.close()


def test_closing_the_client_stops_its_helpers(platform: Platform) -> None:
    client = platform.connect(decode_processes=1)
    assert client._decoders.wait_ready(READY_TIMEOUT)
    procs = [h.proc for h in client._decoders._helpers]
    client.close()
    assert procs
    assert all(p.poll() is not None for p in procs)
    assert client._decoders.decode(_page_body(platform), S.EVENT) is None
    client._decoders.start()  # a closed pool starts nothing again
    assert client._decoders.alive == 0
    assert not client._decoders._helpers


def test_the_number_of_helpers_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    for cpus in (1, 2, 3, 4, 64):  # none unless asked, whatever the machine
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, n=cpus: set(range(n)))
        assert default_processes() == 0
    monkeypatch.setenv(C.DECODE_PROCESSES_ENV, "0")
    assert default_processes() == 0
    monkeypatch.setenv(C.DECODE_PROCESSES_ENV, "3")
    assert default_processes() == 3
    for bad in ("two", "-1", "1.5"):
        monkeypatch.setenv(C.DECODE_PROCESSES_ENV, bad)
        with pytest.raises(ConfigError, match=r"OPSLIB_DECODE_PROCESSES.*whole number"):
            default_processes()
    for value in (-1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="decode_processes must be a whole number"):
            check_processes(value)


def test_connect_refuses_a_bad_number_of_helpers(platform: Platform) -> None:
    with pytest.raises(ValueError, match=r"decode_processes.*got -2"):
        platform.connect(decode_processes=-2)


def test_a_schema_helpers_do_not_know_is_decoded_here(
    platform: Platform, pool: DecoderPool
) -> None:
    assert pool.decode(_page_body(platform), S.PRODUCT) is None
    assert pool.decode(_page_body(platform), S.EVENT) is not None  # the helper is back


def test_no_helper_with_zero_processes(platform: Platform) -> None:
    pool = DecoderPool(0)
    assert not pool.wait_ready(0.2)
    assert pool.decode(b"{}", S.EVENT) is None


def _error_in_200(code: int) -> Any:
    """A platform that answers errors with HTTP 200 and the code inside the envelope."""

    def answer(request: httpx.Request) -> httpx.Response:
        body = {"error_code": code, "message_id": "", "error_msg": "injected", "data": {}}
        return httpx.Response(200, content=orjson.dumps(body))

    return answer


def _page(n: int) -> Callable[[Sent], bool]:
    return lambda sent: (sent.body or {}).get("params", {}).get("page_no") == n


@pytest.mark.usefixtures("few_pages")
def test_an_expired_token_inside_a_200_is_refreshed_as_without_helpers(
    platform: Platform,
) -> None:
    expected = platform.connect(decode_processes=0).events.list("-30d", page_size=20)
    faults = Faults()
    client = platform.connect(decode_processes=1, transport=faults)
    try:
        assert client._decoders.wait_ready(READY_TIMEOUT)
        faults._add("/device/query_record", "401 in 200", _error_in_200(401), 1, _page(3))
        got = client.events.list("-30d", page_size=20)
        assert [s.fault for s in faults.to("/device/query_record")].count("401 in 200") == 1
        assert faults.count("/token/access") >= 1  # refreshed, then page 3 again
        pd.testing.assert_frame_equal(got, expected)
    finally:
        client.close()


@pytest.mark.usefixtures("few_pages")
def test_an_error_inside_a_200_is_raised_as_without_helpers(platform: Platform) -> None:
    faults = Faults()
    client = platform.connect(decode_processes=1, transport=faults)
    try:
        assert client._decoders.wait_ready(READY_TIMEOUT)
        faults._add("/device/query_record", "403 in 200", _error_in_200(403), 1, _page(4))
        with pytest.raises(PermissionDenied, match="injected") as info:
            client.events.list("-30d", page_size=20)
        assert info.value.code == 403
    finally:
        client.close()
