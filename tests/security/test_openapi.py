"""The OpenAPI document says what the platform does.

Schemathesis (test_fuzz.py, every check) found the document and the platform disagreeing:
whole-number floats were refused where the document says integer, conditionally required
fields given as null were refused where the document allowed null, 422 and the token
op's per-grant fields were undocumented. These pin the agreements down one by one.
"""

from __future__ import annotations

from typing import Any

import pytest
from server.helpers import Api, TestClient

from opslib.server import create_app


@pytest.fixture
def document(api: Api) -> dict[str, Any]:
    """The document a platform started with ``docs=True`` (``opslib server --docs``) serves."""
    with TestClient(create_app(api.world.db, docs=True)) as client:
        return dict(client.get("/openapi.json").json())


def test_a_whole_number_float_is_an_integer(api: Api) -> None:
    """JSON Schema counts 5.0 as an integer, so the platform does too; 5.5 is refused."""
    r = api.as_user("alice", "/device/query_by_user", {"page_size": 5.0, "page_no": 1.0})
    assert r.status_code == 200, r.text
    assert (r.json()["data"]["page_size"], r.json()["data"]["page_no"]) == (5, 1)
    r = api.as_user("alice", "/device/query_by_user", {"page_size": 5.5})
    assert r.status_code == 400
    assert r.json()["error_msg"] == "params.page_size: must be an integer, got a number"
    r = api.as_user("alice", "/device/query_by_user", {"page_size": True})
    assert r.status_code == 400


def test_a_conditionally_required_field_may_not_be_null(document: dict[str, Any]) -> None:
    rules = document["components"]["schemas"]["LoginParams"]["allOf"]
    password = next(r for r in rules if r["if"]["properties"]["login_model"]["const"] == 1)
    assert password["then"] == {
        "required": ["password"],
        "properties": {"password": {"not": {"type": "null"}}},
    }
    one_of = document["components"]["schemas"]["UpdateUserInfoParams"]["anyOf"]
    assert {"required": ["nick_name"], "properties": {"nick_name": {"not": {"type": "null"}}}} in (
        one_of
    )


def test_what_json_schema_cannot_say_is_documented(document: dict[str, Any]) -> None:
    paths = document["paths"]
    register = paths["/user/register"]["post"]["responses"]
    assert "wrong" in register["422"]["description"]
    start = document["components"]["schemas"]["QueryRecordParams"]["properties"]["start"]
    assert "less than end" in start["description"]
    token = paths["/token/access"]["post"]["requestBody"]["content"]
    form = token["application/x-www-form-urlencoded"]["schema"]
    assert {"if": {"properties": {"grant_type": {"const": "refresh_token"}},
                   "required": ["grant_type"]},
            "then": {"required": ["refresh_token"]}} in form["allOf"]  # fmt: skip
    value = document["components"]["schemas"]["PropertyValue"]
    number = next(v for v in value["anyOf"] if v.get("type") == "number")
    assert (number["minimum"], number["maximum"]) == (-(2**63), 2**64 - 1)


def test_property_numbers_beyond_the_document_are_refused(api: Api) -> None:
    for value in (2**64, -(2**63) - 1, 1e300, [1, {"x": 2**70}]):
        body = {
            "message_id": "123e4567-e89b-12d3-a456-426614174000",
            "device_id": "dev-a1",
            "device_secret": api.world.device_secret,
            "events": [{"event_type": 3, "properties": {"n": value}}],
        }
        r = api.client.post("/device/report", json=body)
        assert r.status_code == 400, (value, r.text)
        assert r.json()["error_msg"].startswith("events.0.properties: must hold only numbers")
