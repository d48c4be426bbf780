"""*_name labels and coded inputs follow the platform's dialect."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import pytest

from opslib.client.frames import schema as S
from opslib.client.frames.build import records_to_frame
from opslib.dialects import Dialect
from opslib.enums import DeviceStatus, EventType, NetType
from opslib.protocol import Codec

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

CHINT = Dialect.named("chint")


def code_of(value: object, dialect: Dialect, key: str, enum: object, field: str) -> int:
    return Codec(dialect).code_of(value, key, enum, field)  # type: ignore[arg-type]


def test_labels_come_from_the_dialect() -> None:
    schema = S.DEVICE.labelled(Codec(CHINT).labels)
    records = [{"device_id": f"d{i}", "status": code} for i, code in enumerate([0, 3, 4, None])]
    frame = records_to_frame(records, schema)
    assert frame["status_name"].tolist()[:3] == ["inactive", "disabled", "activated"]
    assert pd.isna(frame["status_name"].iloc[3])
    assert str(frame["status_name"].dtype) == "category"


def test_coded_inputs_are_the_dialects_codes() -> None:
    assert code_of("Wi-Fi", CHINT, "net_type", NetType, "net_type") == 0
    assert code_of("Wi-Fi", Dialect(), "net_type", NetType, "net_type") == 1
    assert code_of("disabled", CHINT, "device_status", DeviceStatus, "status") == 3
    assert code_of("fault", CHINT, "event_type", EventType, "event_type") == 2
    with pytest.raises(ValueError, match="event_type must be one of 0 \\(property report\\)"):
        code_of("alarm", CHINT, "event_type", EventType, "event_type")


def test_a_read_labels_by_the_sessions_dialect(platform: ServedPlatform) -> None:
    client = platform.connect()
    ours = client.devices.list(limit=50)
    session = client._session
    session.codec = session.http.codec = Codec(
        CHINT.replace(
            capabilities={"fleet_events": True},
            required=Dialect().required,
            times=Dialect().times,
            paging=Dialect().paging,
        )
    )
    session._schemas.clear()
    theirs = client.devices.list(limit=50)
    assert theirs["status"].tolist() == ours["status"].tolist()
    labels = CHINT.enums["device_status"]
    expected = [labels.get(int(c)) for c in theirs["status"]]
    assert theirs["status_name"].astype(object).tolist() == expected
