"""Phone numbers are normalised before throttling, lookup and storage.

Area codes ``1``, ``01`` and ``001`` are one area code; ``05550009`` and ``5550009`` one
phone (a national trunk prefix). A schema-2 database is converted when opened.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from server.factories import build_world
from server.helpers import Api

from opslib.server import store

from .flows import UNREGISTERED

SPELLINGS = [(a, p) for a in ("1", "01", "001") for p in (UNREGISTERED, "0" + UNREGISTERED)]


def _send(api: Api, area_code: str, phone: str, code_model: int = 1) -> Any:
    return api.post(
        "/user/auth_code",
        {
            "client_id": api.world.client_id,
            "auth_model": 1,
            "code_model": code_model,
            "area_code": area_code,
            "phone": phone,
        },
    )


def test_one_number_spelled_six_ways_gets_one_code(api: Api) -> None:
    statuses = [_send(api, a, p).status_code for a, p in SPELLINGS]
    assert statuses == [200, 429, 429, 429, 429, 429]
    assert [(m["area_code"], m["phone"]) for m in api.sms()] == [("1", UNREGISTERED)]


def test_a_user_registered_with_zeros_is_stored_and_found_without_them(api: Api) -> None:
    assert _send(api, "001", "0" + UNREGISTERED).status_code == 200
    code = api.last_code(UNREGISTERED)
    r = api.post(
        "/user/register",
        {
            "client_id": api.world.client_id,
            "auth_code": code,
            "area_code": "01",
            "phone": "00" + UNREGISTERED,
            "password": "new-password-1",
        },
    )
    assert r.status_code == 200, r.text
    user_id = r.json()["data"]["user_id"]
    conn = sqlite3.connect(api.world.db)
    stored = conn.execute("SELECT area_code, phone FROM users WHERE user_id = ?", (user_id,))
    assert stored.fetchone() == ("1", UNREGISTERED)
    conn.close()
    for area_code, phone in SPELLINGS:
        r = api.post(
            "/user/login",
            {
                "client_id": api.world.client_id,
                "login_model": 1,
                "area_code": area_code,
                "phone": phone,
                "password": "new-password-1",
            },
        )
        assert r.status_code == 200, (area_code, phone, r.text)
        assert r.json()["data"]["user_id"] == user_id


def test_failed_logins_count_against_the_number_however_spelled(api: Api) -> None:
    phone = api.world["alice"].phone
    forms = [("1", phone), ("01", phone), ("001", "0" + phone), ("1", "00" + phone), ("01", phone)]
    for area_code, spelled in forms:
        r = api.post(
            "/user/login",
            {
                "client_id": api.world.client_id,
                "login_model": 1,
                "area_code": area_code,
                "phone": spelled,
                "password": "wrong-password",
            },
        )
        assert r.status_code == 422, r.text
    right = {
        "login_model": 1,
        "area_code": "1",
        "phone": phone,
        "password": api.world["alice"].password,
    }
    r = api.post("/user/login", {"client_id": api.world.client_id, **right})
    assert r.status_code == 429, r.text


@pytest.mark.parametrize(
    ("field", "value"),
    [("area_code", "0"), ("area_code", "000"), ("area_code", "000001"), ("phone", "0000123")],
)
def test_numbers_without_significant_digits_are_refused(api: Api, field: str, value: str) -> None:
    r = _send(api, **{"area_code": "1", "phone": UNREGISTERED, field: value})
    assert r.status_code == 400, r.text
    assert r.json()["error_msg"].startswith(f"params.{field}: must"), r.text
    assert api.sms() == []


def _schema_2(path: Path, now: int, rows: list[tuple[str, str, str]]) -> None:
    """A schema-2 database: the world, plus users, codes, sends and failures with zeros."""
    build_world(path, now=now)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DROP TABLE login_failures")  # as it was before schema 4
        conn.execute("CREATE TABLE login_failures (area_code TEXT, phone TEXT, at INTEGER)")
        conn.execute("CREATE INDEX login_failures_phone ON login_failures (area_code, phone, at)")
        for name in ("login_failures_address", "login_failures_at", "sms_sends_time"):
            conn.execute(f"DROP INDEX IF EXISTS {name}")
        for user_id, area_code, phone in rows:
            conn.execute(
                "INSERT INTO users (user_id, area_code, phone, password_hash, gmt_register,"
                " gmt_modified) VALUES (?, ?, ?, 'x', ?, ?)",
                (user_id, area_code, phone, now, now),
            )
            conn.execute(
                "INSERT INTO sms_codes (area_code, phone, purpose, code_hash, created_at,"
                " expires_at) VALUES (?, ?, 2, 'h', ?, ?)",
                (area_code, phone, now, now + 1),
            )
            conn.execute("INSERT INTO sms_sends VALUES (?, ?, ?)", (area_code, phone, now))
            conn.execute("INSERT INTO login_failures VALUES (?, ?, ?)", (area_code, phone, now))
            conn.execute(
                "INSERT INTO idempotency VALUES (?, '/user/auth_code', 'm', 'f', 200, x'', ?)",
                (f"client|{area_code}|{phone}", now),
            )
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    conn.close()


def test_a_schema_2_database_is_converted_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    _schema_2(path, 1000, [("u-zero", "0044", "07700900123"), ("u-plain", "49", "1512345")])
    conn = store.connect(path)
    store.init_schema(conn)
    assert store.schema_version(conn) == store.SCHEMA_VERSION  # 3, then 4
    for table in ("users", "sms_codes", "sms_sends", "login_failures"):
        rows = conn.execute(f"SELECT area_code, phone FROM {table} ORDER BY 1, 2").fetchall()
        assert ("44", "7700900123") in rows, table
        assert ("49", "1512345") in rows, table
        assert all(not a.startswith("0") and not p.startswith("0") for a, p in rows), table
    callers = {r[0] for r in conn.execute("SELECT caller FROM idempotency")}
    assert callers == {"client|44|7700900123", "client|49|1512345"}
    conn.close()


def test_a_conversion_that_would_merge_two_users_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "clash.db"
    _schema_2(path, 1000, [("u-a", "1", "05550100"), ("u-b", "01", "5550100")])
    before = list(sqlite3.connect(path).iterdump())
    conn = store.connect(path)
    with pytest.raises(RuntimeError, match=r"u-a, u-b") as caught:
        store.init_schema(conn)
    assert "+1 5550100" in str(caught.value)
    conn.close()
    assert list(sqlite3.connect(path).iterdump()) == before
