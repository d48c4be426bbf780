"""The client: one logged-in :class:`Session` with the resources attached.

``client.devices``, ``client.events``, ... are attached lazily, one class per file under
:mod:`opslib.client.resources`; each calls the platform through the client's session.
:func:`~opslib.client._connect.connect` makes a logged-in client from settings;
:meth:`Client.from_token` makes one that calls with a given access token alone.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import httpx

from opslib.client import _constants as C
from opslib.client._session import Session
from opslib.client._settings import Secret
from opslib.dialects import Dialect
from opslib.exceptions import ConfigError
from opslib.protocol import operations as ops
from opslib.protocol.tables import resolve_dialect

if TYPE_CHECKING:
    from opslib.client.resources.auth import Auth
    from opslib.client.resources.devices import Devices
    from opslib.client.resources.events import Events
    from opslib.client.resources.products import Products
    from opslib.client.resources.users import Users

__all__ = ["Client"]


class Client:
    """A connection to one platform. Make a logged-in one with :func:`opslib.connect`.

    Every method returns a pandas DataFrame. The client is thread-safe and holds one
    connection pool; close it with :meth:`close` or use it as a context manager. Made
    directly, it starts logged out (``client.auth.login(...)``).

    Parameters
    ----------
    base_url
        The platform, e.g. ``"https://ops.example.com"``.
    client_id, client_secret
        The registered application's credentials.
    token_cache
        A JSON file (mode 0600) of tokens reused across processes, or None.
    timeout, max_retries, transport, concurrency
        As :func:`opslib.connect` takes them.
    retry_deadline
        Total seconds one call may spend, retries and waits included.
    clock
        Where token expiry is read from (epoch seconds); tests pass a fake one.
    profile
        The config-file profile the settings came from (:attr:`profile`).
    dialect
        The platform's :class:`~opslib.Dialect` or a built-in name; default the reference
        platform's.
    """

    def __init__(
        self,
        base_url: str,
        *,
        client_id: str,
        client_secret: str | Secret,
        token_cache: str | os.PathLike[str] | None = None,
        timeout: httpx.Timeout | float | None = None,
        max_retries: int = C.DEFAULT_MAX_RETRIES,
        retry_deadline: float = C.DEFAULT_RETRY_DEADLINE,
        transport: httpx.BaseTransport | None = None,
        concurrency: int = C.DEFAULT_CONCURRENCY,
        clock: Callable[[], float] = time.time,
        profile: str | None = None,
        dialect: Dialect | str | None = None,
    ) -> None:
        if not base_url:
            raise ConfigError("Client needs a base_url; use opslib.connect() for the embedded one")
        if not client_id or not client_secret:
            raise ConfigError("Client needs client_id and client_secret")
        self._session = Session(
            base_url,
            client_id=client_id,
            client_secret=Secret(client_secret),
            token_cache=Path(token_cache) if token_cache else None,
            timeout=timeout,
            max_retries=max_retries,
            retry_deadline=retry_deadline,
            transport=transport,
            concurrency=concurrency,
            clock=clock,
            dialect=resolve_dialect(dialect),
        )
        self._profile = profile

    @classmethod
    def from_token(
        cls,
        base_url: str,
        *,
        access_token: str | Secret,
        client_id: str,
        user_id: str,
        timeout: httpx.Timeout | float | None = None,
        max_retries: int = C.DEFAULT_MAX_RETRIES,
        transport: httpx.BaseTransport | None = None,
        concurrency: int = C.DEFAULT_CONCURRENCY,
        dialect: Dialect | str | None = None,
    ) -> Client:
        """A client that calls as ``user_id`` with an access token another client holds.

        It never logs in and never refreshes: when the platform refuses the token (expired,
        revoked), calls raise :class:`~opslib.AuthenticationError`. No password or client
        secret is needed, so the token is all a worker process has to be given.

        Examples
        --------
        >>> worker = opslib.Client.from_token("https://ops.example.com", access_token=token,
        ...     client_id="fleet-reports", user_id="u-000001")  # doctest: +SKIP
        >>> worker.events.list("-1d").shape  # doctest: +SKIP
        (1443, 31)
        """
        session = Session.from_token(
            base_url,
            access_token=access_token,
            client_id=client_id,
            user_id=user_id,
            timeout=timeout,
            max_retries=max_retries,
            transport=transport,
            concurrency=concurrency,
            dialect=resolve_dialect(dialect),
        )
        return cls._of(session)

    @classmethod
    def _of(cls, session: Session, profile: str | None = None) -> Client:
        """A client over a session made elsewhere (connect(), from_token())."""
        client = cls.__new__(cls)
        client._session = session
        client._profile = profile
        return client

    # -- identity ----------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The platform's base URL."""
        return self._session.base_url

    @property
    def client_id(self) -> str:
        """The registered application's id."""
        return self._session.client_id

    @property
    def user_id(self) -> str | None:
        """The logged-in user's id (None before a login)."""
        return self._session.user_id

    @property
    def profile(self) -> str | None:
        """The config-file profile the settings came from, if any."""
        return self._profile

    def __repr__(self) -> str:
        return f"<opslib.Client base_url={self.base_url!r} user_id={self.user_id!r}>"

    # -- resources ---------------------------------------------------------------------

    @cached_property
    def auth(self) -> Auth:
        """Codes, registration, login, passwords, tokens (:mod:`opslib.client.resources.auth`)."""
        from opslib.client.resources.auth import Auth

        return Auth(self._session)

    @cached_property
    def users(self) -> Users:
        """Profiles and settings: :class:`~opslib.client.resources.users.Users`."""
        from opslib.client.resources.users import Users

        return Users(self._session)

    @cached_property
    def products(self) -> Products:
        """Categories and products: :class:`~opslib.client.resources.products.Products`."""
        from opslib.client.resources.products import Products

        return Products(self._session)

    @cached_property
    def devices(self) -> Devices:
        """Devices and bindings: :class:`~opslib.client.resources.devices.Devices`."""
        from opslib.client.resources.devices import Devices

        return Devices(self._session)

    @cached_property
    def events(self) -> Events:
        """Device event records: :class:`~opslib.client.resources.events.Events`."""
        from opslib.client.resources.events import Events

        return Events(self._session)

    # -- the raw call ------------------------------------------------------------------

    def call(
        self,
        operation: str,
        params: dict[str, Any] | None = None,
        *,
        message_id: str | None = None,
    ) -> Any:
        """Call any envelope operation and return its decoded ``data`` (the raw escape hatch).

        Parameters
        ----------
        operation
            An operation's name or path (:mod:`opslib.protocol.operations`), e.g.
            ``"device_query"`` or its path.
        params
            The operation's params, without ``access_token`` and ``client_id`` (added).
        message_id
            Reuse a message_id, e.g. to repeat a write whose outcome is unknown.

        Returns
        -------
        Any
            The decoded ``data`` object in the reference platform's terms (every ``gmt_*``
            as epoch milliseconds); for add and delete the text they promise (the new
            product_id, ``"success"``).

        Examples
        --------
        >>> client = opslib.connect()
        >>> client.call("query_category")["category_list"][0]["category_name"]
        'Lighting'
        """
        try:
            op = ops.named(operation)
        except KeyError as exc:
            raise ValueError(str(exc.args[0])) from None
        if op.answer == "token" or op.extension:
            raise ValueError(
                f"{op.path} is not an envelope operation of the client; use "
                "client.auth.exchange_code() or client.auth.refresh() for tokens"
            )
        if params is not None and not isinstance(params, Mapping):
            raise TypeError(f"params must be a dict of the operation's params, got {params!r}")
        params = dict(params or {})
        for key in ("access_token", "client_id"):
            params.pop(key, None)
        return self._session.call(op, params, message_id=message_id)

    # -- lifetime ----------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection pool (the embedded platform keeps running for reuse)."""
        self._session.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
