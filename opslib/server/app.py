"""The ASGI application: one FastAPI app built from the route table.

>>> from opslib.server import create_app
>>> app = create_app("/tmp/opslib-doctest.db")
>>> len([r for r in app.routes if "POST" in getattr(r, "methods", ())])
19
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, models_json_schema
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import Response

from opslib.dialects import Dialect
from opslib.exceptions import ConfigError
from opslib.protocol import operations as ops
from opslib.protocol.codec import Codec
from opslib.protocol.tables import resolve_dialect
from opslib.server import routes
from opslib.server.clock import Clock, SystemClock
from opslib.server.config import Settings
from opslib.server.context import Context, Guards
from opslib.server.database import Database
from opslib.server.errors import ApiError
from opslib.server.fields import PROPERTY_VALUE, PROPERTY_VALUE_SCHEMA
from opslib.server.pipeline import PlatformState, build_endpoint, new_fingerprint_key, refusal
from opslib.server.ratelimit import RateLimiter
from opslib.server.responses import Failure, TokenFailure
from opslib.server.routes import token as token_route
from opslib.server.sms import OutboxGateway, SmsGateway, outbox_path
from opslib.server.store import idempotency as idem_store

__all__ = ["create_app"]

log = logging.getLogger("opslib.server")

# What each failure status means (protocol §3), as the OpenAPI document says it.
FAILURE_STATUSES = {
    400: "invalid request: a field missing, mistyped or out of range (named in error_msg)",
    401: "missing, invalid, expired or revoked access token; unknown client_id",
    403: "not permitted for this caller",
    404: "not found, or not visible to this caller",
    409: "conflict, or a message_id reused with other params",
    413: "body over 1 MiB",
    422: "verification failed: wrong, expired or used SMS code; wrong password or secret",
    429: "too many requests or attempts; Retry-After",
    500: "internal error",
    503: "temporarily unavailable (database busy, password checks saturated); Retry-After",
}
TOKEN_FAILURES = {
    400: "invalid_request, unsupported_grant_type or invalid_grant (a wrong, used or"
    " expired code or refresh token)",
    401: "invalid_client: unknown client or wrong client_secret",
    413: "body over 1 MiB",
    429: "slow_down: too many wrong client secrets from this address or for this client;"
    " Retry-After",
    500: "server_error",
}
_REF = "#/components/schemas/{model}"
_NAMES = GenerateJsonSchema(ref_template=_REF)  # pydantic's component names: Ok[X] is Ok_X_


def _platform(
    db_path: str | Path,
    settings: Settings,
    clock: Clock,
    sms_gateway: SmsGateway | None,
    codec: Codec,
) -> PlatformState:
    db = Database(db_path)
    with db.write() as conn:
        key = idem_store.fingerprint_key(conn, new_key=new_fingerprint_key())
        idem_store.purge(conn, before=clock.now_ms() - settings.idempotency_window_ms)
    return PlatformState(
        db=db,
        settings=settings,
        clock=clock,
        sms=sms_gateway or OutboxGateway(outbox_path(db_path)),
        limiter=RateLimiter(rate=settings.rate_limit_per_s, burst=settings.rate_limit_burst),
        fingerprint_key=key.encode(),
        codec=codec,
    )


def _answer(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _model(model: Any) -> dict[str, Any]:
    """A reference to ``model``'s component (pydantic's name for it: ``Ok[X]`` is ``Ok_X_``)."""
    return {"$ref": _REF.format(model=_NAMES.normalize_name(model.__name__))}


def _responses(route: routes.Route) -> dict[int | str, dict[str, Any]]:
    """The route's answers for the OpenAPI document, as references to components.

    Given as schemas, not ``model=``: FastAPI would build a pydantic field for every
    answer of every route (about 200, 40 ms of each ``create_app``) that only the document
    reads; ``_install_openapi`` puts the models in the components.
    """
    if route.mode == "oauth":
        failures: dict[int | str, dict[str, Any]] = {
            s: _answer(TOKEN_FAILURES[s], _model(TokenFailure)) for s in (400, 401, 413, 429, 500)
        }
        return {200: _answer("token pair", _model(route.response)), **failures}
    ok = _answer("success", {"type": "string"} if route.bare else _model(route.response))
    return {200: ok, **{s: _answer(d, _model(Failure)) for s, d in FAILURE_STATUSES.items()}}


def _add_routes(app: FastAPI, platform: PlatformState) -> None:
    for route in routes.ROUTES:
        if route.mode == "oauth":
            endpoint = token_route.build_endpoint(
                lambda values, client: _grant(platform, values, client),
                max_body=platform.settings.max_body_bytes,
                limiter=platform.prelogin_limiter,
                codec=platform.codec,
            )
            extra: dict[str, Any] = {"requestBody": token_route.REQUEST_BODY}
        else:
            assert route.request is not None
            endpoint = build_endpoint(platform, route)
            schema = {"$ref": _REF.format(model=route.request.__name__)}
            extra = {
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": schema}},
                }
            }
        app.add_api_route(
            route.path,
            endpoint,
            methods=["POST"],
            name=route.path.strip("/").replace("/", "_"),
            summary=route.summary,
            description=f"Role: {route.op.role}. Idempotent write: {route.writes}.",
            tags=[route.tag],
            responses=_responses(route),
            openapi_extra=extra,
        )


def _grant(platform: PlatformState, values: token_route.Params, client: str) -> dict[str, Any]:
    db = platform.db
    ctx = Context(
        db=db,
        conn=db.conn(),
        now=platform.clock.now_ms(),
        settings=platform.settings,
        sms=platform.sms,
        message_id="",
        client=client,
        guards=platform.guards or Guards(platform.settings),
    )
    with db.write():
        return token_route.grant(ctx, values)


def _resolve_components(node: Any) -> Any:
    """``{"x-component": name}`` (a reference pydantic must not follow) becomes a ``$ref``."""
    if isinstance(node, dict):
        if set(node) == {"x-component"}:
            return {"$ref": _REF.format(model=node["x-component"])}
        return {key: _resolve_components(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_resolve_components(item) for item in node]
    return node


def _install_openapi(app: FastAPI) -> None:
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        (r.request, "validation") for r in routes.ROUTES if r.request is not None
    ]
    answers = [Failure, TokenFailure, *(r.response for r in routes.ROUTES if not r.bare)]
    models += [(model, "serialization") for model in dict.fromkeys(answers) if model is not None]

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            _, defs = models_json_schema(models, ref_template=_REF)
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            for name, definition in defs.get("$defs", {}).items():
                if name in components and components[name] != definition:
                    raise RuntimeError(f"OpenAPI component {name} defined twice")
                components[name] = definition
            components[PROPERTY_VALUE] = PROPERTY_VALUE_SCHEMA
            app.openapi_schema = _resolve_components(schema)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def docs_refusal(spoken: Dialect) -> str:
    """Why the OpenAPI document cannot be served beside ``spoken`` ("" when it can): it
    describes the reference platform's wire, and another dialect's codes, times and
    required fields differ, so it would describe a platform this one is not."""
    if spoken == Dialect():
        return ""
    return (
        f"--docs: the OpenAPI document describes opslib's own dialect, and this server "
        f"speaks {spoken.name!r}, whose codes, times and required fields differ; serve "
        "the document without --dialect (docs/protocol.md, 'Other platforms', tells the "
        "dialects apart)"
    )


def create_app(
    db_path: str | Path,
    *,
    settings: Settings | None = None,
    clock: Clock | None = None,
    sms_gateway: SmsGateway | None = None,
    dialect: Dialect | str | None = None,
    docs: bool = False,
) -> FastAPI:
    """Build the platform over the SQLite file ``db_path`` (schema created when missing).

    Parameters
    ----------
    db_path
        The database; the SMS outbox is ``<db_path>.sms.jsonl`` unless ``sms_gateway``.
    settings
        Limits and lifetimes (protocol §8); default :class:`Settings`.
    clock
        Where time comes from; tests pass a :class:`~opslib.server.clock.FakeClock`.
    sms_gateway
        Where codes are delivered; default the outbox file.
    dialect
        The dialect the platform speaks (a :class:`~opslib.dialects.Dialect`, a built-in
        name such as ``"vendor"``, or a profile's table); default the reference
        platform's. Every request and answer goes through its codec at the one edge
        (:mod:`opslib.server.wire`); the core keeps protocol.md's semantics.
    docs
        Serve the OpenAPI document (``/openapi.json``) and its pages (``/docs``,
        ``/redoc``); off by default, since a platform users reach need not describe
        itself to everyone (``opslib server --docs``). It describes the reference
        dialect's wire: with another ``dialect`` it raises
        :class:`~opslib.exceptions.ConfigError` (:func:`docs_refusal`).

    Returns
    -------
    FastAPI
        The ASGI app; all 19 routes are ``POST``.
    """
    spoken = resolve_dialect(dialect)
    if docs and (refused := docs_refusal(spoken)):
        raise ConfigError(refused)
    codec = Codec(spoken)
    platform = _platform(
        db_path, settings or Settings(), clock or SystemClock(), sms_gateway, codec
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        platform.db.close()

    app = FastAPI(
        title="opslib reference platform",
        version="1",
        description="The 18 operations of the smart-device interface, plus /device/report.",
        lifespan=lifespan,
        openapi_url="/openapi.json" if docs else None,
        docs_url="/docs" if docs else None,
        redoc_url="/redoc" if docs else None,
    )
    app.state.platform = platform
    _add_routes(app, platform)
    _install_openapi(app)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        path = request.url.path
        if exc.status_code == 404:
            return refusal(codec, ApiError(404, "path: no such operation"), "", path=path)
        if exc.status_code == 405:  # RFC 9110 §15.5.6: a 405 lists the allowed methods
            allow = {"Allow": "POST"}
            message = "method: every operation is POST"
            if path == ops.TOKEN.path:  # the token op's failures are flat (§3)
                return token_route.refused(codec, 405, "invalid_request", message, "", allow)
            return refusal(codec, ApiError(405, message, headers=allow), "", path=path)
        return refusal(codec, ApiError(exc.status_code, "request refused"), "", path=path)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> Response:
        log.error("internal error: %s", type(exc).__name__)
        return refusal(codec, ApiError(500, "internal error"), "", path=request.url.path)

    app.state.dialect = spoken
    return app
