"""opslib.server.store.sms: one live code per phone and purpose, and the send log."""

from __future__ import annotations

import sqlite3

from opslib.server.store import sms

KEY = {"area_code": "1", "phone": "5550000004", "purpose": 1}


def test_a_new_code_replaces_the_last_one(conn: sqlite3.Connection) -> None:
    assert sms.get_code(conn, **KEY) is None
    sms.put_code(conn, **KEY, code_hash="h1", now=10, expires_at=310)
    sms.add_attempt(conn, **KEY)
    sms.add_attempt(conn, **KEY)
    first = sms.get_code(conn, **KEY)
    assert first is not None
    assert (first["code_hash"], first["attempts"], first["used_at"]) == ("h1", 2, None)
    sms.put_code(conn, **KEY, code_hash="h2", now=20, expires_at=320)
    second = sms.get_code(conn, **KEY)
    assert second is not None
    assert (second["code_hash"], second["attempts"], second["created_at"]) == ("h2", 0, 20)
    sms.mark_used(conn, **KEY, now=30)
    used = sms.get_code(conn, **KEY)
    assert used is not None
    assert used["used_at"] == 30
    assert sms.get_code(conn, **{**KEY, "purpose": 2}) is None  # another purpose


def test_sends_are_counted_since_a_moment(conn: sqlite3.Connection) -> None:
    for at in (100, 200, 300):
        sms.record_send(conn, area_code="1", phone="5550000004", now=at)
    assert sms.sends_since(conn, area_code="1", phone="5550000004", since=150) == (2, 300)
    assert sms.sends_since(conn, area_code="1", phone="5550000004", since=301) == (0, None)
    assert sms.sends_since(conn, area_code="1", phone="5550000005", since=0) == (0, None)
