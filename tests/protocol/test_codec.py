"""The codec both ways, for every built-in dialect and every operation: what the client
encodes, the server decodes back to the same request; what the server encodes, the client
decodes back to the same answer (in the platform's codes, epoch milliseconds)."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest

from opslib.dialects import Dialect
from opslib.exceptions import ProtocolError, Unsupported
from opslib.protocol import Codec
from opslib.protocol import operations as ops
from opslib.protocol.meanings import Refused
from opslib.protocol.serving import Served, scoped_openid

DIALECTS = Dialect.names()
CALLER = "u-caller"
T0 = "2024-05-01 08:30:00"  # the core's text
T0_MS = 1_714_552_200_000

# A request of ours per operation, as the resources write it (the window in ms, our
# selectors, do-not-disturb minutes).
REQUESTS: dict[str, dict[str, Any]] = {
    "auth_code": {"auth_model": 1, "code_model": 3, "area_code": "1", "phone": "5550001"},
    "login": {"login_model": 1, "area_code": "1", "phone": "5550001", "password": "pw-123456"},
    "register": {"auth_code": "123456", "area_code": "1", "phone": "5550001", "password": "p"},
    "query_category": {},
    "query_list_by_category": {"category_id": 3},
    "query_by_user": {"user_id": CALLER, "page_no": 2, "page_size": 50, "owned": 1},
    "query_record": {
        "query_model": 2,
        "user_id_param": "u-other",
        "start": 1_714_521_600_000,
        "end": 1_714_608_000_000,
        "page_no": 1,
        "page_size": 100,
        "event_type": 4,
    },
    "device_query": {"device_id": "dev-1"},
    "user_query": {"query_model": 2, "area_code": "1", "phone": "5550001"},
    "bind": {
        "device_id": "dev-1",
        "device_secret": "s3cret-dev",
        "product_id": "p-1",
        "mac_addr": "AA:BB:CC:DD:EE:FF",
        "sdk_version": "1.0",
        "version": "2.0",
        "status": 1,
        "category_id": "3",
    },
    "query_sys_setting": {"query_model": 2},
    "delete_product": {"product_id": "p-1"},
    "add_product": {
        "product_id": "p-1",
        "product_secret": "s3cret-prod",
        "product_name": "Lamp",
        "category_id": 3,
        "net_type": 1,
        "node_type": 1,
        "encrypt_type": 1,
        "vendor_type": 1,
        "status": 1,
        "popular": 1,
    },
    "update_sys_setting": {"message_config": {"no_disturbing": True, "start": 1350, "end": 435}},
    "update_pwd": {
        "update_model": 2,
        "area_code": "1",
        "phone": "5550001",
        "new_password": "new-pw-123",
        "auth_code": "123456",
    },
    "update_user_info": {"nick_name": "Ann"},
    "update_info": {"device_id": "dev-1", "group_id": 7},
}


def _round_trip(codec: Codec, op: ops.Operation, params: dict[str, Any]) -> dict[str, Any]:
    sent = codec.envelope(op, params, message_id="m-1", user_id=CALLER, client_id="app")
    doc, _ = codec.decode_request(op, copy.deepcopy(sent))
    return doc["params"]


@pytest.mark.parametrize("name", DIALECTS)
@pytest.mark.parametrize("op_name", sorted(REQUESTS))
def test_a_request_comes_back_as_the_client_meant_it(name: str, op_name: str) -> None:
    codec = Codec(Dialect.named(name))
    op = ops.named(op_name)
    mine = REQUESTS[op_name]
    if name == "chint":
        mine = _in_chint_codes(op_name, mine)
    got = _round_trip(codec, op, mine)
    meant = {"client_id": "app", **mine} if op.client_id else dict(mine)
    if name == "chint":
        # its codes map onto ours (a property report filter is our 3); the caller's own
        # user_id, required there, is the caller; the channel of a code is SMS
        meant = _chint_meaning(op_name, meant)
        got = {k: v for k, v in got.items() if not (k == "user_id" and v == CALLER)}
        meant = {k: v for k, v in meant.items() if not (k == "user_id" and v == CALLER)}
    assert got == meant


def _in_chint_codes(op_name: str, mine: dict[str, Any]) -> dict[str, Any]:
    """The caller gives the platform's codes (labels become them, client.products)."""
    if op_name == "query_record":
        return {**mine, "event_type": 0}  # a filter it offers: property report
    if op_name == "add_product":
        return {**mine, "net_type": 0, "node_type": 0}  # Wi-Fi, a device
    return mine


def _chint_meaning(op_name: str, meant: dict[str, Any]) -> dict[str, Any]:
    if op_name == "query_record":
        return {**meant, "event_type": 3}  # our property report
    if op_name == "add_product":
        return {**meant, "net_type": 1, "node_type": 1}  # our Wi-Fi, direct
    return meant


@pytest.mark.parametrize("name", DIALECTS)
def test_a_time_window_in_seconds_is_widened_never_narrowed(name: str) -> None:
    codec = Codec(Dialect.named(name))
    params = {**REQUESTS["query_record"], "start": 1_500, "end": 2_500}
    if name == "chint":
        params["event_type"] = 0
    out = codec.encode_params(ops.QUERY_RECORD, params, user_id=CALLER)
    doc, _ = codec.decode_request(ops.QUERY_RECORD, {"user_id": CALLER, "params": out})
    assert doc["params"]["start"] <= 1_500
    assert doc["params"]["end"] >= 2_500


def test_chint_has_no_fleet_and_offers_two_filters() -> None:
    chint = Codec(Dialect.named("chint"))
    fleet = {**REQUESTS["query_record"], "query_model": 3, "event_type": 0}
    with pytest.raises(Unsupported, match="fleet"):
        chint.encode_params(ops.QUERY_RECORD, fleet, user_id=CALLER)
    with pytest.raises(ValueError, match=r"event_type 2 cannot be a filter.*0 \(property"):
        chint.encode_params(
            ops.QUERY_RECORD, {**REQUESTS["query_record"], "event_type": 2}, user_id=CALLER
        )
    doc = {"user_id": CALLER, "params": {**REQUESTS["query_record"], "user_id": CALLER}}
    doc["params"].update(query_model=1, event_type=2)
    with pytest.raises(Refused, match=r"params.event_type: must be one of \[0, 1\]"):
        chint.decode_request(ops.QUERY_RECORD, doc)


@pytest.mark.parametrize("value", [True, 1000.0, 101, "50"])
def test_the_server_refuses_what_the_core_would_not_take_from_chint(value: Any) -> None:
    chint = Codec(Dialect.named("chint"))
    doc = {"user_id": CALLER, "params": {"user_id": CALLER, "page_no": 1, "page_size": value}}
    if value in (1000.0, 101):
        with pytest.raises(Refused, match=r"params\.page_size: must be 1\.\.100"):
            chint.decode_request(ops.QUERY_BY_USER, doc)
    else:  # not a number: left for the core's validation, which refuses it
        out, _ = chint.decode_request(ops.QUERY_BY_USER, doc)
        assert out["params"]["page_size"] is value
    login = {"client_id": "app", "login_model": True, "area_code": "1", "phone": "5"}
    selector = {"user_id": CALLER, "params": login}
    with pytest.raises(Refused, match=r"params\.login_model: must be one of"):
        chint.decode_request(ops.LOGIN, selector)


def test_chint_verify_is_a_verify_of_any_purpose() -> None:
    chint = Codec(Dialect.named("chint"))
    for purpose in (1, 2, 3):  # register, login, reset
        sent = chint.encode_params(
            ops.AUTH_CODE,
            {"auth_model": 2, "code_model": purpose, "area_code": "1", "phone": "5"},
            user_id="",
            client_id="app",
        )
        assert sent["auth_model"] == 6
        doc, _ = chint.decode_request(ops.AUTH_CODE, {"user_id": "", "params": sent})
        assert doc["params"]["auth_model"] == 2
        assert "code_model" not in doc["params"]


# -- answers ------------------------------------------------------------------------------

DEVICE = {
    "device_id": "dev-1",
    "mac_addr": "AA:BB:CC:DD:EE:FF",
    "status": 1,
    "owned": 1,
    "gmt_bind": T0,
}
EVENT = {"event_id": "e-1", "device_id": "dev-1", "event_type": 4, "code": "", "gmt_create": T0}
PRODUCT = {"product_id": "p-1", "net_type": 2, "node_type": 3, "status": 2, "vendor_type": 7}
ANSWERS: dict[str, Any] = {
    "query_by_user": {"total": 230, "page_no": 2, "page_size": 50, "device_list": [DEVICE]},
    "query_record": {"total": 2650, "page_no": 1, "page_size": 100, "events_list": [EVENT]},
    "device_query": dict(DEVICE),
    "user_query": {"user_id": "u-1", "status": 1, "gmt_register": T0, "gmt_logout": None},
    "query_list_by_category": {"category_id": 3, "product_list": [PRODUCT]},
    "query_sys_setting": {
        "message_config": {"start": 1350, "end": 435, "no_disturbing": True},
        "gmt_modified": T0,
    },
    "update_info": {},
}


@pytest.mark.parametrize("name", DIALECTS)
@pytest.mark.parametrize("op_name", sorted(ANSWERS))
def test_an_answer_comes_back_as_the_core_meant_it(name: str, op_name: str) -> None:
    dialect = Dialect.named(name)
    codec = Codec(dialect)
    op = ops.named(op_name)
    params = REQUESTS.get(op_name, {})
    if name == "chint" and op_name == "query_record":
        params = {**params, "event_type": 0}
    sent = codec.envelope(op, params, message_id="m-1", user_id=CALLER, client_id="app")
    _, served = codec.decode_request(op, copy.deepcopy(sent))
    core = {"error_code": 200, "message_id": "m-1", "data": copy.deepcopy(ANSWERS[op_name])}
    wire = codec.encode_answer(op, core, served)
    got = codec.decode_answer(op, 200, wire, sent=sent["params"], moments="ms")
    assert got == _expected(dialect, op, ANSWERS[op_name], served.page_size)


def _expected(dialect: Dialect, op: ops.Operation, data: dict[str, Any], size: int) -> Any:
    out = copy.deepcopy(data)
    records = out.get(op.list_key, [out]) if op.list_key else [out]
    for record in records:
        for name in op.times:
            if name in record:
                record[name] = T0_MS if record[name] else None
        for name, key in op.codes.items():
            if name in record:
                record[name] = dialect.serving.codes_out.get(key, {}).get(
                    record[name], record[name]
                )
        if dialect.serving.secret_marker and op.secret:
            record[op.secret] = dialect.serving.secret_marker
    if op.paged is not None:
        out["page_size"] = size
        if dialect.paging.total == "pages":
            out["total"] = math.ceil(out["total"] / size)
    return out


@pytest.mark.parametrize("name", DIALECTS)
def test_a_failure_is_the_exception_of_the_core_status(name: str) -> None:
    codec = Codec(Dialect.named(name))
    from opslib.protocol.serving import Served

    for status, cls in ((404, "NotFound"), (422, "VerificationFailed"), (403, "PermissionDenied")):
        http, body = codec.encode_failure(
            "/device/query",
            status,
            "params.device_id: not found",
            Served(message_id="m"),
            paged=None,
        )
        error = codec.errors.error(http, body, operation="/device/query")
        assert type(error).__name__ == cls, (name, status, body)


def test_a_failure_in_another_dialects_code_says_how_to_learn_the_dialect() -> None:
    """A chint platform read as ours: its 460 in an HTTP 200 is no code of ours."""
    chint, ours = Codec(Dialect.named("chint")), Codec()
    http, body = chint.encode_failure(
        "/user/login", 400, "params.auth_code: required", Served(message_id="m"), paged=None
    )
    error = ours.errors.error(http, body, operation="/user/login")
    assert str(error).startswith("/user/login: 460 params.auth_code: required (a code the opslib")
    assert "`opslib probe URL` names it" in str(error)
    assert "opslib probe" not in str(chint.errors.error(http, body, operation="/user/login"))


@pytest.mark.parametrize("name", DIALECTS)
def test_a_token_pair_comes_back_in_seconds(name: str) -> None:
    codec = Codec(Dialect.named(name))
    core = {"error_code": 200, "access_token": "a", "refresh_token": "r", "expires_in": 7200,
            "openid": CALLER}  # fmt: skip
    fields = codec.errors.token_fields(200, codec.encode_token_answer(core))
    assert fields is not None
    assert fields["expires_in"] == 7200
    scoped = Dialect.named(name).serving.openid == "scoped" and name != "opslib"
    assert fields["openid"] == (scoped_openid(CALLER) if scoped else CALLER)


@pytest.mark.parametrize(
    ("name", "value"),
    [("chint", 1_714_521_600), ("chint", 160_950_960_000), ("vendor-epoch", "1714521600")],
)
def test_seconds_where_milliseconds_are_due_are_an_error_not_1970(name: str, value: Any) -> None:
    codec = Codec(Dialect.named(name))
    data = {"error_code": 200, "data": {**DEVICE, "gmt_bind": value}}
    with pytest.raises(ProtocolError, match=r"gmt_bind is .*expected epoch milliseconds"):
        codec.decode_answer(ops.DEVICE_QUERY, 200, data, sent={})


@pytest.mark.parametrize(("value", "why"), [(1320, "minutes"), (1_609_509_600_000, "ms")])
def test_do_not_disturb_in_another_unit_is_an_error(value: int, why: str) -> None:
    codec = Codec(Dialect.named("chint"))
    data = {"error_code": 200, "data": {"message_config": {"start": value, "end": 100_000}}}
    with pytest.raises(ProtocolError, match=r"message_config\.start"):
        codec.decode_answer(ops.QUERY_SYS_SETTING, 200, data, sent={})
    ours = Codec()
    data = {"error_code": 200, "data": {"message_config": {"start": 1_609_509_600, "end": 1}}}
    with pytest.raises(ProtocolError, match="minutes after midnight"):
        ours.decode_answer(ops.QUERY_SYS_SETTING, 200, data, sent={})


@pytest.mark.parametrize("data", [None, [], "", "ok", {"total": 1}])
def test_a_read_whose_data_has_not_its_shape_is_an_error(data: Any) -> None:
    for name in DIALECTS:
        codec = Codec(Dialect.named(name))
        body = {"error_code": codec.errors.success_code, "data": data}
        with pytest.raises(ProtocolError, match="/device/query_record: data"):
            codec.decode_answer(ops.QUERY_RECORD, 200, body, sent={})


def test_an_add_answered_with_another_id_is_not_a_product_id() -> None:
    for name in DIALECTS:
        codec = Codec(Dialect.named(name))
        body = {"error_code": codec.errors.success_code, "data": "ok"}
        with pytest.raises(ProtocolError, match="'p-1'"):
            codec.decode_answer(ops.ADD_PRODUCT, 200, body, sent={"product_id": "p-1"})
        body["data"] = None
        assert codec.decode_answer(ops.ADD_PRODUCT, 200, body, sent={"product_id": "p-1"}) == "p-1"


def test_add_sends_category_id_as_an_integer_whatever_the_caller_gives() -> None:
    for name in DIALECTS:
        codec = Codec(Dialect.named(name))
        params = {**REQUESTS["add_product"], "category_id": "3"}
        assert codec.encode_params(ops.ADD_PRODUCT, params, user_id=CALLER)["category_id"] == 3
        with pytest.raises(
            ValueError, match=r"category_id is 'lamps' \(str\); allowed: an integer"
        ):
            codec.encode_params(ops.ADD_PRODUCT, {**params, "category_id": "lamps"}, user_id=CALLER)
