"""The CHINT smart cloud's published examples, the oracle of the ``chint`` dialect.

``golden/chint/*.json`` hold, one file per operation, the request and answer examples of
the platform's 2021 reference exactly as published (repository ``chintiot/chintiot.github.io``,
``docs/api-reference/*.html`` at commit 2448769, the reference's last 2021 revision), each
with its ``source``: document, commit and lines. The 2026 pages carry no examples of their
own (their JSON is generated from the schemas: ``"string"``, ``0``).

For each operation:

(a) the client: :meth:`Codec.envelope` writes, from our parameters meaning the same
    (our selectors, minutes after midnight, codes named by their labels), every field and
    value the example shows (ids, tokens and message ids are the example's own);
(b) the client: :meth:`Codec.decode_answer` reads the published answer into our model
    (epoch milliseconds, our times of day, the platform's codes);
(c) the server: :meth:`Codec.decode_request` accepts the published request and reads it
    as meaning what it says, in our core's terms.

Where an example and the dialect disagree (12-digit ``gmt_*`` typos, 2021 requests beside
2026 required lists and types) the case says what is expected and why. A strict ``xfail``
marks a published request the server half reads wrongly: what it gets wrong is its reason.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl
from zoneinfo import ZoneInfo

import pytest

from opslib import enums
from opslib.dialects import Dialect
from opslib.exceptions import IncompleteRead, ProtocolError
from opslib.protocol import Codec, reads
from opslib.protocol import operations as ops
from opslib.protocol.meanings import Refused
from opslib.protocol.serving import Served

GOLDEN = Path(__file__).parent / "golden" / "chint"
CHINT = Codec(Dialect.named("chint"))
CHINA = ZoneInfo("Asia/Shanghai")
USER = "53102fb4bf1044ed8b0ba36c"  # the examples' user, device and product id
GROUP = 7  # for the examples' "xxxxxxx", where both references type group_id an integer
# Given to the codec apart, not as parameters: the examples' own values are passed.
_APART = ("access_token", "client_id")
# Our core reads an absent params.user_id of these as the caller (docs/protocol.md §6).
_CALLER_DEFAULT = ("query_by_user", "device_query", "update_info")


def _golden(name: str) -> dict[str, Any]:
    return json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))


def _code(key: str, label: str) -> int:
    """The platform's code for one of its labels, as the client's resources write it."""
    return CHINT.code_of(label, key, None, key)


@dataclass(frozen=True)
class Refuses:
    """An expected refusal: the field named and, for an answer, the value shown."""

    field: str
    value: Any = None


@dataclass(frozen=True)
class Case:
    """One operation's example against the dialect."""

    ours: dict[str, Any] = field(default_factory=dict)
    """Our parameters where they are not the published ones (our selectors and units)."""
    wire: dict[str, Any] = field(default_factory=dict)
    """What the codec writes where it is not the published value (each says why)."""
    extra: tuple[str, ...] = ()
    """Parameters the codec writes that the example lacks (each says why)."""
    filled: tuple[str, ...] = ()
    """Published parameters the caller leaves to the codec (the caller's own user_id)."""
    server: dict[str, Any] | Refuses = field(default_factory=dict)
    """The published parameters as our core reads them, where they change; or a refusal."""
    answer: Any = None
    """The decoded answer (a subset of it), a bare write's text, or a refusal."""


CASES: dict[str, Case] = {
    "auth_code": Case(
        # a code sent for a registration: 3 (用户注册) there, code_model 0 the SMS channel
        ours={"auth_model": enums.AuthModel.SEND, "code_model": enums.CodeModel.REGISTER},
        server={"auth_model": enums.AuthModel.SEND, "code_model": enums.CodeModel.REGISTER},
        answer={"public_key": "xxxxxx"},
    ),
    "register": Case(answer={"user_id": USER, "code": "xxxx"}),
    "login": Case(
        ours={"login_model": enums.LoginModel.PASSWORD},
        server={"login_model": enums.LoginModel.PASSWORD},
        answer={"user_id": USER, "code": "xxxx", "gmt_last_login": 1_499_681_215_000},
    ),
    "update_pwd": Case(
        ours={"update_model": enums.UpdateModel.CHANGE},
        server={"update_model": enums.UpdateModel.CHANGE},
        answer={},
    ),
    "update_user_info": Case(answer={}),
    "user_query": Case(
        ours={"query_model": enums.UserQueryModel.BY_USER_ID},
        server={"query_model": enums.UserQueryModel.BY_USER_ID},
        answer={
            "status": 1,  # the device statuses repeated (2021): 1 online
            "gmt_register": 1_499_681_215_000,
            "gmt_modified": 1_499_681_216_000,
            "gmt_last_login": 1_499_681_215_000,
            "gmt_logout": 1_499_681_215_000,
        },
    ),
    "update_sys_setting": Case(
        # 1508314232 is 2017-10-18 16:10:32 China time: do-not-disturb from 16:10 (970
        # minutes after midnight). Only the time of day is meant, so the codec writes it
        # on its fixed day, 1970-01-02 16:10 China time, seconds dropped.
        ours={
            "message_config": {
                "recv_sys_notice": True,
                "recv_device_notice": True,
                "no_disturbing": True,
                "start": 970,
                "end": 970,
            }
        },
        wire={
            "message_config": {
                "recv_sys_notice": True,
                "recv_device_notice": True,
                "no_disturbing": True,
                "start": 115_800,
                "end": 115_800,
            }
        },
        server={
            "message_config": {
                "recv_sys_notice": True,
                "recv_device_notice": True,
                "no_disturbing": True,
                "start": 970,
                "end": 970,
            }
        },
        answer={},
    ),
    "query_sys_setting": Case(
        ours={"query_model": enums.SettingQueryModel.ALL},
        server={"query_model": enums.SettingQueryModel.ALL},
        answer={
            "dev_config": {"page_size": 10},
            # 1543563423 and 1543592223: 2018-11-30 15:37:03 and 23:37:03 China time
            "message_config": {"no_disturbing": True, "start": 937, "end": 1417},
            "gmt_modified": 1_499_681_216_000,
        },
    ),
    "query_category": Case(
        answer={"category_list": [{"category_id": 0}, {"category_id": 1}, {"category_id": 2}]}
    ),
    "query_list_by_category": Case(
        answer={
            "category_id": 0,
            "product_list": [
                {
                    "product_secret": "53102fb4bf1044ed8b0ba36a",  # a secret, in a read
                    "net_type": 0,  # Wi-Fi there
                    "encrypt_type": 1,  # one secret per device
                    "gmt_create": 1_499_681_215_000,
                },
                {"product_id": USER, "gmt_modified": 1_499_681_216_000},
            ],
        }
    ),
    "add_product": Case(
        # the caller's category_id as text: an integer on /product/add (P 176-178)
        ours={
            "category_id": "0",
            "vendor_type": CHINT.vendor_type_code("in-house"),
            "net_type": _code("net_type", "Wi-Fi"),
            "encrypt_type": _code("encrypt_type", "one secret per device"),
            "node_type": _code("node_type", "device"),
            "status": _code("product_status", "released"),
            "popular": _code("popular", "normal"),
        },
        # required by the 2026 list (P 157) and by ours; the 2021 example has none
        extra=("node_type",),
        server=Refuses("params.node_type"),
        answer=USER,  # the product_id sent: data null is the add's success
    ),
    "delete_product": Case(answer="success"),
    "bind": Case(
        # category_id: both tables type it a string (2021 device-service.html 291-294,
        # D 88-90), the 2021 example shows 1; ours is a string too, sent as one
        ours={"category_id": "1", "group_id": GROUP},
        wire={"category_id": "1", "group_id": GROUP},
        server={"category_id": "1"},
        answer={},
    ),
    "query_by_user": Case(
        ours={"group_id": GROUP},
        wire={"group_id": GROUP},
        extra=("user_id",),  # the caller: required in 2026 (D 116-120)
        server={"user_id": USER},
        answer=Refuses("device_list[].gmt_bind", 149_968_121_600),  # a 12-digit typo
    ),
    "update_info": Case(
        ours={"group_id": GROUP},
        wire={"group_id": GROUP},
        extra=("user_id",),  # the caller: required in 2026 (D 197-200)
        server={"user_id": USER},
        answer={},
    ),
    "device_query": Case(
        extra=("user_id",),  # the caller: required in 2026 (D 249-251)
        server={"user_id": USER},
        answer=Refuses("data.gmt_bind", 149_968_121_600),  # a 12-digit typo
    ),
    "query_record": Case(
        # by device (0 there); params.user_id, required, is the caller when no user is
        # selected (interpretations.record_user_id); event_type 0 the property reports
        ours={
            "query_model": enums.RecordQueryModel.DEVICE,
            "event_type": _code("event_type", "property report"),
        },
        filled=("user_id",),
        server={
            "query_model": enums.RecordQueryModel.DEVICE,
            "event_type": enums.EventType.PROPERTY_REPORT,  # served from our core's
        },
        answer={
            "total": 2,
            "page_size": 100,
            "events_list": [
                {"event_type": 0, "gmt_create": 1_499_681_215_000},
                {"event_type": 0, "gmt_create": 1_499_681_215_000},
            ],
        },
    ),
}

_NO_PARAMS_USER_ID = (
    "decode_request refuses 'params.user_id: required' (the 2026 list, {where}) in the 2021 "
    "request, which names its user in the envelope only ({why}); reading a missing "
    "params.user_id as the envelope's user_id would take both"
)
SERVER_XFAIL: dict[str, str] = {}


def _params(case_name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    golden = _golden(case_name)
    return golden, dict(golden["request"]["params"])


def _holds(actual: Any, expected: Any, where: str = "data") -> None:
    """``actual`` holds ``expected``: every key and value of it, lists item by item."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), (where, actual)
        for key, value in expected.items():
            assert key in actual, f"{where}.{key} missing"
            _holds(actual[key], value, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), (where, actual)
        assert len(actual) == len(expected), (where, actual)
        for i, (got, want) in enumerate(zip(actual, expected, strict=True)):
            _holds(got, want, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"
        assert type(actual) is type(expected), f"{where}: {actual!r} ({type(actual).__name__})"


# -- the files themselves -------------------------------------------------------------------


def test_every_operation_has_its_published_example_with_its_source() -> None:
    names = {path.stem for path in GOLDEN.glob("*.json")}
    assert names == {op.name for op in ops.SPEC_OPERATIONS}
    assert set(CASES) == names - {"token"}
    for name in names:
        golden = _golden(name)
        assert ops.named(name).path == golden["operation"]
        source = golden["source"]
        assert source["repository"] == "chintiot/chintiot.github.io"
        assert re.fullmatch(r"docs/api-reference/[a-z]+-service\.html", source["document"])
        assert re.fullmatch(r"[0-9a-f]{40}", source["commit"])
        for part in ("request_lines", "answer_lines"):
            assert re.match(r"\d+-\d+", source[part]), (name, part)
        assert golden["request"]
        assert golden["answer"]


# -- (a) the client writes what the example shows -------------------------------------------


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_client_writes_the_published_request(name: str) -> None:
    case = CASES[name]
    golden, published = _params(name)
    op = ops.named(name)
    request = golden["request"]
    given = {k: v for k, v in published.items() if k not in (*_APART, *case.filled)}
    given.update(case.ours)
    sent = CHINT.envelope(
        op,
        given,
        message_id=request["message_id"],
        user_id=request.get("user_id", ""),
        access_token=published.get("access_token"),
        client_id=published.get("client_id"),
    )
    assert set(request) <= set(sent)
    assert sent["message_id"] == request["message_id"]
    assert sent["user_id"] == request.get("user_id", "")
    params = sent["params"]
    for key, value in published.items():
        expected = case.wire.get(key, value)
        assert key in params, f"{op.path}: params.{key} not written"
        assert params[key] == expected, f"{op.path}: params.{key} {params[key]!r} != {expected!r}"
        assert type(params[key]) is type(expected), f"{op.path}: params.{key} {params[key]!r}"
    assert set(params) - set(published) == set(case.extra)


def test_a_do_not_disturb_time_keeps_its_time_of_day_in_china() -> None:
    """The codec writes 16:10 on its fixed day where the example wrote it on its own."""
    published = _golden("update_sys_setting")["request"]["params"]["message_config"]
    written = CASES["update_sys_setting"].wire["message_config"]
    for name in ("start", "end"):
        theirs = dt.datetime.fromtimestamp(published[name], CHINA)
        ours = dt.datetime.fromtimestamp(written[name], CHINA)
        assert (theirs.hour, theirs.minute) == (ours.hour, ours.minute) == (16, 10)
        assert ours.date() == dt.date(1970, 1, 2)


def test_category_id_goes_as_an_integer_on_add_whatever_the_caller_gives() -> None:
    """``/product/add`` types category_id an integer (P 176-178, and the example's 0):
    a string or a whole float from the caller goes as the integer; a bool or text that
    is no number is refused naming it."""
    _, published = _params("add_product")
    given = {k: v for k, v in published.items() if k not in _APART}
    given["node_type"] = 0
    for value in ("3", " 3 ", 3.0, 3):
        params = CHINT.encode_params(ops.ADD_PRODUCT, {**given, "category_id": value}, user_id=USER)
        assert params["category_id"] == 3
        assert type(params["category_id"]) is int
    for value in (True, "three", 3.5):
        with pytest.raises(ValueError, match=r"/product/add: category_id .*an integer"):
            CHINT.encode_params(ops.ADD_PRODUCT, {**given, "category_id": value}, user_id=USER)


# -- (b) the client reads the published answer ---------------------------------------------


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_client_reads_the_published_answer(name: str) -> None:
    case = CASES[name]
    golden, published = _params(name)
    op = ops.named(name)
    answer = copy.deepcopy(golden["answer"])
    if isinstance(case.answer, Refuses):
        with pytest.raises(ProtocolError) as caught:
            CHINT.decode_answer(op, 200, answer, sent=published)
        assert caught.value.field == case.answer.field
        assert caught.value.value == case.answer.value
        return
    data = CHINT.decode_answer(op, 200, answer, sent=published)
    if case.answer in ({}, None) or isinstance(case.answer, str):
        assert data == case.answer
    else:
        _holds(data, case.answer)


def test_the_twelve_digit_typos_are_refused_and_the_moment_meant_is_read() -> None:
    """device-service.html 418 and 697 write gmt_bind 149968121600, 1974 in epoch ms: a
    unit mistake is refused, never read as a date; the 13-digit value the list's other
    record has (1499681216000, 2017-07-10) is read as it is."""
    for name, op in (("query_by_user", ops.QUERY_BY_USER), ("device_query", ops.DEVICE_QUERY)):
        text = json.dumps(_golden(name)["answer"])
        typo = re.compile(r"\b149968121600\b")
        assert typo.search(text)
        fixed = json.loads(typo.sub("1499681216000", text))
        data = CHINT.decode_answer(op, 200, fixed, sent={})
        records = data["device_list"] if name == "query_by_user" else [data]
        assert {r["gmt_bind"] for r in records} == {1_499_681_216_000}
        assert data.get("total", 20) == 20


def test_the_answers_labels_and_kinds_are_the_platforms() -> None:
    assert CHINT.labels("user_status")[1] == "online"  # the device statuses repeated (2021)
    assert CHINT.labels("event_type")[0] == "property report"
    assert CHINT.event_kinds()["kinds"][0] == "property"
    assert CHINT.labels("net_type")[0] == "Wi-Fi"
    assert {"device_secret", "product_secret"} <= CHINT.secrets  # dropped from frames
    data = CHINT.decode_answer(ops.LOGIN, 200, _golden("login")["answer"], sent={})
    assert CHINT.login_user_id(data) == USER


def test_total_counts_the_records_of_the_example_page() -> None:
    """D 408-410 (总条数) and the 2021 page (云端总数): ``total`` 2 beside two records on
    one page of 100 counts records (as pages it would be one). The two records share one
    event_id, a placeholder: read as a whole they are one event seen twice, which the
    read invariant refuses rather than count."""
    assert CHINT.paging.total == "records"
    data = _golden("query_record")["answer"]["data"]
    records, total = reads.page(ops.QUERY_RECORD.path, "events_list", data)
    assert total == len(records) == 2
    paged = ops.QUERY_RECORD.paged
    assert paged is not None
    keys = reads.Keys(ops.QUERY_RECORD.path, paged.key)
    keys.add(1, keys.hashes(records), expected=total)
    assert (keys.unique, keys.duplicates) == (1, 1)
    with pytest.raises(IncompleteRead):
        reads.check_count(
            ops.QUERY_RECORD.path, expected=total, got=keys.unique, duplicates=keys.duplicates
        )


def test_a_published_do_not_disturb_window_reads_as_times_of_day_in_china() -> None:
    config = _golden("query_sys_setting")["answer"]["data"]["message_config"]
    for name, (hour, minute) in (("start", (15, 37)), ("end", (23, 37))):
        moment = dt.datetime.fromtimestamp(config[name], CHINA)
        assert (moment.hour, moment.minute) == (hour, minute)
        assert CASES["query_sys_setting"].answer["message_config"][name] == hour * 60 + minute


# -- (c) the server reads the published request --------------------------------------------


def _server_case(name: str) -> Any:
    reason = SERVER_XFAIL.get(name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", [_server_case(name) for name in sorted(CASES)])
def test_the_server_reads_the_published_request(name: str) -> None:
    case = CASES[name]
    golden, published = _params(name)
    op = ops.named(name)
    request = copy.deepcopy(golden["request"])
    if isinstance(case.server, Refuses):
        with pytest.raises(Refused) as caught:
            CHINT.decode_request(op, request)
        assert caught.value.field == case.server.field
        return
    doc, served = CHINT.decode_request(op, request)
    params = doc["params"]
    if name in _CALLER_DEFAULT:
        params = {"user_id": served.caller, **params}
    assert params == {**published, **case.server}
    assert served.message_id == request["message_id"]
    assert served.caller == request.get("user_id", "")
    if op.paged is not None:
        assert (served.page_no, served.page_size) == (published["page_no"], 100)
    assert served.fleet is False


# -- (d) the server answers as published ----------------------------------------------------

# The writes whose published answer is the common envelope with data null.
_WRITES = ("bind", "update_info", "update_pwd", "update_user_info", "update_sys_setting")


@pytest.mark.parametrize("name", [*_WRITES, "add_product", "delete_product"])
def test_the_server_answers_a_write_as_published(name: str) -> None:
    """Our core's success (data {}, or add's and delete's bare string) as published:
    ``{"error_code": 200, "message_id": ..., "data": null}``: 200, as every published
    success says (D 457-460), though 0 is a success code there too."""
    golden = _golden(name)
    op = ops.named(name)
    served = Served(message_id=golden["answer"]["message_id"])
    core: Any = {"error_code": 200, "message_id": served.message_id, "data": {}}
    if op is ops.ADD_PRODUCT:
        core = golden["request"]["params"]["product_id"]
    elif op is ops.DELETE_PRODUCT:
        core = "success"
    assert CHINT.encode_answer(op, core, served) == golden["answer"]


def test_the_server_answers_the_token_call_as_published() -> None:
    golden = _golden("token")["answer"]
    core = {k: golden[k] for k in ("access_token", "refresh_token", "expires_in", "openid")}
    assert CHINT.encode_token_answer(core) == golden


# -- the token call -------------------------------------------------------------------------


def test_the_token_call_as_published() -> None:
    """Its parameters in the query string, both ways (T 82-121; the 2021 examples are
    query strings), with the names the client writes; the answer flat, expires_in in
    seconds (172800, 48 h)."""
    golden = _golden("token")
    grants = {}
    for grant, query in golden["request"].items():
        fields = dict(parse_qsl(query.lstrip("?"), strict_parsing=True))
        assert fields["grant_type"] == grant
        assert set(fields) <= set(ops.TOKEN.params)
        assert set(ops.TOKEN.required) <= set(fields)
        grants[grant] = fields
    assert grants["authorization_code"]["redirect_uri"] == "none"  # spec §4.2: no callback
    assert "refresh_token" in grants["refresh_token"]
    assert CHINT.token_in_query  # the client: in the query string
    assert CHINT.token_sources() == ("query",)  # the server: from the query string only
    tokens = CHINT.errors.token_fields(200, golden["answer"])
    assert tokens is not None
    assert tokens["expires_in"] == 172_800
    assert (tokens["access_token"], tokens["openid"]) == ("xxxxx", USER)


# -- the two interpretations (provenance: interpretations.*) ---------------------------------


def test_which_auth_model_a_code_takes() -> None:
    """Sent: register 3, login 1 (登录确认), reset 4 (修改密码), verify 6; read back
    the same way; 0, 2 and 5 (identity check, unusual login, profile change) mean none
    of our purposes and are refused."""
    base = {"area_code": "0086", "phone": "18888888888"}
    send, verify = enums.AuthModel.SEND, enums.AuthModel.VERIFY
    for purpose, theirs in (
        (enums.CodeModel.REGISTER, 3),
        (enums.CodeModel.LOGIN, 1),
        (enums.CodeModel.RESET_PASSWORD, 4),
    ):
        sent = CHINT.encode_params(
            ops.AUTH_CODE,
            {**base, "auth_model": send, "code_model": purpose},
            user_id="",
            client_id="c",
        )
        assert (sent["auth_model"], sent["code_model"]) == (theirs, 0)
        doc, _ = CHINT.decode_request(ops.AUTH_CODE, {"params": {**base, **sent}})
        assert (doc["params"]["auth_model"], doc["params"]["code_model"]) == (send, purpose)
    sent = CHINT.encode_params(
        ops.AUTH_CODE,
        {**base, "auth_model": verify, "code_model": enums.CodeModel.LOGIN, "auth_code": "1"},
        user_id="",
        client_id="c",
    )
    assert sent["auth_model"] == 6
    for theirs in (0, 2, 5):
        request = {"params": {**base, "client_id": "c", "auth_model": theirs, "code_model": 0}}
        with pytest.raises(Refused, match="auth_model"):
            CHINT.decode_request(ops.AUTH_CODE, request)


def test_what_query_records_params_user_id_is() -> None:
    """The client: the selected user when one is selected (the 2021 reading), else the
    caller. The server: a 2021 request's user_id selects the user; a 2026 one's
    user_id_param does, beside the caller's user_id."""
    window = {"start": 1_499_681_215_000, "end": 1_499_681_216_000, "page_no": 1, "page_size": 100}
    by_user = {**window, "query_model": enums.RecordQueryModel.USER, "user_id_param": "u2"}
    sent = CHINT.encode_params(ops.QUERY_RECORD, by_user, user_id=USER)
    assert (sent["user_id"], sent["user_id_param"]) == ("u2", "u2")
    by_device = {**window, "query_model": enums.RecordQueryModel.DEVICE, "device_id": "d1"}
    sent = CHINT.encode_params(ops.QUERY_RECORD, by_device, user_id=USER)
    assert sent["user_id"] == USER
    assert "user_id_param" not in sent
    page = {**window, "query_model": 1}
    for theirs, selected in (
        ({"user_id": "u2"}, "u2"),  # 2021
        ({"user_id": USER, "user_id_param": "u2"}, "u2"),  # 2026
        ({"user_id": "u2", "user_id_param": "u2"}, "u2"),  # as the client sends it
    ):
        doc, _ = CHINT.decode_request(
            ops.QUERY_RECORD, {"user_id": USER, "params": {**page, **theirs}}
        )
        params = doc["params"]
        assert params["query_model"] == enums.RecordQueryModel.USER
        assert params["user_id_param"] == selected
        assert params.get("user_id", USER) == USER  # what is left of user_id is the caller
