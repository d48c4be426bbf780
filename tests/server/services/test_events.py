"""opslib.server.services.events: pages of events by device, user or fleet, and reports."""

from __future__ import annotations

import uuid
from typing import Any

import orjson
import pytest

from opslib.enums import DeviceStatus, RecordQueryModel
from opslib.server.errors import ApiError
from opslib.server.models import QueryRecordParams, ReportEvent, ReportRequest
from opslib.server.services import events
from opslib.server.store import devices as devices_store

from ..factories import World
from .conftest import MakeContext


def _query(world: World, model: int, **fields: Any) -> QueryRecordParams:
    return QueryRecordParams(
        access_token="t",
        query_model=model,
        start=world.events_start,
        end=world.events_end,
        **fields,
    )


def _events(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return list(orjson.loads(orjson.dumps(answer))["events_list"])


def test_a_device_page_through_the_callers_binding(ctx: MakeContext, world: World) -> None:
    p = _query(world, RecordQueryModel.DEVICE, device_id="dev-a1", page_size=20, page_no=3)
    answer = events.query_record(ctx("alice"), p)
    assert answer["total"] == 50
    page = _events(answer)
    assert len(page) == 10  # the last 10 of 50
    assert {e["device_id"] for e in page} == {"dev-a1"}
    assert [e["ts"] for e in page] == sorted(e["ts"] for e in page)
    with pytest.raises(ApiError, match=r"params\.device_id: device not found") as hidden:
        events.query_record(ctx("bob"), p)
    assert hidden.value.status == 404


def test_the_fleet_page_needs_ops(ctx: MakeContext, world: World) -> None:
    p = _query(world, RecordQueryModel.FLEET, page_size=1000)
    answer = events.query_record(ctx("ops"), p)
    assert answer["total"] == 150  # 50 for each of the three bound devices
    assert len(_events(answer)) == 150
    with pytest.raises(ApiError, match="needs the ops role") as refused:
        events.query_record(ctx("alice"), p)
    assert refused.value.status == 403


def test_a_report_stores_events_and_moves_the_device(ctx: MakeContext, world: World) -> None:
    def report(device_id: str, secret: str, *batch: ReportEvent) -> dict[str, Any]:
        request = ReportRequest(
            message_id=str(uuid.uuid4()),
            device_id=device_id,
            device_secret=secret,
            events=list(batch),
        )
        return events.report(ctx(), request)

    report("dev-a2", world.device_secret, ReportEvent(event_type=1))
    request = ctx()
    device = devices_store.get_device(request.conn, device_id="dev-a2")
    assert device is not None
    assert (device["status"], device["gmt_last_seen"]) == (DeviceStatus.ONLINE, request.now)
    report(
        "dev-a2",
        world.device_secret,
        ReportEvent(event_type=3, properties={"power": "off", "level": 4}),
        ReportEvent(event_type=4, code="F201"),
    )
    device = devices_store.get_device(request.conn, device_id="dev-a2")
    assert device is not None
    assert device["status"] == DeviceStatus.FAULT
    assert orjson.loads(device["properties"]) == {"power": "off", "level": 4}
    p = _query(world, RecordQueryModel.DEVICE, device_id="dev-a2", page_size=1000)
    p = p.model_copy(update={"end": request.now + 1})
    assert events.query_record(ctx("alice"), p)["total"] == 53
    for device_id, secret in (("dev-a2", "wrong-secret"), ("dev-none", world.device_secret)):
        with pytest.raises(ApiError, match="unknown device_id or wrong device_secret") as bad:
            report(device_id, secret, ReportEvent(event_type=1))
        assert bad.value.status == 401  # an unknown device answers as a wrong secret
