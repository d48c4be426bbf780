"""HTTP glue of the ``/device/*`` operations of the spec."""

from __future__ import annotations

from typing import Any

from opslib.server.context import Context
from opslib.server.errors import ApiError
from opslib.server.models import (
    BindParams,
    DeviceQueryParams,
    QueryByUserParams,
    QueryRecordParams,
    UpdateInfoParams,
)
from opslib.server.services import devices, events


def query_by_user(ctx: Context, p: QueryByUserParams) -> dict[str, Any]:
    """``/device/query_by_user``: a page of one user's devices, or of the fleet (ops)."""
    return devices.query_by_user(ctx, p)


def query_record(ctx: Context, p: QueryRecordParams) -> dict[str, Any]:
    """``/device/query_record``: a page of event records."""
    return events.query_record(ctx, p)


def query(ctx: Context, p: DeviceQueryParams) -> dict[str, Any]:
    """``/device/query``: one device."""
    if p.user_id is not None and p.user_id != ctx.user.user_id:
        raise ApiError(403, "params.user_id: must be the caller's own user_id")
    return devices.query_device(ctx, device_id=p.device_id)


def bind(ctx: Context, p: BindParams) -> dict[str, Any]:
    """``/device/bind``."""
    return devices.bind(ctx, p)


def update_info(ctx: Context, p: UpdateInfoParams) -> dict[str, Any]:
    """``/device/update_info``."""
    return devices.update_info(ctx, p)
