"""opslib.server.store.bulk: the generator's bulk load on a fresh SQLite file."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from opslib.server import store
from opslib.server.store import bulk


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    c = store.connect(tmp_path / "bulk.db")
    yield c
    c.close()


def test_a_database_without_tables_has_no_users(fresh: sqlite3.Connection) -> None:
    assert bulk.existing_user_count(fresh) == 0
    store.init_schema(fresh)
    assert bulk.existing_user_count(fresh) == 0


def test_bulk_settings_are_restored_after_the_load(fresh: sqlite3.Connection) -> None:
    assert bulk.begin_bulk_load(fresh) == "delete"
    bulk.end_bulk_load(fresh)
    assert fresh.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert fresh.execute("PRAGMA synchronous").fetchone() == (1,)  # NORMAL


def test_rows_go_in_as_given_and_event_counts_follow(fresh: sqlite3.Connection) -> None:
    store.init_schema(fresh)
    with store.transaction(fresh):
        bulk.set_meta(fresh, items={"seed": "42"})
        bulk.insert_clients(fresh, rows=[("c1", "h", "Client", 1)])
        bulk.insert_categories(fresh, rows=[(1, "Lighting", "")])
        bulk.insert_products(fresh, rows=[("p1", "h", "Lamp", "", 1, 0, 1, 0, 1, 1, 0, 1, 1)])
        bulk.insert_devices(
            fresh, rows=[("d1", "h", "p1", 1, "", "", "", "", 1, "{}", "", 1, None)]
        )
        bulk.insert_events(
            fresh,
            rows=[
                ("e1", "d1", "u1", 1, "{}", "", 1_000),
                ("e2", "d1", "u1", 3, "{}", "", 2_000),
                ("e3", "d1", "u1", 3, "{}", "", 700_000),
            ],
        )
        bulk.rebuild_event_counts(fresh)
    counts = bulk.count_rows(fresh)
    tables = ("clients", "categories", "products", "devices", "events")
    assert [counts[t] for t in tables] == [1, 1, 1, 1, 3]
    assert fresh.execute(
        "SELECT bucket, event_type, n FROM event_counts ORDER BY 1, 2"
    ).fetchall() == [(0, 1, 1), (0, 3, 1), (1, 3, 1)]
    assert fresh.execute("SELECT value FROM meta WHERE key = 'seed'").fetchone() == ("42",)
