"""Ownership transfer: events belong to the device's owner at the time.

An admin hands dev-a1 (alice's, 50 events) to bob. bob reads only what the device reports
from then on; alice keeps her events through query_model 2; ops read everything.
"""

from __future__ import annotations

import uuid
from typing import Any

from server.helpers import Api


def _records(api: Api, name: str, **params: Any) -> dict[str, Any]:
    params = {"start": api.world.events_start, "end": api.clock.now_ms() + 1, **params}
    r = api.as_user(name, "/device/query_record", {"page_size": 1000, **params})
    assert r.status_code == 200, r.text
    return dict(r.json()["data"])


def _report(api: Api, device_id: str, n: int) -> None:
    body = {
        "message_id": str(uuid.uuid4()),
        "device_id": device_id,
        "device_secret": api.world.device_secret,
        "events": [{"event_type": 3, "properties": {"n": i}} for i in range(n)],
    }
    r = api.client.post("/device/report", json=body)
    assert r.status_code == 200, r.text


def test_a_new_owner_does_not_read_the_previous_owners_events(api: Api) -> None:
    before = _records(api, "alice", query_model=1, device_id="dev-a1")
    assert before["total"] == 50
    r = api.as_user("admin", "/device/update_info", {"device_id": "dev-a1", "user_id": "u-bob"})
    assert r.status_code == 200, r.text

    data = _records(api, "bob", query_model=1, device_id="dev-a1")
    assert (data["total"], data["events_list"]) == (0, [])
    api.clock.advance(seconds=1)
    _report(api, "dev-a1", 3)
    data = _records(api, "bob", query_model=1, device_id="dev-a1")
    assert data["total"] == 3
    assert {e["user_id"] for e in data["events_list"]} == {"u-bob"}
    mine = _records(api, "bob", query_model=2, user_id_param="u-bob")
    assert {e["event_id"] for e in data["events_list"]} <= {
        e["event_id"] for e in mine["events_list"]
    }

    # alice no longer reads the device, but keeps the events it recorded for her
    r = api.as_user("alice", "/device/query_record", {
        "query_model": 1, "device_id": "dev-a1",
        "start": api.world.events_start, "end": api.clock.now_ms() + 1,
    })  # fmt: skip
    assert r.status_code == 404
    hers = _records(api, "alice", query_model=2, user_id_param="u-alice")
    assert sum(e["device_id"] == "dev-a1" for e in hers["events_list"]) == 50

    # ops read the device's whole history
    assert _records(api, "ops", query_model=1, device_id="dev-a1")["total"] == 53
