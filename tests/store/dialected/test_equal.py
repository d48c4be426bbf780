"""``Store.events`` equals ``client.events.list`` over the same range, filters and dtypes
included, under every dialect: where the platform has no fleet query (chint) the store
syncs each user's events and the comparison is with ``events.list(users=...)``."""

from __future__ import annotations

import math
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from client.resources.dialected import has_fleet, owners
from pandas.testing import assert_frame_equal

import opslib
from opslib.server.config import Settings
from opslib.server.store.events import insert_events
from opslib.store import Store, sync
from opslib.store._layout import DAY_MS, Layout

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def test_store_events_equal_events_list(platform: ServedPlatform, tmp_path: Path) -> None:
    client = platform.connect()
    store = tmp_path / "store"
    now = time.time_ns() // 1_000_000 // 1000 * 1000  # whole seconds: vendor's unit
    start = now - 3 * DAY_MS - 7_201_000
    users = None if has_fleet(platform) else owners(platform)
    result = sync(client, since="-4d", store=store, users=users, progress=False)
    kinds = {q.kind for q in Layout.open(store).queries.values()}
    assert kinds == ({"fleet"} if has_fleet(platform) else {"user"})
    assert result.devices is not None
    assert result.devices > 0
    cap = client.events._session.codec.paging.max_page_size  # vendor's pages hold 100
    assert result.page_size == cap
    assert result.requests >= math.ceil(result.rows / cap) > 0  # a request per page read
    st = Store(store)

    def platform_read(**filters: object) -> object:
        if has_fleet(platform) or "user_id" in filters:
            return client.events.list(start, now, **filters)
        with pytest.raises(opslib.Unsupported):
            client.events.list(start, now, **filters)
        return client.events.list(start, now, users=users, **filters)

    whole = platform_read()
    assert len(whole) > 0
    assert_frame_equal(st.events(start, now), whole)
    kind = int(whole["event_type"].mode().iloc[0])
    assert_frame_equal(st.events(start, now, event_type=kind), platform_read(event_type=kind))
    user = str(whole["user_id"].dropna().iloc[0])
    assert_frame_equal(st.events(start, now, user_id=user), platform_read(user_id=user))
    con = st.connect()
    sql = "SELECT event_type_name, count(*) AS n FROM events WHERE gmt_create >= ? GROUP BY 1"
    counted = con.execute(sql, [whole["gmt_create"].min()]).df()
    by_label = dict(zip(counted["event_type_name"].astype(str), counted["n"], strict=True))
    assert by_label == whole["event_type_name"].astype(str).value_counts().to_dict()


def test_events_within_one_second_keep_each_reads_order_and_go_by_user(
    fresh_platform: ServedPlatform, tmp_path: Path
) -> None:
    """Two users' events in one second, stored and read: each user's in the platform's
    order (not by event id), the users by id (not in the order given), store and read alike."""
    platform = fresh_platform
    con = sqlite3.connect(platform.db)
    try:
        (kind,) = con.execute("SELECT event_type FROM events LIMIT 1").fetchone()
        devices = dict(
            con.execute(
                "SELECT user_id, min(device_id) FROM bindings WHERE owned = 1 GROUP BY user_id"
                " ORDER BY user_id LIMIT 2"
            ).fetchall()
        )
        first, second = sorted(devices)
        moment = (time.time_ns() // 1_000_000 - DAY_MS) // 1000 * 1000
        rows = [  # (event id, user, ms into the second): ids against both orders
            ("evt-00-second-user", second, 100),
            ("evt-ff-first-user-earlier", first, 300),
            ("evt-aa-first-user-later", first, 400),
        ]
        with con:
            insert_events(
                con,
                rows=[(e, devices[u], u, kind, "{}", "", moment + ms) for e, u, ms in rows],
                bucket_ms=Settings().event_bucket_ms,
            )
    finally:
        con.close()
    client = platform.connect()
    users = None if has_fleet(platform) else owners(platform)
    sync(client, since="-4d", store=tmp_path / "store", users=users, progress=False)
    lo, hi = moment - 1000, moment + 2000
    if has_fleet(platform):  # one read: the platform's order (ms, then event id)
        read = client.events.list(lo, hi)
        expected = ["evt-00-second-user", "evt-ff-first-user-earlier", "evt-aa-first-user-later"]
    else:  # per-user reads joined: by user, each user's read in its order
        read = client.events.list(lo, hi, users=users[::-1])
        expected = ["evt-ff-first-user-earlier", "evt-aa-first-user-later", "evt-00-second-user"]
    # the seed's own events of these users may fall in the same seconds: only ours compared
    assert [e for e in read["event_id"] if e in expected] == expected
    assert_frame_equal(Store(tmp_path / "store").events(lo, hi), read)


def test_a_sync_without_users_says_whose_events_it_read(
    platform: ServedPlatform, tmp_path: Path
) -> None:
    client = platform.connect()
    result = sync(client, what="events", since="-1d", store=tmp_path / "store", progress=False)
    if has_fleet(platform):
        assert result.note == ""
    else:  # the account's own devices, and how to name others
        assert result.note.startswith("this platform has no whole-fleet query")
        assert f"(user {client.user_id})" in result.note
        assert "opslib sync --user ID" in result.note
