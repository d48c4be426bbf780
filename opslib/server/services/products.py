"""Categories and products (protocol §6.5, §6.6, §6.13, §6.14)."""

from __future__ import annotations

from typing import Any

from opslib.server import security
from opslib.server.context import Context, gmt
from opslib.server.errors import ApiError
from opslib.server.models import ProductAddParams
from opslib.server.store import products as products_store


def query_categories(ctx: Context, *, client_id: str) -> dict[str, Any]:
    return {"client_id": client_id, "category_list": products_store.list_categories(ctx.conn)}


def query_products(ctx: Context, *, category_id: int) -> dict[str, Any]:
    category = products_store.get_category(ctx.conn, category_id=category_id)
    if category is None:
        raise ApiError(404, "params.category_id: category not found")
    products = products_store.list_products(ctx.conn, category_id=category_id)
    for product in products:
        product["gmt_create"] = gmt(product["gmt_create"])
        product["gmt_modified"] = gmt(product["gmt_modified"])
    return {
        "category_id": category["category_id"],
        "category_name": category["category_name"],
        "category_icon": category["category_icon"],
        "product_list": products,
    }


def add_product(ctx: Context, p: ProductAddParams) -> str:
    """Create a product; the answer is its product_id (a bare JSON string)."""
    if products_store.get_category(ctx.conn, category_id=p.category_id) is None:
        raise ApiError(404, "params.category_id: category not found")
    if products_store.get_product(ctx.conn, product_id=p.product_id) is not None:
        raise ApiError(409, "params.product_id: already exists")
    product = p.model_dump(exclude={"access_token", "product_secret"})
    product["secret_hash"] = security.sha256_hex(p.product_secret)
    products_store.insert_product(ctx.conn, product=product, now=ctx.now)
    return p.product_id


def delete_product(ctx: Context, *, product_id: str) -> str:
    """Delete a product no device uses; the answer is ``"success"``."""
    if products_store.get_product(ctx.conn, product_id=product_id) is None:
        raise ApiError(404, "params.product_id: product not found")
    if products_store.product_in_use(ctx.conn, product_id=product_id):
        raise ApiError(409, "params.product_id: devices still use this product")
    products_store.delete_product(ctx.conn, product_id=product_id)
    return "success"
