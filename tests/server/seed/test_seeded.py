"""The server over a database from the seed generator: the two agree on the schema."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from opslib.server import create_app, demo
from opslib.server.security import demo_device_secret

from ..helpers import TestClient


@pytest.fixture
def seeded(seeded_db: Path, tmp_path: Path) -> Iterator[tuple[TestClient, Path]]:
    db = tmp_path / "seeded.db"
    source, target = sqlite3.connect(seeded_db), sqlite3.connect(db)
    source.backup(target)
    source.close()
    target.close()
    with TestClient(create_app(db), raise_server_exceptions=False) as client:
        yield client, db


def call(client: TestClient, path: str, user_id: str, params: dict[str, Any]) -> Any:
    r = client.post(
        path, json={"message_id": str(uuid.uuid4()), "user_id": user_id, "params": params}
    )
    assert r.status_code == 200, r.text
    return r.json()["data"]


def login(client: TestClient) -> tuple[str, str]:
    data = call(
        client,
        "/user/login",
        "",
        {
            "client_id": demo.CLIENT_ID,
            "login_model": 1,
            "area_code": demo.AREA_CODE,
            "phone": demo.OPS_PHONE,
            "password": demo.OPS_PASSWORD,
        },
    )
    t = client.post(
        "/token/access",
        params={
            "grant_type": "authorization_code",
            "client_id": demo.CLIENT_ID,
            "client_secret": demo.CLIENT_SECRET,
            "code": data["code"],
            "redirect_uri": "none",
        },
    )
    return data["user_id"], t.json()["access_token"]


def test_fleet_pages_of_the_seed_match_naive_offset(seeded: tuple[TestClient, Path]) -> None:
    client, db = seeded
    user_id, token = login(client)
    conn = sqlite3.connect(db)
    lo, hi, count = conn.execute("SELECT MIN(ts), MAX(ts), COUNT(*) FROM events").fetchone()
    params = {"access_token": token, "query_model": 3, "start": lo, "end": hi + 1}
    first = call(client, "/device/query_record", user_id, {**params, "page_size": 1000})
    assert first["total"] == count
    pages = -(-count // 1000)
    for page_no in sorted({1, 2, max(1, pages // 2), max(1, int(pages * 0.9)), pages}):
        data = call(
            client,
            "/device/query_record",
            user_id,
            {**params, "page_size": 1000, "page_no": page_no},
        )
        expected = [
            r[0]
            for r in conn.execute(
                "SELECT event_id FROM events ORDER BY ts, event_id LIMIT 1000 OFFSET ?",
                ((page_no - 1) * 1000,),
            )
        ]
        assert [e["event_id"] for e in data["events_list"]] == expected
    typed = call(client, "/device/query_record", user_id, {**params, "event_type": 4})
    assert (
        typed["total"]
        == conn.execute("SELECT COUNT(*) FROM events WHERE event_type = 4").fetchone()[0]
    )
    fleet = call(client, "/device/query_by_user", user_id, {"access_token": token, "user_id": ""})
    assert (
        fleet["total"]
        == conn.execute("SELECT COUNT(*) FROM bindings WHERE owned = 1").fetchone()[0]
    )
    conn.close()


def test_a_seeded_device_reports_with_its_demo_secret(seeded: tuple[TestClient, Path]) -> None:
    client, db = seeded
    conn = sqlite3.connect(db)
    (device_id,) = conn.execute(
        "SELECT device_id FROM bindings WHERE owned = 1 ORDER BY device_id LIMIT 1"
    ).fetchone()
    conn.close()
    r = client.post(
        "/device/report",
        json={
            "message_id": str(uuid.uuid4()),
            "device_id": device_id,
            "device_secret": demo_device_secret(device_id),
            "events": [{"event_type": 1}],
        },
    )
    assert r.status_code == 200, r.text
    assert r.json()["data"] == {"accepted": 1}
