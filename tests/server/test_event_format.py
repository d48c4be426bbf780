"""Event records: gmt_create formatted from ts in Python equals the server's gmt()."""

from __future__ import annotations

import random

import orjson

from opslib.server.context import gmt
from opslib.server.services.events import _records, gmt_of


def test_gmt_of_equals_gmt() -> None:
    day = 86_400_000
    edges = [0, 999, 1000, day - 1, day, 1_714_521_599_999, 1_714_521_600_000]
    edges += [253_402_300_799_999]  # 9999-12-31 23:59:59.999
    rng = random.Random(5)
    values = edges + [rng.randrange(0, 253_402_300_800_000) for _ in range(5000)]
    for ms in values:
        assert gmt_of(ms) == gmt(ms), ms


def test_records_carry_ts_and_gmt_create() -> None:
    row = ("dev-1", "u-1", "evt-1", 3, '{"a":1}', "", 1_714_521_600_250)
    (record,) = _records([row])
    assert record["ts"] == 1_714_521_600_250
    assert record["gmt_create"] == "2024-05-01 00:00:00"
    assert orjson.loads(orjson.dumps(record)) == {
        "device_id": "dev-1",
        "user_id": "u-1",
        "event_id": "evt-1",
        "event_type": 3,
        "properties": {"a": 1},
        "code": "",
        "gmt_create": "2024-05-01 00:00:00",
        "ts": 1_714_521_600_250,
    }
