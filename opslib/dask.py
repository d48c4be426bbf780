"""Event records as a Dask DataFrame, and a Dask client: a local cluster or a real scheduler.

``import opslib`` imports none of this (nor dask): ``client.events.to_dask()`` and
``opslib report run-all --dask/--workers`` import it when asked.

>>> import opslib
>>> from opslib.dask import dask_client
>>> client = opslib.connect()
>>> with dask_client(workers=2):                       # doctest: +SKIP
...     events = client.events.to_dask("-30d", "now")   # one partition per UTC day
...     per_type = events.groupby("event_type_name", observed=True).size().compute()

**Partitions.** ``[start, end)`` is cut into windows of ``partition`` (aligned to the epoch:
``"1D"`` gives UTC days), one partition each. Each partition is read by whichever worker
runs it, with every page fetched as ``events.list`` does, so a computed frame has the rows
of ``events.list`` over the same range, partition after partition (each partition has its
own ``RangeIndex``: ``df.compute().reset_index(drop=True)`` equals ``events.list``).

**Columns.** Dask needs the columns and dtypes before anything is read. The fixed columns
come from :data:`opslib.client._schemas.EVENT`. ``properties.*`` columns depend on the data, so
they are either declared (``properties={"temperature": "Float64", ...}``) or, by default,
taken from a sample read by the driver: the first :data:`~opslib.client._constants.DASK_SAMPLE_ROWS`
events of each event type over the range (a property belongs to a kind of event: firmware
upgrades have ``from``/``to``), and the first ones of the last day (for properties that
appear late), one request each. Every partition is then made to fit: a missing property
column is added empty, a column is cast to the sampled dtype (ints to ``Float64`` when the
sample saw floats), and a property the sample did not see is dropped with a warning on the
``opslib`` logger; a value that cannot take the sampled dtype (a float where the sample
saw only ints) fails the partition with an error that says to declare the column.
Declare ``properties=`` when the columns must not depend on a sample.

**Credentials.** The task graph holds the base URL, the client_id, the caller's user_id and
a short-lived access token (refreshed first when it has less than
:data:`~opslib.client._constants.DASK_TOKEN_MIN_VALIDITY_S` left), never a password or a client
secret. The access token expires (7200 s on the reference platform); for longer
computations give ``auth="environment"``: each worker then logs in with its own
``OPSLIB_*`` environment or config profile, which must name the same platform.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from opslib.client import _constants as C
from opslib.client import _schemas as S
from opslib.client._settings import Secret
from opslib.exceptions import AuthenticationError, ConfigError

if TYPE_CHECKING:
    import dask.dataframe as dd
    import distributed

    from opslib.client._client import Client
    from opslib.client._http import HTTP

__all__ = ["EventPartitions", "conform", "dask_client", "events_frame", "partition_windows"]

log = logging.getLogger("opslib")

_AUTH_MODES = ("token", "environment")


def dask_client(
    address: str | None = None, *, workers: int | None = None, **cluster: Any
) -> distributed.Client:
    """A ``dask.distributed`` client: to a scheduler, else to a new local cluster.

    The scheduler is ``address``, else dask's ``scheduler-address`` setting (the
    ``DASK_SCHEDULER_ADDRESS`` variable); with neither, a ``LocalCluster`` of ``workers``
    processes (default: one per CPU) with one thread each is started, and closed with the
    client.

    Parameters
    ----------
    address
        A scheduler, e.g. ``"tcp://10.0.0.5:8786"``.
    workers
        Worker processes of the local cluster (ignored with a scheduler).
    **cluster
        More ``LocalCluster`` arguments (``threads_per_worker``, ``memory_limit``...).

    Returns
    -------
    distributed.Client
        Also the default scheduler of ``compute()`` while it is open.

    Examples
    --------
    >>> from opslib.dask import dask_client
    >>> with dask_client(workers=2) as dc:  # doctest: +SKIP
    ...     len(dc.scheduler_info()["workers"])
    2
    """
    import dask
    from distributed import Client

    address = address or dask.config.get("scheduler-address", None)
    if address:
        return Client(address)
    options: dict[str, Any] = {"processes": True, "threads_per_worker": 1}
    options.update(cluster)
    if workers is not None:
        options["n_workers"] = workers
    return Client(**options)


def partition_windows(
    start_ms: int, end_ms: int, partition: str | pd.Timedelta
) -> list[tuple[int, int]]:
    """``[start, end)`` cut at multiples of ``partition`` since the epoch (UTC days for "1D").

    Examples
    --------
    >>> day = 86_400_000
    >>> partition_windows(day // 2, 2 * day, "1D") == [(day // 2, day), (day, 2 * day)]
    True
    """
    try:
        size = pd.Timedelta(partition)
    except (TypeError, ValueError):
        raise ValueError(
            f"partition must be a duration such as '1D' or '6h', got {partition!r}"
        ) from None
    size_ms = int(size.total_seconds() * 1000)
    if size_ms < 1000 or size.value % 1_000_000:
        raise ValueError(f"partition must be whole milliseconds of at least 1 s, got {partition!r}")
    first = start_ms - start_ms % size_ms
    return [(max(w, start_ms), min(w + size_ms, end_ms)) for w in range(first, end_ms, size_ms)]


# -- columns ---------------------------------------------------------------------------


def _declared_meta(properties: Mapping[str, Any]) -> pd.DataFrame:
    meta = S.EVENT.empty()
    for name, dtype in properties.items():
        column = name if name.startswith("properties.") else f"properties.{name}"
        meta[column] = pd.Series([], dtype=dtype)
    fixed = list(S.EVENT.dtypes())
    members = sorted(c for c in meta.columns if c not in fixed)
    return meta[fixed + members]


def _sampled_meta(
    client: Client, query: dict[str, Any], start_ms: int, end_ms: int, page_size: int
) -> pd.DataFrame:
    """Property columns from a sample: properties follow the event type (a firmware upgrade
    has ``from``/``to``), so the first rows of each type over the range, and the first rows
    of the last partition for properties that appear late."""
    from opslib.client._event_cache import frame_to_columns
    from opslib.client._frames import build_frame
    from opslib.enums import EventType

    types = [query["event_type"]] if "event_type" in query else [int(t) for t in EventType]
    reads = [({**query, "event_type": t}, start_ms, end_ms) for t in types]
    reads.append((query, max(start_ms, end_ms - C.DASK_SAMPLE_LAST_MS), end_ms))
    pages = []
    for params, lo, hi in reads:
        read = client.events._read(params, lo, hi, C.DASK_SAMPLE_ROWS, False, page_size)
        pages.append(frame_to_columns(read.frame()))
    return build_frame(pages, S.EVENT).iloc[:0]


_OBJECT = np.dtype(object)


def _missing(dtype: Any, n: int, index: pd.Index) -> pd.Series:
    if dtype == _OBJECT:
        return pd.Series([None] * n, index=index, dtype=object)
    return pd.Series(pd.array([None] * n, dtype=dtype), index=index)


def conform(
    df: pd.DataFrame, meta: pd.DataFrame, *, where: str = "", warn: bool = True
) -> pd.DataFrame:
    """Give a partition exactly the columns and dtypes of ``meta``.

    Missing columns are added empty, others cast to their declared dtype, columns that
    ``meta`` lacks dropped (with a warning naming them when ``warn``: the columns came
    from a sample, not from the caller).

    Raises
    ------
    TypeError
        A column cannot take its declared dtype; the message names it and says what to do.

    Examples
    --------
    >>> meta = pd.DataFrame({"a": pd.Series([], dtype="Float64")})
    >>> conform(pd.DataFrame({"a": pd.array([1], dtype="Int64"), "b": [2]}), meta).dtypes.to_dict()
    {'a': Float64Dtype()}
    """
    extra = [c for c in df.columns if c not in meta.columns]
    if extra:
        log.log(
            logging.WARNING if warn else logging.DEBUG,
            "events %s: dropping %s, not among the frame's columns (declare them with properties=)",
            where,
            extra,
        )
    out: dict[str, Any] = {}
    for name, dtype in meta.dtypes.items():
        if name not in df.columns:
            out[str(name)] = _missing(dtype, len(df), df.index)
            continue
        column = df[name]
        if column.dtype != dtype:
            try:
                column = (
                    column.astype(object).where(column.notna(), None)
                    if dtype == _OBJECT
                    else column.astype(dtype)
                )
            except (TypeError, ValueError) as exc:
                raise TypeError(
                    f"events {where}: column {name!r} holds {column.dtype} values that do not "
                    f"fit the declared {dtype} ({exc}); declare it with "
                    f"properties={{{str(name).removeprefix('properties.')!r}: 'object'}}"
                ) from None
        out[str(name)] = column
    # The partition's arrays as they are (copy-on-write guards them): copying every column
    # of every partition cost the workers a second pass over each partition's memory.
    return pd.DataFrame(out, index=df.index, copy=False)


# -- the partitions, as the workers see them -----------------------------------------------

_pools: dict[str, HTTP] = {}
_env_client: list[Client] = []
_lock = threading.Lock()


def _pool(base_url: str) -> HTTP:
    """One connection pool per platform per worker process, shared by its tasks."""
    from opslib.client._http import HTTP

    with _lock:
        if base_url not in _pools:
            _pools[base_url] = HTTP(base_url)
        return _pools[base_url]


def _environment_client(base_url: str) -> Client:
    """The worker's own client, logged in from its environment (once per process)."""
    from opslib.client._client import connect
    from opslib.client._settings import resolve_settings

    with _lock:
        if not _env_client:
            if resolve_settings().embedded:
                raise ConfigError(
                    "auth='environment': this worker has no platform configured; set "
                    "OPSLIB_BASE_URL and the credentials (or OPSLIB_PROFILE) on the workers"
                )
            _env_client.append(connect())
        client = _env_client[0]
    if client.base_url != base_url.rstrip("/"):
        raise ConfigError(
            f"auth='environment': this worker's environment names {client.base_url!r}, "
            f"the frame reads {base_url!r}"
        )
    return client


@dataclass(frozen=True, eq=False)
class EventPartitions:
    """Reads one partition (a time window) of events; the only opslib object in the graph.

    It holds what a worker needs and nothing more: the platform, the application's id,
    the caller's id, the query and, with ``auth="token"``, a short-lived access token
    (masked in its repr). Never a password or a client secret.
    """

    base_url: str
    client_id: str
    user_id: str
    query: tuple[tuple[str, Any], ...]
    meta: pd.DataFrame = field(repr=False)
    access_token: Secret | None = field(repr=False)
    expires_at: float = 0.0
    page_size: int = C.DEFAULT_PAGE_SIZE
    concurrency: int = C.DASK_PARTITION_CONCURRENCY
    sampled: bool = True  # the property columns came from a sample: warn about others

    def __dask_tokenize__(self) -> tuple[Any, ...]:
        dtypes = tuple((str(k), str(v)) for k, v in self.meta.dtypes.items())
        auth = "environment" if self.access_token is None else "token"
        return ("opslib-events", self.base_url, self.user_id, self.query, dtypes, auth)

    def read(self, start_ms: int, end_ms: int) -> pd.DataFrame:
        """``[start_ms, end_ms)`` as ``events.list`` would return it (before conforming)."""
        from opslib.client._http import Safety, SentRead
        from opslib.client._pager import PagedRead

        query = dict(self.query)
        if self.access_token is None:
            client = _environment_client(self.base_url)
            return client.events._read(query, start_ms, end_ms, None, False, self.page_size).frame()
        http, token = _pool(self.base_url), self.access_token

        def envelope(page_no: int, size: int) -> dict[str, Any]:
            params = {**query, "start": start_ms, "end": end_ms, "page_no": page_no}
            params.update(page_size=size, access_token=token.get_secret_value())
            return {"message_id": str(uuid.uuid4()), "user_id": self.user_id, "params": params}

        def fetch(page_no: int, size: int) -> dict[str, Any]:
            body = envelope(page_no, size)
            mid, path = body["message_id"], "/device/query_record"
            return dict(http.post_envelope(path, lambda: body, message_id=mid, safety=Safety.READ))

        def send(page_no: int, size: int) -> SentRead:
            ahead = http.send_ahead("/device/query_record", envelope(page_no, size))
            return SentRead(ahead, lambda: fetch(page_no, size))

        read = PagedRead(
            fetch,
            list_key="events_list",
            schema=S.EVENT,
            page_size=self.page_size,
            progress=False,
            concurrency=self.concurrency,
            send=send if http.can_send_ahead else None,
        )
        try:
            return read.frame()
        except AuthenticationError as exc:
            expired = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.expires_at))
            raise AuthenticationError(
                401,
                f"the access token given to the workers was refused ({exc.error_msg}); it "
                f"expires {expired}: build the frame again, or use auth='environment'",
                operation="/device/query_record",
            ) from None

    def __call__(
        self, window: tuple[int, int], columns: Sequence[str] | None = None
    ) -> pd.DataFrame:
        start_ms, end_ms = window
        where = _describe(window)
        df = conform(self.read(start_ms, end_ms), self.meta, where=where, warn=self.sampled)
        return df if columns is None else df[list(columns)]


def _describe(window: tuple[int, int]) -> str:
    lo, hi = (pd.Timestamp(ms, unit="ms", tz="UTC").isoformat() for ms in window)
    return f"[{lo}, {hi})"


def _fresh_token(client: Client) -> tuple[Secret, float]:
    """The caller's access token, refreshed first if it would expire during the work."""
    manager = client._tokens
    tokens = manager.tokens
    if tokens is None:
        raise AuthenticationError(401, "not logged in: log in before building a Dask frame")
    if tokens.expires_at - time.time() < C.DASK_TOKEN_MIN_VALIDITY_S:
        tokens = manager.refresh()
    manager.access_token()  # refreshes if about to expire, as every call does
    current = manager.tokens
    assert current is not None
    return current.access_token, current.expires_at


def events_frame(
    client: Client,
    query: dict[str, Any],
    start_ms: int,
    end_ms: int,
    *,
    partition: str | pd.Timedelta = C.DASK_DEFAULT_PARTITION,
    properties: Mapping[str, Any] | None = None,
    auth: str = "token",
    page_size: int = C.DEFAULT_PAGE_SIZE,
    concurrency: int = C.DASK_PARTITION_CONCURRENCY,
) -> dd.DataFrame:
    """The Dask frame behind :meth:`opslib.client.resources.events.Events.to_dask`.

    Parameters
    ----------
    client
        The driver's client (its identity decides the query; its token travels).
    query
        Resolved query params (``Events._query``).
    start_ms, end_ms
        The range, epoch milliseconds.
    partition, properties, auth, page_size, concurrency
        As documented on ``to_dask``.

    Returns
    -------
    dask.dataframe.DataFrame
        One partition per window; columns and dtypes declared, not inferred by reading.

    Examples
    --------
    >>> ddf = events_frame(client, {"query_model": 3}, start, end)  # doctest: +SKIP
    """
    import dask
    import dask.dataframe as dd

    from opslib.client._pager import check_page_size

    if auth not in _AUTH_MODES:
        raise ValueError(f"auth must be one of {_AUTH_MODES}, got {auth!r}")
    check_page_size(page_size)
    if (
        isinstance(concurrency, bool)
        or not isinstance(concurrency, int)
        or not 1 <= concurrency <= 16
    ):
        raise ValueError(f"concurrency must be an integer from 1 to 16, got {concurrency!r}")
    parts = partition_windows(start_ms, end_ms, partition)
    if properties is None:
        meta = _sampled_meta(client, query, start_ms, end_ms, page_size)
    else:
        meta = _declared_meta(properties)
    token: Secret | None = None
    expires_at = 0.0
    if auth == "token":
        token, expires_at = _fresh_token(client)
    reader = EventPartitions(
        base_url=client.base_url,
        client_id=client.client_id,
        user_id=client.user_id or "",
        query=tuple(sorted(query.items())),
        meta=meta,
        access_token=token,
        expires_at=expires_at,
        page_size=page_size,
        concurrency=concurrency,
        sampled=properties is None,
    )
    # dask would turn object columns (mixed-type properties) into strings: keep them.
    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_map(reader, parts, meta=meta, label="opslib-events", enforce_metadata=False)
