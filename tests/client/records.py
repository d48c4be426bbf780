"""Event records as the platform sends them, for the frame tests."""

from __future__ import annotations

from typing import Any

import pandas as pd

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
