"""``client.events.to_dask``: event records as a Dask DataFrame, one partition per window.

:func:`events_to_dask` builds the frame's columns (declared, or from a small sample) and a
:class:`WindowReader`, which travels in Dask's task graph: on a worker it opens a session
of its own (a token-only one with ``auth="token"``, closed after the partition; else logged
in from the worker's environment once per Dask worker, kept by the worker) and reads its
window through the same paged read as ``events.list``. :mod:`opslib.dask` knows Dask, not
the platform.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from opslib.client import _constants as C
from opslib.client._event_table import frame_to_columns
from opslib.client._pager import Pager
from opslib.client._session import Session, check_concurrency, check_page_size
from opslib.client._settings import Secret
from opslib.client.frames import schema as S
from opslib.client.frames.build import build_frame
from opslib.dialects import Dialect
from opslib.enums import EventType
from opslib.exceptions import AuthenticationError, ConfigError
from opslib.protocol import operations as ops

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["WindowReader", "check_dask_options", "events_to_dask", "read_window"]

_AUTH_MODES = ("token", "environment")


def check_dask_options(auth: str, page_size: int, concurrency: int) -> None:
    """Refuse options :func:`events_to_dask` cannot use, naming the allowed values."""
    if auth not in _AUTH_MODES:
        raise ValueError(f"auth must be one of {_AUTH_MODES}, got {auth!r}")
    check_page_size(page_size)
    check_concurrency(concurrency)


def events_to_dask(
    session: Session,
    query: dict[str, Any],
    start_ms: int,
    end_ms: int,
    *,
    partition: str | pd.Timedelta,
    properties: Mapping[str, Any] | None,
    auth: str,
    page_size: int,
    concurrency: int,
) -> dd.DataFrame:
    """What :meth:`Events.to_dask <opslib.client.resources.events.Events.to_dask>` returns
    for ``query`` (an events read's params but its range and page) over ``[start_ms,
    end_ms)``; the other parameters are documented there."""
    from opslib.dask import events_frame, partition_windows

    check_dask_options(auth, page_size, concurrency)
    windows = partition_windows(start_ms, end_ms, partition)
    if properties is None:
        meta = _sampled_meta(session, query, start_ms, end_ms, page_size)
    else:
        meta = _declared_meta(properties, session.frame_schema(S.EVENT))
    meta = session.unsecret(meta)
    meta.attrs["event_kinds"] = session.codec.event_kinds()  # every partition carries them
    token: Secret | None = None
    expires_at = 0.0
    if auth == "token":
        tokens = session.tokens.fresh(C.DASK_TOKEN_MIN_VALIDITY_S)
        token, expires_at = tokens.access_token, tokens.expires_at
    reader = WindowReader(
        base_url=session.base_url,
        client_id=session.client_id,
        user_id=session.user_id or "",
        query=tuple(sorted(query.items())),
        access_token=token,
        expires_at=expires_at,
        page_size=page_size,
        concurrency=concurrency,
        dialect=session.dialect,
    )
    return events_frame(reader, windows, meta, sampled=properties is None)


def read_window(
    session: Session,
    query: dict[str, Any],
    start_ms: int,
    end_ms: int,
    *,
    page_size: int,
    limit: int | None = None,
) -> pd.DataFrame:
    """``query``'s events in ``[start_ms, end_ms)`` as ``events.list`` reads them (no
    progress bar, no secrets)."""
    read = Pager(
        session,
        ops.QUERY_RECORD,
        {**query, "start": start_ms, "end": end_ms},
        schema=session.frame_schema(S.EVENT),
        page_size=page_size,
        limit=limit,
        progress=False,
    )
    return session.unsecret(read.frame())


def _sampled_meta(
    session: Session, query: dict[str, Any], start_ms: int, end_ms: int, page_size: int
) -> pd.DataFrame:
    """Property columns from a sample: properties follow the event type (a firmware
    upgrade has ``from``/``to``), so the first rows of each type over the range, and the
    first rows of the last day for properties that appear late."""
    every = session.codec.filter_codes("event_type", EventType)  # the platform's codes
    types = [query["event_type"]] if "event_type" in query else list(every)
    reads = [({**query, "event_type": t}, start_ms, end_ms) for t in types]
    reads.append((query, max(start_ms, end_ms - C.DASK_SAMPLE_LAST_MS), end_ms))
    pages = []
    for params, lo, hi in reads:
        frame = read_window(session, params, lo, hi, page_size=page_size, limit=C.DASK_SAMPLE_ROWS)
        pages.append(frame_to_columns(frame))
    return build_frame(pages, session.frame_schema(S.EVENT)).iloc[:0]


def _declared_meta(properties: Mapping[str, Any], schema: S.FrameSchema) -> pd.DataFrame:
    meta = schema.empty()
    for name, dtype in properties.items():
        column = name if name.startswith("properties.") else f"properties.{name}"
        try:
            meta[column] = pd.Series([], dtype=dtype)
        except TypeError as exc:  # "data type 'floaty' not understood", naming no property
            raise TypeError(
                f"properties[{name!r}] = {dtype!r}: {exc}; give a pandas dtype such as "
                "'Float64', 'Int64', 'boolean' or 'string'"
            ) from None
    fixed = list(schema.dtypes())
    members = sorted(c for c in meta.columns if c not in fixed)
    return meta[fixed + members]


@dataclass(frozen=True)
class WindowReader:
    """Reads one window of events on a Dask worker; travels in the task graph.

    It holds what a worker needs and nothing more: the platform, the application's id, the
    caller's id, the query and, with ``auth="token"``, a short-lived access token (masked
    in its repr). Never a password or a client secret. With the token the worker calls as
    a client made by ``opslib.Client.from_token``; without one it logs in from its own
    ``OPSLIB_*`` environment, once per Dask worker (:meth:`_session`).
    """

    base_url: str
    client_id: str
    user_id: str
    query: tuple[tuple[str, Any], ...]
    access_token: Secret | None = field(repr=False)
    expires_at: float = 0.0
    page_size: int = C.DEFAULT_PAGE_SIZE
    concurrency: int = C.DASK_PARTITION_CONCURRENCY
    dialect: Dialect | None = None

    @property
    def identity(self) -> tuple[Any, ...]:
        """What this reader reads (Dask's task keys), without the token."""
        auth = "environment" if self.access_token is None else "token"
        return (self.base_url, self.user_id, self.query, auth)

    def __call__(self, start_ms: int, end_ms: int) -> pd.DataFrame:
        """``[start_ms, end_ms)`` as ``events.list`` returns it."""
        session, own = self._session()
        try:
            return read_window(
                session, dict(self.query), start_ms, end_ms, page_size=self.page_size
            )
        except AuthenticationError as exc:
            if self.access_token is None:
                raise
            expired = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.expires_at))
            raise AuthenticationError(
                401,
                f"the access token given to the workers was refused ({exc.error_msg}); it "
                f"expires {expired}: build the frame again, or use auth='environment'",
                operation=ops.QUERY_RECORD.path,
            ) from None
        finally:
            if own:
                session.close()

    def _session(self) -> tuple[Session, bool]:
        """The session of this partition, and whether it is this partition's own (closed
        after it). With a token: a token-only session of its own (no request to open it).
        From the environment: logged in once per Dask worker and kept by the worker (a
        login per partition would be a password check each, which platforms throttle);
        one of its own where no Dask worker runs this (the threaded scheduler)."""
        worker = _dask_worker() if self.access_token is None else None
        if worker is None:
            return self._open(), True
        state = vars(worker)
        lock = state.setdefault("opslib_lock", threading.Lock())
        with lock:
            sessions: dict[str, Session] = state.setdefault("opslib_sessions", {})
            session = sessions.get(self.base_url)
            if session is None:
                session = sessions[self.base_url] = self._open()
        return session, False

    def _open(self) -> Session:
        if self.access_token is not None:
            return Session.from_token(
                self.base_url,
                access_token=self.access_token,
                client_id=self.client_id,
                user_id=self.user_id,
                concurrency=self.concurrency,
                dialect=self.dialect,
            )
        from opslib.client._settings import resolve_settings

        settings = resolve_settings()
        if settings.embedded:
            raise ConfigError(
                "auth='environment': this worker has no platform configured; set "
                "OPSLIB_BASE_URL and the credentials (or OPSLIB_PROFILE) on the workers"
            )
        if settings.base_url != self.base_url.rstrip("/"):
            raise ConfigError(
                f"auth='environment': this worker's environment names {settings.base_url!r}, "
                f"the frame reads {self.base_url!r}"
            )
        return Session.open(settings, concurrency=self.concurrency)


def _dask_worker() -> Any:
    """The Dask worker running this task, or None (no ``distributed``, or not on one)."""
    try:
        from distributed import get_worker
    except ImportError:  # pragma: no cover - the dask extra brings it
        return None
    try:
        return get_worker()
    except ValueError:  # not in a worker's task
        return None
