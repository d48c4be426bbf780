"""Small frames built with the declared schemas (opslib.client.frames.schema), as the client returns
them; shared by the tests of opslib.analysis, opslib.plots and opslib.widgets."""

from __future__ import annotations

from typing import Any

import pandas as pd

from opslib import enums
from opslib.client.frames import schema as _schemas

T0 = pd.Timestamp("2024-05-06 00:00:00", tz="UTC")  # a Monday


def typed_frame(schema: _schemas.FrameSchema, rows: list[dict[str, Any]]) -> pd.DataFrame:
    """A frame with exactly the schema's fixed columns and dtypes (labels derived), plus
    any ``properties.<key>`` columns the rows carry, as the client returns them."""
    data: dict[str, Any] = {}
    for column in schema.columns:
        values = [r.get(column.name) for r in rows]
        if column.dtype == _schemas.TIME:
            data[column.name] = pd.to_datetime(pd.Series(values, dtype=object), utc=True).astype(
                _schemas.TIME
            )
        else:
            data[column.name] = pd.Series(values, dtype=object).astype(column.dtype)  # type: ignore[call-overload]
        if column.enum is not None:
            names = enums.labels(column.enum)
            data[column.label_name] = pd.Series(
                [names.get(v) if v is not None else None for v in values], dtype="object"
            ).astype(_schemas.label_dtype(column.label_map))
    extra = sorted({k for r in rows for k in r if k.startswith("properties.")})
    for key in extra:
        data[key] = pd.Series([r.get(key) for r in rows], dtype=object).convert_dtypes()
    frame = pd.DataFrame(data) if rows else schema.empty()
    for name, dtype in schema.dtypes().items():
        assert str(frame[name].dtype) == str(dtype), name
    return frame


def make_devices() -> pd.DataFrame:
    """Eight devices: two users, three products, every status, groups and sub-devices."""
    rows = []
    spec = [
        # id, user, product, category, version, sdk, status, owned, group, sub, bind day, seen
        ("d1", "u1", "p-lamp", "1", "1.0.0", "2.1", 1, 1, 0, False, 0, T0 + pd.Timedelta(days=20)),
        ("d2", "u1", "p-lamp", "1", "1.0.0", "2.1", 2, 1, 7, False, 1, T0 + pd.Timedelta(days=2)),
        ("d3", "u1", "p-plug", "2", "1.1.0", "2.1", 3, 0, 7, True, 8, T0 + pd.Timedelta(days=19)),
        ("d4", "u2", "p-plug", "2", "1.1.0", "2.2", 0, 1, 0, False, 9, None),
        ("d5", "u2", "p-cam", "4", "", "2.2", 1, 1, 9, True, 15, T0 + pd.Timedelta(days=21)),
        ("d6", "u2", "p-cam", "4", "3.0.1", "2.2", 2, 1, 9, False, 15, T0 + pd.Timedelta(days=5)),
        ("d7", "u2", "p-lamp", "1", "1.0.0", "2.1", 0, 1, 0, False, 16, None),
        ("d8", "u1", "p-lamp", "1", "1.2.0", "2.1", 1, 1, 0, False, 17, T0 + pd.Timedelta(days=21)),
    ]
    for did, uid, pid, cat, ver, sdk, status, owned, group, sub, day, seen in spec:
        rows.append(
            {
                "device_id": did, "user_id": uid, "nick_name": f"nick {did}", "product_id": pid,
                "category_id": cat, "mac_addr": "AA:BB:CC:DD:EE:FF", "sdk_version": sdk,
                "version": ver, "net_addr": "", "status": status, "owned": owned,
                "group_id": group, "is_sub_device": sub,
                "gmt_bind": T0 + pd.Timedelta(days=day), "gmt_last_seen": seen,
                "properties.power": 5.0 if status == 1 else None,
            }
        )  # fmt: skip
    return typed_frame(_schemas.DEVICE, rows)


def make_events() -> pd.DataFrame:
    """A week of events for three devices: a day/night rhythm, outages, alarms, properties."""
    rows: list[dict[str, Any]] = []
    n = 0

    def add(device: str, at: pd.Timestamp, kind: int, code: str = "", **props: Any) -> None:
        nonlocal n
        n += 1
        row = {
            "event_id": f"e{n:05d}", "gmt_create": at, "device_id": device, "user_id": "u1",
            "event_type": kind, "code": code,
        }  # fmt: skip
        row.update({f"properties.{k}": v for k, v in props.items()})
        rows.append(row)

    for day in range(7):
        for hour in (8, 12, 20):
            at = T0 + pd.Timedelta(days=day, hours=hour)
            add("d1", at, 3, temperature=20.0 + hour / 4, humidity=40 + day)
            add("d2", at, 3, temperature=18.0 + day)
    # d1 is noisy: alarms every evening, one code per parity of the day
    for day in range(7):
        add("d1", T0 + pd.Timedelta(days=day, hours=21), 4, "E101" if day % 2 else "F201")
    # outages of d2: 2h on day 1, 30 min on day 3 (with a repeated offline), ongoing from day 6
    add("d2", T0 + pd.Timedelta(days=1, hours=2), 2)
    add("d2", T0 + pd.Timedelta(days=1, hours=4), 1)
    add("d2", T0 + pd.Timedelta(days=3, hours=10), 2)
    add("d2", T0 + pd.Timedelta(days=3, hours=10, minutes=10), 2)
    add("d2", T0 + pd.Timedelta(days=3, hours=10, minutes=30), 1)
    add("d2", T0 + pd.Timedelta(days=6, hours=23), 2)
    # d3 comes online (no offline before it: not an outage) and upgrades its firmware
    add("d3", T0 + pd.Timedelta(days=2), 1)
    add("d3", T0 + pd.Timedelta(days=2, hours=1), 6, version="1.2.0")
    frame = typed_frame(_schemas.EVENT, rows)
    return frame.sort_values(["gmt_create", "event_id"]).reset_index(drop=True)


WEEK = (T0, T0 + pd.Timedelta(days=7))


CATEGORIES = typed_frame(
    _schemas.CATEGORY,
    [
        {"category_id": 1, "category_name": "lighting", "category_icon": ""},
        {"category_id": 2, "category_name": "sockets", "category_icon": ""},
    ],
)


def products(*rows: dict[str, Any]) -> pd.DataFrame:
    base = {
        "product_icon": "", "category_name": "lighting", "vendor_type": 0, "encrypt_type": 0,
        "status": 1, "popular": 0, "gmt_create": T0, "gmt_modified": T0,
    }  # fmt: skip
    return typed_frame(_schemas.PRODUCT, [{**base, **r} for r in rows])
