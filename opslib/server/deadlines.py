"""uvicorn's httptools protocol with deadlines for slow clients (protocol §8).

uvicorn closes a connection idle *between* requests (``timeout_keep_alive``) but waits
forever for a request's headers (a new connection that sends nothing, or half a header
line) and for its body. Here a request's headers must be complete within
``header_timeout_s`` of the connection opening or the request starting, its body within
``body_timeout_s`` of the headers, and its headers must fit in ``max_header_bytes``;
otherwise the client gets a 408 (431 for headers too large) when no response has started
and the connection is closed. An application reading the body then sees the client gone
(``http.disconnect``).

>>> from opslib.server.deadlines import bounded_protocol
>>> bounded_protocol(header_timeout_s=10, body_timeout_s=30).header_timeout_s
10
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["BoundedHttpToolsProtocol", "bounded_protocol"]

log = logging.getLogger("opslib.server.clients")

_REASONS = {408: b"Request Timeout", 431: b"Request Header Fields Too Large"}


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """HttpToolsProtocol whose requests must arrive in time (class attributes set by
    :func:`bounded_protocol`)."""

    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    max_header_bytes: int = 64 * 1024

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._header_bytes = 0

    # -- deadlines -------------------------------------------------------------------------
    def _arm(self, seconds: float, what: str) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._expired, what)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self, what: str) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        log.info("closed a connection: its %s did not arrive in time", what)
        self._refuse(408)

    def _refuse(self, status: int) -> None:
        """Answer ``status`` unless a response is under way, then close the connection.

        During a request's headers the current cycle, if any, is the previous request's;
        during its body it is this request's, whose application then sees the client gone
        (``http.disconnect``) and whose answer is dropped.
        """
        cycle = self.cycle
        reading_body = cycle is not None and not cycle.response_complete and cycle.more_body
        if (
            cycle is None
            or cycle.response_complete
            or (reading_body and not cycle.response_started)
        ):
            body = _REASONS[status]
            self.transport.write(
                b"HTTP/1.1 %d %s\r\ncontent-type: text/plain; charset=utf-8\r\n"
                b"content-length: %d\r\nconnection: close\r\n\r\n%s"
                % (status, body, len(body), body)
            )
        if reading_body and cycle is not None:
            cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()

    # -- uvicorn's callbacks ---------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout_s, "request headers")

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0
        self._arm(self.header_timeout_s, "request headers")

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value))
        super().on_header(name, value)

    def _count(self, size: int) -> None:
        self._header_bytes += size
        if self._header_bytes > self.max_header_bytes and not self.transport.is_closing():
            log.info("closed a connection: request headers over %d bytes", self.max_header_bytes)
            self._disarm()
            self._refuse(431)

    def on_headers_complete(self) -> None:
        if self.transport.is_closing():
            return
        self._arm(self.body_timeout_s, "request body")
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self.transport.is_closing():
            super().on_body(body)

    def on_message_complete(self) -> None:
        self._disarm()
        if not self.transport.is_closing():
            super().on_message_complete()


def bounded_protocol(
    *, header_timeout_s: float, body_timeout_s: float, max_header_bytes: int = 64 * 1024
) -> type[BoundedHttpToolsProtocol]:
    """A protocol class for ``uvicorn.Config(http=...)`` with these bounds."""
    return type(
        "BoundedHttpToolsProtocol",
        (BoundedHttpToolsProtocol,),
        {
            "header_timeout_s": header_timeout_s,
            "body_timeout_s": body_timeout_s,
            "max_header_bytes": max_header_bytes,
        },
    )
