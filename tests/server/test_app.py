"""The app as a whole: unknown paths, methods, internal errors, OpenAPI, response shapes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter

from opslib.exceptions import ConfigError
from opslib.server import create_app, responses
from opslib.server.routes import ROUTES
from opslib.server.services import products

from .helpers import Api, TestClient


def test_unknown_path_is_a_404_envelope(api: Api) -> None:
    r = api.post("/user/nope", {})
    assert r.status_code == 404
    assert r.json() == {
        "error_code": 404,
        "message_id": "",
        "error_msg": "path: no such operation",
        "data": {},
    }


def test_wrong_method_is_a_405_envelope(api: Api) -> None:
    r = api.client.get("/user/login")
    assert r.status_code == 405
    assert r.json()["error_code"] == 405


def test_wrong_method_on_the_token_op_is_a_flat_405(api: Api) -> None:
    # found by Schemathesis (tests/security/test_fuzz.py): TRACE /token/access
    for method in ("GET", "TRACE", "PUT"):
        r = api.client.request(method, "/token/access")
        assert r.status_code == 405
        assert r.json() == {
            "error_code": 405,
            "error": "invalid_request",
            "error_description": "method: every operation is POST",
        }
        assert r.headers["Cache-Control"] == "no-store"


def test_internal_error_never_shows_a_stack_trace(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(products, "query_categories", boom)
    r = api.as_user("alice", "/product/query_category", {"client_id": api.world.client_id})
    assert r.status_code == 500
    body = r.json()
    assert body["error_msg"] == "internal error"
    assert body["error_code"] == 500
    assert body["message_id"] != ""
    assert "secret internals" not in r.text
    assert "Traceback" not in r.text


def test_schema_is_created_on_first_start(tmp_path: Any) -> None:
    import sqlite3

    db = tmp_path / "new.db"
    create_app(db)
    tables = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master")}
    assert {"users", "events", "event_counts", "idempotency"} <= tables


def test_the_openapi_document_is_only_served_beside_the_wire_it_describes(
    tmp_path: Path,
) -> None:
    with pytest.raises(ConfigError, match="this server speaks 'vendor'"):
        create_app(tmp_path / "v.db", dialect="vendor", docs=True)
    create_app(tmp_path / "o.db", dialect="opslib", docs=True)


def test_openapi_describes_every_operation(api: Api) -> None:
    with TestClient(create_app(api.world.db, docs=True)) as client:
        schema = client.get("/openapi.json").json()
    assert len(schema["paths"]) == 19
    components = schema["components"]["schemas"]
    for route in ROUTES:
        operation = schema["paths"][route.path]["post"]
        assert "200" in operation["responses"]
        if route.mode == "oauth":
            form = operation["requestBody"]["content"]["application/x-www-form-urlencoded"]
            names = set(form["schema"]["properties"])
            assert {"grant_type", "client_id", "client_secret", "code", "refresh_token"} <= names
            continue
        ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        assert ref.rsplit("/", 1)[1] in components
        for status in ("400", "401", "403", "404", "429", "500"):
            assert status in operation["responses"]
    params = components["QueryRecordParams"]
    assert params["additionalProperties"] is False
    assert params["properties"]["page_size"]["maximum"] == 1000
    assert params["properties"]["event_type"]["anyOf"][0]["enum"] == [1, 2, 3, 4, 5, 6]
    assert {
        "if": {"properties": {"query_model": {"const": 1}}, "required": ["query_model"]},
        "then": {"required": ["device_id"], "properties": {"device_id": {"not": {"type": "null"}}}},
    } in params["allOf"]


SAMPLES: list[tuple[str, str, dict[str, Any]]] = [
    ("alice", "/product/query_category", {"client_id": "opslib-demo"}),
    ("alice", "/product/query_list_by_category", {"client_id": "opslib-demo", "category_id": 1}),
    ("alice", "/device/query_by_user", {}),
    ("ops", "/device/query_by_user", {"user_id": ""}),
    ("alice", "/device/query", {"device_id": "dev-a1"}),
    ("ops", "/device/query", {"device_id": "dev-free"}),
    (
        "alice",
        "/device/query_record",
        {"query_model": 1, "device_id": "dev-a1", "start": 0, "end": 2**50},
    ),
    ("alice", "/user/query", {"query_model": 1, "user_id": "u-alice"}),
    ("alice", "/user/query_sys_setting", {"query_model": 1}),
    ("alice", "/user/query_sys_setting", {"query_model": 2}),
    ("alice", "/user/update_user_info", {"nick_name": "x"}),
    ("alice", "/user/query_sys_setting", {"query_model": 404}),  # a failure
]


@pytest.mark.parametrize(("name", "path", "params"), SAMPLES)
def test_responses_match_the_documented_models(
    api: Api, name: str, path: str, params: dict[str, Any]
) -> None:
    r = api.as_user(name, path, params)
    route = next(x for x in ROUTES if x.path == path)
    model: Any = route.response if r.status_code == 200 else responses.Failure
    assert isinstance(model, type)
    assert issubclass(model, BaseModel)
    TypeAdapter(model).validate_python(r.json(), strict=False)
    for extra in ("error_msg",) if r.status_code == 200 else ():
        assert extra not in r.json()
