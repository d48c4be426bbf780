"""``/device/report`` (extension): device credentials, effects, counts, idempotency."""

from __future__ import annotations

import sqlite3
import uuid
from typing import Any

from opslib.server import FakeClock

from ..helpers import Api


def report(
    api: Api,
    events: list[dict[str, Any]],
    *,
    device_id: str = "dev-a1",
    secret: str | None = None,
    message_id: str | None = None,
) -> Any:
    body = {
        "message_id": message_id or str(uuid.uuid4()),
        "device_id": device_id,
        "device_secret": secret or api.world.device_secret,
        "events": events,
    }
    return api.client.post("/device/report", json=body)


def counts(api: Api) -> dict[tuple[int, int], int]:
    conn = sqlite3.connect(api.world.db)
    try:
        return {
            (b, t): n for b, t, n in conn.execute("SELECT bucket, event_type, n FROM event_counts")
        }
    finally:
        conn.close()


def test_report_updates_device_and_counts(api: Api, clock: FakeClock) -> None:
    before = counts(api)
    now = clock.now_ms()
    r = report(
        api,
        [
            {"event_type": 1},
            {"event_type": 3, "properties": {"brightness": 80}},
            {"event_type": 6, "properties": {"version": "9.9.9"}, "ts": now - 1000},
        ],
    )
    assert r.status_code == 200, r.text
    assert r.json()["data"] == {"accepted": 3}
    device = api.as_user("alice", "/device/query", {"device_id": "dev-a1"}).json()["data"]
    assert device["status"] == 1
    assert device["properties"] == {"power": "on", "brightness": 80}
    assert device["version"] == "9.9.9"
    assert device["gmt_last_seen"] == "2024-05-01 00:00:00"
    after = counts(api)
    bucket = now // 600_000
    assert after[(bucket, 1)] == before.get((bucket, 1), 0) + 1
    assert after[(bucket - 1, 6)] == before.get((bucket - 1, 6), 0) + 1
    data = api.as_user(
        "alice",
        "/device/query_record",
        {"query_model": 1, "device_id": "dev-a1", "start": now - 5000, "end": now + 1},
    ).json()["data"]
    assert data["total"] == 3
    assert {e["user_id"] for e in data["events_list"]} == {"u-alice"}


def test_fault_alarm_sets_status_3(api: Api) -> None:
    report(api, [{"event_type": 4, "code": "F42"}])
    device = api.as_user("alice", "/device/query", {"device_id": "dev-a1"}).json()["data"]
    assert device["status"] == 3


def test_unknown_device_and_wrong_secret_say_the_same(api: Api) -> None:
    unknown = report(api, [{"event_type": 1}], device_id="dev-none")
    wrong = report(api, [{"event_type": 1}], secret="wrong-secret")
    assert (unknown.status_code, wrong.status_code) == (401, 401)
    assert unknown.json()["error_msg"] == wrong.json()["error_msg"]


def test_report_is_idempotent_by_device_and_message_id(api: Api) -> None:
    message_id = str(uuid.uuid4())
    first = report(api, [{"event_type": 2}], message_id=message_id)
    total = counts(api)
    again = report(api, [{"event_type": 2}], message_id=message_id)
    assert again.status_code == 200
    assert again.content == first.content
    assert counts(api) == total
    other = report(api, [{"event_type": 1}], message_id=message_id)
    assert other.status_code == 409


def test_fleet_total_follows_reports(api: Api, clock: FakeClock) -> None:
    world = api.world
    params = {"query_model": 3, "start": world.events_start, "end": world.events_end + 3600_000}
    before = api.as_user("ops", "/device/query_record", params).json()["data"]["total"]
    report(api, [{"event_type": 1, "ts": world.events_end + 1200_000 + n} for n in range(5)])
    after = api.as_user("ops", "/device/query_record", params).json()["data"]["total"]
    assert after == before + 5
