"""Deep pages of the fleet's events: seek by bucket counts instead of skipping rows.

``event_counts`` holds the number of events per 10-minute bucket and type. For a page at
offset N of ``[start, end)`` the total and the seek point come from those counts: the
partial buckets at both ends are counted exactly through the index, the whole buckets in
between are summed from the counts, the bucket holding offset N is found, and the page is
read with ``ts >= bucket start`` skipping only the rows inside that bucket (protocol §9).

Summing ~20 000 bucket rows per request would cost more than reading the page itself, so
:class:`BucketIndex` keeps the per-bucket counts as prefix sums in memory, rebuilt when the
events table changes (checked in O(log n) per request).
"""

from __future__ import annotations

import bisect
import sqlite3
import threading
from dataclasses import dataclass
from itertools import accumulate

from opslib.server.store import events as events_store

__all__ = ["BucketIndex", "fleet_page"]


@dataclass(frozen=True)
class _Counts:
    stamp: int
    buckets: list[int]
    prefix: list[int]  # prefix[i] = events in buckets[:i]

    def between(self, first: int, stop: int) -> int:
        """Events in the buckets ``[first, stop)``."""
        i = bisect.bisect_left(self.buckets, first)
        j = bisect.bisect_left(self.buckets, stop)
        return self.prefix[j] - self.prefix[i]

    def seek(self, first: int, skip: int) -> tuple[int, int]:
        """The bucket holding the ``skip``-th event from bucket ``first`` on, and the
        events of that bucket before it."""
        i = bisect.bisect_left(self.buckets, first)
        target = self.prefix[i] + skip
        k = bisect.bisect_right(self.prefix, target) - 1
        return self.buckets[k], target - self.prefix[k]


class BucketIndex:
    """Prefix sums of ``event_counts`` per event type (None: all types), cached."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: dict[int | None, _Counts] = {}

    def counts(self, conn: sqlite3.Connection, *, event_type: int | None) -> _Counts:
        """The counts as of ``conn``'s snapshot (call inside a read transaction)."""
        stamp = events_store.events_stamp(conn)
        with self._lock:
            cached = self._cache.get(event_type)
        if cached is not None and cached.stamp == stamp:
            return cached
        rows = events_store.bucket_counts(conn, event_type=event_type)
        counts = _Counts(
            stamp=stamp,
            buckets=[bucket for bucket, _ in rows],
            prefix=[0, *accumulate(n for _, n in rows)],
        )
        with self._lock:
            self._cache[event_type] = counts
        return counts


def fleet_page(
    conn: sqlite3.Connection,
    *,
    index: BucketIndex,
    start: int,
    end: int,
    event_type: int | None,
    limit: int,
    offset: int,
    bucket_ms: int,
) -> tuple[int, str]:
    """The total and one page of every device's events in ``[start, end)``.

    Parameters
    ----------
    conn
        A connection inside a read transaction (total and rows from one snapshot).
    index
        The bucket counts cache of this database.
    start, end
        Epoch ms, half-open.
    event_type
        Only this type, or all.
    limit, offset
        The page.
    bucket_ms
        Width of an ``event_counts`` bucket.

    Returns
    -------
    tuple
        ``(total, page)``, the page a JSON array of wire records ordered by (ts, event_id).
    """
    window = {"event_type": event_type}
    first_full = -(-start // bucket_ms)  # the first bucket wholly inside [start, end)
    stop_full = end // bucket_ms  # buckets [first_full, stop_full) are wholly inside
    if first_full >= stop_full:  # shorter than two buckets: count and skip directly
        total = events_store.range_count(conn, start=start, end=end, **window)
        if offset >= total:
            return total, "[]"
        page = events_store.range_page(
            conn, start=start, end=end, limit=limit, offset=offset, **window
        )
        return total, page
    middle_start, middle_end = first_full * bucket_ms, stop_full * bucket_ms
    lead = events_store.range_count(conn, start=start, end=middle_start, **window)
    trail = events_store.range_count(conn, start=middle_end, end=end, **window)
    counts = index.counts(conn, event_type=event_type)
    middle = counts.between(first_full, stop_full)
    total = lead + middle + trail
    if offset >= total:
        return total, "[]"
    if offset < lead:
        seek, skip = start, offset
    elif offset < lead + middle:
        bucket, skip = counts.seek(first_full, offset - lead)
        seek = bucket * bucket_ms
    else:
        seek, skip = middle_end, offset - lead - middle
    page = events_store.range_page(conn, start=seek, end=end, limit=limit, offset=skip, **window)
    return total, page
