"""The one exception the platform raises on purpose, and how it maps to the wire.

``ApiError`` carries the HTTP status (which equals ``error_code``, protocol §3), the
``error_msg`` sentence, optional extra ``data`` (``retry_after``) and headers. Raised inside
a write transaction it rolls the transaction back, unless ``persist`` says the writes made
so far must stay (a wrong SMS code still counts as an attempt).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["BASIC_CHALLENGE", "BEARER_CHALLENGE", "ApiError", "OAuthError", "too_many"]

# Every 401 says how to authenticate (RFC 9110 §11.6.1): an access token (RFC 6750 §3),
# or client (or device) credentials.
BEARER_CHALLENGE = 'Bearer realm="opslib"'
INVALID_TOKEN_CHALLENGE = 'Bearer realm="opslib", error="invalid_token"'  # noqa: S105
BASIC_CHALLENGE = 'Basic realm="opslib"'


class ApiError(Exception):
    """A failure answered with the protocol's failure envelope."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        data: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        persist: bool = False,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.data = dict(data or {})
        self.headers = dict(headers or {})
        self.persist = persist
        self.echo = ""  # the message_id to answer with, when it came from a refused body


class OAuthError(Exception):
    """A ``/token/access`` failure: flat body with an RFC 6749 ``error`` code."""

    def __init__(
        self,
        status: int,
        error: str,
        description: str,
        *,
        persist: bool = False,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(description)
        self.status = status
        self.error = error
        self.description = description
        self.persist = persist
        self.headers = dict(headers or {})


def too_many(message: str, retry_after_ms: int) -> ApiError:
    """A 429 with ``Retry-After`` (whole seconds, at least 1) and ``data.retry_after``.

    Examples
    --------
    >>> too_many("slow down", 1500).headers
    {'Retry-After': '2'}
    """
    seconds = max(1, -(-retry_after_ms // 1000))
    return ApiError(
        429, message, data={"retry_after": seconds}, headers={"Retry-After": str(seconds)}
    )
