"""Quotas of a plain user: devices owned and events reported.

Before: a plain user created 1,000 devices in 5.3 s and 60,000 events in 8.1 s, with no
bound. Now a plain user owns at most ``user_device_quota`` devices (a bind beyond it is a
403 naming the quota) and its devices report at most ``user_event_quota`` events per
window (beyond it a 429 with ``Retry-After``, nothing stored). ops and admin have none;
seeding writes to the store and is not an API caller.
"""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from server.helpers import Api

from opslib.server import FakeClock, Settings


@pytest.fixture
def settings() -> Settings:
    return replace(
        Settings(), user_device_quota=4, user_event_quota=12, user_event_quota_window_ms=60_000
    )


def _bind(api: Api, name: str, device_id: str) -> Any:
    params = {"device_id": device_id, "device_secret": "quota-secret-1", "product_id": "p-lamp"}
    return api.as_user(name, "/device/bind", params)


def test_a_plain_user_owns_at_most_its_device_quota(api: Api) -> None:
    # alice owns 2 devices of the world: two more fit, the fifth does not
    assert [_bind(api, "alice", f"dev-q{n}").status_code for n in range(2)] == [200, 200]
    r = _bind(api, "alice", "dev-q2")
    assert r.status_code == 403, r.text
    assert r.json()["error_msg"] == (
        "params.device_id: device quota reached: a user may own at most 4 devices"
    )
    conn = sqlite3.connect(api.world.db)
    assert conn.execute("SELECT 1 FROM devices WHERE device_id = 'dev-q2'").fetchone() is None
    conn.close()
    # binding an unbound device counts too; a device of hers already bound does not
    params = {"device_id": "dev-free", "device_secret": api.world.device_secret}
    assert (
        api.as_user("alice", "/device/bind", {**params, "product_id": "p-lamp"}).status_code == 403
    )
    assert _bind(api, "bob", "dev-q3").status_code == 200  # per user
    assert [_bind(api, "admin", f"dev-admin-{n}").status_code for n in range(6)] == [200] * 6


def _report(api: Api, device_id: str, n: int) -> Any:
    body = {
        "message_id": str(uuid.uuid4()),
        "device_id": device_id,
        "device_secret": api.world.device_secret,
        "events": [{"event_type": 3, "properties": {"n": i}} for i in range(n)],
    }
    return api.client.post("/device/report", json=body)


def _events(api: Api, device_id: str) -> int:
    conn = sqlite3.connect(api.world.db)
    try:
        sql = "SELECT COUNT(*) FROM events WHERE device_id = ?"
        return int(conn.execute(sql, (device_id,)).fetchone()[0])
    finally:
        conn.close()


def test_a_plain_users_devices_report_at_most_its_event_quota(api: Api, clock: FakeClock) -> None:
    clock.set(1_714_521_600_000)  # the start of a window
    before = _events(api, "dev-a1")
    assert _report(api, "dev-a1", 5).status_code == 200
    assert _report(api, "dev-a2", 5).status_code == 200  # her other device shares the quota
    r = _report(api, "dev-a1", 3)
    assert r.status_code == 429, r.text
    assert r.json()["error_msg"].startswith("events: event quota reached")
    assert r.json()["error_msg"].endswith("may report at most 12 events per minute")
    assert int(r.headers["Retry-After"]) == 60
    assert _events(api, "dev-a1") == before + 5  # nothing of the refused report
    assert _report(api, "dev-a1", 2).status_code == 200  # what fits still does
    assert _report(api, "dev-b1", 12).status_code == 200  # bob's own quota
    clock.advance(seconds=60)
    assert _report(api, "dev-a1", 12).status_code == 200


def test_the_default_quotas_leave_the_seeded_users_room(seeded_db: Path) -> None:
    """By default a plain user may own 500 devices, ten times what any seeded one owns, and
    its devices report 50,000 events an hour (the simulator's default is 5 a second)."""
    conn = sqlite3.connect(seeded_db)
    most = conn.execute(
        "SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM bindings b JOIN users u USING (user_id)"
        " WHERE b.owned = 1 AND u.role = 1 GROUP BY b.user_id)"
    ).fetchone()[0]
    conn.close()
    settings = Settings()
    assert 10 * most <= settings.user_device_quota
    assert settings.user_event_quota * 1000 / settings.user_event_quota_window_ms > 5 * 2
