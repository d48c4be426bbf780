"""The last step of a read: the platform's order kept or restored, each record once."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from client.records import SECOND, event
from opslib.client.frames import schema as S
from opslib.client.frames.build import (
    build_frame,
    dedupe_and_sort,
    join_order,
    page_columns,
    records_to_frame,
)

# --- with the milliseconds ------------------------------------------------------------------


def _read(*pages: list[dict[str, Any]]) -> pd.DataFrame:
    cols = [page_columns(p, S.EVENT) for p in pages]
    order = join_order(cols)
    return dedupe_and_sort(build_frame(cols, S.EVENT), S.EVENT, order=order)


def test_rows_in_the_platform_order_are_kept_as_they_are() -> None:
    same = SECOND + 100
    df = _read([event(0), event(1, ts=same)], [event(2, ts=same), event(3)])
    assert df["event_id"].tolist() == ["e-0000", "e-0001", "e-0002", "e-0003"]
    assert df.index.equals(pd.RangeIndex(4))


def test_a_record_seen_twice_is_dropped_and_the_order_restored() -> None:
    # the data grew between two pages: page 2 starts with page 1's last record
    df = _read([event(0), event(1)], [event(1), event(2)])
    assert df["event_id"].tolist() == ["e-0000", "e-0001", "e-0002"]
    assert df.index.equals(pd.RangeIndex(3))


def test_events_within_one_second_follow_the_milliseconds() -> None:
    # pages out of order: sorted by (ts, event_id), not only by the shown second
    df = _read([event(5, ts=SECOND + 900)], [event(7, ts=SECOND + 100), event(6, ts=SECOND + 100)])
    assert df["event_id"].tolist() == ["e-0006", "e-0007", "e-0005"]
    assert (df["gmt_create"] == pd.Timestamp("2024-05-01", tz="UTC")).all()


# --- without milliseconds: by the schema's order columns ----------------------------------


def shown(i: int, **over: object) -> dict[str, object]:
    record: dict[str, object] = {
        "device_id": f"d-{i % 3}",
        "user_id": "u-1",
        "event_id": f"e-{i:04d}",
        "event_type": 3,
        "properties": {"temperature": 20.5 + i, "humidity": 40 + i},
        "code": "",
        "gmt_create": f"2024-05-01 00:00:{i % 60:02d}",
    }
    record.update(over)
    return record


def test_drops_duplicate_keys_and_sorts() -> None:
    page1 = page_columns([shown(3), shown(1)], S.EVENT)
    page2 = page_columns([shown(1), shown(2)], S.EVENT)  # e-0001 seen twice
    df = dedupe_and_sort(build_frame([page1, page2], S.EVENT), S.EVENT)
    assert df["event_id"].tolist() == ["e-0001", "e-0002", "e-0003"]
    assert df.index.equals(pd.RangeIndex(3))


def test_sorts_by_both_order_columns() -> None:
    same_second = "2024-05-01 00:00:00"
    records = [
        {"device_id": "d-2", "gmt_bind": same_second},
        {"device_id": "d-1", "gmt_bind": same_second},
        {"device_id": "d-0", "gmt_bind": "2024-05-02 00:00:00"},
    ]
    df = dedupe_and_sort(records_to_frame(records, S.DEVICE), S.DEVICE)
    assert df["device_id"].tolist() == ["d-1", "d-2", "d-0"]


def test_events_keep_the_platform_order_within_a_second() -> None:
    # the platform orders by millisecond time; the second shown ties, the order stays
    same_second = "2024-05-01 00:00:00"
    records = [shown(2, gmt_create=same_second), shown(1, gmt_create=same_second), shown(0)]
    records[2]["gmt_create"] = "2024-04-30 23:59:59"
    df = dedupe_and_sort(records_to_frame(records, S.EVENT), S.EVENT)
    assert df["event_id"].tolist() == ["e-0000", "e-0002", "e-0001"]


@pytest.mark.parametrize("n", [0, 1, 1000])
def test_sorted_input_is_kept(n: int) -> None:
    df = dedupe_and_sort(
        records_to_frame([shown(i, gmt_create="2024-05-01 00:00:00") for i in range(n)], S.EVENT),
        S.EVENT,
    )
    assert df["event_id"].is_monotonic_increasing
    assert len(df) == n
