"""Records to typed frames: dtypes, labels, flattened objects, empty results, concatenation."""

from __future__ import annotations

from opslib.client.frames import schema as S
from opslib.client.frames.build import build_frame, page_columns, records_to_frame


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
