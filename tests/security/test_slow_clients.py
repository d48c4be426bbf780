"""Slow and vanishing clients, against a real uvicorn server on loopback.

A connection sending nothing, half a header or part of a body stayed open after 130 s,
and a client going away mid-body logged "internal error" with a ClientDisconnect
traceback. Here the deadlines are shortened to 0.5 s (``Settings.header_timeout_s``,
``body_timeout_s``; 10 s and 30 s by default) and raw sockets play the client.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from server.factories import build_world

from opslib.server import Settings
from opslib.server.runner import start_in_thread

DEADLINE_S = 0.5
PATIENCE_S = 5.0  # far beyond the deadline: a connection still open then was never closed


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    world = build_world(tmp_path / "slow.db", now=int(time.time() * 1000))
    settings = Settings(header_timeout_s=DEADLINE_S, body_timeout_s=DEADLINE_S)
    base_url, stop = start_in_thread(world.db, settings=settings)
    host, port = base_url.removeprefix("http://").split(":")
    try:
        yield host, int(port)
    finally:
        stop()


def _connect(server: tuple[str, int]) -> socket.socket:
    sock = socket.create_connection(server, timeout=PATIENCE_S)
    sock.settimeout(PATIENCE_S)
    return sock


def _until_closed(sock: socket.socket) -> tuple[bytes, float]:
    """Everything the server sends until it closes, and how long that took (s)."""
    started = time.monotonic()
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except TimeoutError:
        pytest.fail(f"the server kept the connection open for {PATIENCE_S} s: {received!r}")
    except ConnectionResetError:
        pass
    return received, time.monotonic() - started


def _request_head(
    length: int, path: bytes = b"/user/login", content_type: bytes = b"application/json"
) -> bytes:
    return b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n" % (
        path,
        content_type,
        length,
    )


def test_a_connection_that_sends_nothing_is_closed(server: tuple[str, int]) -> None:
    with _connect(server) as sock:
        received, waited = _until_closed(sock)
    assert received.startswith(b"HTTP/1.1 408 ")
    assert waited < DEADLINE_S + 2


def test_half_a_header_is_closed_even_when_it_trickles(server: tuple[str, int]) -> None:
    with _connect(server) as sock:
        started = time.monotonic()
        for byte in b"POST /user/login HTTP/1.1\r\nHost: x\r\nX-Slow: ":  # a byte per 50 ms
            try:
                sock.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                break
            time.sleep(0.05)
        received, _ = _until_closed(sock)
    assert received.startswith(b"HTTP/1.1 408 ")
    assert time.monotonic() - started < DEADLINE_S + 3


def test_part_of_a_body_is_closed_and_logged_without_a_traceback(
    server: tuple[str, int], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with _connect(server) as sock:
        sock.sendall(_request_head(100) + b'{"message_id": ')
        received, waited = _until_closed(sock)
    assert received.startswith(b"HTTP/1.1 408 ")
    assert waited < DEADLINE_S + 2
    _assert_logged_at_info(caplog)


def test_a_client_gone_mid_body_is_an_info_line(
    server: tuple[str, int], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    aborts = [  # the three aborts, and the token op's form body
        (b"/user/login", b"application/json"),
        (b"/device/report", b"application/json"),
        (b"/user/register", b"application/json"),
        (b"/token/access", b"application/x-www-form-urlencoded"),
    ]
    for path, content_type in aborts:
        with _connect(server) as sock:
            sock.sendall(_request_head(1000, path, content_type) + b'{"message_id": ')
        time.sleep(0.2)
    _assert_logged_at_info(caplog, times=4)


def _assert_logged_at_info(caplog: pytest.LogCaptureFixture, times: int = 1) -> None:
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        gone = [r for r in caplog.records if "client went away" in r.getMessage()]
        if len(gone) >= times:
            break
        time.sleep(0.05)
    assert len(gone) >= times, [r.getMessage() for r in caplog.records]
    assert all(r.levelno == logging.INFO and r.exc_info is None for r in gone)
    errors = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert errors == [], [(r.name, r.getMessage()) for r in errors]
    assert "Traceback" not in caplog.text


def test_headers_over_64_kib_are_refused(server: tuple[str, int]) -> None:
    with _connect(server) as sock:
        head = b"POST /user/login HTTP/1.1\r\nHost: x\r\n"
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(head + b"X-Big: " + b"a" * 70_000 + b"\r\n\r\n")
        received, _ = _until_closed(sock)
    assert received.startswith(b"HTTP/1.1 431 ")


def test_a_prompt_client_is_served_as_before(server: tuple[str, int]) -> None:
    body = orjson.dumps({"message_id": "123e4567-e89b-12d3-a456-426614174000"})
    with _connect(server) as sock:
        for _ in range(2):  # two requests on one keep-alive connection
            sock.sendall(_request_head(len(body)) + body)
            answer = sock.recv(65536)
            assert answer.startswith(b"HTTP/1.1 400 "), answer  # user_id and params missing
            time.sleep(DEADLINE_S * 1.5)  # idle between requests: keep-alive, not a deadline
