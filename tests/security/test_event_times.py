"""Event times outside what can be shown.

Before: an event past year 9999 was stored with ``gmt_create: null``, one at exactly 2^53
could never be queried (``end`` is at most 2^53, exclusive), and the client showed them
as years 1816 and 2134. Now ``/device/report`` refuses a ``ts`` outside 1970-01-01 ..
9999-12-31 23:59:59.999 UTC with a 400 naming the field and the range, and the client
raises, naming the field and the value, for a moment its frames cannot hold (before 1970,
after 2262) instead of showing another year.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from server.helpers import Api, dump

from opslib.client.frames import schema as S
from opslib.client.frames.build import records_to_frame

MAX_EVENT_MS = 253_402_300_799_999  # 9999-12-31 23:59:59.999 UTC


def _report(api: Api, *moments: int) -> Any:
    body = {
        "message_id": str(uuid.uuid4()),
        "device_id": "dev-a1",
        "device_secret": api.world.device_secret,
        "events": [{"event_type": 3, "ts": ts} for ts in moments],
    }
    return api.client.post("/device/report", json=body)


@pytest.mark.parametrize("ts", [2**53, MAX_EVENT_MS + 1, -1])
def test_an_event_time_outside_the_range_is_refused(api: Api, ts: int) -> None:
    before = dump(api.world.db)
    r = _report(api, 1_714_521_600_000, ts)
    assert r.status_code == 400, r.text
    message = r.json()["error_msg"]
    assert message.startswith("events.1.ts: must be epoch milliseconds from 0")
    assert "9999-12-31 23:59:59.999 UTC" in message
    assert str(ts) in message
    assert dump(api.world.db) == before


def test_the_last_moment_is_stored_and_read_back(api: Api) -> None:
    assert _report(api, MAX_EVENT_MS).status_code == 200
    params = {"query_model": 1, "device_id": "dev-a1", "start": MAX_EVENT_MS, "end": 2**53}
    r = api.as_user("alice", "/device/query_record", params)
    (event,) = r.json()["data"]["events_list"]
    assert (event["ts"], event["gmt_create"]) == (MAX_EVENT_MS, "9999-12-31 23:59:59")


def _event(**moment: Any) -> dict[str, Any]:
    return {
        "device_id": "d",
        "user_id": "u",
        "event_id": "e",
        "event_type": 3,
        "properties": {},
        "code": "",
        **moment,
    }


@pytest.mark.parametrize(
    ("record", "shown"),
    [
        ({"ts": 2**53, "gmt_create": None}, "9007199254740992 ms"),
        ({"ts": MAX_EVENT_MS, "gmt_create": "9999-12-31 23:59:59"}, "253402300799999 ms"),
        ({"ts": -1000, "gmt_create": "1969-12-31 23:59:59"}, "-1000 ms"),
        ({"gmt_create": "9999-12-31 23:59:59"}, "9999-12-31 23:59:59"),
        ({"gmt_create": "1816-03-04 00:00:00"}, "1816-03-04 00:00:00"),
        ({"gmt_create": "2300-01-01T00:00:00+08:00"}, "2300-01-01T00:00:00+08:00"),
    ],
)
def test_the_client_names_a_moment_it_cannot_show(record: dict[str, Any], shown: str) -> None:
    with pytest.raises(ValueError, match=r"^gmt_create: the platform's moment") as caught:
        records_to_frame(
            [_event(ts=1_714_521_600_000, gmt_create="2024-05-01 00:00:00"), _event(**record)],
            S.EVENT,
        )
    assert shown in str(caught.value)
    assert "1970-01-01 00:00:00 to 2262-04-11" in str(caught.value)


def test_the_client_still_reads_moments_it_can_show() -> None:
    frame = records_to_frame(
        [_event(ts=0, gmt_create="1970-01-01 00:00:00"), _event(gmt_create=None)], S.EVENT
    )
    assert str(frame["gmt_create"].iloc[0]) == "1970-01-01 00:00:00+00:00"
    assert frame["gmt_create"].isna().iloc[1]
