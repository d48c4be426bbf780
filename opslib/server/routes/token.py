"""HTTP glue of ``/token/access`` (protocol §6.2): OAuth 2.0 style, flat JSON.

Parameters come as query parameters, as ``application/x-www-form-urlencoded`` body
fields, or (client credentials only) as HTTP Basic; under another dialect only where it
says (``Codec.token_sources``), and the answers and refusals are the dialect's
(``Codec.encode_token_answer``, ``encode_token_failure``). A parameter given twice is an
``invalid_request`` (RFC 6749 §3.2); unknown parameters are ignored (RFC 6749 §3.2).
"""

from __future__ import annotations

import base64
import binascii
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

import anyio
import orjson
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from opslib.protocol.codec import Codec
from opslib.server.context import Context
from opslib.server.errors import BASIC_CHALLENGE, ApiError, OAuthError
from opslib.server.security import Secret, wire_default
from opslib.server.services import oauth, throttles
from opslib.server.wire import encode_token_failure

log = logging.getLogger("opslib.server.access")
errlog = logging.getLogger("opslib.server.errors")
gone = logging.getLogger("opslib.server.clients")

GRANT_TYPES = ("authorization_code", "refresh_token")
_MAX_LENGTH = {
    "grant_type": 32,
    "client_id": 64,
    "client_secret": 256,
    "code": 256,
    "redirect_uri": 2048,
    "refresh_token": 256,
}
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}

# The OpenAPI description of the inputs (the endpoint parses them itself): the form body,
# whose JSON Schema can say which fields each grant_type requires; the same fields are
# accepted as query parameters (spec §4.2), which OpenAPI cannot tie to one another.
_GRANT_NEEDS = {"authorization_code": ("code", "redirect_uri"), "refresh_token": ("refresh_token",)}
FORM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        name: (
            {"type": "string", "enum": list(GRANT_TYPES)}
            if name == "grant_type"
            else {"type": "string", "minLength": 1, "maxLength": limit}
        )
        for name, limit in _MAX_LENGTH.items()
    },
    "required": ["grant_type", "client_id", "client_secret"],
    "allOf": [
        {
            "if": {"properties": {"grant_type": {"const": grant}}, "required": ["grant_type"]},
            "then": {"required": list(needs)},
        }
        for grant, needs in _GRANT_NEEDS.items()
    ],
}
REQUEST_BODY = {
    "required": True,
    "description": (
        "The parameters as form fields, or as query parameters; client_id and client_secret"
        " also as HTTP Basic. A parameter given twice is a 400 invalid_request."
    ),
    "content": {"application/x-www-form-urlencoded": {"schema": FORM_SCHEMA}},
}


SECRET_PARAMETERS = ("client_secret", "code", "refresh_token")
Params = dict[str, str | Secret]
"""The token op's parameters by name; the secret ones held as :class:`Secret`."""


def _decode_basic(header: str) -> tuple[str, Secret] | OAuthError:
    """HTTP Basic client credentials (RFC 6749 §2.3.1 form-encodes both), or the error.

    The error is returned, not raised: this frame holds the raw header.
    """
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic":
        return OAuthError(400, "invalid_request", "Authorization: only Basic is accepted here")
    malformed = OAuthError(401, "invalid_client", "Authorization: malformed Basic credentials")
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return malformed
    client_id, sep, secret = decoded.partition(":")
    if not sep:
        return malformed
    return unquote_plus(client_id), Secret(unquote_plus(secret))


async def _form_pairs(
    request: Request, max_body: int, sources: tuple[str, ...]
) -> list[tuple[str, str]] | Exception:
    """The query's and the form body's fields in order, each read only when ``sources``
    names it, or the error (returned: this frame holds them in plain text)."""
    pairs = list(request.query_params.multi_items()) if "query" in sources else []
    content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if "form" not in sources or content_type != "application/x-www-form-urlencoded":
        return pairs
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > max_body:
            return ApiError(413, f"body: larger than {max_body} bytes")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return OAuthError(400, "invalid_request", "body: form fields must be UTF-8")
    return pairs + parse_qsl(text, keep_blank_values=True, strict_parsing=False)


def _params(pairs: list[tuple[str, str]]) -> Params | OAuthError:
    """The known parameters, each at most once (RFC 6749 §3.2), secrets wrapped."""
    values: Params = {}
    for name, value in pairs:
        if name not in _MAX_LENGTH:
            continue
        if name in values:
            return OAuthError(400, "invalid_request", f"{name}: given more than once")
        values[name] = Secret(value) if name in SECRET_PARAMETERS else value
    return values


async def _inputs(request: Request, max_body: int, sources: tuple[str, ...]) -> Params:
    pairs = await _form_pairs(request, max_body, sources)
    values = pairs if isinstance(pairs, Exception) else _params(pairs)
    del pairs
    if isinstance(values, Exception):
        raise values
    basic: tuple[str, Secret] | None = None
    if "authorization" in request.headers:
        decoded = _decode_basic(request.headers["authorization"])
        if isinstance(decoded, OAuthError):
            raise decoded
        basic = decoded
    if basic is not None:
        if "client_secret" in values:
            raise OAuthError(
                400, "invalid_request", "client_secret: use either HTTP Basic or the parameter"
            )
        if "client_id" in values and values["client_id"] != basic[0]:
            raise OAuthError(400, "invalid_request", "client_id: differs from HTTP Basic")
        values["client_id"], values["client_secret"] = basic
    return values


def _check(values: Params) -> None:
    for name in ("grant_type", "client_id", "client_secret"):
        if not values.get(name):
            raise OAuthError(400, "invalid_request", f"{name}: required")
    if values["grant_type"] not in GRANT_TYPES:
        raise OAuthError(
            400, "unsupported_grant_type", "grant_type: must be authorization_code or refresh_token"
        )
    for name in _GRANT_NEEDS[str(values["grant_type"])]:
        if not values.get(name):
            raise OAuthError(400, "invalid_request", f"{name}: required for this grant_type")
    for name, value in values.items():
        if len(value) > _MAX_LENGTH[name]:
            raise OAuthError(
                400, "invalid_request", f"{name}: must be at most {_MAX_LENGTH[name]} characters"
            )


def _text(values: Params, name: str) -> str:
    value = values[name]
    assert isinstance(value, str)
    return value


def _secret(values: Params, name: str) -> Secret:
    value = values[name]
    assert isinstance(value, Secret)
    return value


def grant(ctx: Context, values: Params) -> dict[str, Any]:
    """Check the client (throttled per address and per client), then exchange the code or
    rotate the refresh token."""
    client_id = _text(values, "client_id")
    throttles.check_client(ctx, client_id=client_id)
    try:
        oauth.check_client(ctx, client_id=client_id, client_secret=_secret(values, "client_secret"))
    except OAuthError:
        throttles.client_failed(ctx, client_id=client_id)
        raise
    if values["grant_type"] == "authorization_code":
        return oauth.exchange_code(ctx, client_id=client_id, code=_secret(values, "code"))
    return oauth.refresh(ctx, client_id=client_id, refresh_token=_secret(values, "refresh_token"))


def _flat(status: int, payload: dict[str, Any]) -> Response:
    # the tokens issued are Secrets until here, the wire
    body = orjson.dumps(payload, default=wire_default)
    return Response(body, status_code=status, media_type="application/json", headers=NO_STORE)


def refused(
    codec: Codec,
    status: int,
    error: str,
    description: str,
    grant_type: str = "",
    headers: dict[str, str] | None = None,
) -> Response:
    """A refused token call, flat, in the dialect (protocol §3 under the reference one)."""
    status, body, kept = encode_token_failure(
        codec, status, error, description, grant_type, headers or {}
    )
    return Response(
        body, status_code=status, media_type="application/json", headers={**NO_STORE, **kept}
    )


def build_endpoint(
    run: Callable[[Params, str], dict[str, Any]],
    *,
    max_body: int,
    limiter: Callable[[], anyio.CapacityLimiter] | None = None,
    codec: Codec | None = None,
) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint; ``run(values, client_address)`` performs :func:`grant` in a write
    transaction, on a worker thread of ``limiter()`` (the pre-login ones) when given;
    ``codec`` the dialect spoken (default the reference one)."""
    spoken = codec if codec is not None else Codec()
    sources = spoken.token_sources()

    async def token_access(request: Request) -> Response:
        started = time.perf_counter()
        grant_type = ""
        try:
            values = await _inputs(request, max_body, sources)
            grant_type = str(values.get("grant_type") or "")
            _check(values)
            client = request.client.host if request.client is not None else ""
            if limiter is None:
                answer = await run_in_threadpool(run, values, client)
            else:
                answer = await anyio.to_thread.run_sync(run, values, client, limiter=limiter())
            response = _flat(200, spoken.encode_token_answer(answer))
        except OAuthError as exc:
            headers = dict(exc.headers)
            if exc.status == 401:  # every 401 says how to authenticate (RFC 9110 §11.6.1)
                headers["WWW-Authenticate"] = BASIC_CHALLENGE
            response = refused(spoken, exc.status, exc.error, exc.description, grant_type, headers)
        except ClientDisconnect:  # nobody is left to answer: not an error of the platform
            gone.info("POST /token/access: the client went away before its request arrived")
            response = refused(spoken, 400, "invalid_request", "body: the client went away")
        except ApiError as exc:  # 413 from the body cap
            response = refused(spoken, exc.status, "invalid_request", exc.message, grant_type)
        except Exception:
            errlog.exception("internal error on /token/access")
            response = refused(spoken, 500, "server_error", "internal error", grant_type)
        log.debug(
            "POST /token/access %d %.1fms",
            response.status_code,
            (time.perf_counter() - started) * 1000,
        )
        return response

    return token_access
