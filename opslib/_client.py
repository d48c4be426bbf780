"""The client: connect(), the envelope of every call, and the resources.

``connect()`` resolves the settings (:mod:`opslib._config`), starts the embedded platform
when none is configured (:mod:`opslib._embedded`), logs in (:mod:`opslib._auth`) and
returns a :class:`Client` whose resources (``client.devices``, ``client.events``, ...) are
attached lazily, one class per file under :mod:`opslib.resources`.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Callable
from dataclasses import replace
from functools import cached_property
from types import TracebackType
from typing import TYPE_CHECKING, Any

import httpx

from opslib import _constants as C
from opslib._auth import Credentials, TokenCache, TokenManager
from opslib._config import Secret, Settings, resolve_settings, with_defaults
from opslib._exceptions import AuthenticationError, ConfigError, PermissionDenied
from opslib._http import HTTP, Safety, SentRead
from opslib._offload import DecoderPool, check_processes, default_processes

if TYPE_CHECKING:
    from opslib.resources.auth import Auth
    from opslib.resources.devices import Devices
    from opslib.resources.events import Events
    from opslib.resources.products import Products
    from opslib.resources.users import Users

__all__ = ["Client", "connect"]

log = logging.getLogger("opslib")


class Client:
    """A logged-in connection to one platform. Make one with :func:`opslib.connect`.

    Every method returns a pandas DataFrame. The client is thread-safe and holds one
    connection pool; close it with :meth:`close` or use it as a context manager.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        timeout: httpx.Timeout | float | None = None,
        max_retries: int = C.DEFAULT_MAX_RETRIES,
        retry_deadline: float = C.DEFAULT_RETRY_DEADLINE,
        transport: httpx.BaseTransport | None = None,
        decode_processes: int | None = None,
    ) -> None:
        processes = (
            default_processes() if decode_processes is None else check_processes(decode_processes)
        )
        if settings.base_url is None:
            raise ConfigError("Client needs a base_url; use opslib.connect() for the embedded one")
        if not settings.client_id or settings.client_secret is None:
            raise ConfigError("Client needs client_id and client_secret")
        self._settings = settings
        self._http = HTTP(
            settings.base_url,
            timeout=timeout,
            max_retries=max_retries,
            retry_deadline=retry_deadline,
            transport=transport,
        )
        cache = TokenCache(settings.token_cache) if settings.token_cache else None
        self._tokens = TokenManager(
            self._http,
            client_id=settings.client_id,
            client_secret=settings.client_secret,
            cache=cache,
        )
        self._tokens.on_switch = self._forget_user
        self._fleet: bool | None = None  # may this user read the whole fleet? (learned)
        # Helper processes that decode the pages of large reads; started on first use.
        self._decoders = DecoderPool(processes)

    # -- identity ----------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The platform's base URL."""
        return self._http.base_url

    @property
    def client_id(self) -> str:
        """The registered application's id."""
        return self._tokens.client_id

    @property
    def user_id(self) -> str | None:
        """The logged-in user's id (None before a login)."""
        return self._tokens.user_id

    @property
    def profile(self) -> str | None:
        """The config-file profile the settings came from, if any."""
        return self._settings.profile

    def __repr__(self) -> str:
        return f"<opslib.Client base_url={self.base_url!r} user_id={self.user_id!r}>"

    def _forget_user(self) -> None:
        self._fleet = None

    # -- resources ---------------------------------------------------------------------

    @cached_property
    def auth(self) -> Auth:
        """Codes, registration, login, passwords, tokens: :class:`~opslib.resources.auth.Auth`."""
        from opslib.resources.auth import Auth

        return Auth(self)

    @cached_property
    def users(self) -> Users:
        """Profiles and settings: :class:`~opslib.resources.users.Users`."""
        from opslib.resources.users import Users

        return Users(self)

    @cached_property
    def products(self) -> Products:
        """Categories and products: :class:`~opslib.resources.products.Products`."""
        from opslib.resources.products import Products

        return Products(self)

    @cached_property
    def devices(self) -> Devices:
        """Devices and bindings: :class:`~opslib.resources.devices.Devices`."""
        from opslib.resources.devices import Devices

        return Devices(self)

    @cached_property
    def events(self) -> Events:
        """Device event records: :class:`~opslib.resources.events.Events`."""
        from opslib.resources.events import Events

        return Events(self)

    # -- calls -------------------------------------------------------------------------

    def _request(
        self,
        path: str,
        params: dict[str, Any],
        *,
        auth: bool = True,
        safety: Safety | None = None,
        message_id: str | None = None,
        decode: Callable[[bytes], Any] | None = None,
    ) -> Any:
        """One envelope call: token in params, one refresh and retry on 401.

        The message_id is fixed for the whole call, so every retry of a write (after a
        dropped answer, a 503 or a token refresh) is replayed, not written again.
        ``decode`` is passed to :meth:`HTTP.post_envelope`.
        """
        mid = message_id or str(uuid.uuid4())
        if safety is None:
            safety = Safety.WRITE if path in C.WRITE_OPERATIONS else Safety.READ
        used: dict[str, str] = {}

        def build() -> dict[str, Any]:
            body = self._envelope(path, params, mid, auth=auth)
            if auth:
                used["token"] = body["params"]["access_token"]
            return body

        try:
            return self._http.post_envelope(
                path, build, message_id=mid, safety=safety, decode=decode
            )
        except AuthenticationError:
            if not auth or "token" not in used:
                raise
            log.debug("%s: 401 with the current access token; refreshing and retrying once", path)
            self._tokens.after_unauthorized(used["token"])
        return self._http.post_envelope(path, build, message_id=mid, safety=safety, decode=decode)

    def _envelope(
        self, path: str, params: dict[str, Any], message_id: str, *, auth: bool = True
    ) -> dict[str, Any]:
        """The request envelope of one attempt: the current access token in its params."""
        body = dict(params)
        if path in C.CLIENT_ID_OPERATIONS:
            body = {"client_id": self.client_id, **body}
        if auth:
            body["access_token"] = self._tokens.access_token()
        user_id = (self.user_id or "") if auth else ""
        return {"message_id": message_id, "user_id": user_id, "params": body}

    def _send_ahead(self, path: str, params: dict[str, Any]) -> SentRead:
        """Send one read now and return it; its ``result()`` is what :meth:`_request` returns.

        Paged reads send the next pages' requests before decoding the current one, from one
        thread (opslib._paging). Only the first attempt is sent ahead: when it is not a clean
        success, ``result()`` makes the regular call (retries, token refresh, errors).
        """
        ahead = None
        if self._http.can_send_ahead:
            ahead = self._http.send_ahead(path, self._envelope(path, params, str(uuid.uuid4())))
        return SentRead(ahead, lambda: self._request(path, params))

    def call(
        self, path: str, params: dict[str, Any] | None = None, *, message_id: str | None = None
    ) -> Any:
        """Call any envelope operation and return its decoded ``data`` (the raw escape hatch).

        Parameters
        ----------
        path
            One of the operations' paths, e.g. ``"/device/query"``.
        params
            The operation's params, without ``access_token`` and ``client_id`` (added).
        message_id
            Reuse a message_id, e.g. to repeat a write whose outcome is unknown.

        Returns
        -------
        Any
            The decoded ``data`` object; for ``/product/add`` and ``/product/delete`` the
            bare string (the new product_id, ``"success"``).

        Examples
        --------
        >>> client = opslib.connect()
        >>> client.call("/product/query_category")["category_list"][0]["category_name"]
        'Lighting'
        """
        if path == "/token/access":
            raise ValueError(
                "/token/access is not an envelope operation; use client.auth.exchange_code() "
                "or client.auth.refresh()"
            )
        if path not in C.OPERATIONS:
            raise ValueError(f"unknown operation {path!r}; the operations are {list(C.OPERATIONS)}")
        params = dict(params or {})
        for key in ("access_token", "client_id"):
            params.pop(key, None)
        pre_login = path in C.PRE_LOGIN_OPERATIONS or (
            path == "/user/update_pwd" and params.get("update_model") == 2
        )
        safety = None
        if path == "/user/auth_code":
            safety = Safety.WRITE if params.get("auth_model") == 1 else Safety.READ
        elif path == "/user/login":
            safety = Safety.ONCE if params.get("login_model") == 2 else Safety.READ
        return self._request(path, params, auth=not pre_login, safety=safety, message_id=message_id)

    def _may_read_fleet(self) -> bool:
        """Whether the caller may read the whole fleet (ops, admin); learned once per user.

        Tries the fleet once (a one-row device page with ``user_id ""``); a 403 means no.
        """
        if self._fleet is None:
            try:
                self._request(
                    "/device/query_by_user", {"user_id": "", "page_no": 1, "page_size": 1}
                )
            except PermissionDenied:
                log.debug("the fleet is refused (403): reading the caller's own instead")
                self._fleet = False
            else:
                self._fleet = True
        return self._fleet

    # -- lifetime ----------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection pool and stop the decoding helpers (the embedded platform
        keeps running for reuse)."""
        self._http.close()
        self._decoders.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def connect(
    base_url: str | None = None,
    *,
    client_id: str | None = None,
    client_secret: str | Secret | None = None,
    area_code: str | None = None,
    phone: str | None = None,
    password: str | Secret | None = None,
    profile: str | None = None,
    token_cache: str | os.PathLike[str] | bool | None = None,
    timeout: httpx.Timeout | float | None = None,
    max_retries: int = C.DEFAULT_MAX_RETRIES,
    transport: httpx.BaseTransport | None = None,
    decode_processes: int | None = None,
) -> Client:
    """Connect to a platform and log in; with nothing configured, to the embedded demo one.

    Each setting comes from the argument, else the environment (``OPSLIB_BASE_URL``,
    ``OPSLIB_CLIENT_ID``, ``OPSLIB_CLIENT_SECRET``, ``OPSLIB_AREA_CODE``, ``OPSLIB_PHONE``,
    ``OPSLIB_PASSWORD``, ``OPSLIB_TOKEN_CACHE``), else the profile in
    ``~/.config/opslib/config.toml`` (``OPSLIB_CONFIG`` points elsewhere; ``profile`` or
    ``OPSLIB_PROFILE`` picks the ``[profiles.NAME]`` table). Without a base URL from any of
    them, the reference platform is started on 127.0.0.1 in a background thread over a
    demo database in the user's cache directory (seeded on first use; once per process)
    and the client logs in as its ops account.

    Parameters
    ----------
    base_url
        The platform, e.g. ``"https://ops.example.com"``.
    client_id, client_secret
        The registered application's credentials.
    area_code, phone, password
        The account to log in as. Without a password the client starts logged out unless
        the token cache holds a token for this account (log in with ``client.auth.login``).
    profile
        The config-file profile to use.
    token_cache
        A path, True for ``<user cache dir>/opslib/tokens.json``, or False/None for none.
        Tokens are stored (mode 0600) per base_url, client_id and phone, so a scheduled
        report refreshes instead of logging in on every run.
    timeout
        An ``httpx.Timeout`` or seconds; default: finite connect/read/write/pool timeouts.
    max_retries
        Retries of one call after a dropped connection, a 429 or a 502/503/504.
    transport
        An httpx transport to send requests through (testing, proxies).
    decode_processes
        Helper processes that decode the pages of large reads beside this process; started
        by the first read of 500 pages or more, then used by every read of 20 pages or more,
        stopped by :meth:`Client.close`.
        Default ``OPSLIB_DECODE_PROCESSES``, else none; 0 decodes every page in this
        process. With helpers, pages are read by a thread pool instead of being sent ahead
        from the calling thread, which was faster on 2 CPUs (docs/performance.md).

    Returns
    -------
    Client
        Logged in, ready.

    Examples
    --------
    >>> client = opslib.connect()
    >>> client.devices.list().shape  # doctest: +SKIP
    (5000, 23)
    """
    if decode_processes is not None:
        check_processes(decode_processes)
    settings = resolve_settings(
        base_url=base_url,
        client_id=client_id,
        client_secret=client_secret,
        area_code=area_code,
        phone=phone,
        password=password,
        profile=profile,
        token_cache=token_cache,
    )
    if settings.embedded:
        from opslib._embedded import embedded_platform
        from opslib.server import demo

        platform = embedded_platform()
        account = {}
        if settings.phone is None:
            account = {
                "area_code": demo.AREA_CODE,
                "phone": demo.OPS_PHONE,
                "password": demo.OPS_PASSWORD,
            }
        settings = with_defaults(
            replace(settings, base_url=platform.base_url),
            client_id=demo.CLIENT_ID,
            client_secret=demo.CLIENT_SECRET,
            **account,
        )
    if settings.phone and not settings.area_code:
        raise ConfigError(f"phone {settings.phone!r} is set but no area_code (e.g. '1')")
    client = Client(
        settings,
        timeout=timeout,
        max_retries=max_retries,
        transport=transport,
        decode_processes=decode_processes,
    )
    if settings.phone and settings.area_code:
        creds = Credentials(settings.area_code, settings.phone, settings.password)
        try:
            client._tokens.start(creds)
        except AuthenticationError:
            if settings.password is not None:
                client.close()
                raise
            log.info("connected without logging in: no password and no cached token")
        except BaseException:
            client.close()
            raise
    return client
