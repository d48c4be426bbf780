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
runs it, its pages fetched as ``events.list`` fetches them, so a computed frame has the rows
of ``events.list`` over the same range, partition after partition (each partition has its
own ``RangeIndex``: ``df.compute().reset_index(drop=True)`` equals ``events.list``).

**Columns.** Dask needs the columns and dtypes before anything is read. The fixed columns
are those of ``events.list``. ``properties.*`` columns depend on the data, so they are
either declared (``properties={"temperature": "Float64", ...}``) or, by default, taken from
a sample read by the driver: the first 1000 events of each event type over the range (a
property belongs to a kind of event: firmware upgrades have ``from``/``to``), and the first
ones of the last day (for properties that appear late), one request each. Every partition
is then made to fit: a missing property column is added empty, a column is cast to the
sampled dtype (ints to ``Float64`` when the sample saw floats), and a property the sample
did not see is dropped with a warning on the ``opslib`` logger; a value that cannot take
the sampled dtype (a float where the sample saw only ints) fails the partition with an
error that says to declare the column.
Declare ``properties=`` when the columns must not depend on a sample.

**Credentials.** The task graph holds the base URL, the client_id, the caller's user_id and
a short-lived access token (refreshed first when it has less than half an hour left), never
a password or a client secret; a worker calls with it as ``opslib.Client.from_token`` does.
The access token expires (7200 s on the reference platform); for longer computations give
``auth="environment"``: each worker then logs in with its own ``OPSLIB_*`` environment or
config profile, which must name the same platform.

This module knows Dask, not the platform: ``client.events.to_dask`` (in
:mod:`opslib.client.resources.events`) gives it a window reader and the columns, and it
makes the partitions. ``opslib.store.Store.to_dask`` gives it the local store's days the
same way: one partition per stored UTC day, read from the store's files by the worker.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    import dask.dataframe as dd
    import distributed

__all__ = ["EventPartitions", "conform", "dask_client", "events_frame", "partition_windows"]

log = logging.getLogger("opslib")

ReadWindow = Callable[[int, int], pd.DataFrame]
"""``read(start_ms, end_ms)``: the rows of one window, as ``events.list`` returns them. It
travels in the task graph, so it must pickle; its ``identity`` (a tuple) names what it
reads, for Dask's task keys."""


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


# -- the partitions -------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class EventPartitions:
    """Reads one partition (a time window) and gives it the frame's columns; the only
    opslib object in the task graph, with the reader it holds.

    ``sampled``: the property columns came from a sample, so others are dropped with a
    warning (declared ones are dropped quietly).
    """

    read: ReadWindow
    meta: pd.DataFrame = field(repr=False)
    sampled: bool = True

    def __dask_tokenize__(self) -> tuple[Any, ...]:
        dtypes = tuple((str(k), str(v)) for k, v in self.meta.dtypes.items())
        identity = getattr(self.read, "identity", repr(self.read))
        return ("opslib-events", identity, dtypes)

    def __call__(
        self, window: tuple[int, int], columns: Sequence[str] | None = None
    ) -> pd.DataFrame:
        where = _describe(window)
        df = conform(self.read(*window), self.meta, where=where, warn=self.sampled)
        df.attrs.update(copy.deepcopy(self.meta.attrs))  # the frame's event kinds
        return df if columns is None else df[list(columns)]


def _describe(window: tuple[int, int]) -> str:
    lo, hi = (pd.Timestamp(ms, unit="ms", tz="UTC").isoformat() for ms in window)
    return f"[{lo}, {hi})"


def events_frame(
    read: ReadWindow,
    windows: Sequence[tuple[int, int]],
    meta: pd.DataFrame,
    *,
    sampled: bool = True,
) -> dd.DataFrame:
    """A Dask frame of one partition per window, each read by ``read`` on a worker.

    Parameters
    ----------
    read
        The window reader (see :data:`ReadWindow`).
    windows
        ``(start_ms, end_ms)`` of each partition (:func:`partition_windows`).
    meta
        The columns and dtypes of every partition (an empty frame).
    sampled
        Whether ``meta``'s property columns came from a sample (see :class:`EventPartitions`).

    Returns
    -------
    dask.dataframe.DataFrame
        One partition per window; columns and dtypes declared, not inferred by reading.

    Examples
    --------
    >>> ddf = client.events.to_dask("-30d")  # builds one with this  # doctest: +SKIP
    """
    import dask
    import dask.dataframe as dd

    reader = EventPartitions(read, meta, sampled)
    # dask would turn object columns (mixed-type properties) into strings: keep them.
    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_map(
            reader, list(windows), meta=meta, label="opslib-events", enforce_metadata=False
        )
