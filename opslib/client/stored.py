"""Event reads in a stored form, and back: what the local store (:mod:`opslib.store`) keeps.

The store lives outside the client and uses only this module of it. Here:

- :class:`ClientReads`: a client's reads as the store makes them: each window read as
  ``client.events.list`` reads it (the same pager, codec, pages in flight, rate limits and
  checks), with each record's raw ``properties`` object and moment in milliseconds, which
  a frame does not carry; the platform's labels and event kinds; a count in one request.
- :class:`DayRows` and :func:`day_table` / :func:`read_day`: a day's rows as Parquet: the
  fixed columns in the frame's types, each ``properties.*`` member typed as a read of that
  day alone types it (members of mixed kinds as JSON text), each row's raw ``properties``
  as JSON text (``__properties__``) and its moment (``__ts__``: the platform orders events
  by it and cuts ranges by it, where ``gmt_create`` shows only the second). Labels are
  not stored: they follow from the codes and the platform's labels.
- :func:`select_rows` and :func:`join_days`: days back to the frame ``events.list``
  returns. A whole day's typed columns are joined as a read joins its pages; a part of a
  day (or one device's, user's or type's rows) gets its property columns rebuilt from the
  rows' raw objects, as a read of just those rows types them. So the frame equals
  ``events.list`` over the same range and filter, dtypes included.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa

from opslib.client._event_table import RAW, Stored, frame_to_columns, from_table, to_table
from opslib.client.frames import schema as S
from opslib.client.frames.build import PageColumns, build_frame, page_columns
from opslib.exceptions import Unsupported

__all__ = [
    "RAW",
    "TS",
    "ClientReads",
    "DayRows",
    "RawRecords",
    "day_table",
    "event_columns",
    "event_schema",
    "join_days",
    "meta_of_days",
    "read_day",
    "select_rows",
]

log = logging.getLogger("opslib")

TS = "__ts__"
_OPEN = S.FrameSchema("event_properties", (), open_objects=S.EVENT.open_objects)
_SQL_TYPES: dict[int, str] = {
    id(S.STRING): "VARCHAR",
    id(S.INT): "BIGINT",
    id(S.FLOAT): "DOUBLE",
    id(S.BOOL): "BOOLEAN",
    id(S.TIME): "TIMESTAMPTZ",
}

Labels = Mapping[str, Mapping[int, str]]


def event_schema(labels: Labels) -> S.FrameSchema:
    """The events frame's schema with the platform's labels (``{"event_type": {1:
    "online", ...}}``); no labels: ours."""
    if not labels:
        return S.EVENT
    return S.EVENT.labelled(lambda key, enum: labels.get(key) or {})


@dataclass(frozen=True)
class EventColumn:
    """A fixed column of the events frame, for a SQL view: name, SQL type, its label
    column's name and labels (coded columns)."""

    name: str
    sql_type: str
    label_name: str = ""
    labels: Mapping[int, str] | None = None


def event_columns(labels: Labels) -> list[EventColumn]:
    """The fixed columns of the events frame in its order, typed for SQL.

    >>> [c.name for c in event_columns({})][:3]
    ['event_id', 'gmt_create', 'device_id']
    """
    out = []
    for col in event_schema(labels).columns:
        coded = col.enum is not None
        out.append(
            EventColumn(
                col.name,
                _SQL_TYPES[id(col.dtype)],
                col.label_name if coded else "",
                dict(col.label_map) if coded else None,
            )
        )
    return out


# -- reading from a client -------------------------------------------------------------


class RawRecords:
    """Each fetched record's raw ``properties`` (JSON text) and moment in milliseconds, by
    event_id: an ``on_page`` hook of a read, lined up with its frame by :meth:`align`."""

    def __init__(self) -> None:
        self._by_id: dict[str, tuple[str | None, int | None]] = {}
        self.pages = 0

    def add(self, data: Mapping[str, Any]) -> None:
        self.pages += 1
        for record in data.get("events_list") or []:
            props = record.get("properties")
            text = None if props is None else orjson.dumps(props).decode()
            ts = record.get("ts")
            moment = ts if isinstance(ts, int) and not isinstance(ts, bool) else None
            self._by_id[str(record.get("event_id"))] = (text, moment)

    def align(self, df: pd.DataFrame) -> DayRows:
        """The frame's rows with their raw properties and moments (ms; from gmt_create
        where the platform sent no ``ts``)."""
        found = [self._by_id.get(e, (None, None)) for e in df["event_id"].tolist()]
        raw = [text for text, _ in found]
        seconds = (
            np.asarray(df["gmt_create"].array.asi8) // 1_000_000
            if len(df)
            else np.zeros(0, np.int64)
        )
        ts = np.array(
            [ms if ms is not None else int(s) for (_, ms), s in zip(found, seconds, strict=True)],
            dtype=np.int64,
        )
        return DayRows(Stored(frame_to_columns(df), raw), ts)


class ClientReads:
    """A client's reads as the store makes them.

    Examples
    --------
    >>> reads = ClientReads(opslib.connect())  # doctest: +SKIP
    >>> day = reads.read("fleet", None, start_ms, end_ms, 1000)  # doctest: +SKIP
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self.pages = 0
        """Pages :meth:`read` has fetched (a request each)."""

    @property
    def base_url(self) -> str:
        return str(self.client.base_url).rstrip("/")

    @property
    def caller(self) -> str:
        return str(self.client.user_id or "")

    def identity(self) -> dict[str, Any]:
        """The platform and the caller a store is bound to, and the labels and event
        kinds its frames carry (JSON-ready: codes as text)."""
        events = self.client.events
        schema = events._session.frame_schema(S.EVENT)
        labels = {
            col.name: {str(k): v for k, v in col.label_map.items()}
            for col in schema.columns
            if col.enum is not None
        }
        kinds = {
            part: {str(k): v for k, v in table.items()} for part, table in events._kinds().items()
        }
        return {
            "base_url": self.base_url,
            "caller": self.caller,
            "dialect": events._session.codec.name,
            "labels": labels,
            "event_kinds": kinds,
        }

    def page_size(self, asked: int) -> int:
        """The rows a page holds when ``asked`` are asked for: at most the platform's cap."""
        return min(asked, int(self.client.events._session.codec.paging.max_page_size))

    def has_fleet(self) -> bool:
        """Whether the platform has a whole-fleet event query (else reads go per user)."""
        try:
            self.client.events._query(None, None, None)
        except Unsupported:
            return False
        return True

    def _query(self, kind: str, key: str | None) -> dict[str, Any]:
        events = self.client.events
        if kind == "device":
            return dict(events._query(key, None, None))
        if kind == "user":
            return dict(events._query(None, key, None))
        return dict(events._query(None, None, None, learn_fleet=True))

    def count(self, kind: str, key: str | None, lo: int, hi: int) -> int:
        """How many events the query has in ``[lo, hi)``: one request of one row."""
        options: dict[str, Any] = {}
        if kind in ("device", "user"):
            options[f"{kind}_id"] = key
        pages = self.client.events.iter_pages(lo, hi, page_size=1, limit=1, **options)
        try:
            first = next(pages, None)
        finally:
            close: Callable[[], None] | None = getattr(pages, "close", None)
            if close is not None:
                close()
        return 0 if first is None else int(first.attrs.get("total", 0))

    def read(self, kind: str, key: str | None, lo: int, hi: int, page_size: int) -> DayRows:
        """Every event of the query in ``[lo, hi)`` as ``events.list`` reads them, with each
        row's raw properties and moment."""
        events = self.client.events
        raw = RawRecords()
        pager = events._pager(
            self._query(kind, key), lo, hi, progress=False, page_size=page_size, on_page=raw.add
        )
        rows = raw.align(events._session.unsecret(pager.frame()))
        self.pages += raw.pages
        return rows


# -- a day as a table, and back --------------------------------------------------------


@dataclass
class DayRows:
    """A day's rows: the typed columns with the raw properties, and each row's moment."""

    stored: Stored
    ts: np.ndarray

    @property
    def rows(self) -> int:
        return self.stored.cols.rows


def day_table(day: DayRows) -> pa.Table:
    """The table a day is stored as."""
    return to_table(day.stored).append_column(TS, pa.array(day.ts, type=pa.int64()))


def read_day(path: Path, *, raw: bool) -> DayRows | None:
    """A stored day (with the raw properties if ``raw``); None when the file is gone (a
    sync replaced it meanwhile) or unreadable (then logged; the next sync writes it again)."""
    import pyarrow.dataset as ds
    from pyarrow import fs

    from opslib.client.frames.properties import POOL

    try:
        # Files are replaced, never rewritten: mapped, not read; decoded into the allocator
        # the frame is built in, as the event cache does (docs/scaling.md).
        mapped = fs.LocalFileSystem(use_mmap=True)
        dataset = ds.dataset(path, format="parquet", filesystem=mapped)
        names = [n for n in dataset.schema.names if raw or n != RAW]
        table = dataset.to_table(columns=names, memory_pool=POOL, use_threads=False)
    except FileNotFoundError:
        return None
    except (OSError, pa.ArrowException) as exc:
        log.warning("store: skipping the unreadable file %s: %s", path, exc)
        return None
    ts = np.asarray(table.column(TS).to_numpy(), dtype=np.int64)
    stored = from_table(table.drop_columns([TS]))
    return DayRows(stored, ts)


def select_rows(day: DayRows, lo_ms: int, hi_ms: int, filters: Mapping[str, Any]) -> PageColumns:
    """The rows of a day with ``lo_ms <= ts < hi_ms`` matching ``filters`` (column →
    value), as a page's columns.

    All of the day: its stored columns as they are. A part of it: its property columns
    rebuilt from the rows' raw objects (the day's own columns hold the members and types
    of the other rows too).
    """
    cols = day.stored.cols
    mask = (day.ts >= lo_ms) & (day.ts < hi_ms)
    for name, value in filters.items():
        mask &= np.asarray(cols.fixed[name].to_numpy(zero_copy_only=False)) == value
    if mask.all():
        return cols
    idx = np.flatnonzero(mask)
    raw = day.stored.raw
    assert raw is not None, "a part of a day needs the raw properties"
    texts = [raw[i] for i in idx.tolist()]
    records = [{"properties": None if t is None else orjson.loads(t)} for t in texts]
    take = pa.array(idx, type=pa.int64())
    fixed = {k: v.take(take) for k, v in cols.fixed.items()}
    rebuilt = page_columns(records, _OPEN).deferred
    return PageColumns(len(idx), fixed, {}, deferred=rebuilt)


def join_days(parts: Sequence[tuple[PageColumns, bool]], labels: Labels) -> pd.DataFrame:
    """Days (or parts of days) in time order joined into the frame ``events.list`` gives.

    Each part is one stored file's rows, in the order its read gave them, and whether its
    day has several files (several queries: per user, per device). Days of one file keep
    that order, as a read joins its pages. Days of several are joined as
    ``events.list(users=...)`` joins its per-user reads (the schema's ``joined_order``):
    each event once (the first seen), each second's events by user, each file's in its
    order.
    """
    kept = [part for part in parts if part[0].rows]
    schema = event_schema(labels)
    df = build_frame([cols for cols, _ in kept], schema)
    if not any(several for _, several in kept):
        return df
    joined = np.concatenate([np.full(cols.rows, several) for cols, several in kept])
    first = ~df.duplicated(subset=list(schema.key), keep="first").to_numpy()
    df, joined = df.loc[first], joined[first]
    # the moment, then the rest of joined_order on days of several files only ("" on a
    # day of one: its read's order stands)
    by = list(schema.joined_order)
    keys = df[by].reset_index(drop=True)
    for name in by[1:]:
        keys[name] = keys[name].where(joined, "")
    order = keys.sort_values(by, kind="stable", na_position="last").index
    return df.take(order.to_numpy()).reset_index(drop=True)


def meta_of_days(paths: Sequence[Path], labels: Labels) -> pd.DataFrame:
    """The empty frame of the stored days' columns joined as a read joins its pages (the
    columns and dtypes of a Dask frame over them)."""
    import pyarrow.parquet as pq

    pages = []
    for path in paths:
        table = pq.read_schema(path).empty_table()
        if TS in table.column_names:
            table = table.drop_columns([TS])
        pages.append(from_table(table).cols)
    return build_frame(pages, event_schema(labels)).iloc[:0]
