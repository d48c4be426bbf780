"""Reading a store: frames equal to ``client.events.list``, Arrow, Polars, Dask, DuckDB.

:meth:`Store.events` joins the stored days as a read joins its pages: a whole day's typed
columns as they are, a part of a day (or the rows of one device, user or event type)
with its property columns rebuilt from the rows' raw objects, as a read of just those
rows types them. So the frame equals ``client.events.list`` over the same range with the
same filter, dtypes included, wherever the store holds that range.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from opslib.client.stored import join_days, meta_of_days, read_day, select_rows
from opslib.store._layout import DAY_MS, Layout, StoreGap, ms_of_day
from opslib.timeutil import Moment, time_range

if TYPE_CHECKING:
    import dask.dataframe as dd
    import duckdb
    import pyarrow as pa

__all__ = ["Store"]

log = logging.getLogger("opslib")
_READ_THREADS = 2  # Parquet decoding releases the GIL: two days at once


class Store:
    """A local store of one platform's events and snapshots (see :mod:`opslib.store`).

    Parameters
    ----------
    path
        The store's directory (default ``OPSLIB_STORE``, else the user data directory).

    Examples
    --------
    >>> store = Store()  # doctest: +SKIP
    >>> alarms = store.events("-30d", event_type="alarm")  # doctest: +SKIP
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.layout = Layout.open(path)

    def __repr__(self) -> str:
        return f"<opslib.store.Store {self.path}>"

    @property
    def path(self) -> Path:
        return self.layout.root

    # -- what the frames need ----------------------------------------------------------

    def labels(self) -> dict[str, dict[int, str]]:
        """Code → label of each coded event column, as the platform names them."""
        stored = self.layout.identity.get("labels") or {}
        return {name: {int(k): v for k, v in table.items()} for name, table in stored.items()}

    def event_kinds(self) -> dict[str, dict[int, str]]:
        stored = self.layout.identity.get("event_kinds") or {}
        return {part: {int(k): v for k, v in table.items()} for part, table in stored.items()}

    def _event_type(self, value: int | str) -> int:
        labels = self.labels().get("event_type") or {}
        if isinstance(value, str) and not value.isdigit():
            by_label = {v: k for k, v in labels.items()}
            if value not in by_label:
                raise ValueError(
                    f"event_type: {value!r} is not one of this platform's {sorted(by_label)}"
                )
            return by_label[value]
        code = int(value)
        if labels and code not in labels:
            raise ValueError(f"event_type: {code} is not one of this platform's {sorted(labels)}")
        return code

    def _filters(
        self, device_id: str | None, user_id: str | None, event_type: int | str | None
    ) -> dict[str, Any]:
        if device_id is not None and user_id is not None:
            raise ValueError("give device_id or user_id, not both")
        filters: dict[str, Any] = {}
        if device_id is not None:
            filters["device_id"] = str(device_id)
        if user_id is not None:
            filters["user_id"] = str(user_id)
        if event_type is not None:
            filters["event_type"] = self._event_type(event_type)
        return filters

    def _files(self, lo: int, hi: int) -> Iterator[tuple[int, Path, bool, bool]]:
        """(day start, file, whole day in range, several files that day) in day order. A
        day the fleet query holds is read from its file alone (it holds every other's)."""
        for day, files in self.layout.event_days().items():
            start = ms_of_day(day)
            if start + DAY_MS <= lo or start >= hi:
                continue
            fleet = self.layout.event_file("fleet", day)
            chosen = [fleet] if fleet in files else files
            whole = lo <= start and start + DAY_MS <= hi
            for path in chosen:
                yield start, path, whole, len(chosen) > 1

    def _uncovered(self, lo: int, hi: int) -> str:
        """What the store lacks of ``[lo, hi)``, as a sentence ("" when it holds it all)."""
        ends = [q.watermark for q in self.layout.queries.values() if q.watermark is not None]
        starts = [q.since for q in self.layout.queries.values() if q.since is not None]
        if not ends:
            return f"store {self.path} holds no events yet"
        # a range ending now, a little after the last sync, is the usual case: no gap
        if hi - max(ends) > DAY_MS or lo < min(starts):
            first = pd.Timestamp(min(starts), unit="ms", tz="UTC").isoformat()
            last = pd.Timestamp(max(ends), unit="ms", tz="UTC").isoformat()
            return f"store {self.path} holds events from {first} to {last} only"
        return ""

    def _check_covered(self, lo: int, hi: int, *, strict: bool) -> None:
        """Warn on the ``opslib`` logger of a range the store does not hold, or raise
        :class:`StoreGap` when ``strict``."""
        gap = self._uncovered(lo, hi)
        if not gap:
            return
        if strict:
            # the days to sync, rounded up; a minute's slack for the time since ``lo``
            days = max(1, -(-(int(time.time() * 1000) - lo - 60_000) // DAY_MS))
            asked = pd.Timestamp(lo, unit="ms", tz="UTC").isoformat()
            raise StoreGap(
                f"{gap}; this read starts at {asked}: run `opslib sync --since -{days}d` "
                "first, or read from the platform"
            )
        log.warning("%s; run `opslib sync`", gap)

    # -- reads -------------------------------------------------------------------------

    def events(
        self,
        start: Moment,
        end: Moment = "now",
        *,
        device_id: str | None = None,
        user_id: str | None = None,
        event_type: int | str | None = None,
        strict: bool = False,
    ) -> pd.DataFrame:
        """The stored events in ``[start, end)``, as ``client.events.list`` returns them.

        Parameters
        ----------
        start, end
            As in ``client.events.list``: datetimes, ISO strings, epoch s/ms, ``"-30d"``.
        device_id, user_id, event_type
            Only one device's, one user's, or one type's events (a code or its label).
        strict
            Raise where the store does not hold the range, rather than warn.

        Returns
        -------
        pandas.DataFrame
            Equal to ``client.events.list(start, end, ...)`` over a range the store holds,
            dtypes and ``attrs["event_kinds"]`` included. A range beyond what was synced
            gives what is stored, with a warning on the ``opslib`` logger; with ``strict``
            it raises :class:`~opslib.store.StoreGap` (what a report reads with).

        Examples
        --------
        >>> import opslib.store
        >>> week = opslib.store.events("-7d")  # doctest: +SKIP
        """
        lo, hi = time_range(start, end)
        filters = self._filters(device_id, user_id, event_type)
        self._check_covered(lo, hi, strict=strict)
        jobs = list(self._files(lo, hi))

        def one(job: tuple[int, Path, bool, bool]) -> tuple[Any, bool] | None:
            _start, path, whole, several = job
            day = read_day(path, raw=not (whole and not filters))
            return None if day is None else (select_rows(day, lo, hi, filters), several)

        with ThreadPoolExecutor(_READ_THREADS, thread_name_prefix="opslib-store") as pool:
            parts = [p for p in pool.map(one, jobs) if p is not None]
        df = join_days(parts, self.labels())
        df.attrs = {"total": len(df), "event_kinds": self.event_kinds()}
        return df

    def arrow(
        self,
        start: Moment,
        end: Moment = "now",
        *,
        device_id: str | None = None,
        user_id: str | None = None,
        event_type: int | str | None = None,
    ) -> pa.Table:
        """The rows of :meth:`events` as a ``pyarrow.Table`` (read by DuckDB: members of
        mixed kinds as JSON text, labels as dictionary columns), ordered by moment, then
        event id: the platform's order where it gives milliseconds; within a second of a
        platform without them, by event id where :meth:`events` keeps each read's order.

        Examples
        --------
        >>> table = Store().arrow("-7d", event_type="alarm")  # doctest: +SKIP
        """
        lo, hi = time_range(start, end)
        filters = self._filters(device_id, user_id, event_type)
        self._check_covered(lo, hi, strict=False)
        where = ["__ts__ >= ?", "__ts__ < ?"]
        args: list[Any] = [lo, hi]
        for name, value in filters.items():
            where.append(f"{name} = ?")
            args.append(value)
        con = self.connect()
        try:
            sql = (
                "SELECT * EXCLUDE (__ts__) FROM _events_ts WHERE "
                + " AND ".join(where)
                + " ORDER BY __ts__, event_id"
            )
            table = _arrow_of(con.sql(sql, params=args))
        finally:
            con.close()
        return table

    def connect(self) -> duckdb.DuckDBPyConnection:
        """A DuckDB connection with the store's views (see :func:`opslib.store.connect`)."""
        from opslib.store._duck import connect_views

        return connect_views(self.layout, self.labels())

    def to_dask(self, start: Moment, end: Moment = "now", **filters: Any) -> dd.DataFrame:
        """The stored events as a Dask frame, one partition per stored UTC day, each read
        by :meth:`events` on a worker (``pip install opslib[dask]``).

        Examples
        --------
        >>> ddf = Store().to_dask("-365d")  # doctest: +SKIP
        """
        from opslib.dask import events_frame

        lo, hi = time_range(start, end)
        self._filters(**_filter_names(filters))
        days = sorted({s for s, *_ in self._files(lo, hi)})
        windows = [(max(s, lo), min(s + DAY_MS, hi)) for s in days]
        meta = self._meta(lo, hi)
        reader = _DayReader(str(self.path), tuple(sorted(filters.items())))
        return events_frame(reader, windows, meta, sampled=False)

    def _meta(self, lo: int, hi: int) -> pd.DataFrame:
        """Every stored day's columns over the range, joined as a read joins its pages."""
        meta = meta_of_days([path for _s, path, *_ in self._files(lo, hi)], self.labels())
        meta.attrs = {"event_kinds": self.event_kinds()}
        return meta


def _filter_names(filters: Mapping[str, Any]) -> dict[str, Any]:
    allowed = ("device_id", "user_id", "event_type")
    unknown = sorted(set(filters) - set(allowed))
    if unknown:
        raise TypeError(f"unknown filter {unknown[0]!r}; allowed: {list(allowed)}")
    return {name: filters.get(name) for name in allowed}


def _arrow_of(result: Any) -> pa.Table:
    """A DuckDB result as one Arrow table (the method's name changed across versions)."""
    for name in ("to_arrow_table", "fetch_arrow_table", "arrow"):
        method = getattr(result, name, None)
        if method is not None:
            table = method()
            if hasattr(table, "read_all"):
                table = table.read_all()
            return table
    raise AttributeError("this DuckDB has no Arrow result")  # pragma: no cover


class _DayReader:
    """One Dask partition: a day of the store read by :meth:`Store.events` on a worker."""

    def __init__(self, path: str, filters: tuple[tuple[str, Any], ...]) -> None:
        self.path = path
        self.filters = filters

    @property
    def identity(self) -> tuple[Any, ...]:
        return ("opslib-store", self.path, self.filters)

    def __call__(self, start_ms: int, end_ms: int) -> pd.DataFrame:
        store = Store(self.path)
        return store.events(start_ms, end_ms, **dict(self.filters))
