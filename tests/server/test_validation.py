"""Bad input, table-driven over every envelope operation.

Each case gets the documented status, an ``error_msg`` that names the field, the
failure envelope, and leaves the database exactly as it was.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest

from .helpers import Api, dump

CLIENT = "opslib-demo"


@dataclass(frozen=True)
class Op:
    path: str
    caller: str | None  # account name, or None for pre-login operations
    params: dict[str, Any]
    required: tuple[str, ...]
    strings: tuple[str, ...] = ()  # string fields with a length limit
    ints: tuple[str, ...] = ()
    bools: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    objects: tuple[str, ...] = ()  # nested objects
    empty_ok: tuple[str, ...] = ()  # strings that may be "" (every other one must not)


OPS = [
    Op(
        "/user/auth_code",
        None,
        {
            "client_id": CLIENT,
            "auth_model": 1,
            "code_model": 1,
            "area_code": "1",
            "phone": "5559990001",
        },
        ("client_id", "auth_model", "code_model", "area_code", "phone"),
        strings=("client_id", "phone", "area_code", "auth_code"),
        ints=("auth_model", "code_model"),
    ),
    Op(
        "/user/login",
        None,
        {
            "client_id": CLIENT,
            "login_model": 1,
            "area_code": "1",
            "phone": "5550000003",
            "password": "user-demo-pass",
        },
        ("client_id", "login_model", "area_code", "phone", "password"),
        strings=("client_id", "password", "area_code", "phone", "auth_code"),
        ints=("login_model",),
    ),
    Op(
        "/user/register",
        None,
        {
            "client_id": CLIENT,
            "auth_code": "123456",
            "area_code": "1",
            "phone": "5559990001",
            "password": "new-password",
        },
        ("client_id", "auth_code", "area_code", "phone", "password"),
        strings=("client_id", "password", "auth_code", "area_code", "phone"),
    ),
    Op(
        "/product/query_category",
        "alice",
        {"client_id": CLIENT},
        ("access_token", "client_id"),
        strings=("client_id", "access_token"),
    ),
    Op(
        "/product/query_list_by_category",
        "alice",
        {"client_id": CLIENT, "category_id": 1},
        ("access_token", "client_id", "category_id"),
        strings=("client_id", "access_token"),
        ints=("category_id",),
    ),
    Op(
        "/device/query_by_user",
        "alice",
        {"page_no": 1, "page_size": 20},
        ("access_token",),
        strings=("user_id", "access_token"),
        ints=("page_no", "page_size", "group_id", "owned"),
        bools=("is_sub_device",),
        empty_ok=("user_id",),  # "" is the whole fleet
    ),
    Op(
        "/device/query_record",
        "alice",
        {"query_model": 1, "device_id": "dev-a1", "start": 0, "end": 10**12},
        ("access_token", "query_model", "start", "end", "device_id"),
        strings=("device_id", "user_id_param", "user_id", "access_token"),
        ints=("query_model", "start", "end", "page_no", "page_size", "event_type"),
    ),
    Op(
        "/device/query",
        "alice",
        {"device_id": "dev-a1"},
        ("access_token", "device_id"),
        strings=("device_id", "user_id", "access_token"),
    ),
    Op(
        "/user/query",
        "alice",
        {"query_model": 1, "user_id": "u-alice"},
        ("access_token", "query_model", "user_id"),
        strings=("user_id", "identity_id", "area_code", "phone", "access_token"),
        ints=("query_model",),
    ),
    Op(
        "/device/bind",
        "alice",
        {"device_id": "dev-x", "device_secret": "device-secret-x", "product_id": "p-lamp"},
        ("access_token", "device_id", "device_secret", "product_id"),
        strings=(
            "device_id",
            "device_secret",
            "product_id",
            "mac_addr",
            "sdk_version",
            "version",
            "net_addr",
            "category_id",
            "access_token",
        ),
        ints=("group_id", "status", "owned"),
        bools=("is_sub_device",),
        empty_ok=("net_addr",),
    ),
    Op(
        "/user/query_sys_setting",
        "alice",
        {"query_model": 1},
        ("access_token", "query_model"),
        strings=("access_token",),
        ints=("query_model",),
    ),
    Op(
        "/product/delete",
        "admin",
        {"product_id": "p-spare"},
        ("access_token", "product_id"),
        strings=("product_id", "access_token"),
    ),
    Op(
        "/product/add",
        "admin",
        {
            "product_id": "p-x",
            "product_secret": "product-secret",
            "product_name": "X",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
        (
            "access_token",
            "product_id",
            "product_secret",
            "product_name",
            "category_id",
            "net_type",
            "node_type",
        ),
        strings=("product_id", "product_secret", "product_name", "product_icon", "access_token"),
        ints=(
            "category_id",
            "net_type",
            "node_type",
            "vendor_type",
            "encrypt_type",
            "status",
            "popular",
        ),
        empty_ok=("product_icon",),
    ),
    Op(
        "/user/update_sys_setting",
        "alice",
        {"message_config": {"no_disturbing": True}},
        ("access_token", "message_config"),
        strings=("access_token",),
        objects=("message_config",),
    ),
    Op(
        "/user/update_pwd",
        "alice",
        {"update_model": 1, "old_password": "user-demo-pass", "new_password": "new-password"},
        ("update_model", "new_password", "old_password", "access_token"),
        strings=("new_password", "old_password", "access_token", "area_code", "phone", "auth_code"),
        ints=("update_model",),
    ),
    Op(
        "/user/update_user_info",
        "alice",
        {"nick_name": "A"},
        ("access_token",),
        strings=("nick_name", "avatar", "identity_id", "access_token"),
        objects=("network",),
        empty_ok=("nick_name", "avatar"),
    ),
    Op(
        "/device/update_info",
        "alice",
        {"device_id": "dev-a1", "group_id": 2},
        ("access_token", "device_id"),
        strings=("device_id", "user_id", "access_token"),
        ints=("group_id", "owned"),
        bools=("is_sub_device",),
    ),
]


def cases() -> list[Any]:
    out: list[Any] = []
    for op in OPS:
        for name in op.required:
            out.append(
                pytest.param(
                    op,
                    ("drop", name),
                    401 if name == "access_token" else 400,  # no credentials (protocol §3)
                    f"params.{name}: required",
                    id=f"{op.path}-missing-{name}",
                )
            )
        for name in op.strings:
            out.append(
                pytest.param(
                    op,
                    ("set", name, 5),
                    400,
                    f"params.{name}: must be a string",
                    id=f"{op.path}-type-{name}",
                )
            )
            out.append(
                pytest.param(
                    op,
                    ("set", name, "x" * 3000),
                    400,
                    f"params.{name}: must",
                    id=f"{op.path}-long-{name}",
                )
            )
        for name in op.ints:
            for bad in ("5", True, 5.5, None if name in op.required else [1]):  # 5.0 is 5
                if bad is None:
                    continue
                out.append(
                    pytest.param(
                        op,
                        ("set", name, bad),
                        400,
                        f"params.{name}: must be an integer",
                        id=f"{op.path}-type-{name}-{bad!r}",
                    )
                )
            for bad in (-1, 2**64):  # below every minimum; beyond 64 bits
                out.append(
                    pytest.param(
                        op,
                        ("set", name, bad),
                        400,
                        f"params.{name}: must be",
                        id=f"{op.path}-range-{name}-{bad}",
                    )
                )
        for name in op.objects:
            for bad in (5, "x", [1]):
                out.append(
                    pytest.param(
                        op,
                        ("set", name, bad),
                        400,
                        f"params.{name}: must be an object",
                        id=f"{op.path}-type-{name}-{bad!r}",
                    )
                )
        for name in op.bools:
            out.append(
                pytest.param(
                    op,
                    ("set", name, 1),
                    400,
                    f"params.{name}: must be true or false",
                    id=f"{op.path}-type-{name}",
                )
            )
        non_empty = [n for n in op.strings if n not in op.empty_ok]
        for name in non_empty:
            out.append(
                pytest.param(
                    op, ("set", name, ""), 400, f"params.{name}: must", id=f"{op.path}-empty-{name}"
                )
            )
        out.append(
            pytest.param(
                op, ("set", "bogus", 1), 400, "params.bogus: unknown field", id=f"{op.path}-unknown"
            )
        )
    return out


def send(api: Api, op: Op, change: tuple[Any, ...], **kw: Any) -> Any:
    params = dict(op.params)
    token = api.token(op.caller) if op.caller else None
    if token is not None:
        params["access_token"] = token
    if change[0] == "drop":
        params.pop(change[1], None)
    else:
        params[change[1]] = change[2]
    user_id = api.world[op.caller].user_id if op.caller else ""
    body = {
        "message_id": kw.get("message_id", str(uuid.uuid4())),
        "user_id": user_id,
        "params": params,
    }
    return api.client.post(op.path, json=body)


def assert_failure(response: Any, status: int, field_prefix: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error_code", "message_id", "error_msg", "data"}
    assert body["error_code"] == status
    assert body["data"] == {}
    assert body["error_msg"].startswith(field_prefix), body["error_msg"]
    assert "Traceback" not in response.text


@pytest.mark.parametrize(("op", "change", "status", "message"), cases())
def test_bad_params(api: Api, op: Op, change: tuple[Any, ...], status: int, message: str) -> None:
    if op.caller:
        api.token(op.caller)  # issue the token before taking the snapshot
    before = dump(api.world.db)
    message_id = str(uuid.uuid4())
    r = send(api, op, change, message_id=message_id)
    assert_failure(r, status, message)
    assert r.json()["message_id"] == message_id
    assert dump(api.world.db) == before


PAGING = [
    ("/device/query_by_user", {"page_no": 0}, "params.page_no: must be between 1 and"),
    ("/device/query_by_user", {"page_no": -1}, "params.page_no: must be between 1 and"),
    (
        "/device/query_by_user",
        {"page_size": 1001},
        "params.page_size: must be between 1 and 1000, got 1001",
    ),
    ("/device/query_by_user", {"page_size": 0}, "params.page_size:"),
    ("/device/query_record", {"page_no": 0}, "params.page_no:"),
    ("/device/query_record", {"page_size": 1001}, "params.page_size:"),
    ("/device/query_record", {"start": 10**12, "end": 10**12}, "params.start: must be less than"),
    ("/device/query_record", {"start": 10**12 + 1, "end": 10**12}, "params.start:"),
    ("/device/query_record", {"start": -1}, "params.start:"),
    ("/device/query_record", {"end": 2**53 + 1}, "params.end:"),
    (
        "/device/query_record",
        {"event_type": 9},
        "params.event_type: must be one of 1, 2, 3, 4, 5, 6, got 9",
    ),
    (
        "/device/query_record",
        {"query_model": 2, "device_id": None},
        "params.user_id_param: required when",
    ),
    ("/user/query", {"query_model": 3, "user_id": None}, "params.identity_id: required when"),
    ("/user/query_sys_setting", {"query_model": 4}, "params.query_model: must be one of"),
    (
        "/user/update_sys_setting",
        {"message_config": {}},
        "params.message_config: must set at least one",
    ),
    (
        "/user/update_sys_setting",
        {"message_config": {"start": 1440}},
        "params.message_config.start:",
    ),
    (
        "/user/update_sys_setting",
        {"message_config": {"no_disturbing": 0}},
        "params.message_config.no_disturbing:",
    ),
    ("/user/update_user_info", {"nick_name": None}, "params: must set at least one"),
    ("/user/update_user_info", {"network": {"ssid": "s" * 33}}, "params.network.ssid:"),
    ("/user/update_user_info", {"identity_id": "bad id"}, "params.identity_id: must be 1 to 64 of"),
    ("/device/bind", {"mac_addr": "00:11"}, "params.mac_addr: must be a MAC address"),
    ("/device/bind", {"category_id": "abc"}, "params.category_id:"),
    ("/device/bind", {"device_id": "bad id!"}, "params.device_id:"),
    ("/product/add", {"vendor_type": 100}, "params.vendor_type: must be between 0 and 99"),
    ("/product/add", {"category_id": 0}, "params.category_id:"),
    ("/user/update_pwd", {"update_model": 2}, "params.area_code: required when"),
    ("/user/update_pwd", {"new_password": "short"}, "params.new_password: must be at least 8"),
]


@pytest.mark.parametrize(
    ("path", "change", "message"), PAGING, ids=[f"{p}-{m[:30]}" for p, _, m in PAGING]
)
def test_bad_values(api: Api, path: str, change: dict[str, Any], message: str) -> None:
    op = next(o for o in OPS if o.path == path)
    api.token(op.caller or "alice")
    before = dump(api.world.db)
    params = {**op.params, **change}
    params = {k: v for k, v in params.items() if v is not None}
    r = send(
        api,
        Op(op.path, op.caller, params, ()),
        ("set", "access_token", api.token(op.caller or "alice")),
    )
    assert_failure(r, 400, message)
    assert dump(api.world.db) == before


@pytest.mark.parametrize("op", OPS, ids=[o.path for o in OPS])
def test_envelope_errors(api: Api, op: Op) -> None:
    params = {**op.params, "access_token": api.token(op.caller)} if op.caller else op.params
    before = dump(api.world.db)
    good = {"message_id": str(uuid.uuid4()), "user_id": "", "params": params}
    client = api.client
    headers = {"Content-Type": "application/json"}
    cases = [
        ({**good, "message_id": "not-a-uuid"}, None, "message_id: must be a UUID"),
        ({**good, "message_id": 5}, None, "message_id: must be a string"),
        ({k: v for k, v in good.items() if k != "user_id"}, None, "user_id: required"),
        ({k: v for k, v in good.items() if k != "params"}, None, "params: required"),
        ({**good, "params": []}, None, "params: must be an object"),
        ({**good, "extra": 1}, None, "extra: unknown field"),
        ([1, 2], None, "body: must be a JSON object"),
    ]
    for body, _, message in cases:
        r = client.post(op.path, content=orjson.dumps(body), headers=headers)
        assert_failure(r, 400, message)
        echo = body.get("message_id") if isinstance(body, dict) else None
        assert r.json()["message_id"] == (echo if echo == good["message_id"] else "")
    r = client.post(op.path, content=b'{"message_id": ', headers=headers)
    assert_failure(r, 400, "body: malformed JSON")
    r = client.post(op.path, content=orjson.dumps(good), headers={"Content-Type": "text/plain"})
    assert_failure(r, 400, "body: Content-Type must be application/json")
    r = client.post(op.path, content=orjson.dumps(good))
    assert_failure(r, 400, "body: Content-Type")
    big = orjson.dumps({**good, "params": {**op.params, "pad": "x" * (1024 * 1024)}})
    r = client.post(op.path, content=big, headers=headers)
    assert_failure(r, 413, "body: larger than 1048576 bytes")

    def chunks() -> Any:
        for _ in range(17):
            yield b" " * 65536

    r = client.post(op.path, content=chunks(), headers=headers)  # streamed, no Content-Length
    assert_failure(r, 413, "body:")
    assert dump(api.world.db) == before
    # a charset parameter is fine (the request may still fail for other reasons)
    r = client.post(
        op.path,
        content=orjson.dumps(good),
        headers={"Content-Type": "application/json; charset=utf-8"},
    )
    assert r.status_code != 400 or not r.json()["error_msg"].startswith("body")


def test_report_bad_input(api: Api) -> None:
    before = dump(api.world.db)
    good = {
        "message_id": str(uuid.uuid4()),
        "device_id": "dev-a1",
        "device_secret": api.world.device_secret,
        "events": [{"event_type": 1}],
    }
    bad = [
        ({**good, "events": []}, "events: must hold 1 to 500 items, got 0"),
        ({**good, "events": [{"event_type": 1}] * 501}, "events: must hold 1 to 500 items"),
        ({**good, "events": [{"event_type": 7}]}, "events.0.event_type: must be one of"),
        (
            {**good, "events": [{"event_type": 1, "properties": {"x": "y" * 9000}}]},
            "events.0.properties: must be at most 8192 bytes",
        ),
        ({**good, "events": [{"event_type": 1, "code": "c" * 33}]}, "events.0.code:"),
        (
            {**good, "events": [{"event_type": 1, "properties": {"n": 2**70}}]},
            "events.0.properties: must hold only numbers from -2**63 to 2**64-1",
        ),
        ({**good, "events": [{"event_type": 1, "ts": "now"}]}, "events.0.ts: must be an integer"),
        ({**good, "device_secret": None}, "device_secret: must be a string"),
        ({**good, "bogus": 1}, "bogus: unknown field"),
    ]
    for body, message in bad:
        r = api.client.post("/device/report", json=body)
        assert_failure(r, 400, message)
    assert dump(api.world.db) == before
