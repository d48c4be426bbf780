"""Event records: paged reads (protocol §6.8, §9) and device reports (§6.19).

A page's ``events_list`` is written by SQLite as one JSON array (the stored
``properties`` text embedded as it is, ``gmt_create`` formatted by SQLite, see
:mod:`opslib.server.store.events`) and embedded with :class:`orjson.Fragment`: a 1000-row
page never goes through pydantic, a JSON re-parse or a Python object per value. Each
record also carries ``ts``, its moment in epoch milliseconds (an extension, protocol
§6.8): gmt_create shows only the second.
"""

from __future__ import annotations

import uuid
from typing import Any

import orjson

from opslib.enums import DeviceStatus, EventType, RecordQueryModel, Role
from opslib.server import security
from opslib.server.context import Context
from opslib.server.errors import BASIC_CHALLENGE, ApiError, too_many
from opslib.server.models import QueryRecordParams, ReportRequest
from opslib.server.services import paging, throttles
from opslib.server.store import devices as devices_store
from opslib.server.store import events as events_store
from opslib.server.store import users as users_store

BAD_DEVICE = "device_secret: unknown device_id or wrong device_secret"


def query_record(ctx: Context, p: QueryRecordParams) -> dict[str, Any]:
    """One page of events by device (1), user (2) or the whole fleet (3, ops)."""
    caller = ctx.user
    if p.user_id is not None and p.user_id != caller.user_id:
        raise ApiError(403, "params.user_id: must be the caller's own user_id")
    limit, offset = p.page_size, (p.page_no - 1) * p.page_size
    if p.query_model == RecordQueryModel.FLEET:
        if not caller.is_ops:
            raise ApiError(403, "params.query_model: the fleet query (3) needs the ops role")
        total, page = paging.fleet_page(
            ctx.conn,
            index=ctx.buckets,
            start=p.start,
            end=p.end,
            event_type=p.event_type,
            limit=limit,
            offset=offset,
            bucket_ms=ctx.settings.event_bucket_ms,
        )
    else:
        owner: str | None = None
        if p.query_model == RecordQueryModel.DEVICE:
            assert p.device_id is not None
            scope, key = "device", p.device_id
            visible = (
                devices_store.get_device(ctx.conn, device_id=key) is not None
                if caller.is_ops
                else devices_store.get_binding(ctx.conn, device_id=key, user_id=caller.user_id)
                is not None
            )
            if not visible:
                raise ApiError(404, "params.device_id: device not found")
            if not caller.is_ops:
                # An event belongs to the device's owner when it happened (its stored
                # user_id): a new owner does not read what the device did for the previous one.
                binding = devices_store.get_owner_binding(ctx.conn, device_id=key)
                owner = binding["user_id"] if binding is not None else ""
        else:
            assert p.user_id_param is not None
            scope, key = "user", p.user_id_param
            visible = key == caller.user_id or (
                caller.is_ops and users_store.get_user(ctx.conn, user_id=key) is not None
            )
            if not visible:
                raise ApiError(404, "params.user_id_param: user not found")
        total = events_store.scoped_count(
            ctx.conn,
            scope=scope,
            key=key,
            start=p.start,
            end=p.end,
            event_type=p.event_type,
            owner=owner,
        )
        page = "[]"
        if offset < total:
            page = events_store.scoped_page(
                ctx.conn,
                scope=scope,
                key=key,
                start=p.start,
                end=p.end,
                event_type=p.event_type,
                limit=limit,
                offset=offset,
                owner=owner,
            )
    return {
        "total": total,
        "page_no": p.page_no,
        "page_size": p.page_size,
        "events_list": orjson.Fragment(page),
    }


def _take_event_quota(ctx: Context, owner_id: str, n: int) -> None:
    """Count ``n`` events against a plain owner's quota; 429 (nothing stored) beyond it."""
    if not owner_id:
        return
    owner = users_store.get_user(ctx.conn, user_id=owner_id)
    if owner is None or owner["role"] != Role.USER:
        return
    wait = ctx.guards.events.take(owner_id, n, now_ms=ctx.now)
    if wait:
        s = ctx.settings
        minutes = s.user_event_quota_window_ms / 60_000
        named: dict[float, str] = {1: "minute", 60: "hour", 1440: "day"}
        window = named.get(minutes, f"{minutes:g} minutes")
        raise too_many(
            f"events: event quota reached: a user's devices may report at most"
            f" {s.user_event_quota} events per {window}",
            wait,
        )


def report(ctx: Context, req: ReportRequest) -> dict[str, Any]:
    """Store a device's events and update its status, properties, version, last seen."""
    throttles.check_device_secret(ctx, device_id=req.device_id, field="")
    device = devices_store.get_device(ctx.conn, device_id=req.device_id)
    # An unknown device answers exactly like a wrong secret: device_ids cannot be probed.
    if device is None or not security.matches(req.device_secret, device["secret_hash"]):
        throttles.device_secret_failed(ctx, device_id=req.device_id)
        raise ApiError(401, BAD_DEVICE, headers={"WWW-Authenticate": BASIC_CHALLENGE})
    throttles.device_secret_right(ctx, device_id=req.device_id)
    owner = devices_store.get_owner_binding(ctx.conn, device_id=req.device_id)
    owner_id = owner["user_id"] if owner else ""
    _take_event_quota(ctx, owner_id, len(req.events))
    properties = orjson.loads(device["properties"] or "{}")
    status, version = device["status"], device["version"]
    rows: list[events_store.EventRow] = []
    # Effects apply in time order, so a late-arriving old event does not undo a newer one.
    timed = sorted(
        ((ctx.now if ev.ts is None else ev.ts, ev) for ev in req.events), key=lambda t: t[0]
    )
    for ts, ev in timed:
        rows.append(
            (
                uuid.uuid4().hex,
                req.device_id,
                owner_id,
                ev.event_type,
                orjson.dumps(ev.properties).decode(),
                ev.code,
                ts,
            )
        )
        if ev.event_type == EventType.ONLINE:
            status = DeviceStatus.ONLINE
        elif ev.event_type == EventType.OFFLINE:
            status = DeviceStatus.OFFLINE
        elif ev.event_type == EventType.ALARM and ev.code.startswith("F"):
            status = DeviceStatus.FAULT
        elif ev.event_type == EventType.PROPERTY_REPORT:
            properties.update(ev.properties)
        elif ev.event_type == EventType.FIRMWARE_UPGRADE and isinstance(
            ev.properties.get("version"), str
        ):
            version = ev.properties["version"][:32]
    events_store.insert_events(ctx.conn, rows=rows, bucket_ms=ctx.settings.event_bucket_ms)
    devices_store.update_device(
        ctx.conn,
        device_id=req.device_id,
        fields={
            "status": int(status),
            "properties": orjson.dumps(properties).decode(),
            "version": version,
            "gmt_last_seen": ctx.now,
        },
    )
    return {"accepted": len(rows)}
