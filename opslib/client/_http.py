"""The wire: httpx's transport, the envelope, decoding, and retries.

A call is retried when repeating it cannot do harm: a read, or a write sent again with the
*same* message_id (the platform replays the first answer, protocol §10). Operations that are
neither (the exchange of an authorization code, a login by SMS code) are repeated only when
the request certainly never left (a refused connection). ``_should_retry`` decides, one
commented branch per reason, and logs each retry on the ``opslib`` logger at DEBUG.

What a success and a failure look like, and the token call's form, follow the platform's
dialect, through its :class:`~opslib.protocol.codec.Codec` (``http.codec``).

The transport is httpx's: the caller's (``connect(transport=...)``) or httpx's own through
the environment's proxy, a pool a connection (:class:`Pools`), used only by its contract,
``handle_request``, with whole requests (URL, headers, timeouts): what ``httpx.Client``
adds costs CPU a page and serves this API nothing (docs/performance.md). The pages of a
paged read go through it from a pool of threads (:mod:`opslib.client._pager`), their
answers parsed one at a time (:data:`DECODING`). Each exchange is logged on the ``opslib``
logger at DEBUG, by path (never a query string).

Answers come compressed (protocol §2): every request offers the codings httpx decodes
(``zstd`` with the ``zstandard`` package, which opslib requires, then ``gzip`` and
``deflate``), to any platform: a zstd-1 page decodes in a fraction of a millisecond, less
than its bytes cost on any link, and a platform behind a tunnel has a loopback address
and a network between (docs/performance.md, "Compression").

Every 429 or 503 is counted (:attr:`HTTP.throttles`): the platform's rate limit is per
token, so every read of the session slows down when the count moves.

A :class:`~opslib.client._settings.Secret` (a password, a client secret, a token) shows
its value only in the bytes of a request (``_settings.encode``, ``_settings.reveal``).
"""

from __future__ import annotations

import contextlib
import enum
import gc
import logging
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx
import orjson

from opslib.client import _constants as C
from opslib.client._defaults import default_timeout, default_transports, user_agent
from opslib.client._settings import Secret, encode, reveal
from opslib.dialects import Dialect
from opslib.exceptions import APIError, OutcomeUnknown, RequestTimeout, TransportError
from opslib.protocol.codec import Codec, Moments
from opslib.protocol.errors import asked_wait
from opslib.protocol.operations import AUTH_CODE, Operation

__all__ = ["DECODING", "HTTP", "Decoding", "Pools", "Safety", "status_error"]

log = logging.getLogger("opslib")

# The request never reached the platform: always safe to send again.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
# The request may have reached the platform and the answer was lost (or came garbled: a
# compressed body that does not decode).
_MAYBE_SENT = (
    httpx.DecodingError,
    httpx.ReadError,
    httpx.WriteError,
    httpx.ReadTimeout,
    httpx.WriteTimeout,
    httpx.RemoteProtocolError,
    httpx.CloseError,
)


class Safety(enum.Enum):
    """How safe an operation is to send twice."""

    READ = "read"  # reads and logins by password: harmless to repeat
    WRITE = "write"  # recorded writes: repeated with the same message_id, replayed
    ONCE = "once"  # single-use inputs (authorization code, SMS login): only if never sent


class Pools(httpx.BaseTransport):
    """Transports; a request goes to the first with the fewest waiting for an answer
    (httpx's contract, nothing more): httpcore's pool looks at each of its connections as a
    request starts and as an answer ends, so 34 pools of one cost less than one of 34."""

    def __init__(self, transports: list[httpx.HTTPTransport]) -> None:
        self.transports, self._waiting = transports, [0] * len(transports)
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        with self._lock:
            i = self._waiting.index(min(self._waiting))
            self._waiting[i] += 1
        try:
            return self.transports[i].handle_request(request)
        finally:
            with self._lock:
                self._waiting[i] -= 1

    def close(self) -> None:
        for transport in self.transports:
            transport.close()


class Decoding:
    """Turns at decoding (``with DECODING:``, re-entrant): one thread at a time parses an
    answer or types a page, instead of threads contending for the GIL (docs/performance.md,
    "Where the time goes"). A page's turn runs from its answer parsed to the end of its
    typing (:meth:`page`, :meth:`keep`): the other threads' answers wait as bytes, not as a
    thousand dicts each. The collector (``gc``) pauses for the turn, in which the page's
    records die: it never walks them, nor moves them where its full passes walk again.

    Examples
    --------
    >>> turns = Decoding()
    >>> with turns.page():
    ...     turns.keep()  # an answer arrived: its parse and its typing in one turn
    ...     with turns:  # typing re-enters the turn
    ...         pass
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._local = threading.local()

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    @contextlib.contextmanager
    def page(self) -> Iterator[None]:
        """A page's fetch and typing: a turn :meth:`keep` takes inside lasts to the end."""
        local = self._local
        local.page, local.kept = True, False
        try:
            yield
        finally:
            local.page = False
            self.give_back()

    def keep(self) -> None:
        """Inside :meth:`page` (else nothing): take the turn now and keep it to the end of
        the page, or to :meth:`give_back`."""
        local = self._local
        if getattr(local, "page", False) and not local.kept:
            self._lock.acquire()
            local.kept, local.collects = True, gc.isenabled()  # paused by the caller: stays
            gc.disable()

    def give_back(self) -> None:
        """Release a turn :meth:`keep` took (before waiting on anything but the CPU)."""
        local = self._local
        if getattr(local, "kept", False):
            local.kept = False
            if local.collects:
                gc.enable()
            self._lock.release()


DECODING = Decoding()
"""The turns of every read in the process (:mod:`opslib.client._pager`)."""


def _loads(response: httpx.Response) -> Any:
    try:
        with DECODING:
            return orjson.loads(response.content)
    except orjson.JSONDecodeError:
        return None


def status_error(
    response: httpx.Response, *, operation: str, message_id: str = "", codec: Codec | None = None
) -> APIError:
    """The :class:`APIError` for a failed envelope or token response (read by ``codec``'s
    dialect, default the reference platform's)."""
    body = _loads(response)
    return (codec or _REFERENCE).errors.error(
        response.status_code,
        body,
        operation=operation,
        message_id=message_id,
        retry_after=asked_wait(response.headers.get("retry-after"), body),
        response=response,
    )


_REFERENCE = Codec()


class HTTP:
    """One connection pool to one platform, with retries; thread-safe.

    Parameters
    ----------
    base_url
        The platform's base URL.
    timeout
        An ``httpx.Timeout`` or seconds; default :func:`default_timeout`.
    max_retries
        Retries per call after the first attempt.
    retry_deadline
        Total seconds one call may spend, retries and waits included.
    transport
        An httpx transport (tests wrap the real one to inject faults); by default httpx's
        own, in a few pools (:func:`~opslib.client._defaults.default_transports`).
    dialect
        How the platform signals success and failure (default the reference platform's).
    max_connections
        Connections to the platform at once (the pages in flight of a read and a few more).
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: httpx.Timeout | float | None = None,
        max_retries: int = C.DEFAULT_MAX_RETRIES,
        retry_deadline: float = C.DEFAULT_RETRY_DEADLINE,
        transport: httpx.BaseTransport | None = None,
        dialect: Dialect | None = None,
        max_connections: int = C.MAX_CONCURRENCY + C.EXTRA_CONNECTIONS,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.codec = Codec(dialect)
        self.max_retries = max_retries
        self.retry_deadline = retry_deadline
        # How retries wait and measure their deadline (tests pass fakes that do not wait).
        self.sleep: Callable[[float], None] = time.sleep
        self.monotonic: Callable[[], float] = time.monotonic
        limits = httpx.Limits(
            max_connections=max_connections, max_keepalive_connections=max_connections
        )
        self._transport = (
            transport if transport is not None else Pools(default_transports(self.base_url, limits))
        )
        self._closed = False
        timeout = httpx.Timeout(timeout if timeout is not None else default_timeout())
        self._extensions = {"timeout": timeout.as_dict()}
        self._headers = {
            "User-Agent": user_agent(),
            "Accept": "application/json",
            "Accept-Encoding": C.ACCEPT_ENCODING,
        }
        self._json = {**self._headers, "Content-Type": "application/json"}
        self._urls: dict[str, httpx.URL] = {}
        self.throttles = 0
        """The 429s and 503s seen so far (a paged read slows down when it moves)."""
        self._throttles_lock = threading.Lock()

    def _url(self, path: str) -> httpx.URL:
        """The absolute URL of ``path`` (under the base URL's own path), parsed once."""
        url = self._urls.get(path)
        if url is None:
            url = self._urls[path] = httpx.URL(self.base_url + path)
        return url

    def _request(self, path: str, **body: Any) -> httpx.Request:
        """A POST to ``path`` with the client's headers and timeouts; ``body``: httpx's
        ``content`` (JSON), ``data`` or ``params``."""
        headers = self._json if "content" in body else self._headers
        return httpx.Request(
            "POST", self._url(path), headers=headers, extensions=self._extensions, **body
        )

    def close(self) -> None:
        """Close the transport (the caller's too, as httpx.Client does); calls then raise."""
        if not self._closed:
            self._closed = True
            self._transport.close()

    def __del__(self) -> None:
        # A notebook that re-runs connect() drops clients without closing them; release
        # their sockets when they are collected (as openai-python's client does).
        if getattr(self, "_transport", None) is not None:
            with contextlib.suppress(Exception):
                self.close()

    # -- throttling --------------------------------------------------------------------

    def _seen(self, status: int) -> None:
        if status in C.THROTTLE_STATUSES:
            with self._throttles_lock:
                self.throttles += 1

    # -- calls -------------------------------------------------------------------------

    def post_envelope(
        self,
        op: Operation,
        build_body: Callable[[], Mapping[str, Any]],
        *,
        message_id: str,
        safety: Safety,
        moments: Moments = "ms",
    ) -> Any:
        """POST an envelope; return its decoded ``data`` (or the text add/delete promise).

        ``build_body`` is called for every attempt (the codec's envelope), so a retry after
        a token refresh carries the new access token with the same message_id.
        """
        path = op.path
        sent: dict[str, Any] = {}

        def make() -> httpx.Request:
            body = build_body()
            sent["params"] = body.get("params") or {}
            # Secrets stay Secret objects up to here; only the encoded bytes hold them.
            return self._request(path, content=encode(body))

        response = self._send(make, operation=path, message_id=message_id, safety=safety)
        DECODING.keep()  # a page's answer: parsed and typed in one turn
        try:
            body = _loads(response)
            data = self.codec.decode_answer(
                op, response.status_code, body, sent=sent["params"], moments=moments
            )
            if data is not None:
                return data
            raise status_error(response, operation=path, message_id=message_id, codec=self.codec)
        except BaseException:
            DECODING.give_back()  # the caller may refresh the token and send again
            raise

    def post_form(
        self, op: Operation, form: Mapping[str, str | Secret], *, safety: Safety
    ) -> dict[str, Any]:
        """POST the token operation: its fields in the query string (the spec) or a form
        body, as the dialect says; flat JSON out, ``expires_in`` in seconds.

        The exchange's log line names the path only.
        """
        path = op.path
        in_query = self.codec.token_in_query

        def make() -> httpx.Request:
            if in_query:
                return self._request(path, params=reveal(form))
            return self._request(path, data=reveal(form))

        response = self._send(make, operation=path, message_id="", safety=safety)
        body = _loads(response)
        tokens = self.codec.errors.token_fields(response.status_code, body)
        if tokens is not None:
            return tokens
        raise status_error(response, operation=path, codec=self.codec)

    # -- retries -----------------------------------------------------------------------

    def _send(
        self,
        make: Callable[[], httpx.Request],
        *,
        operation: str,
        message_id: str,
        safety: Safety,
    ) -> httpx.Response:
        deadline = self.monotonic() + self.retry_deadline
        attempt = 0
        while True:
            request = make()
            try:
                response = self._exchange(request)
            except httpx.HTTPError as exc:
                delay = self._should_retry(operation, attempt, deadline, safety, exc=exc)
                if delay is None:
                    raise self._transport_failure(exc, operation, message_id, safety) from exc
            else:
                log.debug("POST %s: HTTP %d", operation, response.status_code)
                self._seen(self._status(response))  # a rate-limit code in the body too
                delay = self._should_retry(operation, attempt, deadline, safety, response=response)
                if delay is None:
                    return response
                response.close()
            self.sleep(delay)
            attempt += 1

    def _exchange(self, request: httpx.Request) -> httpx.Response:
        """One request through the transport, its answer read whole (and decompressed)."""
        if self._closed:
            raise RuntimeError("the client is closed: connect() again to make calls")
        response = self._transport.handle_request(request)
        response.request = request
        try:
            response.read()
        except BaseException:
            response.close()
            raise
        return response

    def _should_retry(
        self,
        operation: str,
        attempt: int,
        deadline: float,
        safety: Safety,
        *,
        exc: httpx.HTTPError | None = None,
        response: httpx.Response | None = None,
    ) -> float | None:
        """Seconds to wait before the next attempt, or None to stop here."""
        what = f"POST {operation} (attempt {attempt + 1})"
        backoff = random.uniform(0, min(C.MAX_RETRY_DELAY, C.INITIAL_RETRY_DELAY * 2**attempt))  # noqa: S311 - jitter, not crypto

        status = self._status(response) if response is not None else 0
        if response is not None and status not in C.RETRY_STATUSES:
            # A success or a business error (400/401/403/404/409/413/422/500): final.
            return None
        if attempt >= self.max_retries:
            # Out of attempts: the caller sees the last error.
            log.debug("%s: not retrying, %d retries used", what, self.max_retries)
            return None

        if exc is not None:
            if isinstance(exc, _NOT_SENT):
                # The request never left: sending it again cannot write twice.
                reason, delay = f"{type(exc).__name__} before the request was sent", backoff
            elif isinstance(exc, _MAYBE_SENT) and safety is not Safety.ONCE:
                # The answer was lost. A read is harmless to repeat; a write goes again with
                # the same message_id and the platform replays its first answer.
                reason, delay = f"{type(exc).__name__} after the request was sent", backoff
            else:
                # Single-use input already sent, or an error repeating cannot fix.
                log.debug("%s: not retrying %s", what, type(exc).__name__)
                return None
        else:
            assert response is not None
            retry_after = asked_wait(response.headers.get("retry-after"), None)
            if status == 429 and operation == AUTH_CODE.path and safety is Safety.WRITE:
                # An SMS send refused for its rate: every try counts against the user's
                # SMS quota (a few an hour, a day), so the caller decides when to try again.
                log.debug("%s: not retrying a rate-limited SMS send", what)
                return None
            if status == 429:
                # Throttled before any work was done: wait as long as the platform asks,
                # else as long as its dialect documents for the code (errors.retry_after).
                if retry_after is None:
                    retry_after = self.codec.errors.documented_wait(_loads(response))
                wait = retry_after if retry_after is not None else backoff
                if wait > C.MAX_RETRY_AFTER:
                    log.debug("%s: not retrying, a wait of %.1fs is too long", what, wait)
                    return None
                reason, delay = f"HTTP 429, Retry-After {retry_after}", wait
            elif safety is Safety.ONCE:
                # A 502/503/504 may have come after a single-use input was consumed.
                log.debug("%s: not retrying HTTP %d of a single-use operation", what, status)
                return None
            else:
                # 502/503/504: the platform or a proxy is briefly unavailable.
                wait = max(retry_after or 0.0, backoff)
                reason, delay = f"HTTP {status}", wait

        if self.monotonic() + delay > deadline:
            # Waiting would overrun the call's total deadline.
            log.debug(
                "%s: not retrying (%s), the %.0fs deadline would pass",
                what,
                reason,
                self.retry_deadline,
            )
            return None
        log.debug("%s: retrying in %.2fs: %s", what, delay, reason)
        return delay

    def _status(self, response: httpx.Response) -> int:
        """The HTTP status an answer stands for: a platform signalling failures only in the
        body (HTTP 200) says "too many requests" with a code its dialect maps to RateLimited,
        which is waited out like a 429."""
        status = response.status_code
        if (
            status != 200
            or not self.codec.errors.in_body
            or len(response.content) > C.BODY_FAILURE_MAX_BYTES
        ):
            return status
        return 429 if self.codec.errors.rate_limited(status, _loads(response)) else status

    def _transport_failure(
        self, exc: httpx.HTTPError, operation: str, message_id: str, safety: Safety
    ) -> Exception:
        sent = not isinstance(exc, _NOT_SENT)
        if sent and safety is not Safety.READ:
            advice = (
                f" Repeating it with message_id {message_id} within 24 hours is safe."
                if safety is Safety.WRITE
                else ""
            )
            return OutcomeUnknown(
                f"{operation}: the request was sent but no answer arrived ({type(exc).__name__}); "
                f"it may or may not have taken effect.{advice}",
                operation=operation,
                message_id=message_id,
            )
        cls = RequestTimeout if isinstance(exc, httpx.TimeoutException) else TransportError
        return cls(f"{operation}: {type(exc).__name__}: {exc}", operation=operation, sent=sent)
