"""opslib.server.store.idempotency: first responses kept by (caller, operation, message_id)."""

from __future__ import annotations

import sqlite3

from opslib.server.store import idempotency

KEY = {"caller": "u-alice", "operation": "/device/bind", "message_id": "m-1"}


def test_a_record_is_found_until_it_is_older_than_since(conn: sqlite3.Connection) -> None:
    idempotency.put_record(conn, **KEY, fingerprint="f", status=200, body=b"{}", now=1000)
    assert idempotency.get_record(conn, **KEY, since=1000) == {
        "fingerprint": "f",
        "status": 200,
        "body": b"{}",
    }
    assert idempotency.get_record(conn, **KEY, since=1001) is None  # expired
    assert idempotency.get_record(conn, **{**KEY, "caller": "u-bob"}, since=0) is None


def test_an_expired_record_is_replaced_and_purged(conn: sqlite3.Connection) -> None:
    idempotency.put_record(conn, **KEY, fingerprint="old", status=200, body=b"1", now=1000)
    idempotency.put_record(conn, **KEY, fingerprint="new", status=409, body=b"2", now=5000)
    record = idempotency.get_record(conn, **KEY, since=0)
    assert record is not None
    assert (record["fingerprint"], record["status"]) == ("new", 409)
    idempotency.purge(conn, before=5001)
    assert idempotency.get_record(conn, **KEY, since=0) is None


def test_the_fingerprint_key_is_made_once(conn: sqlite3.Connection) -> None:
    first = idempotency.fingerprint_key(conn, new_key="key-1")
    assert first == "key-1"
    assert idempotency.fingerprint_key(conn, new_key="key-2") == "key-1"
