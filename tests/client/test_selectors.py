"""Selectors and required parameters by the dialect, before a request is sent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import opslib
from client.faults import Faults
from opslib.dialects import Dialect
from opslib.protocol import Codec
from opslib.protocol import operations as ops

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

CHINT = Dialect.named("chint")


def _params(path: str, params: dict, user_id: str = "u-me") -> dict:
    op = ops.by_path(path)
    client_id = params.pop("client_id", "c")
    return Codec(CHINT).encode_params(op, params, user_id=user_id, client_id=client_id)


def test_selectors_become_zero_based() -> None:
    login = {"client_id": "c", "area_code": "1", "phone": "5", "login_model": 1}
    assert _params("/user/login", login)["login_model"] == 0
    assert _params("/user/login", {**login, "login_model": 2})["login_model"] == 1
    assert _params("/user/query", {"query_model": 2})["query_model"] == 1
    settings = _params("/user/query_sys_setting", {"query_model": 1})
    assert settings["query_model"] == 0  # all (1 would be development settings there)
    pwd = {"area_code": "1", "phone": "5", "new_password": "x", "update_model": 2}
    assert _params("/user/update_pwd", pwd)["update_model"] == 1


def test_auth_code_names_the_purpose() -> None:
    base = {"client_id": "c", "area_code": "1", "phone": "5"}
    sent = _params("/user/auth_code", {**base, "auth_model": 1, "code_model": 1})
    assert (sent["auth_model"], sent["code_model"]) == (3, 0)  # register, SMS
    sent = _params("/user/auth_code", {**base, "auth_model": 1, "code_model": 3})
    assert sent["auth_model"] == 4  # a password change
    sent = _params("/user/auth_code", {**base, "auth_model": 2, "code_model": 2})
    assert sent["auth_model"] == 6  # verify


def test_record_query_fills_user_id_and_has_no_fleet() -> None:
    page = {"page_no": 1, "page_size": 100, "start": 0, "end": 1}
    by_user = _params("/device/query_record", {**page, "query_model": 2, "user_id_param": "u9"})
    assert by_user["query_model"] == 1
    assert by_user["user_id"] == "u9"  # the 2021 name of the selected user
    assert by_user["user_id_param"] == "u9"  # the 2026 name
    by_device = _params("/device/query_record", {**page, "query_model": 1, "device_id": "d"})
    assert (by_device["query_model"], by_device["user_id"]) == (0, "u-me")
    with pytest.raises(opslib.Unsupported, match="no query_model for 'fleet'"):
        _params("/device/query_record", {**page, "query_model": 3})


def test_a_missing_required_parameter_is_refused_naming_it() -> None:
    product = {"product_id": "p", "product_secret": "s", "product_name": "n", "category_id": 1}
    with pytest.raises(ValueError, match="requires vendor_type, encrypt_type, node_type"):
        _params("/product/add", product)


def test_ours_is_left_as_it_is() -> None:
    params = {"login_model": 1, "area_code": "1", "phone": "5"}
    sent = Codec(Dialect()).encode_params(ops.LOGIN, params, user_id="", client_id="c")
    assert sent == {"client_id": "c", **params}


def test_nothing_is_sent_when_a_required_parameter_is_missing(platform: ServedPlatform) -> None:
    faults = Faults()
    client = platform.connect("admin", transport=faults)
    client._session.http.codec = client._session.codec = Codec(CHINT)  # as connect(dialect=)
    sent = len(faults.sent)
    with pytest.raises(ValueError, match="requires vendor_type"):
        client.products.add({"product_id": "p-x", "product_secret": "s3cret-s3cret",
                             "product_name": "X", "category_id": 1, "node_type": 1})  # fmt: skip
    assert len(faults.sent) == sent
