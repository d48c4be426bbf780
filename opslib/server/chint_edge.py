"""``opslib server --dialect chint``: the platform speaking the CHINT smart cloud's dialect.

The core keeps opslib's semantics (``docs/protocol.md``); this ASGI layer translates at the
HTTP edge, per the facts of :mod:`opslib.dialects.chint`:

- requests: 0-based selectors become ours (login_model 0 -> 1; auth_model names the purpose
  of a code, 6 verifies one; the record query has no fleet mode); chint enum codes become
  ours (event_type 0 -> 3 property report, 1 and 2 -> 4 alarm; net_type 0 Wi-Fi -> 1...);
  ``page_size`` over 100 is refused with 460; a missing ``user_id`` where required is 460;
  the caller's own ``user_id`` (required there on ``/device/update_info``) is not a transfer;
  the do-not-disturb ``message_config.start``/``end`` are epoch seconds (their time of day
  in China time is kept, as minutes after midnight);
- answers: HTTP 200 always, the failure a business code in the body (460 parameter
  error, 8104 user does not exist, 8106 wrong password, 8202 device does not exist,
  100001 access token expired...) with its sentence in ``error_description`` and
  ``data: null``; ``gmt_*`` epoch-millisecond numbers; do-not-disturb start/end epoch
  seconds; chint enum codes; ``data: null``
  for add and delete (not a bare string); ``device_secret``/``product_secret`` in reads.

Its demo data (:func:`seed_as_chint`) holds only what that platform reports: property
reports and alarms (no online/offline, command or firmware events), two node types, two
encryption types, vendor types 0/1, product status 0/1; ``meta.dialect`` says so.

``/token/access``: a success is passed through (flat OAuth JSON on both platforms); a
refusal is that platform's flat ``{error_code, error_description}`` with HTTP 200: 100002 an
authorization code that cannot be exchanged (unknown, used or expired), 100003 a refresh
token expired or revoked, 8109 a bad client, 460 a malformed request.

Codes the reference does not document are ours: a conflict other than a phone already
registered (8103) answers 409 in the body (``docs/protocol.md`` "Other platforms").
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import orjson

from opslib.protocol.times import dnd_from_epoch_s, dnd_to_epoch_s
from opslib.server.compression import compress_at_edge, take_accept_encoding

__all__ = ["ChintEdge", "seed_as_chint"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_PAGE_SIZE = 100
# How much of a token request's body is kept to read its grant_type from a form.
MAX_TOKEN_BODY = 8192
# The zone whose time of day the do-not-disturb epoch seconds mean (the chint dialect's).
_ZONE = "Asia/Shanghai"
_DND_FIELDS = ("start", "end")
PARAMETER_ERROR = 460

# Selectors, theirs -> ours, per (path, field).
_SELECTORS_IN: dict[tuple[str, str], dict[int, int]] = {
    ("/user/login", "login_model"): {0: 1, 1: 2},
    ("/user/update_pwd", "update_model"): {0: 1, 1: 2},
    ("/user/query", "query_model"): {0: 1, 1: 2, 2: 3},
    ("/user/query_sys_setting", "query_model"): {0: 1, 1: 3, 2: 2},
    ("/device/query_record", "query_model"): {0: 1, 1: 2},
}
# auth_model: the purpose of a code -> our code_model (send); 6 verifies.
_PURPOSE_IN = {3: 1, 1: 2, 4: 3}
_VERIFY = 6

# Enum codes, ours -> theirs; requests read the inverse.
_EVENT_OUT = {3: 0, 4: 1, 1: 1, 2: 1, 5: 1, 6: 1}
_EVENT_IN = {0: 3, 1: 4, 2: 4}
_NET_OUT = {1: 0, 2: 4, 3: 3, 4: 2, 5: 5}
_NODE_OUT = {1: 0, 2: 1, 3: 0}
_ENCRYPT_OUT = {0: 0, 1: 1, 2: 1}
_USER_STATUS_OUT = {1: 4, 2: 3, 3: 3}
_PRODUCT_OUT = {"net_type": _NET_OUT, "node_type": _NODE_OUT, "encrypt_type": _ENCRYPT_OUT}
_PRODUCT_IN = {
    "net_type": {v: k for k, v in _NET_OUT.items()},
    "node_type": {0: 1, 1: 2},
    "encrypt_type": {0: 0, 1: 1},
    "vendor_type": {0: 0, 1: 1},  # P 179-185: in-house, partner ecosystem (ours 0..99)
    "status": {0: 0, 1: 1},  # P 213-219: developing, released (ours also 2 retired)
}

# Our error codes -> theirs. Not found: by the field the core names (a bind naming an
# unknown product is 8110, not 8202), else by the path's service.
_NOT_FOUND_FIELD = {
    "params.product_id": 8110,
    "params.user_id": 8104,
    "params.user_id_param": 8104,
    "params.device_id": 8202,
}
_NOT_FOUND = {"/user/": 8104, "/device/": 8202, "/product/": 8110}
# Conflicts: the code dictionary has one, 8103 phone already registered. Identity taken,
# product exists, device bound to another and a reused message_id have none there (110000
# is its system's general error, not the caller's conflict): ours, 409, is kept.
CONFLICT = 409
# /token/access: the authorization code's exchange failed (100002), the refresh token is
# expired or revoked (100003), a bad client (8109); any other refusal a parameter error.
_TOKEN_REFUSED = {"authorization_code": 100002, "refresh_token": 100003}
_BAD_CLIENT = 8109


def _error_code(path: str, status: int, message: str) -> int:
    if status == 400:
        return PARAMETER_ERROR
    if status == 401:
        return 100001
    if status == 404:
        field = message.split(":", 1)[0].strip()
        if field in _NOT_FOUND_FIELD:
            return _NOT_FOUND_FIELD[field]
        return next((c for p, c in _NOT_FOUND.items() if path.startswith(p)), 404)
    if status == 409:
        return 8103 if path == "/user/register" else CONFLICT
    if status == 422:
        return 8106 if "password" in message.lower() else 8102
    if status == 429:
        return 8108 if path == "/user/auth_code" else 429
    return status


def _epoch_ms(text: Any) -> Any:
    if not isinstance(text, str) or not text:
        return text
    try:
        moment = dt.datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.UTC)
    except ValueError:
        return text
    return int(moment.timestamp() * 1000)


def _out(node: Any, path: str) -> Any:
    """Our answer's data as theirs: gmt_* epoch ms, enum codes, secrets in reads."""
    if isinstance(node, list):
        return [_out(item, path) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key.startswith("gmt_"):
            out[key] = _epoch_ms(value)
        elif key == "message_config" and isinstance(value, dict):
            out[key] = {
                k: dnd_to_epoch_s(v, _ZONE) if k in _DND_FIELDS and isinstance(v, int) else v
                for k, v in value.items()
            }
        elif key == "event_type" and isinstance(value, int):
            out[key] = _EVENT_OUT.get(value, 1)
        elif key in _PRODUCT_OUT and isinstance(value, int):
            out[key] = _PRODUCT_OUT[key].get(value, value)
        elif key == "vendor_type" and isinstance(value, int):
            out[key] = value % 2
        elif key == "status" and isinstance(value, int) and path.startswith("/user/"):
            out[key] = _USER_STATUS_OUT.get(value, value)
        elif key == "status" and isinstance(value, int) and path.startswith("/product/"):
            out[key] = min(value, 1)
        else:
            out[key] = _out(value, path)
    if "device_id" in out and "mac_addr" in out and "device_secret" not in out:
        out["device_secret"] = "withheld-by-the-reference-platform"  # noqa: S105 - a marker
    if "product_id" in out and "net_type" in out and "product_secret" not in out:
        out["product_secret"] = "withheld-by-the-reference-platform"  # noqa: S105 - a marker
    return out


class _Refused(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _in(path: str, envelope: dict[str, Any]) -> dict[str, Any]:
    """Their request as ours, or :class:`_Refused` (460) naming the parameter."""
    if "params" not in envelope:  # /device/report: no params, passed as it is
        return envelope
    params = dict(envelope.get("params") or {})
    size = params.get("page_size")
    if isinstance(size, int) and not 1 <= size <= MAX_PAGE_SIZE:
        raise _Refused(f"params.page_size: must be 1..{MAX_PAGE_SIZE}, got {size}")
    for (where, field), table in _SELECTORS_IN.items():
        if where == path and field in params:
            if params[field] not in table:
                raise _Refused(f"params.{field}: must be one of {sorted(table)}")
            params[field] = table[params[field]]
    if path == "/user/auth_code":
        model = params.get("auth_model")
        if model == _VERIFY:
            params["auth_model"] = 2
            params["code_model"] = params.get("purpose", 1)
        elif model in _PURPOSE_IN:
            params["auth_model"], params["code_model"] = 1, _PURPOSE_IN[model]
        else:
            raise _Refused(f"params.auth_model: {model!r} is not offered here (1, 3, 4, 6)")
    if path == "/device/query_record":
        if not params.get("user_id"):
            raise _Refused("params.user_id: required")
        selected = params.pop("user_id")
        if params.get("query_model") == 2:
            params.setdefault("user_id_param", selected)
        if "event_type" in params:
            if params["event_type"] not in _EVENT_IN:
                raise _Refused("params.event_type: must be 0 or 1 (2 in 2021 records)")
            params["event_type"] = _EVENT_IN[params["event_type"]]
    if path == "/device/query_by_user" and not params.get("user_id"):
        raise _Refused("params.user_id: required")
    caller = params.get("user_id") == envelope.get("user_id")
    if path in ("/device/query", "/device/update_info") and caller:
        params.pop("user_id")  # the caller: required there, not a transfer
    if path == "/user/update_sys_setting" and isinstance(params.get("message_config"), dict):
        config = dict(params["message_config"])
        for field in _DND_FIELDS:
            value = config.get(field)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _Refused(f"params.message_config.{field}: epoch seconds, got {value!r}")
            config[field] = dnd_from_epoch_s(value, _ZONE)
        params["message_config"] = config
    if path == "/product/add":
        for field, table in _PRODUCT_IN.items():
            if field in params:
                if params[field] not in table:
                    raise _Refused(f"params.{field}: {params[field]!r} is not offered here")
                params[field] = table[params[field]]
    return {**envelope, "params": params}


def _failure(code: int, message: str, message_id: str) -> bytes:
    body = {
        "error_code": code,
        "error_description": message,
        "message_id": message_id,
        "data": None,
    }
    return orjson.dumps(body)


class ChintEdge:
    """ASGI middleware: the CHINT smart cloud's dialect over opslib's platform."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        if path == "/token/access":
            await _token(self.app, scope, receive, send)
            return
        accepted = take_accept_encoding(scope)  # the core's answers come plain, to rewrite
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        raw = b"".join(chunks)
        try:
            envelope = orjson.loads(raw)
        except orjson.JSONDecodeError:
            envelope = None
        message_id = str(envelope.get("message_id", "")) if isinstance(envelope, dict) else ""
        if isinstance(envelope, dict):
            try:
                raw = orjson.dumps(_in(path, envelope))
            except _Refused as exc:
                await _answer(send, _failure(PARAMETER_ERROR, exc.message, message_id))
                return
        sent = False

        async def inner_receive() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}

        status = 200
        headers: list[tuple[bytes, bytes]] = []
        body = bytearray()

        async def inner_send(message: Message) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                body.extend(message.get("body", b""))

        await self.app(scope, inner_receive, inner_send)
        await _answer(
            send,
            *compress_at_edge(
                200, self._translate(path, status, bytes(body), message_id), headers, accepted
            ),
        )

    @staticmethod
    def _translate(path: str, status: int, body: bytes, message_id: str) -> bytes:
        try:
            answer = orjson.loads(body)
        except orjson.JSONDecodeError:
            return _failure(status if status != 200 else 500, "not JSON", message_id)
        if isinstance(answer, str) and status == 200:  # add/delete's bare string: data null
            return orjson.dumps(
                {"error_code": 200, "error_description": "", "message_id": message_id, "data": None}
            )
        if not isinstance(answer, dict):
            return body
        code = int(answer.get("error_code", status) or status)
        if status != 200 or code != 200:
            text = str(answer.get("error_msg") or answer.get("error_description") or "")
            out_id = str(answer.get("message_id", message_id))
            return _failure(_error_code(path, code, text), text, out_id)
        data = answer.get("data")
        # add/delete and the operations that return nothing: null
        empty = isinstance(data, str) or data in ({}, None)
        data = None if empty else _out(data, path)
        return orjson.dumps(
            {
                "error_code": 200,
                "error_description": "",
                "message_id": answer.get("message_id", message_id),
                "data": data,
            }
        )


def _grant_type(scope: Scope, body: bytes) -> str:
    """The token request's grant_type: query parameters there (T 83-121), a form here."""
    for raw in (scope.get("query_string", b""), body):
        found = parse_qs(raw.decode("latin-1")).get("grant_type")
        if found:
            return found[0]
    return ""


def _token_failure(doc: Any, grant_type: str, status: int) -> bytes:
    """A refused token request as that platform answers it: flat, HTTP 200, its code."""
    oauth = doc.get("error") if isinstance(doc, dict) else None
    message = str(doc.get("error_description") or oauth or "") if isinstance(doc, dict) else ""
    if oauth == "invalid_grant":
        code = _TOKEN_REFUSED.get(grant_type, PARAMETER_ERROR)
    elif oauth == "invalid_client":
        code = _BAD_CLIENT
    elif status in (400, 413):
        code = PARAMETER_ERROR
    else:
        code = status
    return orjson.dumps({"error_code": code, "error_description": message or f"HTTP {status}"})


async def _token(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """``/token/access``: a success passes as it is (flat OAuth JSON on both platforms); a
    refusal becomes that platform's business code (:func:`_token_failure`)."""
    seen = bytearray()
    start: Message | None = None
    failed = bytearray()

    async def tee_receive() -> Message:
        message = await receive()
        if len(seen) < MAX_TOKEN_BODY:
            seen.extend(message.get("body", b"")[: MAX_TOKEN_BODY - len(seen)])
        return message

    async def inner_send(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            start = message
            if int(message["status"]) == 200:
                await send(message)
            return
        if start is not None and int(start["status"]) == 200:
            await send(message)
            return
        failed.extend(message.get("body", b""))
        if message.get("more_body"):
            return
        status = int(start["status"]) if start is not None else 500
        try:
            doc = orjson.loads(bytes(failed))
        except orjson.JSONDecodeError:
            doc = None
        headers = list(start.get("headers", [])) if start is not None else []
        await _answer(send, _token_failure(doc, _grant_type(scope, bytes(seen)), status), headers)

    take_accept_encoding(scope)  # a refusal comes plain, to rewrite; token answers are small
    await app(scope, tee_receive, inner_send)


async def _answer(
    send: Send, body: bytes, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    kept = [
        (k, v) for k, v in (headers or []) if k.lower() not in (b"content-length", b"content-type")
    ]
    kept += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": kept})
    await send({"type": "http.response.body", "body": body})


def seed_as_chint(db_path: str | Path) -> None:
    """Make seeded demo data what the CHINT smart cloud reports, and say so in ``meta``.

    Online, offline, command and firmware events become property reports (that platform
    reports property reports and faults only); sub-device and gateway node types, TLS
    encryption, vendor types, retired products fold onto its values. Run once, right
    after seeding.
    """
    conn = sqlite3.connect(db_path)
    try:
        with conn:
            conn.execute("UPDATE events SET event_type = 3 WHERE event_type IN (1, 2, 5, 6)")
            conn.execute("DELETE FROM event_counts")
            conn.execute(
                "INSERT INTO event_counts (bucket, event_type, n)"
                " SELECT ts / 600000, event_type, count(*) FROM events GROUP BY 1, 2"
            )
            conn.execute("UPDATE products SET node_type = 1 WHERE node_type = 3")
            conn.execute("UPDATE products SET encrypt_type = 1 WHERE encrypt_type = 2")
            conn.execute("UPDATE products SET vendor_type = vendor_type % 2")
            conn.execute("UPDATE products SET status = 1 WHERE status = 2")
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('dialect', 'chint')"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            )
    finally:
        conn.close()
