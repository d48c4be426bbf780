"""``client.events``: device event records over any time range.

Operation: ``/device/query_record`` (list, iter_pages, to_dask). ``device_id`` selects
query_model 1, ``user_id`` query_model 2; with neither, ops and admin read the whole fleet
(3) and everyone else their own devices' events (2).

Every read is one :class:`~opslib.client._pager.Pager` through the client's session; the
event cache (:mod:`opslib.client._event_cache`) and a Dask partition on its worker
(:mod:`opslib.client._event_dask`) read the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from opslib.client import _constants as C
from opslib.client._fanout import per_user
from opslib.client._pager import Pager
from opslib.client._session import check_flag
from opslib.client.frames import schema as S
from opslib.client.resources import Resource
from opslib.enums import EventType, RecordQueryModel
from opslib.exceptions import AuthenticationError, Unsupported
from opslib.protocol import operations as ops
from opslib.timeutil import Moment, time_range

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["Events"]

_RECORDS = ops.QUERY_RECORD


class Events(Resource):
    """Device event records (``client.events``)."""

    def _query(
        self,
        device_id: str | None,
        user_id: str | None,
        event_type: int | str | EventType | None,
        *,
        learn_fleet: bool = False,
        takes_users: bool = True,
    ) -> dict[str, Any]:
        """The params of a read but its time range and page (query_model, whose, type);
        ``learn_fleet``: where it is not known yet whether the caller may read the fleet,
        the fleet's (its first page tells: the pager's ``own``); ``takes_users``: whether
        the method reading takes ``users=`` (:meth:`list` does)."""
        params: dict[str, Any] = {}
        if device_id is not None and user_id is not None:
            raise ValueError("give device_id or user_id, not both")
        if device_id is not None:
            params.update(query_model=int(RecordQueryModel.DEVICE), device_id=str(device_id))
        elif user_id is not None:
            params.update(query_model=int(RecordQueryModel.USER), user_id_param=str(user_id))
        elif not self._session.codec.fleet_events:
            ways = (
                "device_id=, user_id=, or users=[...] to read several users' devices' events "
                "(e.g. users=client.devices.list(user_id)['user_id'])"
                if takes_users
                else "device_id= or user_id= (events.list(users=[...]) reads several users' "
                "devices' events into one frame)"
            )
            raise Unsupported(
                f"this platform (dialect {self._session.codec.name!r}) has no whole-fleet event "
                f"query: pass {ways}"
            )
        elif (learn_fleet and self._session.fleet_access() is None) or (
            self._session.may_read_fleet()
        ):
            params["query_model"] = int(RecordQueryModel.FLEET)
        else:
            params.update(
                query_model=int(RecordQueryModel.USER),
                user_id_param=str(self._session.user_id or ""),
            )
        if isinstance(event_type, list | tuple | set):  # "must be one of 1..6" misled
            raise ValueError(
                f"event_type takes one type, got {event_type!r}: the platform filters by one; "
                "for several, read every type and keep them with "
                "analysis.filter_events(events, event_types=[...])"
            )
        if event_type is not None:
            params["event_type"] = self._code(event_type, EventType, "event_type")
        return params

    def _pager(
        self,
        query: dict[str, Any],
        start_ms: int,
        end_ms: int,
        *,
        limit: int | None = None,
        progress: bool | None = None,
        page_size: int = C.DEFAULT_PAGE_SIZE,
        on_page: Callable[[dict[str, Any]], None] | None = None,
    ) -> Pager:
        """The read of ``query`` over ``[start_ms, end_ms)``; ``on_page`` sees each page's
        ``data`` as it arrives (the event cache keeps each record's raw properties).

        A fleet read by a caller not yet known to may read the fleet learns it from its
        first page (no fleet check first): where the answer is no, the caller's own
        devices' events are read instead (``own``)."""
        session = self._session
        params = {**query, "start": start_ms, "end": end_ms}
        own = None
        if params.get("query_model") == int(RecordQueryModel.FLEET):
            mine = {"query_model": int(RecordQueryModel.USER)}
            own = {**params, **mine, "user_id_param": str(session.user_id or "")}
        return Pager(
            session,
            _RECORDS,
            params,
            schema=self._session.frame_schema(S.EVENT),
            page_size=page_size,
            limit=limit,
            progress=progress,
            desc="events",
            on_data=on_page,
            own=own,
        )

    def list(
        self,
        start: Moment,
        end: Moment = "now",
        *,
        device_id: str | None = None,
        user_id: str | None = None,
        users: Iterable[str] | None = None,
        event_type: int | str | EventType | None = None,
        limit: int | None = None,
        progress: bool | None = None,
        page_size: int = C.DEFAULT_PAGE_SIZE,
        cache: bool = False,
    ) -> pd.DataFrame:
        """List event records in ``[start, end)`` with every page fetched.

        Parameters
        ----------
        start, end
            The time range, half-open. Each is a datetime, a pandas Timestamp, an ISO 8601
            string, epoch seconds or milliseconds (told apart by magnitude), ``"now"`` or
            an offset from now such as ``"-7d"``, ``"-36h"``, ``"-15m"``. Naive times are
            UTC. start must be before end.
        device_id
            One device's events (query_model 1).
        user_id
            One user's devices' events (query_model 2).
        users
            Several users' devices' events: one complete read per user, concurrently,
            joined with duplicates dropped (``attrs["totals"]`` per user). The way to read
            a fleet on a platform without a fleet query (:class:`opslib.Unsupported`
            otherwise).
        event_type
            One type: 1/"online", 2/"offline", 3/"property report", 4/"alarm",
            5/"command", 6/"firmware upgrade".
        limit
            At most this many rows (None: all).
        progress
            Show a progress bar; None shows one when the read needs more than a few pages.
        page_size
            Rows per request (1..1000).
        cache
            Keep closed past windows (whole UTC days whose end is more than an hour ago)
            in the local cache and read them from there next time; only the missing
            windows and the still-open one are fetched. The result equals an uncached
            read. The cache is per platform, caller and query; ``OPSLIB_CACHE_DIR`` moves
            it, ``opslib cache info`` and ``opslib cache clear`` manage it. With ``limit``,
            the first rows of the cached read are kept, with the property columns of the
            whole range.

        Returns
        -------
        pandas.DataFrame
            One row per event: event_id, gmt_create, device_id, user_id, event_type,
            event_type_name, code, then properties.* (numeric where the data is numeric).
            Sorted by gmt_create, event_id; duplicates dropped.

        Examples
        --------
        >>> client = opslib.connect()
        >>> alarms = client.events.list("-7d", event_type="alarm")
        >>> str(alarms["gmt_create"].dtype)
        'datetime64[ns, UTC]'
        >>> month = client.events.list("-30d", cache=True)  # tomorrow: only new windows
        """
        df = self._read(
            start, end, device_id, user_id, users, event_type, limit, progress, page_size, cache
        )
        df = self._session.unsecret(df)
        df.attrs["event_kinds"] = self._kinds()
        return df

    def _kinds(self) -> dict[str, dict[int, str]]:
        """The platform's event kinds as a frame carries them (``attrs["event_kinds"]``,
        read by :func:`opslib.analysis.event_kinds`)."""
        return self._session.codec.event_kinds()

    def _read(
        self,
        start: Moment,
        end: Moment,
        device_id: str | None,
        user_id: str | None,
        users: Iterable[str] | None,
        event_type: int | str | EventType | None,
        limit: int | None,
        progress: bool | None,
        page_size: int,
        cache: bool,
    ) -> pd.DataFrame:
        check_flag("cache", cache)
        check_flag("progress", progress, optional=True)
        if users is not None:
            if device_id is not None or user_id is not None:
                raise ValueError("give users, or device_id / user_id, not both")
            # one range for every user: "-30d" or "now" resolved once, not per user's read
            first_ms, last_ms = time_range(start, end)
            first = pd.Timestamp(first_ms, unit="ms", tz="UTC")
            last = pd.Timestamp(last_ms, unit="ms", tz="UTC")

            def one(user: str) -> pd.DataFrame:
                return self.list(
                    first, last, user_id=user, event_type=event_type, progress=False,
                    page_size=page_size, cache=cache,
                )  # fmt: skip

            schema = self._session.frame_schema(S.EVENT)
            df = per_user(one, users, schema, concurrency=self._session.concurrency)
            if limit is not None and len(df) > limit:
                df = df.iloc[:limit].reset_index(drop=True)
            return df
        if cache:
            return self._cached(
                start, end, device_id, user_id, event_type, limit, progress, page_size
            )
        start_ms, end_ms = time_range(start, end)
        query = self._query(device_id, user_id, event_type, learn_fleet=True)
        return self._pager(
            query, start_ms, end_ms, limit=limit, progress=progress, page_size=page_size
        ).frame()

    def _cached(
        self,
        start: Moment,
        end: Moment,
        device_id: str | None,
        user_id: str | None,
        event_type: int | str | EventType | None,
        limit: int | None,
        progress: bool | None,
        page_size: int,
    ) -> pd.DataFrame:
        from opslib.client._event_cache import EventCache, read_cached
        from opslib.client._event_table import RawProperties

        start_ms, end_ms = time_range(start, end)
        query = self._query(device_id, user_id, event_type)
        self._pager(query, start_ms, end_ms, limit=limit, page_size=page_size)  # checks both
        if limit == 0:
            return self._session.frame_schema(S.EVENT).empty()
        caller = self._session.user_id
        if caller is None:
            raise AuthenticationError(401, "not logged in: the event cache is kept per user")
        store = EventCache(self._session.base_url, caller, query)

        def fetch(lo: int, hi: int) -> tuple[pd.DataFrame, list[str | None]]:
            raw = RawProperties()
            read = self._pager(query, lo, hi, progress=False, page_size=page_size, on_page=raw.add)
            return raw.align(read.frame())

        schema = self._session.frame_schema(S.EVENT)
        df = read_cached(fetch, store, start_ms, end_ms, progress=progress, schema=schema)
        if limit is not None and len(df) > limit:
            df = df.iloc[:limit].reset_index(drop=True)
        return df

    def to_dask(
        self,
        start: Moment,
        end: Moment = "now",
        *,
        partition: str | pd.Timedelta = C.DASK_DEFAULT_PARTITION,
        device_id: str | None = None,
        user_id: str | None = None,
        event_type: int | str | EventType | None = None,
        properties: Mapping[str, Any] | None = None,
        auth: str = "token",
        page_size: int = C.DEFAULT_PAGE_SIZE,
        concurrency: int = C.DASK_PARTITION_CONCURRENCY,
    ) -> dd.DataFrame:
        """Event records in ``[start, end)`` as a Dask DataFrame, one partition per window.

        Each partition is fetched by the Dask worker that runs it (``compute()`` uses the
        current Dask scheduler: ``opslib.dask.dask_client()`` starts a local cluster or
        connects to a scheduler). Needs the ``dask`` extra. See :mod:`opslib.dask`.

        Parameters
        ----------
        start, end, device_id, user_id, event_type, page_size
            As in :meth:`list`.
        partition
            The window of one partition, aligned to the epoch (``"1D"``: UTC days).
        properties
            The ``properties.*`` columns and their dtypes, e.g. ``{"temperature":
            "Float64"}``; None reads a small sample to find them (a property the sample
            misses is dropped from the partitions, with a warning).
        auth
            ``"token"``: the workers get the caller's short-lived access token (never a
            password or client secret); ``"environment"``: each worker logs in from its
            own ``OPSLIB_*`` environment or profile.
        concurrency
            The most pages of one partition fetched at once by its worker (1..32). Workers
            already read partitions side by side.

        Returns
        -------
        dask.dataframe.DataFrame
            The columns and dtypes of :meth:`list`; ``compute()`` gives its rows. Its
            partitions and computed frames carry the platform's event kinds
            (``attrs["event_kinds"]``) as :meth:`list`'s frames do.

        Examples
        --------
        >>> from opslib.dask import dask_client
        >>> with dask_client(workers=2):  # doctest: +SKIP
        ...     ddf = client.events.to_dask("-30d", properties={"temperature": "Float64"})
        ...     daily = ddf.groupby(ddf.gmt_create.dt.floor("1D"))["properties.temperature"].mean()
        ...     daily.compute()
        """
        from opslib.client._event_dask import check_dask_options, events_to_dask

        check_dask_options(auth, page_size, concurrency)
        start_ms, end_ms = time_range(start, end)
        query = self._query(device_id, user_id, event_type, takes_users=False)
        return events_to_dask(
            self._session,
            query,
            start_ms,
            end_ms,
            partition=partition,
            properties=properties,
            auth=auth,
            page_size=page_size,
            concurrency=concurrency,
        )

    def iter_pages(
        self,
        start: Moment,
        end: Moment = "now",
        *,
        device_id: str | None = None,
        user_id: str | None = None,
        event_type: int | str | EventType | None = None,
        limit: int | None = None,
        progress: bool | None = False,
        page_size: int = C.DEFAULT_PAGE_SIZE,
        page_no: int = 1,
    ) -> Iterator[pd.DataFrame]:
        """Yield one typed frame per page, for memory-bounded work over many events.

        Parameters are those of :meth:`list`, plus ``page_no``, the page to start from.
        Each frame's ``attrs`` has ``page_no``, ``page_size`` and ``total``; resume with
        ``page_no=attrs["page_no"] + 1`` and the same start and end (give fixed moments,
        not ``"now"``, to resume over the same range).

        Returns
        -------
        Iterator[pandas.DataFrame]
            Frames with the columns of :meth:`list`.

        Examples
        --------
        >>> client = opslib.connect()
        >>> counts = sum(len(p) for p in client.events.iter_pages("-1d"))  # doctest: +SKIP
        """
        start_ms, end_ms = time_range(start, end)
        query = self._query(device_id, user_id, event_type, learn_fleet=True, takes_users=False)
        read = self._pager(
            query, start_ms, end_ms, limit=limit, progress=progress, page_size=page_size
        )
        kinds = self._kinds()

        def labelled(page: pd.DataFrame) -> pd.DataFrame:
            page = self._session.unsecret(page)
            page.attrs["event_kinds"] = kinds
            return page

        return (labelled(page) for page in read.pages(page_no))
