"""HTTP glue of the ``/product/*`` operations."""

from __future__ import annotations

from typing import Any

from opslib.server.context import Context
from opslib.server.models import (
    ProductAddParams,
    ProductDeleteParams,
    QueryCategoryParams,
    QueryListByCategoryParams,
)
from opslib.server.services import auth, products


def query_category(ctx: Context, p: QueryCategoryParams) -> dict[str, Any]:
    """``/product/query_category``."""
    auth.require_client(ctx.conn, client_id=p.client_id)
    return products.query_categories(ctx, client_id=p.client_id)


def query_list_by_category(ctx: Context, p: QueryListByCategoryParams) -> dict[str, Any]:
    """``/product/query_list_by_category``."""
    auth.require_client(ctx.conn, client_id=p.client_id)
    return products.query_products(ctx, category_id=p.category_id)


def add(ctx: Context, p: ProductAddParams) -> str:
    """``/product/add``: answers the bare product_id string."""
    return products.add_product(ctx, p)


def delete(ctx: Context, p: ProductDeleteParams) -> str:
    """``/product/delete``: answers the bare string ``"success"``."""
    return products.delete_product(ctx, product_id=p.product_id)
