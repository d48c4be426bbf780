"""``opslib sync`` / :func:`opslib.sync`: bring a store up to date from the platform.

Each query (the fleet; a user, on a platform without a fleet query; a device) has a
watermark: its events in ``[since, watermark)`` are stored. A sync reads, per query, the
UTC days from ``since`` (the first time) or from the watermark less the ``late_window``
(default 2 days: events a device reports late, into a day already synced) up to now, one
day at a time, each read whole and written over that day's file. The watermark moves
after each day's file is in place, so a sync killed at any moment starts again where it
stopped, and rows are never doubled: a day's file is always one complete read.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import math
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pandas as pd

from opslib.client.stored import ClientReads
from opslib.store._format import frame_to_snapshot, write_day, write_snapshot
from opslib.store._layout import (
    DAY_MS,
    Layout,
    QueryState,
    StoreMismatch,
    day_of,
    day_start,
)
from opslib.timeutil import Moment, to_epoch_ms

__all__ = ["SyncResult", "Window", "parse_late_window", "sync"]

DEFAULT_LATE_WINDOW = "2d"
_DURATION = re.compile(r"(-?\d+(?:\.\d+)?)\s*([dhmsDHMS])")
WHAT = ("all", "events", "devices")


@dataclass(frozen=True)
class Window:
    """One UTC day (or the part of today up to now) of one query, read whole."""

    query: QueryState
    lo: int
    hi: int
    stage: str  # first | backfill | forward

    @property
    def day(self) -> str:
        return day_of(self.lo)


@dataclass
class SyncResult:
    """What a sync did (or, with ``dry_run``, would do)."""

    store: Path
    dry_run: bool
    windows: list[Window] = field(default_factory=list)
    estimated_rows: dict[str, int] = field(default_factory=dict)
    rows: int = 0
    requests: int = 0
    seconds: float = 0.0
    snapshot_day: str | None = None
    devices: int | None = None
    page_size: int = 1000
    """The rows of a page: what was asked, at most the platform's cap."""
    note: str = ""
    """What the sync read when it was not asked, in a sentence (else empty)."""

    def estimated_requests(self) -> int:
        """Pages to read: each window's rows in pages of ``page_size``, at least one each."""
        per_query: dict[str, int] = {}
        for w in self.windows:
            per_query[w.query.id] = per_query.get(w.query.id, 0) + 1
        return sum(
            max(n, math.ceil(self.estimated_rows.get(q, 0) / self.page_size) + n)
            for q, n in per_query.items()
        )


def parse_late_window(value: Any) -> int:
    """``late_window`` as milliseconds: a duration (``"2d"``, ``"36h"``, a Timedelta) or
    milliseconds; a clear error naming the field otherwise.

    >>> parse_late_window("2d")
    172800000
    """
    unit_ms = {"d": DAY_MS, "h": 3_600_000, "m": 60_000, "s": 1000}
    try:
        if isinstance(value, int | float) and not isinstance(value, bool):
            ms = int(value)
        elif isinstance(value, str) and (found := _DURATION.fullmatch(value.strip())):
            ms = int(float(found.group(1)) * unit_ms[found.group(2).lower()])
        else:
            ms = int(pd.Timedelta(value).total_seconds() * 1000)
    except (TypeError, ValueError):
        raise ValueError(
            f"late_window: {value!r} is not a duration; give e.g. '2d', '36h' or 0"
        ) from None
    if ms < 0:
        raise ValueError(f"late_window: {value!r} is negative; give a duration >= 0")
    return ms


def _loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_identity(layout: Layout, identity: dict[str, Any]) -> None:
    """A store holds one platform's and one caller's data. A platform on this machine
    (the embedded one) may come back on another port."""
    mine = layout.identity
    if not mine.get("base_url"):
        return
    same_platform = mine["base_url"] == identity["base_url"] or (
        _loopback(mine["base_url"]) and _loopback(identity["base_url"])
    )
    if not same_platform or mine.get("caller") != identity["caller"]:
        raise StoreMismatch(
            f"the store {layout.root} holds the data of {mine['base_url']} read by user "
            f"{mine.get('caller')!r}, not of {identity['base_url']} read by "
            f"{identity['caller']!r}: give another store (--store PATH or OPSLIB_STORE)"
        )


def _queries(
    layout: Layout,
    source: ClientReads,
    devices: Iterable[str] | None,
    users: Iterable[str] | None,
) -> list[QueryState]:
    asked = [("device", str(d)) for d in devices or ()] + [("user", str(u)) for u in users or ()]
    if asked:
        found = []
        for kind, key in asked:
            fresh = QueryState(kind, key)
            found.append(layout.queries.get(fresh.id, fresh))
        return found
    if layout.queries:
        return list(layout.queries.values())
    if source.has_fleet():
        return [QueryState("fleet")]
    return [QueryState("user", source.caller)]


def _days(lo: int, hi: int) -> Iterator[tuple[int, int]]:
    d = lo
    while d < hi:
        yield d, min(d + DAY_MS, hi)
        d += DAY_MS


def plan_windows(
    query: QueryState, since_ms: int | None, late_ms: int, now_ms: int
) -> list[Window]:
    """The days a sync of ``query`` reads, in the order it reads them."""
    if query.watermark is None or query.since is None:
        if since_ms is None:
            raise ValueError(
                f"since: no events of the {query.describe()} query are stored yet; give "
                "where to start, e.g. since='-365d' (opslib sync events --since -365d)"
            )
        return [Window(query, lo, hi, "first") for lo, hi in _days(since_ms, now_ms)]
    windows = []
    if since_ms is not None and since_ms < query.since:
        windows += [Window(query, lo, hi, "backfill") for lo, hi in _days(since_ms, query.since)]
    start = day_start(max(query.since, query.watermark - late_ms))
    windows += [Window(query, lo, hi, "forward") for lo, hi in _days(start, now_ms)]
    return windows


def _record(layout: Layout, window: Window, since_ms: int | None, last: bool) -> None:
    """Move the query's state past a window whose file is in place."""
    q = window.query
    if window.stage == "backfill":
        if last:
            q.since = since_ms
    else:
        q.watermark = max(q.watermark or window.hi, window.hi)
    layout.queries[q.id] = q
    layout.save_state()


def sync(
    client: Any = None,
    *,
    what: str = "all",
    since: Moment | None = None,
    late_window: Any = DEFAULT_LATE_WINDOW,
    store: str | Path | None = None,
    devices: Iterable[str] | None = None,
    users: Iterable[str] | None = None,
    dry_run: bool = False,
    progress: bool | None = None,
    page_size: int = 1000,
    now: Moment | None = None,
) -> SyncResult:
    """Bring the local store up to date from the platform.

    Parameters
    ----------
    client
        An ``opslib.Client`` (default: ``opslib.connect()``).
    what
        ``"all"`` (events, then a snapshot of devices, products and categories),
        ``"events"`` or ``"devices"``.
    since
        Where the events start, the first time (``"-365d"``, a date...); given later, an
        earlier day also fetches the days before the stored ones. Cut to its UTC day.
    late_window
        How far behind the watermark each sync reads again, for events reported late
        (default ``"2d"``; ``0`` reads only the days from the watermark's on).
    store
        The store's directory (default ``OPSLIB_STORE``, else the user data directory).
    devices, users
        Sync these devices' or users' events (each its own query and watermark) instead
        of the queries already stored (by default the fleet, or, on a platform without
        a fleet query, the caller's own devices).
    dry_run
        Print nothing, write nothing, read no page: the windows to read and estimated
        rows (one request of one row per query counts them).
    progress
        A progress bar of rows, requests and time left (None: on a terminal).
    page_size
        Rows per request.
    now
        The end of the sync (default: now).

    Returns
    -------
    SyncResult
        The windows read, rows, requests, seconds; the snapshot's day.

    Examples
    --------
    >>> import opslib
    >>> opslib.sync(since="-365d")  # doctest: +SKIP
    >>> opslib.sync()  # later: only what is new, and the last 2 days again  # doctest: +SKIP
    """
    if what not in WHAT:
        raise ValueError(f"what: {what!r} is not one of {list(WHAT)}")
    late_ms = parse_late_window(late_window)
    now_ms = to_epoch_ms("now" if now is None else now)
    since_ms = None if since is None else day_start(to_epoch_ms(since, now_ms=now_ms))
    if since_ms is not None and since_ms >= now_ms:
        raise ValueError(f"since: {since!r} is not before now")
    if client is None:
        from opslib.client import connect

        client = connect()
    source = ClientReads(client)
    layout = Layout.open(store)
    result = SyncResult(layout.root, dry_run, page_size=source.page_size(page_size))
    if dry_run:
        layout.reload()
        check_identity(layout, source.identity())
        _plan(layout, source, result, what, since_ms, late_ms, now_ms, devices, users, count=True)
        return result
    started = time.perf_counter()
    with layout.writer():
        identity = source.identity()
        check_identity(layout, identity)
        if not layout.identity.get("base_url"):
            layout.write_identity(identity)
        queries = _plan(
            layout, source, result, what, since_ms, late_ms, now_ms, devices, users, count=True
        )
        if what in ("all", "events"):
            _run_events(layout, source, result, since_ms, late_ms, page_size, progress)
        if what in ("all", "devices"):
            _snapshot(layout, source, result, queries, now_ms)
    result.seconds = time.perf_counter() - started
    return result


def _plan(
    layout: Layout,
    source: ClientReads,
    result: SyncResult,
    what: str,
    since_ms: int | None,
    late_ms: int,
    now_ms: int,
    devices: Iterable[str] | None,
    users: Iterable[str] | None,
    *,
    count: bool,
) -> list[QueryState]:
    queries = _queries(layout, source, devices, users)
    if [q.kind for q in queries] == ["user"] and not (devices or users or layout.queries):
        result.note = (
            "this platform has no whole-fleet query, so the sync reads the events of the "
            f"account's own devices (user {source.caller}); other users' with users=[...] "
            "(opslib sync --user ID, repeated)"
        )
    if what not in ("all", "events"):
        return queries
    for q in queries:
        windows = plan_windows(q, since_ms, late_ms, now_ms)
        result.windows += windows
        if count and windows:
            result.estimated_rows[q.id] = sum(
                source.count(q.kind, q.key, lo, hi) for lo, hi in _spans(windows)
            )
            result.requests += len(list(_spans(windows)))
    return queries


def _spans(windows: list[Window]) -> Iterator[tuple[int, int]]:
    """The windows' contiguous spans (a backfill and the forward days are two)."""
    lo = hi = None
    for w in windows:
        if lo is None or hi != w.lo:
            if lo is not None and hi is not None:
                yield lo, hi
            lo = w.lo
        hi = w.hi
    if lo is not None and hi is not None:
        yield lo, hi


def _run_events(
    layout: Layout,
    source: ClientReads,
    result: SyncResult,
    since_ms: int | None,
    late_ms: int,
    page_size: int,
    progress: bool | None,
) -> None:
    from tqdm.auto import tqdm

    total = sum(result.estimated_rows.values())
    for q in {w.query.id: w.query for w in result.windows if w.stage == "first"}.values():
        # stored from since on, nothing yet: a sync killed now resumes without since
        q.since = q.watermark = since_ms
        layout.queries[q.id] = q
        layout.save_state()
    disable = None if progress is None else not progress
    with tqdm(total=total, unit="rows", desc="sync events", disable=disable, leave=False) as bar:
        for i, window in enumerate(result.windows):
            q = window.query
            pages = source.pages
            rows = source.read(q.kind, q.key, window.lo, window.hi, page_size)
            write_day(layout.event_file(q.id, window.day), rows)
            following = result.windows[i + 1] if i + 1 < len(result.windows) else None
            last_of_stage = following is None or (following.query.id, following.stage) != (
                q.id,
                window.stage,
            )
            q.late_window_ms = late_ms
            _record(layout, window, since_ms, last_of_stage)
            result.rows += rows.rows
            result.requests += source.pages - pages
            bar.update(rows.rows)
            bar.set_postfix(requests=result.requests, day=window.day, refresh=False)
        stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        for q in {w.query.id: w.query for w in result.windows}.values():
            q.last_sync = stamp
            layout.queries[q.id] = q
        if result.windows:
            layout.save_state()


def _snapshot(
    layout: Layout, source: ClientReads, result: SyncResult, queries: list[QueryState], now_ms: int
) -> None:
    """Today's devices, products and categories, each over the day's earlier snapshot."""
    day = day_of(now_ms)
    synced_at = pd.Timestamp.now(tz="UTC").floor("s")
    users = None
    if not source.has_fleet():
        users = sorted({q.key for q in queries if q.kind == "user" and q.key}) or [source.caller]
    client = source.client
    if users is None:
        devices = client.devices.list(progress=False)
    else:
        devices = client.devices.list(users=users, progress=False)
    frames = {
        "devices": devices,
        "products": client.products.list(),
        "categories": client.products.categories(),
    }
    for what, df in frames.items():
        write_snapshot(layout.snapshot_file(what, day), frame_to_snapshot(df, day, synced_at))
    layout.snapshots = {"last": synced_at.isoformat(), "day": day}
    layout.save_state()
    result.snapshot_day = day
    result.devices = len(devices)
