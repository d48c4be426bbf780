"""A lean HTTP/1.1 transport for httpx, over the standard library's ``http.client``, that
can send a request before its answer is read.

httpx stays the client (requests, timeouts, errors, the fault-injecting transports of the
tests); this replaces only what sits under it, httpcore and h11, for one reason: a paged
read sends its next pages' requests from the calling thread (:meth:`StdlibTransport.start`)
and reads each answer when it needs it (:meth:`Exchange.finish`), so one thread keeps the
platform busy while it decodes, with no thread pool (docs/performance.md: what it buys).

:func:`make_transport` picks it for ``http`` and ``https`` URLs that no proxy applies to;
behind a proxy (``HTTP(S)_PROXY``/``ALL_PROXY`` without a ``NO_PROXY`` match) opslib uses
httpx's own transport, and a paged read's pages are then fetched by a thread pool.

What it keeps from httpcore:

- a keep-alive pool per (scheme, host, port), at most ``max_connections`` in use and
  ``max_keepalive`` idle; waiting for a free connection is bounded by the pool timeout;
- an idle connection the server has closed (readable before a request is sent) is
  dropped, not reused, so an idle notebook does not fail on a stale socket;
- the four httpx timeouts (connect, write, read per socket operation, pool);
- errors as httpx's classes, so the retry rules of ``_http`` see the same types:
  ``ConnectError``/``ConnectTimeout`` (nothing sent), ``WriteError``/``WriteTimeout``,
  ``ReadError``/``ReadTimeout`` and ``RemoteProtocolError`` (maybe sent), ``PoolTimeout``;
- TLS through ``httpx.create_ssl_context()``, the context httpx's transport builds.

One thing it adds: :meth:`StdlibTransport.open_connections` opens the connections a paged
read is about to need side by side, so that a window of pages growing by k pays one round
trip of handshakes, not k one after another in the reading thread.

Connection steps are logged on the ``opslib.transport`` logger at DEBUG (host and port only,
never a path, a query or a header), as httpcore logs its own.

HTTP/1.1 only; no HTTP/2, no proxies, no streaming of request or response bodies (opslib
sends and reads whole JSON documents).
"""

from __future__ import annotations

import contextlib
import http.client
import logging
import select
import socket
import ssl
import threading
import urllib.request
from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

import httpx

from opslib.client import _constants as C

__all__ = [
    "Exchange",
    "OpensConnections",
    "Pending",
    "SendsAhead",
    "StdlibTransport",
    "make_transport",
]

_Key = tuple[str, str, int]

log = logging.getLogger("opslib.transport")


class Pending(Protocol):
    """A request sent whose answer is not read yet (:class:`Exchange`)."""

    def finish(self) -> httpx.Response:
        """Read the answer."""

    def abandon(self) -> None:
        """Drop the answer unread."""


@runtime_checkable
class OpensConnections(Protocol):
    """A transport that can open connections ahead of the requests that will need them
    (:meth:`StdlibTransport.open_connections`)."""

    def open_connections(self, url: httpx.URL, n: int, *, timeout: float | None = None) -> int:
        """Have ``n`` idle connections to ``url``'s host ready."""


@runtime_checkable
class SendsAhead(Protocol):
    """A transport that can send a request before its answer is read
    (:meth:`StdlibTransport.start`; the tests' fault-injecting transport too)."""

    def start(self, request: httpx.Request) -> Pending:
        """Send ``request`` now."""


def _is_dead(sock: socket.socket | None) -> bool:
    """True when an idle connection has something to read: the peer closed it (EOF) or
    sent bytes nobody asked for. Either way it must not carry another request."""
    if sock is None:
        return True
    try:
        if hasattr(select, "poll"):
            poller = select.poll()
            poller.register(sock, select.POLLIN)
            return bool(poller.poll(0))
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable)
    except (OSError, ValueError):
        return True


@contextlib.contextmanager
def _failures(
    conn: http.client.HTTPConnection,
    request: httpx.Request,
    timeout: type[httpx.TimeoutException],
    error: type[httpx.TransportError],
    protocol: type[httpx.TransportError],
) -> Iterator[None]:
    """One step of an exchange: on failure the connection is closed and the error raised as
    the httpx class of that step (a timeout, a socket error, a malformed HTTP answer)."""
    try:
        yield
    except TimeoutError as exc:
        conn.close()
        raise timeout(str(exc) or "timed out", request=request) from exc
    except http.client.HTTPException as exc:
        conn.close()
        raise protocol(str(exc) or type(exc).__name__, request=request) from exc
    except OSError as exc:
        conn.close()
        raise error(str(exc) or type(exc).__name__, request=request) from exc


class StdlibTransport(httpx.BaseTransport):
    """An ``httpx.BaseTransport`` over pooled ``http.client`` connections.

    Parameters
    ----------
    max_connections
        Connections in use at once; a request beyond waits up to the pool timeout (a
        request sent early with a pool timeout of 0 does not wait). Default: enough for a
        read at the largest cap of pages in flight.
    max_keepalive
        Idle connections kept open for reuse (default: ``max_connections``).
    """

    def __init__(
        self,
        *,
        max_connections: int = C.MAX_CONCURRENCY + C.EXTRA_CONNECTIONS,
        max_keepalive: int | None = None,
    ) -> None:
        self.max_connections = max_connections
        self._slots = threading.BoundedSemaphore(max_connections)
        self._max_keepalive = max_connections if max_keepalive is None else max_keepalive
        self._idle: dict[_Key, list[http.client.HTTPConnection]] = {}
        self._lock = threading.Lock()
        self._ssl: ssl.SSLContext | None = None
        self._closed = False
        self.connections_opened = 0  # read by tests

    # -- the pool ----------------------------------------------------------------------

    def _checkout(self, key: _Key) -> http.client.HTTPConnection | None:
        while True:
            with self._lock:
                idle = self._idle.get(key)
                conn = idle.pop() if idle else None
            if conn is None:
                return None
            if not _is_dead(conn.sock):
                return conn
            log.debug("idle connection to %s:%s closed by the server; dropped", key[1], key[2])
            conn.close()

    def _checkin(
        self, key: _Key, conn: http.client.HTTPConnection, *, behind: bool = False
    ) -> None:
        """Keep ``conn`` idle; the last one in is the next one out, unless ``behind``."""
        with self._lock:
            idle = self._idle.setdefault(key, [])
            if not self._closed and len(idle) < self._max_keepalive:
                if behind:
                    idle.insert(0, conn)
                else:
                    idle.append(conn)
                return
        conn.close()

    def _connection(self, key: _Key, timeout: float | None) -> http.client.HTTPConnection:
        """A connection to ``key``, not connected yet."""
        scheme, host, port = key
        if scheme == "https":
            with self._lock:
                if self._ssl is None:
                    self._ssl = httpx.create_ssl_context()
            return http.client.HTTPSConnection(host, port, timeout=timeout, context=self._ssl)
        return http.client.HTTPConnection(host, port, timeout=timeout)

    def _opened(self, key: _Key) -> None:
        with self._lock:
            self.connections_opened += 1
        log.debug("connected to %s://%s:%s", *key)

    def _connect(
        self, request: httpx.Request, key: _Key, timeout: float | None
    ) -> http.client.HTTPConnection:
        conn = self._connection(key, timeout)
        # refused, unreachable, DNS, TLS handshake: nothing was sent
        with _failures(conn, request, httpx.ConnectTimeout, httpx.ConnectError, httpx.ConnectError):
            conn.connect()
        self._opened(key)
        return conn

    def open_connections(self, url: httpx.URL, n: int, *, timeout: float | None = None) -> int:
        """Have ``n`` idle connections to ``url``'s host ready: open the missing ones side by
        side (one short-lived thread each) and put them in the idle pool.

        A paged read calls this before it starts more pages than there are idle connections,
        so that the handshakes of a growing window cost one round trip, not one each in turn.
        Never raises: a connection that fails to open is left out, and the request that
        needed it connects on its own as usual (with its own errors and retries).

        Parameters
        ----------
        url
            Any URL of the platform (its scheme, host and port are used).
        n
            Idle connections wanted (at most ``max_keepalive`` are kept).
        timeout
            Seconds each handshake may take (the connect timeout).

        Returns
        -------
        int
            The connections opened.

        Examples
        --------
        >>> transport = StdlibTransport()
        >>> transport.open_connections(httpx.URL("http://127.0.0.1:1/"), 0)
        0
        """
        if url.scheme not in ("http", "https") or self._closed:
            return 0
        key = (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80))
        with self._lock:
            idle = self._idle.setdefault(key, [])
            dead = [conn for conn in idle if _is_dead(conn.sock)]
            idle[:] = [conn for conn in idle if conn not in dead]
            missing = min(n, self._max_keepalive) - len(idle)
        for conn in dead:
            conn.close()
        if missing <= 0:
            return 0
        opened: list[http.client.HTTPConnection] = []

        def connect() -> None:
            conn = self._connection(key, timeout)
            try:
                conn.connect()
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                log.debug("connecting to %s://%s:%s ahead: %s", *key, type(exc).__name__)
                return
            self._opened(key)
            opened.append(conn)  # list.append is atomic

        threads = [
            threading.Thread(target=connect, name="opslib-connect", daemon=True)
            for _ in range(missing)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # behind the warm ones: the next page, read first, goes on a connection that has
        # carried answers (its TCP congestion window has grown; a fresh one starts small)
        for conn in opened:
            self._checkin(key, conn, behind=True)
        return len(opened)

    # -- one exchange ------------------------------------------------------------------

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.start(request).finish()

    def start(self, request: httpx.Request) -> Exchange:
        """Send ``request`` now and return its :class:`Exchange`, whose ``finish()`` reads the
        answer: one thread can send the next page's request before it decodes this one
        (:meth:`opslib.client._http.HTTP.send_early`). The connection and its pool slot
        belong to the exchange until ``finish()`` or ``abandon()``."""
        url = request.url
        if url.scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(f"unsupported scheme {url.scheme!r}", request=request)
        if self._closed:
            raise RuntimeError("the transport is closed")
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        if not self._slots.acquire(timeout=timeouts.get("pool")):
            raise httpx.PoolTimeout("no free connection within the pool timeout", request=request)
        try:
            key = (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80))
            conn = self._checkout(key) or self._connect(request, key, timeouts.get("connect"))
            self._send(request, conn, timeouts)
        except BaseException:
            self._slots.release()
            raise
        return Exchange(self, request, key, conn, timeouts)

    @staticmethod
    def _send(
        request: httpx.Request, conn: http.client.HTTPConnection, timeouts: dict[str, float | None]
    ) -> None:
        sock = conn.sock
        assert sock is not None
        body = request.read()
        with _failures(conn, request, httpx.WriteTimeout, httpx.WriteError, httpx.WriteError):
            sock.settimeout(timeouts.get("write"))
            conn.putrequest(
                request.method,
                request.url.raw_path.decode("ascii"),  # path and query
                skip_host=True,  # httpx sets Host and Accept-Encoding itself
                skip_accept_encoding=True,
            )
            for name, value in request.headers.raw:
                conn.putheader(name, value)
            conn.endheaders(body or None)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                conn.close()


def _proxied(url: httpx.URL) -> bool:
    proxies: dict[str, Any] = urllib.request.getproxies()
    if not (proxies.get(url.scheme) or proxies.get("all")):
        return False
    return not urllib.request.proxy_bypass(url.host)


def make_transport(
    base_url: str, *, max_connections: int = C.MAX_CONCURRENCY + C.EXTRA_CONNECTIONS
) -> httpx.BaseTransport | None:
    """The transport for a platform at ``base_url``: :class:`StdlibTransport` with
    ``max_connections`` unless a proxy applies; ``None`` means httpx's own (which honours the
    proxy)."""
    url = httpx.URL(base_url)
    if url.scheme not in ("http", "https") or _proxied(url):
        return None
    return StdlibTransport(max_connections=max_connections)


class Exchange:
    """A request that :meth:`StdlibTransport.start` has sent and whose answer is not read
    yet. Exactly one of :meth:`finish` and :meth:`abandon` gives its pool slot back."""

    def __init__(
        self,
        transport: StdlibTransport,
        request: httpx.Request,
        key: _Key,
        conn: http.client.HTTPConnection,
        timeouts: dict[str, float | None],
    ) -> None:
        self._transport = transport
        self._request = request
        self._key = key
        self._conn: http.client.HTTPConnection | None = conn
        self._timeouts = timeouts

    def _release(self) -> http.client.HTTPConnection:
        conn, self._conn = self._conn, None
        if conn is None:
            raise RuntimeError("this exchange is already finished")
        self._transport._slots.release()
        return conn

    def finish(self) -> httpx.Response:
        """Read the answer (the connection goes back to the pool) as an httpx response."""
        conn, request, key = self._conn, self._request, self._key
        if conn is None:
            raise RuntimeError("this exchange is already finished")
        assert conn.sock is not None
        try:
            # a protocol failure here: disconnected, a bad status line, a short body
            read_failures = (httpx.ReadTimeout, httpx.ReadError, httpx.RemoteProtocolError)
            with _failures(conn, request, *read_failures):
                conn.sock.settimeout(self._timeouts.get("read"))
                response = conn.getresponse()
                content = response.read()
        finally:
            self._release()
        if response.will_close:
            log.debug("connection to %s:%s closed after the response", key[1], key[2])
            conn.close()
        else:
            self._transport._checkin(key, conn)
        version = b"HTTP/1.0" if response.version == 10 else b"HTTP/1.1"
        return httpx.Response(
            response.status,
            headers=response.getheaders(),
            stream=httpx.ByteStream(content),
            request=request,
            extensions={
                "http_version": version,
                "reason_phrase": response.reason.encode("ascii", "replace"),
            },
        )

    def abandon(self) -> None:
        """Drop the connection unread (its answer would be in the way of the next request)."""
        if self._conn is not None:
            self._release().close()
