"""opslib.server.store (the package): connections, write transactions, the schema version."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from opslib.server import store


def test_a_connection_is_wal_with_foreign_keys(tmp_path: Path) -> None:
    conn = store.connect(tmp_path / "c.db")
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("PRAGMA foreign_keys").fetchone() == (1,)
        assert conn.execute("PRAGMA busy_timeout").fetchone() == (store.BUSY_TIMEOUT_MS,)
    finally:
        conn.close()


def test_a_transaction_commits_or_rolls_back_as_a_whole(tmp_path: Path) -> None:
    conn = store.connect(tmp_path / "t.db")
    try:
        store.init_schema(conn)
        with store.transaction(conn):
            conn.execute("INSERT INTO meta (key, value) VALUES ('a', '1')")

        def failing_write() -> None:
            with store.transaction(conn):
                conn.execute("INSERT INTO meta (key, value) VALUES ('b', '2')")
                raise RuntimeError("boom")

        with pytest.raises(RuntimeError, match="boom"):
            failing_write()
        keys = {k for (k,) in conn.execute("SELECT key FROM meta")}
        assert "a" in keys
        assert "b" not in keys
    finally:
        conn.close()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    conn = store.connect(tmp_path / "n.db")
    try:
        store.init_schema(conn)
        assert store.schema_version(conn) == store.SCHEMA_VERSION
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'schema_version'",
            (str(store.SCHEMA_VERSION + 1),),
        )
        with pytest.raises(RuntimeError, match="newer than this opslib"):
            store.init_schema(conn)
    finally:
        conn.close()


def test_rows_come_back_as_dicts(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "r.db")
    try:
        from opslib.server.store._rows import all_rows, one, scalar

        conn.execute("CREATE TABLE t (a INTEGER, b TEXT)")
        conn.executemany("INSERT INTO t VALUES (?, ?)", [(1, "x"), (2, "y")])
        assert one(conn, "SELECT * FROM t ORDER BY a") == {"a": 1, "b": "x"}
        assert one(conn, "SELECT * FROM t WHERE a = ?", (9,)) is None
        assert all_rows(conn, "SELECT b FROM t ORDER BY a") == [{"b": "x"}, {"b": "y"}]
        assert scalar(conn, "SELECT COUNT(*) FROM t") == 2
        assert scalar(conn, "SELECT a FROM t WHERE a = 9") is None
    finally:
        conn.close()
