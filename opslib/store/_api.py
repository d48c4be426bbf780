"""The default store's reads, as module functions of :mod:`opslib.store`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from opslib.store._read import Store
from opslib.timeutil import Moment

if TYPE_CHECKING:
    import duckdb
    import pandas as pd
    import pyarrow as pa

__all__ = ["arrow", "connect", "events"]


def connect(path: str | Path | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection (in memory, time zone UTC) with the store's views: ``events``,
    ``devices`` (every snapshot), ``device_latest``, ``products``, ``categories``.

    Needs ``pip install 'opslib[store]'``.

    Examples
    --------
    >>> con = connect()  # doctest: +SKIP
    >>> con.sql("SELECT device_id, count(*) AS n FROM events GROUP BY 1 ORDER BY n DESC").df()
    """
    return Store(path).connect()


def events(
    start: Moment,
    end: Moment = "now",
    *,
    device_id: str | None = None,
    user_id: str | None = None,
    event_type: int | str | None = None,
    path: str | Path | None = None,
) -> pd.DataFrame:
    """The default store's :meth:`Store.events`: equal to ``client.events.list``.

    Examples
    --------
    >>> alarms = events("-30d", event_type="alarm")  # doctest: +SKIP
    """
    return Store(path).events(
        start, end, device_id=device_id, user_id=user_id, event_type=event_type
    )


def arrow(
    start: Moment, end: Moment = "now", *, path: str | Path | None = None, **filters: Any
) -> pa.Table:
    """The default store's :meth:`Store.arrow`: the events as a ``pyarrow.Table``.

    Examples
    --------
    >>> table = arrow("-30d")  # doctest: +SKIP
    """
    return Store(path).arrow(start, end, **filters)
