"""``Store.events`` equals ``client.events.list`` over the same range, filters and dtypes
included, under every dialect: where the platform has no fleet query (chint) the store
syncs each user's events and the comparison is with ``events.list(users=...)``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from client.resources.dialected import has_fleet, owners
from pandas.testing import assert_frame_equal

import opslib
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
