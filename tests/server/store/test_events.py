"""Event pages written by SQLite as JSON: equal to the records built from the stored rows,
with strings escaped, properties embedded as stored, gmt_create the server's gmt(ts)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest

from opslib.server import store
from opslib.server.context import gmt
from opslib.server.store import events as events_store

BUCKET_MS = 600_000
ODD = ['quote " and \\ backslash', "tab\there\nnewline", "é ü 東京 🙂", "\x01ctl", ""]


@pytest.fixture
def conn(tmp_path: Path) -> sqlite3.Connection:
    c = store.connect(tmp_path / "events.db")
    store.init_schema(c)
    return c


def _insert(conn: sqlite3.Connection, rows: list[events_store.EventRow]) -> None:
    with store.transaction(conn):
        events_store.insert_events(conn, rows=rows, bucket_ms=BUCKET_MS)


def _expected(row: events_store.EventRow) -> dict[str, object]:
    event_id, device_id, user_id, event_type, properties, code, ts = row
    return {
        "device_id": device_id,
        "user_id": user_id,
        "event_id": event_id,
        "event_type": event_type,
        "properties": orjson.loads(properties),
        "code": code,
        "gmt_create": gmt(ts),
        "ts": ts,
    }


def test_pages_equal_the_stored_rows(conn: sqlite3.Connection) -> None:
    base = 1_714_521_600_000
    rows: list[events_store.EventRow] = []
    for i in range(40):
        odd = ODD[i % len(ODD)]
        props = orjson.dumps({"n": i, "x": 1.5 * i, "on": i % 2 == 0, "s": odd, "nest": {"a": [i]}})
        rows.append(
            (f"e-{i:03d}", f"d-{i % 3}", odd, 1 + i % 6, props.decode(), odd, base + i * 333)
        )
    _insert(conn, rows)
    want = [_expected(r) for r in sorted(rows, key=lambda r: (r[6], r[0]))]
    page = events_store.range_page(
        conn, start=base, end=base + 10**9, event_type=None, limit=15, offset=10
    )
    assert orjson.loads(page) == want[10:25]
    scoped = events_store.scoped_page(
        conn,
        scope="device",
        key="d-1",
        start=base,
        end=base + 10**9,
        event_type=None,
        limit=100,
        offset=0,
    )
    assert orjson.loads(scoped) == [w for w in want if w["device_id"] == "d-1"]
    typed = events_store.range_page(
        conn, start=base, end=base + 10**9, event_type=4, limit=100, offset=0
    )
    assert orjson.loads(typed) == [w for w in want if w["event_type"] == 4]


def test_an_empty_page_is_an_empty_array(conn: sqlite3.Connection) -> None:
    page = events_store.range_page(conn, start=0, end=10, event_type=None, limit=10, offset=0)
    assert page == "[]"


def test_moments_past_year_9999_have_no_gmt_create(conn: sqlite3.Connection) -> None:
    ts = 253_402_300_800_000  # 10000-01-01: beyond YYYY
    _insert(conn, [("e-far", "d-1", "u-1", 1, "{}", "", ts), ("e-0", "d-1", "u-1", 1, "{}", "", 0)])
    page = orjson.loads(
        events_store.range_page(conn, start=0, end=2**53, event_type=None, limit=10, offset=0)
    )
    assert [(e["event_id"], e["gmt_create"], e["ts"]) for e in page] == [
        ("e-0", "1970-01-01 00:00:00", 0),
        ("e-far", None, ts),
    ]


_EVENTS_V1 = """
CREATE TABLE events (
    event_id TEXT NOT NULL, device_id TEXT NOT NULL, user_id TEXT NOT NULL,
    event_type INTEGER NOT NULL, properties TEXT NOT NULL DEFAULT '{}',
    code TEXT NOT NULL DEFAULT '', ts INTEGER NOT NULL
);
CREATE INDEX events_order ON events (ts, event_id);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
INSERT INTO meta VALUES ('schema_version', '1');
"""


def test_a_schema_1_database_gains_the_stored_records(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    old = sqlite3.connect(path)
    old.executescript(_EVENTS_V1)
    rows = [
        (f"e-{i}", "d-1", ODD[i % len(ODD)], 3, orjson.dumps({"n": i}).decode(), "", 1000 * i)
        for i in range(30)
    ]
    old.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    old.commit()
    old.close()

    conn = store.connect(path)
    store.init_schema(conn)
    assert store.schema_version(conn) == store.SCHEMA_VERSION
    columns = [r[1] for r in conn.execute("PRAGMA table_xinfo(events)")]
    assert columns[-1] == "wire"
    assert conn.execute("SELECT COUNT(*) FROM events WHERE wire IS NULL").fetchone() == (0,)
    page = events_store.range_page(conn, start=0, end=10**9, event_type=None, limit=100, offset=0)
    assert orjson.loads(page) == [_expected(r) for r in rows]
    indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"events_order", "events_type", "events_device", "events_user"} <= indexes
    assert "events_v1" not in {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    store.init_schema(conn)  # once migrated, opening again changes nothing
    assert store.schema_version(conn) == store.SCHEMA_VERSION
