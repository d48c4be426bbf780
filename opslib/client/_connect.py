"""``connect()``: settings, then the embedded platform when none is configured, then a login.

Each step is its own function: :func:`~opslib.client._settings.resolve_settings` (arguments,
environment, config profile), :func:`~opslib.client._embedded.embedded_settings` (the
embedded platform and its demo account), :meth:`Session.open
<opslib.client._session.Session.open>` (a cached token or the password).
"""

from __future__ import annotations

import os

import httpx

from opslib.client import _constants as C
from opslib.client._client import Client
from opslib.client._session import Session
from opslib.client._settings import Secret, resolve_settings
from opslib.dialects import Dialect
from opslib.exceptions import ConfigError

__all__ = ["connect"]


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
    concurrency: int = C.DEFAULT_CONCURRENCY,
    dialect: Dialect | str | None = None,
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
        An httpx transport to send requests through (testing, a custom proxy set-up);
        default httpx's own, which honours ``HTTP(S)_PROXY`` and ``NO_PROXY`` (eight of
        them, each with its share of the connections: docs/client.md).
    concurrency
        The most requests in flight while a list reads its pages after the first (1..32);
        the number in flight adapts to the link below it (docs/client.md).
    dialect
        How the platform decides what the interface spec leaves open: an
        :class:`opslib.Dialect`, a built-in name (``"vendor"``), else ``OPSLIB_DIALECT``,
        else the profile's ``dialect``; default the reference platform's. ``opslib probe``
        finds a platform's and writes it as a profile section.

    Returns
    -------
    Client
        Logged in, ready.

    Raises
    ------
    ConfigError
        A setting is missing or not of its kind (a ``base_url`` that is not http(s), a
        client_id without its secret, an unknown profile or dialect), naming it.
    ValueError, TypeError
        ``timeout``, ``max_retries``, ``concurrency`` or ``transport`` of the wrong kind,
        naming it and what is accepted; nothing is sent.

    Examples
    --------
    >>> client = opslib.connect()
    >>> client.devices.list().shape  # doctest: +SKIP
    (5000, 23)
    """
    # Masked at once: a traceback's frame of connect() then shows Secret('**********').
    if isinstance(password, str):
        password = Secret(password)
    if isinstance(client_secret, str):
        client_secret = Secret(client_secret)
    settings = resolve_settings(
        base_url=base_url,
        client_id=client_id,
        client_secret=client_secret,
        area_code=area_code,
        phone=phone,
        password=password,
        profile=profile,
        token_cache=token_cache,
        dialect=dialect,
    )
    if settings.embedded:
        from opslib.client._embedded import embedded_settings

        settings = embedded_settings(settings)
    if settings.phone and not settings.area_code:
        raise ConfigError(f"phone {settings.phone!r} is set but no area_code (e.g. '1')")
    session = Session.open(
        settings,
        timeout=timeout,
        max_retries=max_retries,
        transport=transport,
        concurrency=concurrency,
    )
    return Client._of(session, settings.profile)
