"""``/device/query_record``: the three query models, visibility, paging, deep pages."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from opslib.server.context import gmt

from ..helpers import Api

EVENT_FIELDS = {
    "device_id",
    "user_id",
    "event_id",
    "event_type",
    "properties",
    "code",
    "gmt_create",
    "ts",  # extension (protocol §6.8): epoch ms
}


def records(api: Api, name: str, **params: Any) -> Any:
    world = api.world
    params = {"start": world.events_start, "end": world.events_end, **params}
    r = api.as_user(name, "/device/query_record", params)
    assert r.status_code == 200, r.text
    return r.json()["data"]


def naive(api: Api, where: str, args: tuple[Any, ...], limit: int, offset: int) -> list[str]:
    conn = sqlite3.connect(api.world.db)
    try:
        rows = conn.execute(
            f"SELECT event_id FROM events WHERE {where} ORDER BY ts, event_id LIMIT ? OFFSET ?",
            (*args, limit, offset),
        ).fetchall()
    finally:
        conn.close()
    return [r[0] for r in rows]


def test_device_model(api: Api) -> None:
    data = records(api, "alice", query_model=1, device_id="dev-a1", page_size=10)
    assert (data["total"], data["page_no"], data["page_size"]) == (50, 1, 10)
    event = data["events_list"][0]
    assert set(event) == EVENT_FIELDS
    assert event["device_id"] == "dev-a1"
    assert event["user_id"] == "u-alice"
    assert event["properties"] == {"n": 0, "device": "dev-a1"}
    assert event["gmt_create"] == "2024-04-30 21:00:00"
    # ts (extension): the moment in epoch ms; gmt_create is ts shown to the second
    assert api.world.events_start <= event["ts"] < api.world.events_end
    assert event["gmt_create"] == gmt(event["ts"])


def test_user_model_and_event_type(api: Api) -> None:
    data = records(api, "alice", query_model=2, user_id_param="u-alice", page_size=1000)
    assert data["total"] == 100
    assert {e["device_id"] for e in data["events_list"]} == {"dev-a1", "dev-a2"}
    data = records(api, "alice", query_model=2, user_id_param="u-alice", event_type=4)
    assert {e["event_type"] for e in data["events_list"]} == {4}
    assert data["total"] == 2 * len([n for n in range(50) if n % 6 == 3])


def test_fleet_model_needs_ops(api: Api) -> None:
    world = api.world
    r = api.as_user(
        "alice",
        "/device/query_record",
        {"query_model": 3, "start": world.events_start, "end": world.events_end},
    )
    assert r.status_code == 403
    assert records(api, "ops", query_model=3)["total"] == 150


def test_ops_reads_any_device_and_user(api: Api) -> None:
    assert records(api, "ops", query_model=1, device_id="dev-b1")["total"] == 50
    assert records(api, "ops", query_model=2, user_id_param="u-bob")["total"] == 50


def test_page_past_the_end_is_empty_with_total(api: Api) -> None:
    data = records(api, "ops", query_model=3, page_no=99, page_size=10)
    assert data["total"] == 150
    assert data["events_list"] == []


@pytest.mark.parametrize("event_type", [None, 2])
@pytest.mark.parametrize("page_size", [1, 7, 50, 1000])
def test_fleet_pages_equal_a_naive_offset_query(
    api: Api, page_size: int, event_type: int | None
) -> None:
    """Every page of odd-aligned windows matches LIMIT/OFFSET over the whole table."""
    world = api.world
    windows = [
        (world.events_start, world.events_end),
        (world.events_start + 123_457, world.events_end - 98_765),  # partial edge buckets
        (world.events_start + 1, world.events_start + 500_000),  # inside one bucket
    ]
    for start, end in windows:
        where, args = "ts >= ? AND ts < ?", (start, end)
        extra: dict[str, Any] = {}
        if event_type is not None:
            where, args = where + " AND event_type = ?", (*args, event_type)
            extra["event_type"] = event_type
        expected_total = len(naive(api, where, args, 10_000, 0))
        page_no = 1
        while True:
            data = records(
                api,
                "ops",
                query_model=3,
                start=start,
                end=end,
                page_no=page_no,
                page_size=page_size,
                **extra,
            )
            assert data["total"] == expected_total
            got = [e["event_id"] for e in data["events_list"]]
            assert got == naive(api, where, args, page_size, (page_no - 1) * page_size)
            if not got:
                break
            page_no += 1 if page_size > 7 else 5  # skip ahead on small pages


def test_device_and_user_pages_equal_naive_offset(api: Api) -> None:
    world = api.world
    args = (world.events_start, world.events_end)
    for page_no in (1, 2, 5, 6):
        data = records(
            api, "alice", query_model=1, device_id="dev-a2", page_no=page_no, page_size=9
        )
        expected = naive(
            api, "device_id = 'dev-a2' AND ts >= ? AND ts < ?", args, 9, (page_no - 1) * 9
        )
        assert [e["event_id"] for e in data["events_list"]] == expected
        data = records(
            api, "alice", query_model=2, user_id_param="u-alice", page_no=page_no, page_size=9
        )
        expected = naive(
            api, "user_id = 'u-alice' AND ts >= ? AND ts < ?", args, 9, (page_no - 1) * 9
        )
        assert [e["event_id"] for e in data["events_list"]] == expected


def test_params_user_id_must_be_the_caller(api: Api) -> None:
    world = api.world
    r = api.as_user(
        "alice",
        "/device/query_record",
        {
            "query_model": 1,
            "device_id": "dev-a1",
            "user_id": "u-bob",
            "start": world.events_start,
            "end": world.events_end,
        },
    )
    assert r.status_code == 403
