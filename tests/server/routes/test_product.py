"""``/product/*``: categories, product lists, add and delete (admin only)."""

from __future__ import annotations

from typing import Any

import pytest

from ..helpers import Api

NEW_PRODUCT = {
    "product_id": "p-new",
    "product_secret": "product-secret-2",
    "product_name": "New lamp",
    "category_id": 1,
    "net_type": 2,
    "node_type": 1,
}


def test_query_category(api: Api) -> None:
    r = api.as_user("alice", "/product/query_category", {"client_id": api.world.client_id})
    assert r.status_code == 200
    data = r.json()["data"]
    assert data["client_id"] == api.world.client_id
    assert [c["category_id"] for c in data["category_list"]] == [1, 2, 3]
    assert data["category_list"][0] == {
        "category_id": 1,
        "category_name": "Lighting",
        "category_icon": "i1",
    }


def test_query_list_by_category(api: Api) -> None:
    r = api.as_user(
        "alice",
        "/product/query_list_by_category",
        {"client_id": api.world.client_id, "category_id": 2},
    )
    assert r.status_code == 200
    data = r.json()["data"]
    assert (data["category_id"], data["category_name"]) == (2, "Power")
    assert [p["product_id"] for p in data["product_list"]] == ["p-plug", "p-spare"]
    product = data["product_list"][0]
    assert "product_secret" not in product
    assert "secret_hash" not in product
    assert set(product) == {
        "product_id",
        "product_name",
        "product_icon",
        "category_id",
        "vendor_type",
        "net_type",
        "encrypt_type",
        "node_type",
        "status",
        "popular",
        "gmt_create",
        "gmt_modified",
    }
    r = api.as_user(
        "alice",
        "/product/query_list_by_category",
        {"client_id": api.world.client_id, "category_id": 99},
    )
    assert r.status_code == 404


def test_admin_adds_and_deletes_a_product(api: Api) -> None:
    r = api.as_user("admin", "/product/add", NEW_PRODUCT)
    assert r.status_code == 200
    assert r.json() == "p-new"
    listed = api.as_user(
        "alice",
        "/product/query_list_by_category",
        {"client_id": api.world.client_id, "category_id": 1},
    ).json()
    new = [p for p in listed["data"]["product_list"] if p["product_id"] == "p-new"]
    assert new[0]["net_type"] == 2
    assert new[0]["popular"] == 0
    assert api.as_user("admin", "/product/add", NEW_PRODUCT).status_code == 409
    r = api.as_user("admin", "/product/delete", {"product_id": "p-new"})
    assert r.status_code == 200
    assert r.json() == "success"
    assert api.as_user("admin", "/product/delete", {"product_id": "p-new"}).status_code == 404


def test_add_to_unknown_category_is_404(api: Api) -> None:
    r = api.as_user("admin", "/product/add", {**NEW_PRODUCT, "category_id": 42})
    assert r.status_code == 404
    assert r.json()["error_msg"].startswith("params.category_id:")


def test_delete_product_in_use_is_409(api: Api) -> None:
    r = api.as_user("admin", "/product/delete", {"product_id": "p-lamp"})
    assert r.status_code == 409


@pytest.mark.parametrize("name", ["alice", "ops"])
@pytest.mark.parametrize(
    ("path", "params"),
    [("/product/add", NEW_PRODUCT), ("/product/delete", {"product_id": "p-spare"})],
)
def test_only_admin_edits_the_products(
    api: Api, name: str, path: str, params: dict[str, Any]
) -> None:
    r = api.as_user(name, path, params)
    assert r.status_code == 403
    body = r.json()
    assert body["error_code"] == 403
    assert body["data"] == {}
