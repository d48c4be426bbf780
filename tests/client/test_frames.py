"""Records to typed frames: dtypes, labels, flattened objects, empty results, concatenation."""

from __future__ import annotations

import pandas as pd
import pytest

from opslib.client import _schemas as S
from opslib.client._frames import build_frame, finish, label_array, page_columns, records_to_frame
from opslib.enums import EventType


def event(i: int, **over: object) -> dict[str, object]:
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


def test_every_schema_empty_frame_matches_its_declaration() -> None:
    for schema in S.ALL.values():
        empty = records_to_frame([], schema)
        assert list(empty.columns) == list(schema.dtypes()), schema.name
        assert empty.dtypes.to_dict() == schema.empty().dtypes.to_dict(), schema.name
        assert len(empty) == 0


def test_event_frame_dtypes() -> None:
    df = records_to_frame([event(0), event(1, event_type=4, code="F01")], S.EVENT)
    assert str(df["event_id"].dtype) == "string"
    assert str(df["gmt_create"].dtype) == "datetime64[ns, UTC]"
    assert str(df["event_type"].dtype) == "Int64"
    assert str(df["event_type_name"].dtype) == "category"
    assert df["event_type_name"].tolist() == ["property report", "alarm"]
    assert str(df["properties.temperature"].dtype) == "Float64"
    assert str(df["properties.humidity"].dtype) == "Int64"
    fixed = list(S.EVENT.dtypes())
    assert list(df.columns[: len(fixed)]) == fixed
    assert list(df.columns[len(fixed) :]) == ["properties.humidity", "properties.temperature"]


def test_properties_dtypes_follow_the_data() -> None:
    records = [
        event(0, properties={"a": 1, "b": 1, "c": True, "d": "x", "e": 1, "n": {"x": 1}}),
        event(1, properties={"a": 2, "b": 2.5, "c": False, "d": None, "e": "mixed", "n": {"x": 2}}),
        event(2, properties={}),
    ]
    df = records_to_frame(records, S.EVENT)
    assert str(df["properties.a"].dtype) == "Int64"
    assert str(df["properties.b"].dtype) == "Float64"
    assert str(df["properties.c"].dtype) == "boolean"
    assert str(df["properties.d"].dtype) == "string"
    assert str(df["properties.e"].dtype) == "object"
    assert str(df["properties.n.x"].dtype) == "Int64"  # nested objects: dotted paths
    assert df["properties.a"].isna().tolist() == [False, False, True]


def test_nested_fixed_columns_are_flattened() -> None:
    user = {
        "user_id": "u-1",
        "status": 1,
        "network": {"ssid": "home", "pw": "wifi-password"},
        "gmt_register": "2024-05-01 00:00:00",
        "gmt_logout": None,
    }
    df = records_to_frame([user], S.USER)
    assert df["network.ssid"].item() == "home"
    assert "network.pw" not in df.columns  # never kept, even if a platform sent it
    assert df["status_name"].item() == "active"
    assert df["gmt_logout"].isna().item()
    assert str(df["gmt_logout"].dtype) == "datetime64[ns, UTC]"
    assert df["identity_id"].isna().item()  # absent field: NA, typed


def test_strings_declared_get_numbers_as_text() -> None:
    df = records_to_frame([{"device_id": "d", "category_id": 3}], S.DEVICE)
    assert df["category_id"].item() == "3"
    assert str(df["category_id"].dtype) == "string"


def test_label_array_unknown_codes_are_nan() -> None:
    labels = label_array(pd.array([1, 99, None], dtype="Int64"), EventType)
    assert labels[0] == "online"
    assert pd.isna(labels[1])
    assert pd.isna(labels[2])


def test_pages_unify_members_missing_or_typed_differently() -> None:
    a = page_columns([event(0, properties={"t": 1, "only_a": "x"})], S.EVENT)
    b = page_columns([event(1, properties={"t": 1.5, "only_b": True})], S.EVENT)
    c = page_columns([event(2, properties={"t": "warm"})], S.EVENT)
    ab = build_frame([a, b], S.EVENT)
    assert str(ab["properties.t"].dtype) == "Float64"
    assert str(ab["properties.only_a"].dtype) == "string"
    assert str(ab["properties.only_b"].dtype) == "boolean"
    assert ab["properties.only_b"].isna().tolist() == [True, False]
    assert str(ab["event_type_name"].dtype) == "category"
    a = page_columns([event(0, properties={"t": 1, "only_a": "x"})], S.EVENT)
    b = page_columns([event(1, properties={"t": 1.5, "only_b": True})], S.EVENT)
    abc = build_frame([a, b, c], S.EVENT)  # build_frame consumed the first a and b
    assert str(abc["properties.t"].dtype) == "object"
    assert len(abc) == 3


def test_no_pages_is_the_empty_schema() -> None:
    out = build_frame([], S.EVENT)
    assert out.dtypes.to_dict() == S.EVENT.empty().dtypes.to_dict()


def test_finish_drops_duplicate_keys_and_sorts() -> None:
    page1 = page_columns([event(3), event(1)], S.EVENT)
    page2 = page_columns([event(1), event(2)], S.EVENT)  # e-0001 seen twice
    df = finish(build_frame([page1, page2], S.EVENT), S.EVENT)
    assert df["event_id"].tolist() == ["e-0001", "e-0002", "e-0003"]
    assert df.index.equals(pd.RangeIndex(3))


def test_finish_sorts_by_both_order_columns() -> None:
    same_second = "2024-05-01 00:00:00"
    records = [
        {"device_id": "d-2", "gmt_bind": same_second},
        {"device_id": "d-1", "gmt_bind": same_second},
        {"device_id": "d-0", "gmt_bind": "2024-05-02 00:00:00"},
    ]
    df = finish(records_to_frame(records, S.DEVICE), S.DEVICE)
    assert df["device_id"].tolist() == ["d-1", "d-2", "d-0"]


def test_events_keep_the_platform_order_within_a_second() -> None:
    # the platform orders by millisecond time; the second shown ties, the order stays
    same_second = "2024-05-01 00:00:00"
    records = [event(2, gmt_create=same_second), event(1, gmt_create=same_second), event(0)]
    records[2]["gmt_create"] = "2024-04-30 23:59:59"
    df = finish(records_to_frame(records, S.EVENT), S.EVENT)
    assert df["event_id"].tolist() == ["e-0000", "e-0002", "e-0001"]


@pytest.mark.parametrize("n", [0, 1, 1000])
def test_sorted_input_is_kept(n: int) -> None:
    df = finish(
        records_to_frame([event(i, gmt_create="2024-05-01 00:00:00") for i in range(n)], S.EVENT),
        S.EVENT,
    )
    assert df["event_id"].is_monotonic_increasing
    assert len(df) == n
