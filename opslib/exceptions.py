"""Every error the client raises, as one tree.

::

    OpsError
    ├── ConfigError                 connect() could not resolve a usable configuration
    ├── Unsupported                 the platform does not offer this (its dialect says so)
    ├── APIError                    the platform answered with an error_code other than 200
    │   ├── BadRequest              400  a field is missing, unknown, mistyped or out of range
    │   ├── AuthenticationError     401  missing, invalid, expired or revoked token / client
    │   ├── PermissionDenied        403  the caller's role or identity does not allow it
    │   ├── NotFound                404  no such object, or one the caller may not see
    │   ├── Conflict                409  already exists, still in use, message_id reused
    │   ├── PayloadTooLarge         413  request body over 1 MiB
    │   ├── VerificationFailed      422  wrong, expired or used SMS code; wrong password
    │   ├── RateLimited             429  too many requests or attempts (``retry_after``)
    │   └── ServerError             500, 503 and any other 5xx
    ├── TransportError              the network failed (wraps the httpx error)
    │   └── RequestTimeout          a connect, read, write or pool timeout (also a TimeoutError)
    ├── OutcomeUnknown              a write was sent but no answer came back, retries exhausted
    ├── BulkWriteError              some rows of a bulk write failed (``results`` holds them all)
    ├── IncompleteRead              a list read got more or fewer rows than the platform's ``total``
    └── ProtocolError               an answer the protocol does not allow (shape, type, unit)

:class:`APIError` carries ``code`` (the error_code), ``error_msg`` (the platform's sentence,
naming the field), ``message_id`` and ``operation`` (the path). Errors of the token
operation are chosen by HTTP status like the others and also carry the OAuth ``error``
(``invalid_grant``, ``invalid_client``, ...). A platform of another dialect
(:mod:`opslib.dialects`) may use codes of its own: ``code`` is then the platform's code and
the class the one its dialect maps it to. No message ever contains a password, a code, a
token or a client secret: the platform's messages name fields, never values of secrets, and
the client never formats request parameters into a message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx
    import pandas as pd

__all__ = [
    "APIError",
    "AuthenticationError",
    "BadRequest",
    "BulkWriteError",
    "ConfigError",
    "Conflict",
    "IncompleteRead",
    "NotFound",
    "OpsError",
    "OutcomeUnknown",
    "PayloadTooLarge",
    "PermissionDenied",
    "ProtocolError",
    "RateLimited",
    "RequestTimeout",
    "ServerError",
    "TransportError",
    "Unsupported",
    "VerificationFailed",
    "error_class",
    "make_status_error",
]


class OpsError(Exception):
    """Base of every error raised by opslib."""


class ConfigError(OpsError):
    """The configuration (arguments, environment, config.toml) is incomplete or invalid."""


class Unsupported(OpsError):
    """The platform does not offer what was asked (its dialect says so, e.g. no whole-fleet
    event query); the message names what to pass instead. Nothing was sent."""


class APIError(OpsError):
    """The platform refused a request; ``code`` is its error_code (equal to the HTTP status)."""

    def __init__(
        self,
        code: int,
        error_msg: str,
        *,
        message_id: str = "",
        operation: str = "",
        error: str | None = None,
        response: httpx.Response | None = None,
    ) -> None:
        self.code = code
        self.error_msg = error_msg
        self.message_id = message_id
        self.operation = operation
        self.error = error  # the OAuth error of the token operation, else None
        self.response = response
        super().__init__(self._format())

    def __str__(self) -> str:
        # Built from the fields, so a caller that adds where it happened (``operation``)
        # changes the message with it.
        return self._format()

    def _format(self) -> str:
        where = f"{self.operation}: " if self.operation else ""
        oauth = f" [{self.error}]" if self.error else ""
        mid = f" (message_id {self.message_id})" if self.message_id else ""
        return f"{where}{self.code}{oauth} {self.error_msg}{mid}"

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only constructor: pickle (multiprocessing, papermill) needs help. The
        # response is left out (it holds a live connection's state).
        state = {k: v for k, v in self.__dict__.items() if k != "response"}
        return (_rebuild_api_error, (type(self), self.code, self.error_msg), state)


def _rebuild_api_error(cls: type[APIError], code: int, msg: str) -> APIError:
    return cls(code, msg)


class BadRequest(APIError):
    """400: the request is malformed; ``error_msg`` names the field and what is allowed."""


class AuthenticationError(APIError):
    """401: the access token or the client credentials were refused."""


class PermissionDenied(APIError):
    """403: the caller's role or identity does not allow the operation."""


class NotFound(APIError):
    """404: the object does not exist or is not visible to the caller."""


class Conflict(APIError):
    """409: the object exists, is still in use, or the message_id was reused."""


class PayloadTooLarge(APIError):
    """413: the request body is over the platform's limit (1 MiB)."""


class VerificationFailed(APIError):
    """422: a wrong, expired or used SMS code, or a wrong password."""


class RateLimited(APIError):
    """429: too many requests; ``retry_after`` is the wait in seconds the platform asked for."""

    def __init__(self, *args: Any, retry_after: float | None = None, **kwargs: Any) -> None:
        self.retry_after = retry_after
        super().__init__(*args, **kwargs)


class ServerError(APIError):
    """500, 503 or another 5xx: the platform failed or is temporarily unavailable."""


_BY_CODE: dict[int, type[APIError]] = {
    400: BadRequest,
    401: AuthenticationError,
    403: PermissionDenied,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    422: VerificationFailed,
    429: RateLimited,
}


def error_class(name: str) -> type[APIError]:
    """The :class:`APIError` subclass called ``name`` (a dialect's code table names them).

    >>> error_class("NotFound").__name__
    'NotFound'
    """
    classes: list[type[APIError]] = [APIError, ServerError, *_BY_CODE.values()]
    cls = {c.__name__: c for c in classes}.get(name)
    if cls is None:
        raise ValueError(f"no APIError class called {name!r}")
    return cls


def make_status_error(
    code: int,
    error_msg: str,
    *,
    message_id: str = "",
    operation: str = "",
    error: str | None = None,
    retry_after: float | None = None,
    response: httpx.Response | None = None,
    cls: type[APIError] | None = None,
) -> APIError:
    """Choose the :class:`APIError` subclass for ``code`` (unless a dialect chose ``cls``);
    the one place that does."""
    if cls is None:
        cls = _BY_CODE.get(code)
    if cls is None:
        cls = ServerError if code >= 500 else APIError
    kwargs: dict[str, Any] = {
        "message_id": message_id,
        "operation": operation,
        "error": error,
        "response": response,
    }
    if cls is RateLimited:
        kwargs["retry_after"] = retry_after
    return cls(code, error_msg, **kwargs)


class TransportError(OpsError):
    """The request could not be completed on the network; ``__cause__`` is the httpx error."""

    def __init__(self, message: str, *, operation: str = "", sent: bool = False) -> None:
        self.operation = operation
        self.sent = sent  # whether the request may have reached the platform
        super().__init__(message)


class RequestTimeout(TransportError, TimeoutError):
    """A connect, read, write or pool timeout; also catchable as the built-in TimeoutError."""


class OutcomeUnknown(OpsError):
    """A write may or may not have happened: it was sent, and every retry failed.

    Repeating the call with the same ``message_id`` (``client.call(..., message_id=...)``)
    is safe within 24 hours: the platform replays the first answer instead of writing twice.
    """

    def __init__(self, message: str, *, operation: str, message_id: str) -> None:
        self.operation = operation
        self.message_id = message_id
        super().__init__(message)


class BulkWriteError(OpsError):
    """Some rows of a bulk write failed; ``results`` is the frame of every row (``ok`` column)."""

    def __init__(self, message: str, *, results: pd.DataFrame) -> None:
        self.results = results
        super().__init__(message)


class IncompleteRead(OpsError):
    """A list read got fewer or more rows than the platform says exist (``total``), each
    record counted once: a page came back short, the paging went wrong (a platform that
    ignores ``page_no``, a total that counts something else) or the data changed during the
    read. Nothing is returned rather than a silently partial or padded frame.

    ``expected`` and ``got`` are row counts (``got`` counts each record once),
    ``duplicates`` the rows that repeated a record already read; ``operation`` is the path
    read.
    """

    def __init__(
        self,
        *,
        operation: str,
        expected: int,
        got: int,
        detail: str = "",
        duplicates: int = 0,
    ) -> None:
        self.operation = operation
        self.expected = expected
        self.got = got
        self.duplicates = duplicates
        extra = f": {detail}" if detail else ""
        repeated = f" ({duplicates} duplicate rows dropped)" if duplicates else ""
        super().__init__(
            f"{operation}: the platform says {expected} rows exist, the read got {got}"
            f"{repeated}{extra}"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        args = (self.operation, self.expected, self.got, str(self), self.duplicates)
        return (_rebuild_incomplete, args)


def _rebuild_incomplete(
    operation: str, expected: int, got: int, text: str, duplicates: int = 0
) -> IncompleteRead:
    err = IncompleteRead(operation=operation, expected=expected, got=got, duplicates=duplicates)
    err.args = (text,)
    return err


class ProtocolError(OpsError):
    """The platform answered something the protocol does not allow: a field of the wrong
    type or shape (``total`` missing or negative, ``data`` not an object), a moment in the
    wrong unit (seconds where milliseconds are due), a record outside the window asked
    for. Nothing is returned rather than a silently wrong result.

    ``operation`` is the path, ``field`` the field (``data.total``), ``value`` what came
    (shortened), ``expected`` what the protocol allows.
    """

    def __init__(self, *, operation: str, field: str, value: Any, expected: str) -> None:
        self.operation = operation
        self.field = field
        self.value = value
        self.expected = expected
        shown = repr(value)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        super().__init__(f"{operation}: {field} is {shown}; expected {expected}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_protocol_error, (self.operation, self.field, self.value, self.expected))


def _rebuild_protocol_error(operation: str, field: str, value: Any, expected: str) -> ProtocolError:
    return ProtocolError(operation=operation, field=field, value=value, expected=expected)
