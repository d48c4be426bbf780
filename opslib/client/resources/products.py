"""``client.products``: product categories and products.

Operations: ``/product/query_category`` (categories), ``/product/query_list_by_category``
(list), ``/product/add`` (add, admin), ``/product/delete`` (delete, admin).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from opslib.client._session import check_int
from opslib.client._writes import check_errors, check_item, ids_from, items_from, run_writes
from opslib.client.frames import schema as S
from opslib.client.frames.build import (
    PageColumns,
    build_frame,
    dedupe_and_sort,
    page_columns,
    records_to_frame,
)
from opslib.client.resources import Resource
from opslib.enums import EncryptType, NetType, NodeType, Popular, ProductStatus
from opslib.protocol import operations as ops

__all__ = ["Products"]

_CODED = {
    "net_type": NetType,
    "encrypt_type": EncryptType,
    "node_type": NodeType,
    "status": ProductStatus,
    "popular": Popular,
}


class Products(Resource):
    """Categories and products (``client.products``)."""

    def categories(self) -> pd.DataFrame:
        """List the product categories (``/product/query_category``).

        Returns
        -------
        pandas.DataFrame
            One row per category: category_id, category_name, category_icon.

        Examples
        --------
        >>> client = opslib.connect()
        >>> client.products.categories().columns.tolist()
        ['category_id', 'category_name', 'category_icon']
        """
        data = self._session.call(ops.QUERY_CATEGORY, {})
        frame = records_to_frame(data.get("category_list") or [], S.CATEGORY)
        return dedupe_and_sort(frame, S.CATEGORY)

    def _one_category(self, category_id: int, schema: S.FrameSchema) -> PageColumns:
        data = self._session.call(ops.QUERY_LIST_BY_CATEGORY, {"category_id": int(category_id)})
        name = data.get("category_name")
        records = [{**p, "category_name": name} for p in data.get("product_list") or []]
        return page_columns(records, schema)

    def list(
        self, category_id: int | None = None, *, include_secrets: bool = False
    ) -> pd.DataFrame:
        """List the products of one category or of all (``/product/query_list_by_category``).

        Parameters
        ----------
        category_id
            The category; None reads every category and concatenates them.
        include_secrets
            Keep the product_secret a platform may send (a product_secret column); by
            default secrets never reach a frame.

        Returns
        -------
        pandas.DataFrame
            One row per product: product_id, product_name, product_icon, category_id,
            category_name, vendor_type, net_type (+ _name), encrypt_type (+ _name),
            node_type (+ _name), status (+ _name), popular, gmt_create, gmt_modified.
            Sorted by category_id, product_id. The product secret only when asked for.

        Examples
        --------
        >>> client = opslib.connect()
        >>> client.products.list()["category_name"].nunique()
        6
        """
        if category_id is not None:
            ids = [check_int("category_id", category_id)]  # a frame's cell is numpy's
        else:
            ids = [int(c) for c in self.categories()["category_id"].dropna()]
        schema = self._session.frame_schema(S.PRODUCT, include_secrets)
        pages = [self._one_category(c, schema) for c in ids]
        frame = dedupe_and_sort(build_frame(pages, schema), schema)
        return self._session.unsecret(frame, include_secrets)

    def add(
        self,
        products: pd.DataFrame | Mapping[str, Any] | Iterable[Mapping[str, Any]],
        *,
        errors: str | None = None,
    ) -> pd.DataFrame:
        """Create products (``/product/add``, admin only), one call per row.

        Parameters
        ----------
        products
            A DataFrame, a dict or a list of dicts with the fields product_id,
            product_secret, product_name, category_id, net_type, node_type (required) and
            product_icon, vendor_type, encrypt_type, status, popular. Coded fields take
            their code or the platform's label (``net_type="Wi-Fi"``; on the CHINT smart
            cloud ``vendor_type="in-house"``, ``popular="recommended"``); a platform
            without vendor type labels (ours: the operator's own classes) takes an integer
            0..99. A value that is neither raises ValueError naming the item, the field,
            the value and what is allowed, before anything is sent. NA cells are left out.
            The fields the platform's dialect requires (the CHINT smart cloud: also
            vendor_type, encrypt_type, status, popular) and each field's JSON type are
            checked for every row before the first is sent.
        errors
            "raise" or "collect"; default "raise" for a dict, "collect" for many rows.
            Raising for many rows happens after every row was tried and names the failures;
            a row missing a required field raises ValueError before any is sent.
            Collecting makes such a row a failure row (ok False, the reason, nothing
            sent) and writes the others.

        Returns
        -------
        pandas.DataFrame
            One row per item: product_id, ok, error_code, error_msg, message_id. A success
            whose answer is not the product_id asked for (nor empty) is a failure row.

        Examples
        --------
        >>> client = opslib.connect(phone="5550000002", password="admin-demo-pass", area_code="1")
        >>> client.products.add({"product_id": "p-lamp-99", "product_secret": "s3cret-s3cret",
        ...     "product_name": "Lamp 99", "category_id": 1, "net_type": "Wi-Fi",
        ...     "node_type": "direct"})["ok"].item()  # doctest: +SKIP
        True
        """
        items, bulk = items_from(products, allowed=ops.ADD_PRODUCT.item_fields, what="products.add")
        for i, item in enumerate(items):
            try:
                self._code_product(item)
            except ValueError as exc:
                raise ValueError(f"products.add: item {i}: {exc}") from None

        op = ops.ADD_PRODUCT

        def send(params: dict[str, Any], mid: str) -> Any:
            return self._session.call(ops.ADD_PRODUCT, params, message_id=mid)

        return run_writes(
            items,
            send,
            schema=S.PRODUCT_WRITE_RESULT,
            key=lambda p, _: {"product_id": p.get("product_id")},
            errors=check_errors(errors, bulk=bulk),
            bulk=bulk,
            what="products.add",
            check=lambda item: check_item(self._session.codec, op, item),
        )

    def labels(self) -> dict[str, dict[int, str]]:
        """The platform's labels of a product's coded fields, by field (its dialect's, else
        opslib's): what :meth:`add` and a desired-state file accept beside the codes.
        Makes no request.

        Returns
        -------
        dict
            ``{"net_type": {1: "Wi-Fi", ...}, "encrypt_type": ..., "node_type": ...,
            "status": ..., "popular": ...}``.

        Examples
        --------
        >>> client.products.labels()["net_type"][1]  # doctest: +SKIP
        'Wi-Fi'
        """
        labels = self._session.codec.labels
        return {
            name: dict(labels("product_status" if name == "status" else name, enum))
            for name, enum in _CODED.items()
        }

    def _code_product(self, item: dict[str, Any]) -> None:
        """``item``'s coded fields as the platform's codes (changed in place)."""
        for name, enum in _CODED.items():
            if name in item:
                key = "product_status" if name == "status" else name
                item[name] = self._code(item[name], enum, name, key)
        if "vendor_type" in item:
            item["vendor_type"] = self._session.codec.vendor_type_code(item["vendor_type"])

    def delete(
        self,
        product_ids: str | Iterable[str] | pd.Series | pd.DataFrame,
        *,
        errors: str | None = None,
    ) -> pd.DataFrame:
        """Delete products (``/product/delete``, admin only), one call per id.

        A product still used by devices is refused (Conflict).

        Parameters
        ----------
        product_ids
            One id, or a list / Series of ids, or a DataFrame with a product_id column
            (``client.products.list()`` filtered). An id that is not a non-empty string
            (None, NaN, a number) raises ValueError naming it before anything is sent.
        errors
            "raise" or "collect"; default "raise" for one id, "collect" for many.

        Returns
        -------
        pandas.DataFrame
            One row per id: product_id, ok, error_code, error_msg, message_id.

        Examples
        --------
        >>> client = opslib.connect(phone="5550000002", password="admin-demo-pass", area_code="1")
        >>> client.products.delete(["p-lamp-99"])["ok"].tolist()  # doctest: +SKIP
        [True]
        """
        ids, bulk = ids_from(product_ids, key="product_id", what="products.delete")
        items = [{"product_id": p} for p in ids]

        op = ops.DELETE_PRODUCT

        def send(params: dict[str, Any], mid: str) -> Any:
            return self._session.call(ops.DELETE_PRODUCT, params, message_id=mid)

        return run_writes(
            items,
            send,
            schema=S.PRODUCT_WRITE_RESULT,
            key=lambda p, _: {"product_id": p["product_id"]},
            errors=check_errors(errors, bulk=bulk),
            bulk=bulk,
            what="products.delete",
            check=lambda item: check_item(self._session.codec, op, item),
        )
