"""Event records as the platform sends them, for the frame tests; and a device reporting
events to a running platform (``report``)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pandas as pd

from opslib.server.security import demo_device_secret

SECOND = 1_714_521_600_000  # 2024-05-01 00:00:00 UTC


def event(i: int, ts: int | None = None, **over: Any) -> dict[str, Any]:
    ts = SECOND + i * 250 if ts is None else ts
    record: dict[str, Any] = {
        "device_id": f"d-{i % 3}",
        "user_id": "u-1",
        "event_id": f"e-{i:04d}",
        "event_type": 3,
        "properties": {"temperature": 20.5 + i, "humidity": 40 + i},
        "code": "",
        "gmt_create": pd.Timestamp(ts // 1000 * 1000, unit="ms").strftime("%Y-%m-%d %H:%M:%S"),
        "ts": ts,
    }
    record.update(over)
    return record


def report(platform: Any, device_id: str, events: list[dict[str, Any]]) -> None:
    """``device_id`` reports ``events`` to ``platform`` (its demo device secret)."""
    r = httpx.post(
        f"{platform.base_url}/device/report",
        json={
            "message_id": str(uuid.uuid4()),
            "device_id": device_id,
            "device_secret": demo_device_secret(device_id),
            "events": events,
        },
    )
    assert r.status_code == 200, r.text
