"""Binding, listing, reading and updating devices (protocol §6.7, §6.9, §6.11, §6.18)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from opslib.enums import DeviceStatus, Owned, Role
from opslib.server import security
from opslib.server.context import Context
from opslib.server.errors import ApiError
from opslib.server.models import BindParams, QueryByUserParams, UpdateInfoParams
from opslib.server.services import throttles
from opslib.server.store import devices as devices_store
from opslib.server.store import products as products_store
from opslib.server.store import users as users_store
from opslib.server.store.devices import DEVICE_VIEW_COLUMNS

DEVICE_NOT_FOUND = "params.device_id: device not found"


def _check_device_quota(ctx: Context) -> None:
    """403 when a plain user already owns as many devices as the quota allows."""
    if ctx.user.role != Role.USER:
        return
    quota = ctx.settings.user_device_quota
    owned = devices_store.count_bound(ctx.conn, user_id=ctx.user.user_id, owned=Owned.OWNER)
    if owned >= quota:
        raise ApiError(
            403, f"params.device_id: device quota reached: a user may own at most {quota} devices"
        )


def _wire(r: Sequence[Any]) -> dict[str, Any]:
    """A Device of the wire from a :data:`DEVICE_VIEW_COLUMNS` row (properties embedded as is)."""
    return {
        "device_id": r[0],
        "user_id": r[1],
        "mac_addr": r[2],
        "sdk_version": r[3],
        "version": r[4],
        "net_addr": r[5],
        "status": r[6],
        "owned": r[7],
        "group_id": r[8],
        "is_sub_device": bool(r[9]),
        "product_id": r[10],
        "category_id": r[11],
        "properties": orjson.Fragment(r[12]),
        "nick_name": r[13],
        "gmt_bind": r[14],
        "gmt_last_seen": r[15],
    }


def query_device(ctx: Context, *, device_id: str) -> dict[str, Any]:
    """One device through the caller's binding (ops: any device)."""
    row = devices_store.view_device(ctx.conn, device_id=device_id, user_id=ctx.user.user_id)
    if row is None and ctx.user.is_ops:
        row = devices_store.view_device_unbound(ctx.conn, device_id=device_id)
    if row is None:
        raise ApiError(404, DEVICE_NOT_FOUND)
    return _wire([row[c] for c in DEVICE_VIEW_COLUMNS])


def query_by_user(ctx: Context, p: QueryByUserParams) -> dict[str, Any]:
    """One page of a user's bound devices, or of the fleet (``user_id`` ``""``, ops)."""
    target = ctx.user.user_id if p.user_id is None else p.user_id
    identity_id = ""
    if target == "":
        if not ctx.user.is_ops:
            raise ApiError(403, "params.user_id: listing the whole fleet needs the ops role")
    else:
        user = users_store.get_user(ctx.conn, user_id=target)
        if user is None or (target != ctx.user.user_id and not ctx.user.is_ops):
            raise ApiError(404, "params.user_id: user not found")
        identity_id = user["identity_id"] or ""
    scope = target or None
    total = devices_store.count_bound(
        ctx.conn,
        user_id=scope,
        owned=p.owned,
        group_id=p.group_id,
        is_sub_device=p.is_sub_device,
    )
    offset = (p.page_no - 1) * p.page_size
    rows = []
    if offset < total:
        rows = devices_store.list_bound(
            ctx.conn,
            user_id=scope,
            limit=p.page_size,
            offset=offset,
            owned=p.owned,
            group_id=p.group_id,
            is_sub_device=p.is_sub_device,
        )
    return {
        "total": total,
        "page_no": p.page_no,
        "page_size": p.page_size,
        "identity_id": identity_id,
        "device_list": [_wire(row) for row in rows],
    }


def bind(ctx: Context, p: BindParams) -> dict[str, Any]:
    """Bind a device to the caller as its owner, creating it when new."""
    if p.status is not None and p.status != DeviceStatus.INACTIVE:
        raise ApiError(403, "params.status: set by the platform; a bound device starts at 0")
    if p.owned is not None and p.owned != Owned.OWNER:
        raise ApiError(403, "params.owned: must be 1; sharing is not offered by this operation")
    product = products_store.get_product(ctx.conn, product_id=p.product_id)
    if product is None:
        raise ApiError(404, "params.product_id: product not found")
    if p.category_id is not None and int(p.category_id) != product["category_id"]:
        raise ApiError(
            400, f"params.category_id: must be the product's category ({product['category_id']})"
        )
    user_id = ctx.user.user_id
    details = {
        name: getattr(p, name)
        for name in ("mac_addr", "sdk_version", "version", "net_addr")
        if getattr(p, name) is not None
    }
    device = devices_store.get_device(ctx.conn, device_id=p.device_id)
    if device is None:
        _check_device_quota(ctx)
        devices_store.insert_device(
            ctx.conn,
            device={
                "device_id": p.device_id,
                "secret_hash": security.sha256_hex(p.device_secret),
                "product_id": p.product_id,
                "category_id": product["category_id"],
                "status": DeviceStatus.INACTIVE,
                **details,
            },
            now=ctx.now,
        )
        devices_store.insert_binding(
            ctx.conn,
            device_id=p.device_id,
            user_id=user_id,
            owned=Owned.OWNER,
            group_id=p.group_id,
            is_sub_device=p.is_sub_device,
            now=ctx.now,
        )
        return {}
    owner = devices_store.get_owner_binding(ctx.conn, device_id=p.device_id)
    mine = owner is not None and owner["user_id"] == user_id
    # The owner re-binding its own device guesses nothing (the device is its already): no
    # one else's wrong secrets hold it back, and its own mistakes count against no one.
    if not mine:
        throttles.check_device_secret(ctx, device_id=p.device_id, field="params.")
    if not security.matches(p.device_secret, device["secret_hash"]):
        if not mine:
            throttles.device_secret_failed(ctx, device_id=p.device_id)
        raise ApiError(422, "params.device_secret: does not match the device")
    if not mine:
        throttles.device_secret_right(ctx, device_id=p.device_id)
    if device["product_id"] != p.product_id:
        raise ApiError(400, "params.product_id: is not the device's product")
    if owner is not None:
        if mine:
            return {}
        raise ApiError(409, "params.device_id: bound to another user")
    _check_device_quota(ctx)
    if devices_store.get_binding(ctx.conn, device_id=p.device_id, user_id=user_id):
        devices_store.update_binding(
            ctx.conn,
            device_id=p.device_id,
            user_id=user_id,
            fields={"owned": Owned.OWNER, "group_id": p.group_id, "is_sub_device": p.is_sub_device},
        )
    else:
        devices_store.insert_binding(
            ctx.conn,
            device_id=p.device_id,
            user_id=user_id,
            owned=Owned.OWNER,
            group_id=p.group_id,
            is_sub_device=p.is_sub_device,
            now=ctx.now,
        )
    devices_store.update_device(ctx.conn, device_id=p.device_id, fields=details)
    return {}


def update_info(ctx: Context, p: UpdateInfoParams) -> dict[str, Any]:
    """Update the caller's binding; an admin may also hand the device to another owner."""
    caller = ctx.user
    binding = devices_store.get_binding(ctx.conn, device_id=p.device_id, user_id=caller.user_id)
    settings = {
        name: getattr(p, name)
        for name in ("group_id", "is_sub_device")
        if getattr(p, name) is not None
    }
    transfer = p.user_id is not None and (p.user_id != caller.user_id or binding is None)
    if transfer:
        if not caller.is_admin:
            raise ApiError(403, "params.user_id: only an admin may transfer a device")
        assert p.user_id is not None
        if p.owned is not None and p.owned != Owned.OWNER:
            raise ApiError(403, "params.owned: a transferred device is owned (1)")
        if devices_store.get_device(ctx.conn, device_id=p.device_id) is None:
            raise ApiError(404, DEVICE_NOT_FOUND)
        if users_store.get_user(ctx.conn, user_id=p.user_id) is None:
            raise ApiError(404, "params.user_id: user not found")
        owner = devices_store.get_owner_binding(ctx.conn, device_id=p.device_id)
        if owner is not None and owner["user_id"] != p.user_id:
            devices_store.delete_binding(ctx.conn, device_id=p.device_id, user_id=owner["user_id"])
        if devices_store.get_binding(ctx.conn, device_id=p.device_id, user_id=p.user_id):
            devices_store.update_binding(
                ctx.conn,
                device_id=p.device_id,
                user_id=p.user_id,
                fields={"owned": Owned.OWNER, **settings},
            )
        else:
            devices_store.insert_binding(
                ctx.conn,
                device_id=p.device_id,
                user_id=p.user_id,
                owned=Owned.OWNER,
                group_id=settings.get("group_id", 0),
                is_sub_device=settings.get("is_sub_device", False),
                now=ctx.now,
            )
        return {}
    if binding is None:
        raise ApiError(404, DEVICE_NOT_FOUND)
    if p.owned is not None and p.owned != binding["owned"]:
        raise ApiError(
            403, f"params.owned: must stay {binding['owned']}; ownership transfer is admin-only"
        )
    devices_store.update_binding(
        ctx.conn, device_id=p.device_id, user_id=caller.user_id, fields=settings
    )
    return {}
