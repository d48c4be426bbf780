"""The envelope of every call: one HTTP pool, the current access token, and per-user facts.

A :class:`Session` is what the resources call through: ``session.call(op, params)`` has the
platform's codec (:class:`~opslib.protocol.codec.Codec`) put the params in the request
envelope (protocol §5) with a message_id, the caller's user_id and the current access
token, posts it (:mod:`opslib.client._http`: retries), and on a 401 refreshes the token once
and posts again with the same message_id (:mod:`opslib.client._tokens`). A paged read
(:mod:`opslib.client._pager`) reads each page with the same call, from its pool's threads.

:class:`~opslib.client._client.Client` is a Session with the resources attached; a Dask
worker reads its window through a token-only Session of its own (:meth:`Session.from_token`).
"""

from __future__ import annotations

import logging
import math
import numbers
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

import httpx

from opslib.client import _constants as C
from opslib.client._http import HTTP, Safety
from opslib.client._settings import Secret, Settings
from opslib.client._tokens import Credentials, TokenCache, TokenManager
from opslib.dialects import Dialect
from opslib.exceptions import APIError, AuthenticationError, ConfigError, PermissionDenied
from opslib.protocol import operations as ops
from opslib.protocol.codec import Codec, Moments
from opslib.protocol.operations import Operation

if TYPE_CHECKING:  # the frames (and pandas) load with the first read, not with a login
    import pandas as pd

    from opslib.client.frames.schema import FrameSchema

__all__ = [
    "Session",
    "check_concurrency",
    "check_flag",
    "check_limit",
    "check_page_size",
    "check_retries",
    "check_timeout",
    "check_transport",
]

log = logging.getLogger("opslib")


class Session:
    """One platform, one application, one user at a time; thread-safe.

    Parameters
    ----------
    base_url
        The platform.
    client_id, client_secret
        The registered application (no secret: a token-only session, see
        :meth:`from_token`).
    token_cache
        A JSON file of tokens to reuse across processes, or None.
    timeout, max_retries, retry_deadline, transport
        As :class:`~opslib.client._http.HTTP` takes them.
    concurrency
        The most requests in flight of a paged read after its first page (the number adapts
        to the link below it, :class:`~opslib.client._pager.InFlight`); the connection pool holds
        that many and :data:`~opslib.client._constants.EXTRA_CONNECTIONS` more.
    clock
        Where token expiry is read from (epoch seconds); tests pass a fake one.
    dialect
        The platform's :class:`~opslib.dialects.Dialect` (default the reference platform's).
    """

    def __init__(
        self,
        base_url: str,
        *,
        client_id: str,
        client_secret: Secret | None,
        token_cache: Path | None = None,
        timeout: httpx.Timeout | float | None = None,
        max_retries: int = C.DEFAULT_MAX_RETRIES,
        retry_deadline: float = C.DEFAULT_RETRY_DEADLINE,
        transport: httpx.BaseTransport | None = None,
        concurrency: int = C.DEFAULT_CONCURRENCY,
        clock: Callable[[], float] = time.time,
        dialect: Dialect | None = None,
    ) -> None:
        self.concurrency = check_concurrency(concurrency)
        self.http = HTTP(
            base_url,
            timeout=check_timeout(timeout),
            max_retries=check_retries(max_retries),
            retry_deadline=retry_deadline,
            transport=check_transport(transport),
            dialect=dialect,
            max_connections=self.concurrency + C.EXTRA_CONNECTIONS,
        )
        self.tokens = TokenManager(
            self.http,
            client_id=client_id,
            client_secret=client_secret,
            cache=TokenCache(token_cache) if token_cache else None,
            clock=clock,
        )
        # May this user read the whole fleet? Learned per user, as the client may switch.
        self._fleet: dict[str, bool] = {}
        self._schemas: dict[FrameSchema, FrameSchema] = {}

    @classmethod
    def open(cls, settings: Settings, **options: Any) -> Session:
        """A session for the settings, logged in as their account when they name one.

        ``options`` are those of the constructor. Without a password and without a cached
        token the session starts logged out.
        """
        if settings.base_url is None or not settings.client_id or settings.client_secret is None:
            raise ConfigError("a session needs a base_url, a client_id and a client_secret")
        options.setdefault("dialect", settings.dialect)
        session = cls(
            settings.base_url,
            client_id=settings.client_id,
            client_secret=settings.client_secret,
            token_cache=settings.token_cache,
            **options,
        )
        try:
            session._log_in(settings)
        except BaseException:
            session.close()
            raise
        return session

    def _log_in(self, settings: Settings) -> None:
        if not (settings.phone and settings.area_code):
            return
        try:
            self.tokens.start(Credentials(settings.area_code, settings.phone, settings.password))
        except AuthenticationError:
            if settings.password is not None:
                raise
            log.info("connected without logging in: no password and no cached token")

    @classmethod
    def from_token(
        cls,
        base_url: str,
        *,
        access_token: str | Secret,
        client_id: str,
        user_id: str,
        **options: Any,
    ) -> Session:
        """A session that calls with a given access token and never logs in or refreshes.

        ``options`` are those of the constructor. A 401 raises
        :class:`~opslib.AuthenticationError`: there is nothing to refresh with.
        """
        session = cls(base_url, client_id=client_id, client_secret=None, **options)
        session.tokens.use(Secret(access_token), user_id)
        return session

    def __repr__(self) -> str:
        return f"<opslib session base_url={self.base_url!r} user_id={self.user_id!r}>"

    @property
    def base_url(self) -> str:
        return self.http.base_url

    @property
    def codec(self) -> Codec:
        """The platform's codec (its dialect applied to the wire)."""
        return self.http.codec

    @codec.setter
    def codec(self, codec: Codec) -> None:
        self.http.codec = codec
        self._schemas.clear()

    @property
    def dialect(self) -> Dialect:
        """The platform's dialect; setting it sets the codec it speaks by."""
        return self.codec.dialect

    @dialect.setter
    def dialect(self, dialect: Dialect) -> None:
        self.codec = Codec(dialect)

    @property
    def client_id(self) -> str:
        return self.tokens.client_id

    @property
    def user_id(self) -> str | None:
        return self.tokens.user_id

    @property
    def throttles(self) -> int:
        """The 429s and 503s the platform has answered this session so far."""
        return self.http.throttles

    # -- calls -------------------------------------------------------------------------

    def call(
        self,
        op: Operation | str,
        params: dict[str, Any],
        *,
        auth: bool | None = None,
        safety: Safety | None = None,
        message_id: str | None = None,
        moments: Moments = "ms",
    ) -> Any:
        """One envelope call: token in params, one refresh and retry when the platform says
        the token expired (a 401, or a code of the dialect's ``errors.token_expired_codes``).

        ``op`` is an operation of :mod:`opslib.protocol.operations` (or its name or path);
        ``auth`` and ``safety`` default to what the operation says for these params.
        The message_id is fixed for the whole call, so every retry of a write (after a
        dropped answer, a 503 or a token refresh) is replayed, not written again.
        """
        if not isinstance(op, Operation):
            op = ops.named(op)
        mid = message_id or str(uuid.uuid4())
        if auth is None:
            auth = op.needs_token(params)
        if safety is None:
            safety = Safety(op.safety_for(params))
        used: dict[str, Any] = {}

        def build() -> dict[str, Any]:
            body = self._envelope(op, params, mid, auth=auth)
            if auth:
                used["token"] = body["params"]["access_token"]
            return body

        post = self.http.post_envelope
        try:
            return post(op, build, message_id=mid, safety=safety, moments=moments)
        except APIError as exc:
            if not auth or "token" not in used or not self.codec.errors.token_expired(exc):
                raise
            log.debug(
                "%s: %s with the current access token; refreshing and retrying once",
                op.path,
                exc.code,
            )
            self.tokens.after_unauthorized(used["token"])
        return post(op, build, message_id=mid, safety=safety, moments=moments)

    def _envelope(
        self, op: Operation, params: dict[str, Any], message_id: str, *, auth: bool = True
    ) -> dict[str, Any]:
        """The request envelope of one attempt: the current access token in its params."""
        return self.codec.envelope(
            op,
            params,
            message_id=message_id,
            user_id=(self.user_id or "") if auth else "",
            access_token=self.tokens.access_secret() if auth else None,
            client_id=self.client_id,
        )

    def frame_schema(self, schema: FrameSchema, include_secrets: bool = False) -> FrameSchema:
        """A read's schema: ``schema`` with the platform's labels on its coded columns
        (made once), and its secret columns only when the caller asks for them."""
        if check_flag("include_secrets", include_secrets):
            from opslib.client.frames.schema import with_secrets

            schema = with_secrets(schema)
        found = self._schemas.get(schema)
        if found is None:
            found = self._schemas[schema] = schema.labelled(self.codec.labels)
        return found

    def unsecret(self, frame: pd.DataFrame, include_secrets: bool = False) -> pd.DataFrame:
        """A read's frame as the caller gets it: without the columns the platform treats as
        secret, unless asked for."""
        if include_secrets:
            return frame
        from opslib.client.frames.build import drop_secrets
        from opslib.client.frames.schema import SECRET_FIELDS

        return drop_secrets(frame, SECRET_FIELDS | self.codec.secrets)

    def may_read_fleet(self) -> bool:
        """Whether the caller may read the whole fleet (ops, admin); learned once per user.

        Tries the fleet once (a one-row device page with ``user_id ""``). Only a positive
        signal counts: a page holding a device. A refusal (403), or an empty success (what
        some platforms answer instead of refusing), means no: the caller's own are read
        then, which for an empty fleet is the same empty answer.
        """
        user = self.user_id or ""
        if user not in self._fleet:
            try:
                data = self.call(ops.QUERY_BY_USER, {"user_id": "", "page_no": 1, "page_size": 1})
            except PermissionDenied:
                log.debug("the fleet is refused (403): reading the caller's own instead")
                self._fleet[user] = False
            else:
                rows = data.get("device_list") if isinstance(data, dict) else None
                self._fleet[user] = bool(rows)
                if not rows:
                    log.debug("the fleet answered empty: not proof of access; reading own")
        return self._fleet[user]

    def fleet_access(self) -> bool | None:
        """What :meth:`may_read_fleet` learned for the current user; None: not learned yet."""
        return self._fleet.get(self.user_id or "")

    def learned_fleet_access(self, allowed: bool) -> None:
        """Record what a fleet read's own first page said (a page holding records: allowed;
        a refusal: not), so that :meth:`may_read_fleet` needs no request of its own."""
        self._fleet[self.user_id or ""] = allowed

    def close(self) -> None:
        self.http.close()


def check_concurrency(concurrency: object) -> int:
    """The most requests in flight of a paged read: a whole number from 1 to
    :data:`~opslib.client._constants.MAX_CONCURRENCY`, naming the bound."""
    if (
        isinstance(concurrency, bool)
        or not isinstance(concurrency, int)
        or not 1 <= concurrency <= C.MAX_CONCURRENCY
    ):
        raise ValueError(
            f"concurrency must be an integer from 1 to {C.MAX_CONCURRENCY}, got {concurrency!r}"
        )
    return concurrency


def check_page_size(page_size: int) -> int:
    """Refuse a page size the platform would refuse (1..1000), naming the bounds."""
    if not _is_int(page_size):
        raise TypeError(f"page_size must be an int, got {type(page_size).__name__}")
    if not 1 <= page_size <= C.MAX_PAGE_SIZE:
        raise ValueError(f"page_size must be between 1 and {C.MAX_PAGE_SIZE}, got {page_size}")
    return int(page_size)


def check_limit(limit: int | None) -> int | None:
    """Refuse a limit that is not a whole number of rows (or None), naming it."""
    if limit is None:
        return None
    if not _is_int(limit) or limit < 0:
        raise ValueError(f"limit must be a non-negative int or None, got {limit!r}")
    return int(limit)


def check_flag(name: str, value: object, *, optional: bool = False) -> bool | None:
    """A True/False option (None too when ``optional``), refused by name otherwise: a
    string such as "no" is true to Python, and would do the opposite of what it says."""
    if isinstance(value, bool) or (optional and value is None):
        return value
    allowed = "True, False or None" if optional else "True or False"
    raise TypeError(f"{name} must be {allowed}, got {value!r}")


def check_int(name: str, value: object) -> int:
    """An integer option: Python's or numpy's (a cell of a frame), never a bool, a float or
    a string (``int()`` would cut 2.7 to 2 and turn "x" into an error naming no option)."""
    if _is_int(value):
        return int(value)
    raise TypeError(f"{name} must be an integer, got {value!r}")


def _is_int(value: object) -> TypeGuard[int]:
    """Python's or numpy's integer (a cell of a frame is numpy's, an Integral too), not a
    bool; numpy is not imported here (the platform check loads no numpy)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_timeout(timeout: httpx.Timeout | float | None) -> httpx.Timeout | float | None:
    """An ``httpx.Timeout``, None (the defaults) or seconds above zero, refused by name
    otherwise (httpx would say "Timeout value out of range" without naming it)."""
    if timeout is None or isinstance(timeout, httpx.Timeout):
        return timeout
    seconds = timeout if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) else 0
    if math.isfinite(seconds) and seconds > 0:
        return timeout
    raise ValueError(
        f"timeout must be seconds above zero, an httpx.Timeout or None, got {timeout!r}"
    )


def check_retries(max_retries: int) -> int:
    """How many times a safe request is retried: a whole number, 0 or more."""
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ValueError(f"max_retries must be a whole number, 0 or more, got {max_retries!r}")
    return max_retries


def check_transport(transport: object) -> httpx.BaseTransport | None:
    """None (httpx's own) or an httpx transport, refused by name before any request."""
    if transport is None or isinstance(transport, httpx.BaseTransport):
        return transport
    raise TypeError(
        "transport must be an httpx.BaseTransport (such as httpx.HTTPTransport()) or None, "
        f"got {transport!r}"
    )
