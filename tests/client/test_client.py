"""The Client: call(), a client made from a token alone, close()."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import pytest

import opslib
from client.faults import Faults

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def test_call_returns_the_decoded_data(platform: ServedPlatform) -> None:
    client = platform.connect()
    data = client.call("/product/query_category")
    assert data["client_id"] == platform.client_id
    assert data["category_list"][0]["category_id"] == 1
    device = client.devices.list(limit=1)["device_id"].item()
    assert client.call("/device/query", {"device_id": device})["device_id"] == device


def test_call_refuses_the_token_op_and_unknown_paths(platform: ServedPlatform) -> None:
    client = platform.connect()
    with pytest.raises(ValueError, match="exchange_code"):
        client.call("/token/access", {})
    with pytest.raises(ValueError, match="/device/query_record"):
        client.call("/device/nope", {})
    for params in ([1, 2], "dev-1"):  # dict() said "dictionary update sequence element #0"
        with pytest.raises(TypeError, match="params must be a dict of the operation's params"):
            client.call("/device/query", params)  # type: ignore[arg-type]


def test_call_product_add_and_delete_return_the_bare_string(fresh_platform: ServedPlatform) -> None:
    admin = fresh_platform.connect("admin")
    params = {
        "product_id": "p-call-1",
        "product_secret": "secret-secret",
        "product_name": "Call",
        "category_id": 1,
        "net_type": 1,
        "node_type": 1,
    }
    assert admin.call("/product/add", params) == "p-call-1"
    assert admin.call("/product/delete", {"product_id": "p-call-1"}) == "success"


def test_a_client_from_a_token_calls_with_it_alone(platform: ServedPlatform) -> None:
    faults = Faults()
    client = platform.connect(transport=faults)
    client.users.get()
    token = faults.to("/user/query")[-1].body["params"]["access_token"]  # type: ignore[index]
    seen = Faults()
    worker = opslib.Client.from_token(
        platform.base_url,
        access_token=token,
        client_id=platform.client_id,
        user_id=client.user_id or "",
        transport=seen,
    )
    assert worker.user_id == client.user_id
    pd.testing.assert_frame_equal(worker.devices.list(), client.devices.list())
    assert {s.body["params"]["access_token"] for s in seen.sent if s.body} == {token}
    assert token not in repr(worker)
    seen.status("/user/query", 401)  # the token refused: nothing to renew it with
    with pytest.raises(opslib.AuthenticationError, match="none to renew it with"):
        worker.users.get()
    assert seen.count("/token/access") == seen.count("/user/login") == 0


def test_close_and_context_manager(platform: ServedPlatform) -> None:
    client = platform.connect()
    with client as same:
        assert same is client
        assert len(same.products.categories()) > 0
    with pytest.raises(RuntimeError, match="closed"):
        client.products.categories()
