"""``client.events``: device event records over any time range.

Operation: ``/device/query_record`` (list, iter_pages). ``device_id`` selects query_model
1, ``user_id`` query_model 2; with neither, ops and admin read the whole fleet (3) and
everyone else their own devices' events (2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from opslib.client import _constants as C
from opslib.client import _schemas as S
from opslib.client._http import DECODE_LOCK
from opslib.client._pager import PagedRead, Sent
from opslib.client.resources import Resource, coerce_enum
from opslib.enums import EventType, RecordQueryModel
from opslib.exceptions import AuthenticationError
from opslib.timeutil import Moment, time_range

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["Events"]


class _Received:
    """A page request sent ahead whose data goes through ``received`` (the cache's hook)."""

    def __init__(self, sent: Sent, received: Callable[[Any], Any]) -> None:
        self._sent = sent
        self._received = received

    def result(self) -> Any:
        return self._received(self._sent.result())

    def close(self) -> None:
        self._sent.close()


class Events(Resource):
    """Device event records (``client.events``)."""

    def _paged(
        self,
        start: Moment,
        end: Moment,
        device_id: str | None,
        user_id: str | None,
        event_type: int | str | EventType | None,
        limit: int | None,
        progress: bool | None,
        page_size: int,
    ) -> PagedRead:
        start_ms, end_ms = time_range(start, end)
        query = self._query(device_id, user_id, event_type)
        return self._read(query, start_ms, end_ms, limit, progress, page_size)

    def _query(
        self,
        device_id: str | None,
        user_id: str | None,
        event_type: int | str | EventType | None,
    ) -> dict[str, Any]:
        """The params of a read but its time range and page (query_model, whose, type)."""
        params: dict[str, Any] = {}
        if device_id is not None and user_id is not None:
            raise ValueError("give device_id or user_id, not both")
        if device_id is not None:
            params.update(query_model=int(RecordQueryModel.DEVICE), device_id=str(device_id))
        elif user_id is not None:
            params.update(query_model=int(RecordQueryModel.USER), user_id_param=str(user_id))
        elif self._client._may_read_fleet():
            params["query_model"] = int(RecordQueryModel.FLEET)
        else:
            params.update(
                query_model=int(RecordQueryModel.USER),
                user_id_param=str(self._client.user_id or ""),
            )
        if event_type is not None:
            params["event_type"] = coerce_enum(event_type, EventType, "event_type")
        return params

    def _read(
        self,
        query: dict[str, Any],
        start_ms: int,
        end_ms: int,
        limit: int | None = None,
        progress: bool | None = None,
        page_size: int = C.DEFAULT_PAGE_SIZE,
        on_page: Callable[[dict[str, Any]], None] | None = None,
    ) -> PagedRead:
        params = {**query, "start": start_ms, "end": end_ms}

        def page(page_no: int, size: int) -> dict[str, Any]:
            return {**params, "page_no": page_no, "page_size": size}

        def received(data: Any) -> Any:
            data = dict(data)
            if on_page is not None:
                with DECODE_LOCK:  # CPU only, as decoding (see opslib.client._http)
                    on_page(data)  # the event cache keeps each record's raw properties
            return data

        def fetch(page_no: int, size: int) -> Any:
            path, query = "/device/query_record", page(page_no, size)
            return received(self._client._request(path, query))

        def send(page_no: int, size: int) -> _Received:
            sent = self._client._send_ahead("/device/query_record", page(page_no, size))
            return _Received(sent, received)

        return PagedRead(
            fetch,
            list_key="events_list",
            schema=S.EVENT,
            page_size=page_size,
            limit=limit,
            progress=progress,
            desc="events",
            send=send if self._client._http.can_send_ahead else None,
        )

    def list(
        self,
        start: Moment,
        end: Moment = "now",
        *,
        device_id: str | None = None,
        user_id: str | None = None,
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
        if cache:
            return self._cached(
                start, end, device_id, user_id, event_type, limit, progress, page_size
            )
        read = self._paged(start, end, device_id, user_id, event_type, limit, progress, page_size)
        return read.frame()

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
        from opslib.client._event_cache import EventCache, RawProperties, read_cached

        start_ms, end_ms = time_range(start, end)
        query = self._query(device_id, user_id, event_type)
        self._read(query, start_ms, end_ms, limit, progress, page_size)  # checks limit, size
        if limit == 0:
            return S.EVENT.empty()
        caller = self._client.user_id
        if caller is None:
            raise AuthenticationError(401, "not logged in: the event cache is kept per user")
        store = EventCache(self._client.base_url, caller, query)

        def fetch(lo: int, hi: int) -> tuple[pd.DataFrame, list[str | None]]:
            raw = RawProperties()
            return raw.align(self._read(query, lo, hi, None, False, page_size, raw.add).frame())

        df = read_cached(fetch, store, start_ms, end_ms, progress=progress)
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
            Pages of one partition fetched at once by its worker (1..16). Workers already
            read partitions side by side; raise it when the platform is far away.

        Returns
        -------
        dask.dataframe.DataFrame
            The columns and dtypes of :meth:`list`; ``compute()`` gives its rows.

        Examples
        --------
        >>> from opslib.dask import dask_client
        >>> with dask_client(workers=2):  # doctest: +SKIP
        ...     ddf = client.events.to_dask("-30d", properties={"temperature": "Float64"})
        ...     daily = ddf.groupby(ddf.gmt_create.dt.floor("1D"))["properties.temperature"].mean()
        ...     daily.compute()
        """
        from opslib.dask import events_frame

        start_ms, end_ms = time_range(start, end)
        query = self._query(device_id, user_id, event_type)
        return events_frame(
            self._client,
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
        read = self._paged(start, end, device_id, user_id, event_type, limit, progress, page_size)
        return read.pages(page_no)
