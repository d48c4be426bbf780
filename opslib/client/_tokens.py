"""Tokens: login, exchange of the authorization code, refresh, and the token cache.

Flow (protocol §6.2-6.3): ``/user/login`` answers an authorization code, ``/token/access``
exchanges it for an access and a refresh token; the refresh grant rotates both. The
:class:`TokenManager` refreshes ahead of expiry under a lock, so when several threads find
the token expiring at once one of them refreshes and the others wait and reuse the result.
A refresh token the platform refuses (``invalid_grant``, or a code the dialect lists in
``errors.token_refused_codes``) is answered by a fresh login when the password is known.
The user is the login answer's ``data.user_id`` (the dialect's ``token.user_id_field``);
the token answer's ``openid`` is kept apart, as a platform may scope it to the app.
Tokens are kept as :class:`~opslib.client._settings.Secret` and never logged.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from opslib.client import _constants as C
from opslib.client._http import HTTP, Safety
from opslib.client._settings import Secret
from opslib.enums import LoginModel
from opslib.exceptions import APIError, AuthenticationError, ConfigError
from opslib.protocol import operations as ops

__all__ = ["Credentials", "TokenCache", "TokenManager", "Tokens"]

log = logging.getLogger("opslib")


@dataclass(frozen=True)
class Tokens:
    """An access/refresh token pair, when it expires (epoch seconds) and whose it is.

    ``user_id`` is the user the platform knows (the envelope's ``user_id``); ``openid`` is
    what the token answer said, which a platform may make differ from it. Without a refresh
    token (a token given to :meth:`TokenManager.use`) nothing is renewed.
    """

    access_token: Secret
    refresh_token: Secret | None
    expires_in: int
    expires_at: float
    openid: str
    user_id: str = ""

    def needs_refresh(self, now: float) -> bool:
        if self.refresh_token is None:
            return False
        margin = min(C.TOKEN_REFRESH_MARGIN, self.expires_in * C.TOKEN_REFRESH_MARGIN_FRACTION)
        return now >= self.expires_at - margin

    def to_json(self) -> dict[str, Any]:
        return {
            "access_token": self.access_token.get_secret_value(),
            "refresh_token": self.refresh_token.get_secret_value() if self.refresh_token else None,
            "expires_in": self.expires_in,
            "expires_at": self.expires_at,
            "openid": self.openid,
            "user_id": self.user_id,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Tokens:
        return cls(
            access_token=Secret(doc["access_token"]),
            refresh_token=Secret(doc["refresh_token"]),
            expires_in=int(doc["expires_in"]),
            expires_at=float(doc["expires_at"]),
            openid=str(doc["openid"]),
            user_id=str(doc.get("user_id") or doc["openid"]),
        )

    @classmethod
    def from_response(cls, body: dict[str, Any], now: float, user_id: str | None = None) -> Tokens:
        """Tokens from the token answer (``expires_in`` already in seconds); ``user_id``
        from the login answer, else the openid (the reference platform's are equal)."""
        expires_in = int(body.get("expires_in") or 0)
        openid = str(body.get("openid") or "")
        return cls(
            access_token=Secret(str(body["access_token"])),
            refresh_token=Secret(str(body["refresh_token"])),
            expires_in=expires_in,
            expires_at=now + expires_in,
            openid=openid,
            user_id=user_id or openid,
        )


@dataclass(frozen=True)
class Credentials:
    """Who the client logs in as; the password may be unknown (a login by SMS code)."""

    area_code: str
    phone: str
    password: Secret | None = None


class TokenCache:
    """A JSON file of tokens (mode 0600) keyed by base_url + client_id + phone.

    Lets an unattended report reuse its tokens instead of logging in on every run. Writes
    replace the file atomically; a broken or foreign file is ignored, never fatal, and so
    is a place where it cannot be written (one warning; the tokens stay in memory).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._warned = False

    @staticmethod
    def key(base_url: str, client_id: str, area_code: str, phone: str) -> str:
        return f"{base_url.rstrip('/')}|{client_id}|{area_code}-{phone}"

    def _read(self) -> dict[str, Any]:
        try:
            doc = orjson.loads(self.path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return {}
        return doc if isinstance(doc, dict) else {}

    def load(self, key: str) -> Tokens | None:
        entry = self._read().get(key)
        if not isinstance(entry, dict):
            return None
        try:
            return Tokens.from_json(entry)
        except (KeyError, TypeError, ValueError):
            return None

    def save(self, key: str, tokens: Tokens | None) -> None:
        with self._lock:
            doc = self._read()
            if tokens is None:
                if doc.pop(key, None) is None:
                    return
            else:
                doc[key] = tokens.to_json()
            try:
                self._write(doc)
            except OSError as exc:
                if not self._warned:
                    self._warned = True
                    log.warning(
                        "could not write the token cache %s (%s); the tokens stay in memory",
                        self.path,
                        exc.strerror or exc,
                    )

    def _write(self, doc: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.{threading.get_ident()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise


class TokenManager:
    """Holds the current tokens of one client and keeps them fresh; thread-safe."""

    def __init__(
        self,
        http: HTTP,
        *,
        client_id: str,
        client_secret: Secret | None,
        cache: TokenCache | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._http = http
        self.client_id = client_id
        self._client_secret = client_secret
        self._cache = cache
        self._clock = clock
        self._lock = threading.RLock()
        self._tokens: Tokens | None = None
        self.credentials: Credentials | None = None

    def __repr__(self) -> str:
        return f"TokenManager(client_id={self.client_id!r}, user_id={self.user_id!r})"

    @property
    def user_id(self) -> str | None:
        tokens = self._tokens
        return tokens.user_id if tokens else None

    @property
    def tokens(self) -> Tokens | None:
        return self._tokens

    def use(self, access_token: Secret, user_id: str) -> None:
        """Call with ``access_token`` as ``user_id`` from now on; it is never renewed."""
        with self._lock:
            self._tokens = Tokens(access_token, None, 0, math.inf, user_id, user_id)
            self.credentials = None

    # -- the token every call uses -----------------------------------------------------

    def access_token(self) -> str:
        """The current access token, refreshed first when it is about to expire."""
        tokens = self._tokens
        if tokens is None:
            raise AuthenticationError(
                401,
                "not logged in: give phone and password to connect(), or call client.auth.login()",
            )
        if tokens.needs_refresh(self._clock()):
            with self._lock:
                # Another thread may have refreshed while this one waited for the lock.
                if self._tokens is not None and self._tokens.needs_refresh(self._clock()):
                    self._renew("expires soon")
                tokens = self._tokens
        assert tokens is not None
        return tokens.access_token.get_secret_value()

    def fresh(self, min_validity: float) -> Tokens:
        """The current tokens, refreshed first when they have less than ``min_validity``
        seconds left (to hand a token to work that will run a while)."""
        tokens = self._tokens
        if tokens is None:
            raise AuthenticationError(401, "not logged in: log in before handing a token on")
        if tokens.expires_at - self._clock() < min_validity:
            self.refresh()
        self.access_token()  # refreshes if about to expire, as every call does
        current = self._tokens
        assert current is not None
        return current

    def access_secret(self) -> Secret:
        """:meth:`access_token` as a :class:`Secret`, for the envelope of a call."""
        self.access_token()
        tokens = self._tokens
        assert tokens is not None
        return tokens.access_token

    def after_unauthorized(self, used_token: str | Secret) -> None:
        """A call was refused with 401 using ``used_token``: renew unless already renewed."""
        with self._lock:
            current = self._tokens
            if current is not None and current.access_token != Secret(used_token):
                return
            self._renew("the access token was refused")

    def _renew(self, why: str) -> None:
        """Refresh; on a refused refresh token log in again if the password is known."""
        tokens = self._tokens
        if tokens is None:
            raise AuthenticationError(401, "not logged in")
        if tokens.refresh_token is None:
            raise AuthenticationError(
                401, f"the access token was refused ({why}) and there is none to renew it with"
            )
        log.debug("refreshing the access token: %s", why)
        try:
            self._set(self.refresh_grant(tokens.refresh_token, tokens.user_id))
            return
        except APIError as exc:
            creds = self.credentials
            refused = self._http.codec.errors.refused_refresh(exc)
            if not refused or creds is None or creds.password is None:
                self._drop_cached()
                raise
            log.info("the refresh token was refused (%s); logging in again", exc.error or exc.code)
        self.login_password(creds.area_code, creds.phone, creds.password)

    # -- grants ------------------------------------------------------------------------

    def _form(self, **fields: str | Secret) -> dict[str, str | Secret]:
        if self._client_secret is None:
            raise ConfigError(
                "this client was made from an access token: it has no client_secret for "
                f"{ops.TOKEN.path} (use opslib.connect() to log in)"
            )
        return {
            "client_id": self.client_id,
            "client_secret": self._client_secret,
            **fields,
        }

    def refresh_grant(self, refresh_token: Secret, user_id: str | None = None) -> Tokens:
        body = self._http.post_form(
            ops.TOKEN,
            self._form(grant_type="refresh_token", refresh_token=refresh_token),
            safety=Safety.READ,  # the platform replays a refresh repeated within 60 s
        )
        return Tokens.from_response(body, self._clock(), user_id)

    def exchange(self, code: str | Secret, user_id: str | None = None) -> Tokens:
        """Exchange an authorization code and make the new tokens current.

        ``user_id`` is the login or register answer's (the dialect's ``user_id_field``);
        without it the token answer's openid stands for it.
        """
        body = self._http.post_form(
            ops.TOKEN,
            self._form(
                grant_type="authorization_code",
                code=code if isinstance(code, Secret) else Secret(str(code)),
                redirect_uri=C.REDIRECT_URI_NONE,
            ),
            safety=Safety.ONCE,  # a second exchange revokes the first one's tokens
        )
        tokens = Tokens.from_response(body, self._clock(), user_id)
        with self._lock:
            if self.user_id == tokens.user_id:
                self._set(tokens)
            else:
                # Another user: forget the old credentials before anything is cached.
                self.credentials = None
                self._tokens = tokens
        return tokens

    def refresh(self) -> Tokens:
        """Refresh now (``client.auth.refresh()``)."""
        with self._lock:
            self._renew("asked for")
            assert self._tokens is not None
            return self._tokens

    def _login(self, params: dict[str, Any], safety: Safety) -> dict[str, Any]:
        message_id = str(uuid.uuid4())
        codec = self._http.codec
        data = self._http.post_envelope(
            ops.LOGIN,
            lambda: codec.envelope(
                ops.LOGIN, params, message_id=message_id, user_id="", client_id=self.client_id
            ),
            message_id=message_id,
            safety=safety,
        )
        return dict(data)

    def login_password(self, area_code: str, phone: str, password: Secret) -> dict[str, Any]:
        """Log in by password, exchange the code, and remember the credentials."""
        data = self._login(
            {
                "login_model": int(LoginModel.PASSWORD),
                "area_code": area_code,
                "phone": phone,
                "password": password,
            },
            Safety.READ,  # a repeated password login only issues another code
        )
        with self._lock:
            self.exchange(str(data.pop("code")), self.user_id_of(data))
            self.credentials = Credentials(area_code, phone, password)
            self._save_cached()
        return data

    def login_code(self, area_code: str, phone: str, code: str | Secret) -> dict[str, Any]:
        """Log in by an SMS code (code_model 2); no password is known afterwards."""
        data = self._login(
            {
                "login_model": int(LoginModel.SMS_CODE),
                "area_code": area_code,
                "phone": phone,
                "auth_code": code if isinstance(code, Secret) else Secret(str(code)),
            },
            Safety.ONCE,  # the SMS code is consumed by the first login
        )
        with self._lock:
            self.exchange(str(data.pop("code")), self.user_id_of(data))
            self.credentials = Credentials(area_code, phone, None)
            self._save_cached()
        return data

    def user_id_of(self, data: dict[str, Any]) -> str | None:
        """The user_id in a login or register answer's ``data`` (the dialect's field)."""
        value = self._http.codec.login_user_id(data)
        return str(value) if value not in (None, "") else None

    # -- cache -------------------------------------------------------------------------

    def _cache_key(self) -> str | None:
        creds = self.credentials
        if self._cache is None or creds is None:
            return None
        return TokenCache.key(self._http.base_url, self.client_id, creds.area_code, creds.phone)

    def _set(self, tokens: Tokens) -> None:
        self._tokens = tokens
        self._save_cached()

    def _save_cached(self) -> None:
        key = self._cache_key()
        if key is not None and self._cache is not None and self._tokens is not None:
            self._cache.save(key, self._tokens)

    def _drop_cached(self) -> None:
        key = self._cache_key()
        if key is not None and self._cache is not None:
            self._cache.save(key, None)

    def remember(self, creds: Credentials) -> None:
        """Record whose tokens these are (for a fresh login and the cache)."""
        with self._lock:
            self.credentials = creds
            self._save_cached()

    def start(self, creds: Credentials) -> bool:
        """Log in as ``creds``: from the cache when it holds a usable token, else by password.

        Returns whether a cached token was used.
        """
        with self._lock:
            self.credentials = creds
            key = self._cache_key()
            cached = self._cache.load(key) if self._cache is not None and key else None
            if cached is not None:
                self._tokens = cached
                try:
                    self.access_token()  # refreshes a stale cached token (or logs in again)
                    log.debug("using cached tokens for %s-%s", creds.area_code, creds.phone)
                    return True
                except APIError:
                    self._tokens = None
                    self._drop_cached()
            if creds.password is None:
                raise AuthenticationError(
                    401, f"no password for {creds.area_code}-{creds.phone} and no cached token"
                )
            self.login_password(creds.area_code, creds.phone, creds.password)
            return False
