"""Success and failure on the wire, by a dialect: read by the client, written by the server.

The client reads an answer as a success only when it is one by the dialect (HTTP 200 and
a success ``error_code`` in a JSON object; an error body is never data), and otherwise
raises the exception the dialect maps the platform's code to (:meth:`ErrorCodec.error`),
with the platform's own code and sentence. The server, speaking a dialect over its core,
answers each of its failures with the dialect's code for it
(:meth:`ErrorCodec.served_code`), in the dialect's shape (:meth:`ErrorCodec.failure`).

>>> from opslib.dialects import Dialect
>>> codec = ErrorCodec(Dialect.named("chint"))
>>> codec.served_code(404, "/device/bind", "params.product_id: no such product")
8110
>>> type(codec.error(200, {"error_code": 8110, "error_description": "no product"},
...                  operation="/device/bind")).__name__
'NotFound'
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from typing import Any

from opslib.dialects import Dialect
from opslib.exceptions import (
    APIError,
    ProtocolError,
    ServerError,
    error_class,
    make_status_error,
)
from opslib.protocol import operations as ops
from opslib.protocol.times import EXPIRES_MS_FROM

__all__ = ["STATUS_CLASSES", "ErrorCodec", "asked_wait"]

# The HTTP statuses the reference platform signals with (protocol §3), and the exception
# class each means.
STATUS_CLASSES: Mapping[int, str] = {**Dialect().errors.codes, 405: "BadRequest"}


class ErrorCodec:
    """A dialect's successes and failures, both ways; immutable, shared by every thread."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        errors = dialect.errors
        # the envelope's own success code (protocol §2) where the dialect reads it as one
        # (CHINT: 200, and 0 among its authorization codes), else its smallest
        self.success_code = 200 if 200 in errors.success_codes else min(errors.success_codes)
        self.message_field = errors.message_fields[0]
        # exception class name -> the dialect's first code for it
        self._code_of: dict[str, int] = {}
        for code, name in errors.codes.items():
            self._code_of.setdefault(name, code)
        self.in_body = errors.signalling != "status"
        """Failures are answered HTTP 200 with the code in the body (the server's side)."""

    # -- reading (the client) ------------------------------------------------------------

    def message(self, body: Mapping[str, Any], default: str) -> str:
        """The platform's sentence: the first message field the dialect names."""
        for name in self.dialect.errors.message_fields:
            value = body.get(name)
            if isinstance(value, str) and value:
                return value
        return default

    def is_success(self, status: int, body: Any) -> bool:
        """An envelope success: HTTP 200 and a success ``error_code`` in a JSON object."""
        return (
            status == 200
            and isinstance(body, dict)
            and body.get("error_code") in self.dialect.errors.success_codes
        )

    def error(
        self,
        status: int,
        body: Any,
        *,
        operation: str,
        message_id: str = "",
        retry_after: float | None = None,
        response: Any = None,
    ) -> APIError:
        """The exception for a failed answer: the platform's code mapped by the dialect,
        else by the HTTP status; the platform's message."""
        code = status
        msg = f"HTTP {status} with a body that is not platform JSON"
        oauth = None
        cls: type[APIError] | None = None
        if isinstance(body, dict):
            raw = body.get("error_code")
            if isinstance(raw, int) and not isinstance(raw, bool):
                if raw in self.dialect.errors.success_codes:
                    raw = status  # a success code on a failed status: the status says
                code = raw
            elif raw is None and status == 200:
                msg = "the answer has no error_code"
            msg = self.message(body, msg if raw is None else f"error_code {code}")
            oauth = body.get("error") if isinstance(body.get("error"), str) else None
            message_id = str(body.get("message_id") or message_id)
        name = self.dialect.errors.codes.get(code)
        if name is not None:
            cls = error_class(name)
        elif code == 200 or (status == 200 and code not in STATUS_CLASSES):
            # HTTP 200 with an answer that is not a success and a code the dialect does
            # not know: the platform failed to say what went wrong.
            cls = ServerError if code == 200 or 500 <= code <= 599 else APIError
            if code != 200:
                msg += (
                    f" (a code the {self.dialect.name} dialect does not know: if the platform "
                    "speaks another, `opslib probe URL` names it)"
                )
        if retry_after is None:
            retry_after = self.documented_wait(body)
        return make_status_error(
            code,
            msg,
            message_id=message_id,
            operation=operation,
            error=oauth,
            retry_after=retry_after,
            response=response,
            cls=cls,
        )

    def documented_wait(self, body: Any) -> float | None:
        """The wait the dialect documents for the code in ``body`` (``errors.retry_after``:
        the CHINT smart cloud's SMS limit, a minute), for an answer without Retry-After."""
        code = body.get("error_code") if isinstance(body, dict) else None
        if isinstance(code, bool) or not isinstance(code, int):
            return None
        return self.dialect.errors.retry_after.get(code)

    def rate_limited(self, status: int, body: Any) -> bool:
        """Whether an answer says "too many requests": a 429, or a code the dialect maps to
        :class:`~opslib.RateLimited` in a 200 body."""
        if status == 429:
            return True
        code = body.get("error_code") if isinstance(body, dict) else None
        return (
            status == 200
            and isinstance(code, int)
            and self.dialect.errors.codes.get(code) == "RateLimited"
        )

    def bare(self, path: str, params: Mapping[str, Any], text: str, status: int) -> str:
        """A bare-string answer of add/delete: the text on success, else raises."""
        errors = self.dialect.errors
        expected = errors.write_success.get(path)
        if expected is not None:
            try:
                wanted = expected.format(**{k: str(v) for k, v in params.items()})
            except (KeyError, IndexError, ValueError):
                wanted = expected
            if text == wanted:
                return text
        lowered = text.lower()
        cls: type[APIError] = APIError
        code = status
        for needle, name in errors.write_failures.items():
            if needle.lower() in lowered:
                cls = error_class(name)
                # the platform's own code for that failure, where its dialect has one
                code = next((c for c, n in errors.codes.items() if n == name), status)
                break
        raise make_status_error(code, text, operation=path, cls=cls)

    def token_fields(
        self, status: int, body: Any, *, as_sent: bool = False
    ) -> dict[str, Any] | None:
        """The token answer's fields (flat, or inside ``data``), ``expires_in`` in seconds;
        None when it is not a success. ``as_sent`` leaves ``expires_in`` as it came (the
        probe learns its unit from it).

        A lifetime in seconds of :data:`~opslib.protocol.times.EXPIRES_MS_FROM` or more
        (35 days) is a platform counting milliseconds, whose dialect this is not: it raises
        :class:`~opslib.exceptions.ProtocolError` rather than log in under a dialect whose
        times, pages and codes are then all in doubt.
        """
        if status != 200 or not isinstance(body, dict):
            return None
        code = body.get("error_code")
        fields = body
        if isinstance(body.get("data"), dict) and "access_token" not in body:
            fields = {**body, **body["data"]}
        if code not in self.dialect.errors.success_codes and not (
            code is None and "access_token" in fields
        ):
            return None
        if "access_token" not in fields:
            return None
        out = dict(fields)
        expires = out.get("expires_in")
        if as_sent or not isinstance(expires, int | float) or isinstance(expires, bool):
            return out
        if self.dialect.token.expires_in_unit == "ms":
            out["expires_in"] = int(expires // 1000)
        elif expires >= EXPIRES_MS_FROM:
            raise ProtocolError(
                operation=ops.TOKEN.path,
                field="expires_in",
                value=expires,
                expected=f"seconds under the dialect {self.dialect.name!r}, less than "
                f"{EXPIRES_MS_FROM:,} (35 days): a platform counting milliseconds speaks "
                "another dialect (`opslib probe URL` names it; token.expires_in_unit)",
            )
        return out

    def refused_refresh(self, exc: APIError) -> bool:
        """Whether a failed refresh means "this refresh token is no good": log in afresh."""
        return exc.error == "invalid_grant" or exc.code in self.dialect.errors.token_refused_codes

    def token_expired(self, exc: APIError) -> bool:
        """Whether a failed call means "the access token expired": refresh, retry once."""
        return exc.code in self.dialect.errors.token_expired_codes

    # -- writing (the server) ------------------------------------------------------------

    def served_code(self, status: int, path: str, message: str) -> int:
        """The dialect's code for a failure of ours: its first matching rule
        (:attr:`Serving.error_rules <opslib.dialects.Serving.error_rules>`), else its first
        code for the failure's class, else our status."""
        lowered = message.lower()
        for rule_status, where, needle, code in self.dialect.serving.error_rules:
            if (
                rule_status == status
                and path.startswith(where)
                and (not needle or needle.lower() in lowered)
            ):
                return code
        name = STATUS_CLASSES.get(status, "ServerError" if status >= 500 else "APIError")
        return self._code_of.get(name, status)

    def served_token_code(self, status: int, oauth: str | None, grant_type: str) -> int:
        """The dialect's code for a refused token call (``invalid_grant`` of a refresh...)."""
        table = self.dialect.serving.token_errors
        if oauth:
            for key in (f"{oauth}/{grant_type}", oauth):
                if key in table:
                    return table[key]
            refused = self.dialect.errors.token_refused_codes
            if oauth == "invalid_grant" and refused:
                return min(refused)
            if oauth == "invalid_client":
                return self._code_of.get("AuthenticationError", status)
        return self.served_code(status, "/token/access", "")

    def failure(
        self, code: int, status: int, message: str, message_id: str | None
    ) -> tuple[int, dict[str, Any]]:
        """A failure in the dialect's shape: (HTTP status, body); ``message_id`` None for
        the token call's flat failure."""
        body: dict[str, Any] = {"error_code": code}
        if message_id is not None:
            body["message_id"] = message_id
        body[self.message_field] = message
        if message_id is not None or self.in_body:
            body["data"] = None if self.in_body else {}
        return (200 if self.in_body else status), body


def asked_wait(header: str | None, body: Any) -> float | None:
    """Seconds an answer asks the client to wait: its ``Retry-After`` header (seconds or an
    HTTP date), else its ``data.retry_after``; None when it asks for nothing.

    >>> asked_wait("3", None), asked_wait(None, {"data": {"retry_after": 1.5}})
    (3.0, 1.5)
    """
    if header:
        try:
            return max(0.0, float(header))
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(header)
            except (TypeError, ValueError):
                when = None
            if when is not None:
                return max(0.0, when.timestamp() - time.time())
    if isinstance(body, dict):
        data = body.get("data")
        if isinstance(data, dict) and isinstance(data.get("retry_after"), int | float):
            return float(data["retry_after"])
    return None
