"""opslib.server.services.paging: deep fleet pages by bucket counts equal plain OFFSET pages."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import orjson
import pytest

from opslib.server import store
from opslib.server.services.paging import BucketIndex, fleet_page
from opslib.server.store import events as events_store

from ..factories import BUCKET_MS, World


@pytest.fixture
def conn(world: World) -> Iterator[sqlite3.Connection]:
    c = store.connect(world.db)
    yield c
    c.close()


@pytest.mark.parametrize("event_type", [None, 3])
@pytest.mark.parametrize("offset", [0, 7, 49, 101, 149, 150])
def test_a_page_equals_the_plain_offset_page(
    conn: sqlite3.Connection, world: World, offset: int, event_type: int | None
) -> None:
    start, end = world.events_start + 123, world.events_end - 4567  # partial buckets at both ends
    window = {"start": start, "end": end, "event_type": event_type}
    total, page = fleet_page(
        conn, index=BucketIndex(), limit=20, offset=offset, bucket_ms=BUCKET_MS, **window
    )
    assert total == events_store.range_count(conn, **window)
    plain = events_store.range_page(conn, limit=20, offset=offset, **window)
    assert orjson.loads(page) == orjson.loads(plain)


def test_the_index_follows_new_events(conn: sqlite3.Connection, world: World) -> None:
    index = BucketIndex()
    window = {"start": world.events_start, "end": world.events_end, "event_type": None}
    before, _ = fleet_page(conn, index=index, limit=1, offset=0, bucket_ms=BUCKET_MS, **window)
    ts = world.events_start + 30 * 60_000  # inside a whole bucket of the window
    with store.transaction(conn):
        events_store.insert_events(
            conn, rows=[("e-late", "dev-a1", "u-alice", 3, "{}", "", ts)], bucket_ms=BUCKET_MS
        )
    after, _ = fleet_page(conn, index=index, limit=1, offset=0, bucket_ms=BUCKET_MS, **window)
    assert after == before + 1
