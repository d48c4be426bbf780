"""HTTP glue of the ``/device/report`` extension (protocol §6.19)."""

from __future__ import annotations

from typing import Any

from opslib.server.context import Context
from opslib.server.models import ReportRequest
from opslib.server.services import events


def report(ctx: Context, req: ReportRequest) -> dict[str, Any]:
    """``/device/report``: a device delivers events with its own credentials."""
    return events.report(ctx, req)
