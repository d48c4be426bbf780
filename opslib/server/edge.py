"""The HTTP edge that makes the reference platform speak another dialect.

The core (routes, services, store) keeps opslib's semantics (``docs/protocol.md``); this
ASGI middleware translates each request into them and each answer out of them, per a
:class:`~opslib.dialects.Dialect` (``opslib server --dialect vendor``,
``create_app(dialect=...)``). Under the reference dialect it is not installed at all.

Requests: the token call's parameters are read only where the dialect says (the query
string, or a form body); ``start``/``end`` in seconds become milliseconds; a page larger
than ``paging.max_page_size`` is cut to it without an error.

Answers: a failure's ``error_code`` becomes the dialect's code for the same exception
class, its sentence goes in the dialect's first message field, and with ``signalling =
"body"`` the HTTP status is 200 and ``data`` null; a failed add/delete is a bare string
on HTTP 200 when the dialect lists bare-string failures; ``gmt_*`` are written in the
dialect's format and zone; ``total`` counts pages where the dialect says; ``expires_in``
is in the dialect's unit; ``openid`` is an app-scoped id apart from the user_id; a fleet
read the caller may not make answers an empty success where
``capabilities.fleet_refusal = "empty"``.

>>> from opslib.dialects import Dialect
>>> TimeWriter(Dialect.named("vendor")).write("2024-05-01 00:00:00")
'2024-05-01T08:00:00+08:00'
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import orjson

from opslib.dialects import Dialect, zone_of
from opslib.server.compression import compress_at_edge, take_accept_encoding
from opslib.timeutil import GMT_FORMAT

__all__ = ["DialectEdge", "TimeWriter"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_TOKEN_PATH = "/token/access"  # noqa: S105 - a path, not a secret
_PAGED = {"/device/query_by_user": "device_list", "/device/query_record": "events_list"}
_BARE = frozenset({"/product/add", "/product/delete"})
_FLEET_EVENTS = 3  # /device/query_record query_model of the whole fleet (protocol §4)
# The reference platform's status -> exception class name (docs/protocol.md §3).
_CLASS_OF_STATUS = dict(Dialect().errors.codes)
_CLASS_OF_STATUS[405] = "BadRequest"


class TimeWriter:
    """Writes the reference platform's ``gmt_*`` text (UTC) in a dialect's format."""

    def __init__(self, dialect: Dialect) -> None:
        self.format = dialect.times.gmt_format
        self.zone = zone_of(dialect.times.zone)

    def write(self, value: Any) -> Any:
        if not isinstance(value, str) or not value:
            return value
        try:
            moment = dt.datetime.strptime(value, GMT_FORMAT).replace(tzinfo=dt.UTC)
        except ValueError:
            return value
        if self.format == "epoch_ms":
            return str(int(moment.timestamp()) * 1000)
        if self.format == "epoch_s":
            return str(int(moment.timestamp()))
        local = moment.astimezone(self.zone)
        if self.format == "iso":
            return local.isoformat()
        return local.strftime(GMT_FORMAT)

    def walk(self, node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(key, str) and key.startswith("gmt_"):
                    node[key] = self.write(value)
                elif isinstance(value, dict | list):
                    self.walk(value)
        elif isinstance(node, list):
            for item in node:
                if isinstance(item, dict | list):
                    self.walk(item)


def scoped_openid(user_id: str) -> str:
    """An app-scoped id for ``user_id``: stable, and never equal to it."""
    return "o_" + hashlib.sha256(f"openid|{user_id}".encode()).hexdigest()[:24]


class DialectEdge:
    """ASGI middleware: the reference platform's HTTP edge in ``dialect``."""

    def __init__(self, app: ASGIApp, dialect: Dialect, max_body: int = 1 << 20) -> None:
        self.app = app
        self.dialect = dialect
        self.max_body = max_body
        self.times = TimeWriter(dialect)
        self.plain_times = dialect.times == Dialect().times
        errors = dialect.errors
        # exception class name -> the dialect's first code for it
        self.code_of: dict[str, int] = {}
        for code, name in errors.codes.items():
            self.code_of.setdefault(name, code)
        self.message_field = errors.message_fields[0]
        self.success = min(errors.success_codes)
        self.refused = min(errors.token_refused_codes) if errors.token_refused_codes else None
        self.failure_text: dict[str, str] = {}
        for needle, name in errors.write_failures.items():
            self.failure_text.setdefault(name, needle)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        accepted = take_accept_encoding(scope)  # the core's answers come plain, to rewrite
        request = await _read(receive, self.max_body + 1)
        state: dict[str, Any] = {}
        if path == _TOKEN_PATH:
            request = self._token_request(scope, request)
        else:
            request = self._envelope_request(path, request, state)
        _set_length(scope, len(request))

        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": request, "more_body": False}
            return await receive()

        start: Message = {}
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            if message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            status, body = self._answer(path, start["status"], b"".join(chunks), state)
            # The core's headers pass, WWW-Authenticate and Cache-Control included: a refused
            # token still says how to authenticate when the dialect answers HTTP 200.
            headers = [
                (k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"
            ]
            body, headers = compress_at_edge(status, body, headers, accepted)
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body, "more_body": False})

        await self.app(scope, replay, capture)

    # -- requests --------------------------------------------------------------------------

    def _token_request(self, scope: Scope, body: bytes) -> bytes:
        if self.dialect.token.params == "query":
            return b""  # the body is not read: only the query string counts
        scope["query_string"] = b""  # a form body only
        return body

    def _envelope_request(self, path: str, body: bytes, state: dict[str, Any]) -> bytes:
        try:
            doc = orjson.loads(body)
        except orjson.JSONDecodeError:
            return body
        params = doc.get("params") if isinstance(doc, dict) else None
        if not isinstance(params, dict):
            return body
        changed = False
        if path == "/device/query_record" and self.dialect.times.range_unit == "s":
            for key in ("start", "end"):
                value = params.get(key)
                if isinstance(value, int) and not isinstance(value, bool):
                    params[key] = value * 1000
                    changed = True
        if path in _PAGED:
            size = params.get("page_size")
            cap = self.dialect.paging.max_page_size
            if isinstance(size, int) and not isinstance(size, bool) and size > cap:
                params["page_size"] = size = cap
                changed = True
            state["page_no"] = params.get("page_no", 1)
            state["page_size"] = size if isinstance(size, int) else 20
            state["fleet"] = (path == "/device/query_by_user" and params.get("user_id") == "") or (
                path == "/device/query_record" and params.get("query_model") == _FLEET_EVENTS
            )
        return orjson.dumps(doc) if changed else body

    # -- answers ---------------------------------------------------------------------------

    def _answer(
        self, path: str, status: int, body: bytes, state: dict[str, Any]
    ) -> tuple[int, bytes]:
        try:
            doc = orjson.loads(body)
        except orjson.JSONDecodeError:
            return status, body
        if path == _TOKEN_PATH:
            return self._token_answer(status, doc)
        if status == 200:
            if path in _BARE and isinstance(doc, str):
                return status, body
            if isinstance(doc, dict):
                self._success(path, doc, state)
            return status, orjson.dumps(doc)
        if not isinstance(doc, dict):
            return status, body
        if (
            status == 403
            and state.get("fleet")
            and self.dialect.capabilities.fleet_refusal == "empty"
        ):
            return 200, self._empty_page(path, doc, state)
        name = _CLASS_OF_STATUS.get(status, "ServerError" if status >= 500 else "APIError")
        message = str(doc.get("error_msg") or "")
        if path in _BARE and name in self.failure_text:
            needle = self.failure_text[name]
            text = message if needle in message else f"{needle}: {message}"
            return 200, orjson.dumps(text)
        return self._failure(status, name, message, doc.get("message_id", ""))

    def _failure(self, status: int, name: str, message: str, message_id: str) -> tuple[int, bytes]:
        code = self.code_of.get(name, status)
        body_only = self.dialect.errors.signalling == "body"
        doc = {
            "error_code": code,
            "message_id": message_id,
            self.message_field: message,
            "data": None if body_only else {},
        }
        return (200 if body_only else status), orjson.dumps(doc)

    def _success(self, path: str, doc: dict[str, Any], state: dict[str, Any]) -> None:
        doc["error_code"] = self.success
        data = doc.get("data")
        if not isinstance(data, dict):
            return
        if not self.plain_times:
            self.times.walk(data)
        if path in _PAGED:
            size = state.get("page_size") or data.get("page_size") or 20
            data["page_size"] = size
            if self.dialect.paging.total == "pages" and isinstance(data.get("total"), int):
                data["total"] = math.ceil(data["total"] / size)

    def _empty_page(self, path: str, doc: dict[str, Any], state: dict[str, Any]) -> bytes:
        data: dict[str, Any] = {
            "total": 0,
            "page_no": state.get("page_no", 1),
            "page_size": state.get("page_size", 20),
            _PAGED[path]: [],
        }
        if path == "/device/query_by_user":
            data["identity_id"] = ""
        envelope = {
            "error_code": self.success,
            "message_id": doc.get("message_id", ""),
            "data": data,
        }
        return orjson.dumps(envelope)

    def _token_answer(self, status: int, doc: Any) -> tuple[int, bytes]:
        if not isinstance(doc, dict):
            return status, orjson.dumps(doc)
        if status == 200:
            user_id = str(doc.get("openid") or "")
            doc["openid"] = scoped_openid(user_id)
            doc["error_code"] = self.success
            if self.dialect.token.expires_in_unit == "ms" and isinstance(
                doc.get("expires_in"), int
            ):
                doc["expires_in"] = doc["expires_in"] * 1000
            return status, orjson.dumps(doc)
        oauth = doc.get("error")
        message = str(doc.get("error_description") or oauth or "")
        if oauth == "invalid_grant" and self.refused is not None:
            code = self.refused
            body_only = self.dialect.errors.signalling == "body"
            out: dict[str, Any] = {"error_code": code, self.message_field: message}
            if body_only:
                out["data"] = None
            return (200 if body_only else status), orjson.dumps(out)
        name = (
            "AuthenticationError"
            if oauth == "invalid_client"
            else _CLASS_OF_STATUS.get(status, "ServerError")
        )
        return self._failure(status, name, message, "")


async def _read(receive: Receive, limit: int) -> bytes:
    """The request body, at most ``limit`` bytes (the core answers 413 past its own cap)."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks)[:limit]


def _set_length(scope: Scope, length: int) -> None:
    headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"content-length"]
    headers.append((b"content-length", str(length).encode()))
    scope["headers"] = headers
