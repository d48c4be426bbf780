"""opslib.server.services.products: categories and products, as the routes call them."""

from __future__ import annotations

import pytest

from opslib.server import security
from opslib.server.errors import ApiError
from opslib.server.models import ProductAddParams
from opslib.server.services import products
from opslib.server.store import products as products_store

from ..factories import World
from .conftest import MakeContext


def test_categories_and_a_category_of_products(ctx: MakeContext, world: World) -> None:
    answer = products.query_categories(ctx(), client_id=world.client_id)
    assert answer["client_id"] == world.client_id
    assert [c["category_name"] for c in answer["category_list"]] == ["Lighting", "Power", "Empty"]
    power = products.query_products(ctx(), category_id=2)
    assert (power["category_id"], power["category_name"]) == (2, "Power")
    assert [p["product_id"] for p in power["product_list"]] == ["p-plug", "p-spare"]
    assert len(power["product_list"][0]["gmt_create"]) == len("2024-05-01 00:00:00")
    with pytest.raises(ApiError, match=r"params\.category_id: category not found") as missing:
        products.query_products(ctx(), category_id=99)
    assert missing.value.status == 404


def test_an_added_product_keeps_only_its_secret_hash(ctx: MakeContext) -> None:
    p = ProductAddParams(
        access_token="t",
        product_id="p-new",
        product_secret="new-product-secret",
        product_name="New",
        category_id=3,
        net_type=1,
        node_type=1,
    )
    request = ctx("admin")
    assert products.add_product(request, p) == "p-new"
    stored = products_store.get_product(request.conn, product_id="p-new")
    assert stored is not None
    assert stored["secret_hash"] == security.sha256_hex("new-product-secret")
    assert stored["gmt_create"] == request.now
    with pytest.raises(ApiError, match=r"params\.product_id: already exists") as again:
        products.add_product(ctx("admin"), p)
    assert again.value.status == 409
    unknown = p.model_copy(update={"product_id": "p-other", "category_id": 42})
    with pytest.raises(ApiError, match=r"params\.category_id: category not found"):
        products.add_product(ctx("admin"), unknown)


def test_a_product_devices_use_is_not_deleted(ctx: MakeContext) -> None:
    with pytest.raises(ApiError, match="devices still use this product") as used:
        products.delete_product(ctx("admin"), product_id="p-lamp")
    assert used.value.status == 409
    assert products.delete_product(ctx("admin"), product_id="p-spare") == "success"
    with pytest.raises(ApiError, match="product not found") as gone:
        products.delete_product(ctx("admin"), product_id="p-spare")
    assert gone.value.status == 404
