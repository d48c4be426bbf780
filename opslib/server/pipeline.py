"""What every envelope operation goes through, in order.

1. body: at most ``max_body_bytes`` (413), ``Content-Type: application/json`` (400);
2. under a dialect other than the reference one, the request decoded into the core's
   terms by the platform's codec (:mod:`opslib.server.wire`: 400 for a body orjson does
   not parse or a parameter the dialect does not allow);
3. validation of the route's request model (400 naming the field);
4. in a worker thread: authentication (401/403), envelope ``user_id`` = token owner (403),
   role (403), per-token rate (429);
5. the handler: reads in one snapshot; idempotent writes in one ``BEGIN IMMEDIATE``
   transaction that also checks and records the idempotency key (replay or 409), so two
   identical requests at once write once;
6. the answer encoded in the dialect (as it is under the reference one), then compressed
   in the coding the request accepts, in the same worker thread
   (:mod:`opslib.server.compression`).

Every failure becomes the failure envelope, in the dialect; an unexpected exception is
logged and answered as a 500 "internal error", never with a stack trace.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import secrets
import sqlite3
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import orjson
from pydantic import ValidationError
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from opslib.protocol.codec import Codec
from opslib.protocol.operations import Operation
from opslib.protocol.serving import Served
from opslib.server import replay, security
from opslib.server.clock import Clock
from opslib.server.compression import choose_coding, compress
from opslib.server.config import Settings
from opslib.server.context import Caller, Context, Guards
from opslib.server.database import Database
from opslib.server.errors import BEARER_CHALLENGE, ApiError, too_many
from opslib.server.fields import UUID_PATTERN
from opslib.server.ratelimit import RateLimiter
from opslib.server.routes import Access, Route
from opslib.server.security import wire_default
from opslib.server.services.auth import authenticate
from opslib.server.services.paging import BucketIndex
from opslib.server.sms import SmsGateway
from opslib.server.store import idempotency as idem_store
from opslib.server.validation import describe_error
from opslib.server.wire import decode_body, encode_failure, encode_success

log = logging.getLogger("opslib.server.access")
errlog = logging.getLogger("opslib.server.errors")
gone = logging.getLogger("opslib.server.clients")  # clients that went away, slow clients

_UUID = re.compile(UUID_PATTERN)
_RANK = {Access.USER: 1, Access.OPS: 2, Access.ADMIN: 3}
JSON = "application/json"
PURGE_EVERY = 1000  # idempotency records between purges of expired ones
REUSED = "message_id: already used with different params"
UNCOMPARABLE = (
    "message_id: already used; the platform restarted since, and a repeat of a write with a"
    " password or code is compared only by the process that recorded it: send it anew with"
    " a new message_id, or log in"
)
# Answers that carry an authorization code, a token or a secret are not to be kept by
# any cache (RFC 9111 §5.2.2.5; Pragma for HTTP/1.0 caches).
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


@dataclass
class PlatformState:
    """Everything the handlers share: database, settings, clock, gateway, limiter."""

    db: Database
    settings: Settings
    clock: Clock
    sms: SmsGateway
    limiter: RateLimiter
    fingerprint_key: bytes = field(default=b"")
    # The key of the secret params' fingerprints and of kept answers that hold a secret
    # (opslib.server.replay): in this process's memory only, never in the database.
    process_key: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    buckets: BucketIndex = field(default_factory=BucketIndex)
    records: int = 0  # idempotency records written by this process
    guards: Guards | None = None
    codec: Codec = field(default_factory=Codec)
    """The dialect the platform speaks (the reference one: ``codec.plain``)."""
    _threads: dict[tuple[int, str], anyio.CapacityLimiter] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.guards is None:
            self.guards = Guards(self.settings)

    def prelogin_limiter(self) -> anyio.CapacityLimiter:
        """The worker threads pre-login requests share (one limiter per event loop)."""
        return self._limiter("prelogin", self.settings.prelogin_threads)

    def answer_limiter(self) -> anyio.CapacityLimiter:
        """The worker threads signed-in requests share (one limiter per event loop)."""
        return self._limiter("answer", self.settings.answer_threads)

    def _limiter(self, kind: str, threads: int) -> anyio.CapacityLimiter:
        key = (id(asyncio.get_running_loop()), kind)
        if key not in self._threads:
            self._threads[key] = anyio.CapacityLimiter(threads)
        return self._threads[key]


def json_response(status: int, body: bytes, headers: Mapping[str, str] | None = None) -> Response:
    return Response(body, status_code=status, media_type=JSON, headers=dict(headers or {}))


def failure_body(status: int, message: str, message_id: str, data: Mapping[str, Any]) -> bytes:
    return orjson.dumps(
        {"error_code": status, "message_id": message_id, "error_msg": message, "data": dict(data)}
    )


def failure(exc: ApiError, message_id: str) -> Response:
    headers = exc.headers
    if exc.status == 401 and "WWW-Authenticate" not in headers:  # RFC 9110 §11.6.1
        headers = {**headers, "WWW-Authenticate": BEARER_CHALLENGE}
    return json_response(
        exc.status, failure_body(exc.status, exc.message, message_id, exc.data), headers
    )


def refusal(
    codec: Codec,
    exc: ApiError,
    message_id: str,
    *,
    path: str,
    op: Operation | None = None,
    served: Served | None = None,
) -> Response:
    """A failure answered in the platform's dialect (:func:`failure` under the reference
    one); ``op`` and ``served`` when the request reached an operation."""
    if codec.plain:
        return failure(exc, message_id)
    served = served if served is not None else Served()
    served.message_id = message_id
    status, body, headers = encode_failure(codec, path, exc, served, op=op)
    return json_response(status, body, headers)


def _success_body(route: Route, message_id: str, data: Any) -> bytes:
    if route.bare:
        return orjson.dumps(data, default=wire_default)
    envelope = {"error_code": 200, "message_id": message_id, "data": data}
    return orjson.dumps(envelope, default=wire_default)


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refusing more than ``limit`` bytes (declared or streamed).

    What was read is dropped before a refusal leaves this frame (it may hold a password).
    """
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise ApiError(400, "body: invalid Content-Length")
        if int(declared) > limit:
            raise ApiError(413, f"body: larger than {limit} bytes")
    chunks: list[bytes] = []
    chunk = b""
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                break
            chunks.append(chunk)
    except ClientDisconnect:
        chunks.clear()
        chunk = b""
        raise
    if size > limit:
        chunks.clear()
        chunk = b""
        raise ApiError(413, f"body: larger than {limit} bytes")
    return b"".join(chunks)


def check_json_content_type(request: Request) -> None:
    """400 unless the Content-Type is application/json (a charset parameter is fine)."""
    value = request.headers.get("content-type", "")
    if value.split(";", 1)[0].strip().lower() != JSON:
        raise ApiError(400, "body: Content-Type must be application/json")


def _echo(body: bytes) -> str:
    """The message_id to echo from a body that failed validation ("" unless a UUID)."""
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        return ""
    value = parsed.get("message_id") if isinstance(parsed, dict) else None
    return value if isinstance(value, str) and _UUID.match(value) else ""


def _lacks_token(exc: ValidationError) -> bool:
    """Whether ``params.access_token`` is missing (absent, or null, which counts as absent)."""
    for error in exc.errors(include_url=False):
        loc = tuple(error["loc"])
        ctx = error.get("ctx") or {}
        if loc == ("params", "access_token") and (
            error["type"] == "missing" or error.get("input", "") is None
        ):
            return True
        if error["type"] == "required_when" and ctx.get("field") == "access_token":
            return True
    return False


def missing_token() -> ApiError:
    """401 for a request without credentials (protocol §3, RFC 6750 §3.1)."""
    return ApiError(
        401, "params.access_token: required", headers={"WWW-Authenticate": BEARER_CHALLENGE}
    )


def _authorize(
    platform: PlatformState, route: Route, req: Any, params: Any, now: int
) -> Caller | None:
    role = route.role
    if route.sometimes_pre and route.pre(params):
        role = Access.PRE
    if role in (Access.PRE, Access.DEVICE):
        return None
    assert role is not None  # every route's operation declares one (tests/server/test_routes.py)
    token = params.access_token
    if token is None:
        raise missing_token()
    caller = authenticate(platform.db.conn(), access_token=token, now=now)
    if req.user_id != caller.user_id:
        raise ApiError(403, "user_id: does not match the access token's user")
    if caller.role < _RANK[role]:
        raise ApiError(403, f"user_id: this operation needs the {role.value} role")
    client_id = getattr(params, "client_id", None)
    if client_id is not None and client_id != caller.client_id:
        raise ApiError(403, "params.client_id: the access token was issued to another client")
    wait_ms = platform.limiter.acquire(security.sha256_hex(token), now_ms=now)
    if wait_ms:
        raise too_many("params.access_token: request rate limit exceeded", wait_ms)
    return caller


def execute(platform: PlatformState, route: Route, req: Any, client: str = "") -> tuple[int, bytes]:
    """Run one validated request (in a worker thread); returns (status, body).

    ``client`` is the caller's address (for the device-secret throttle).
    """
    assert route.handler is not None
    assert platform.guards is not None
    now = platform.clock.now_ms()
    params = req if route.mode == "report" else req.params
    caller = _authorize(platform, route, req, params, now)
    db = platform.db
    ctx = Context(
        db=db,
        conn=db.conn(),
        now=now,
        settings=platform.settings,
        sms=platform.sms,
        message_id=req.message_id,
        caller=caller,
        buckets=platform.buckets,
        client=client,
        guards=platform.guards,
    )
    if route.mode == "manual":
        return 200, _success_body(route, req.message_id, route.handler(ctx, params))
    if not route.writes:
        with db.read():
            return 200, _success_body(route, req.message_id, route.handler(ctx, params))
    recorded = route.recorded(params)
    key: dict[str, str] = {}
    if recorded:
        if caller is not None:
            who = caller.user_id
        else:
            assert route.pre_caller is not None
            who = route.pre_caller(params)
        key = {"caller": who, "operation": route.operation, "message_id": req.message_id}
    since = now - platform.settings.idempotency_window_ms
    if route.prepare is not None:
        # The password hash is the costly part: a first request passes the cheap checks
        # (client, SMS code, throttles) first, then waits for a hash slot (503 if none);
        # a repeat goes straight to its replay below.
        with db.read():
            repeat = recorded and idem_store.get_record(ctx.conn, since=since, **key) is not None
        if not repeat:
            if route.precheck is not None:
                route.precheck(ctx, params)
            with platform.guards.hashes.slot(client):
                ctx.prepared = platform.guards.hashes.compute(route.prepare, params)
    with db.write():
        if not recorded:
            return 200, _success_body(route, req.message_id, route.handler(ctx, params))
        exclude = {"message_id"} if route.mode == "report" else {"access_token"}
        fresh = replay.fingerprint(
            params,
            database_key=platform.fingerprint_key,
            process_key=platform.process_key,
            key=key,
            exclude=exclude,
            secret=route.secret,
        )
        record = idem_store.get_record(ctx.conn, since=since, **key)
        if record is not None:
            return _replayed(platform, route, ctx, params, record, fresh, key)
        data = route.handler(ctx, params)  # may hold what it issued, as Secrets
        kept = (  # in one expression: an answer that holds a secret is sealed at once
            replay.seal(platform.process_key, key, _success_body(route, req.message_id, data))
            if route.secret
            else _success_body(route, req.message_id, data)
        )
        idem_store.put_record(ctx.conn, fingerprint=fresh, status=200, body=kept, now=now, **key)
        platform.records += 1
        if platform.records % PURGE_EVERY == 0:  # keep the table to about one window
            idem_store.purge(ctx.conn, before=since)
        return 200, _success_body(route, req.message_id, data)  # revealed last


def _replayed(
    platform: PlatformState,
    route: Route,
    ctx: Context,
    params: Any,
    record: Any,
    fresh: str,
    key: dict[str, str],
) -> tuple[int, bytes]:
    """The first answer of a repeat whose params are the first request's; else 409."""
    verdict = replay.compare(record["fingerprint"], fresh)
    if verdict is replay.Verdict.DIFFERENT:
        raise ApiError(409, REUSED)
    if verdict is replay.Verdict.UNCOMPARABLE:
        raise ApiError(409, UNCOMPARABLE)
    if route.replay_guard is not None:  # throttled; other secrets count as a failure
        route.replay_guard(ctx, params, verdict is replay.Verdict.SAME)
    if verdict is not replay.Verdict.SAME:
        raise ApiError(409, REUSED)
    if route.secret:
        return int(record["status"]), replay.seal(platform.process_key, key, bytes(record["body"]))
    return int(record["status"]), bytes(record["body"])


def _pre_login(route: Route, req: Any) -> bool:
    """Whether a request needs no sign-in (its worker threads are limited, see Settings)."""
    return route.pre(req.params) if route.sometimes_pre else route.role == Access.PRE


async def _parse(
    request: Request, route: Route, limit: int, codec: Codec
) -> tuple[Any, Served | None]:
    """The validated request and, under a dialect, what its answer needs; else an ApiError
    whose ``echo`` is the message_id to answer.

    The raw body (which may hold a password) and pydantic's error (which holds the
    offending input) stay in this frame and are gone before the ApiError leaves it.
    """
    model = route.request
    assert model is not None
    body = await read_body(request, limit)
    check_json_content_type(request)
    served = None
    if not codec.plain:
        body, served = decode_body(codec, route.op, body)
    try:
        return model.model_validate_json(body), served
    except ValidationError as exc:
        echo = _echo(body)
        if route.role not in (Access.PRE, Access.DEVICE) and _lacks_token(exc):
            refusal = missing_token()
        else:
            refusal = ApiError(400, describe_error(exc, model))
    del body
    refusal.echo = echo
    raise refusal


def answer(
    platform: PlatformState,
    route: Route,
    req: Any,
    client: str,
    coding: str | None,
    served: Served | None = None,
) -> tuple[int, bytes, dict[str, str]]:
    """:func:`execute`, then a success's body in the dialect (``served``: what its request
    said, under a dialect) and compressed in ``coding``, in the same worker thread:
    (status, body, headers)."""
    status, body = execute(platform, route, req, client)
    if status != 200:
        return status, body, {}
    if served is not None:
        body = encode_success(platform.codec, route.op, body, served)
    body, headers = compress(body, coding)
    if route.no_store:
        headers = {**headers, **NO_STORE}
    return status, body, headers


def build_endpoint(
    platform: PlatformState, route: Route
) -> Callable[[Request], Awaitable[Response]]:
    """The ASGI endpoint of an envelope (or report) route."""
    model = route.request
    assert model is not None
    limit = platform.settings.max_body_bytes
    codec = platform.codec

    def refused(exc: ApiError, message_id: str, served: Served | None) -> Response:
        return refusal(codec, exc, message_id, path=route.path, op=route.op, served=served)

    async def endpoint(request: Request) -> Response:
        started = time.perf_counter()
        message_id = ""
        served = None
        try:
            req, served = await _parse(request, route, limit, codec)
            message_id = req.message_id
            client = request.client.host if request.client is not None else ""
            coding = choose_coding(request.headers.get("accept-encoding"))
            run = functools.partial(answer, platform, route, req, client, coding, served)
            pre = _pre_login(route, req)
            limiter = platform.prelogin_limiter() if pre else platform.answer_limiter()
            status, payload, headers = await anyio.to_thread.run_sync(run, limiter=limiter)
            response = json_response(status, payload, headers)
        except ApiError as exc:
            response = refused(exc, exc.echo or message_id, served)
        except ClientDisconnect:  # nobody is left to answer: not an error of the platform
            gone.info("POST %s: the client went away before its request arrived", route.path)
            response = refused(ApiError(400, "body: the client went away"), message_id, served)
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                errlog.exception("internal error on %s", route.path)
                response = refused(ApiError(500, "internal error"), message_id, served)
            else:
                busy = ApiError(503, "database busy; retry later", headers={"Retry-After": "1"})
                response = refused(busy, message_id, served)
        except Exception:
            errlog.exception("internal error on %s", route.path)
            response = refused(ApiError(500, "internal error"), message_id, served)
        log.debug(
            "POST %s %d %.1fms",
            route.path,
            response.status_code,
            (time.perf_counter() - started) * 1000,
        )
        return response

    endpoint.__name__ = route.path.strip("/").replace("/", "_")
    return endpoint


def new_fingerprint_key() -> str:
    return secrets.token_hex(32)
