"""opslib.server.store.products: categories and products on a real SQLite file."""

from __future__ import annotations

import sqlite3

from opslib.server.store import products


def test_categories_read_back_in_order(conn: sqlite3.Connection) -> None:
    listed = products.list_categories(conn)
    assert [c["category_id"] for c in listed] == [1, 2, 3]
    assert listed[0] == {"category_id": 1, "category_name": "Lighting", "category_icon": "i1"}
    assert products.get_category(conn, category_id=3) == {
        "category_id": 3,
        "category_name": "Empty",
        "category_icon": "",
    }
    assert products.get_category(conn, category_id=99) is None


def test_a_listing_never_shows_the_secret(conn: sqlite3.Connection) -> None:
    listed = products.list_products(conn, category_id=2)
    assert [p["product_id"] for p in listed] == ["p-plug", "p-spare"]
    assert all("secret_hash" not in p for p in listed)
    assert products.list_products(conn, category_id=3) == []
    one = products.get_product(conn, product_id="p-plug")
    assert one is not None
    assert len(one["secret_hash"]) == 64  # get_product is for the platform's own checks


def test_insert_then_delete_a_product(conn: sqlite3.Connection) -> None:
    product = {
        "product_id": "p-new",
        "secret_hash": "0" * 64,
        "product_name": "New",
        "category_id": 3,
        "net_type": 2,
        "node_type": 1,
    }
    products.insert_product(conn, product=product, now=1234)
    stored = products.get_product(conn, product_id="p-new")
    assert stored is not None
    assert (stored["gmt_create"], stored["gmt_modified"], stored["net_type"]) == (1234, 1234, 2)
    assert [p["product_id"] for p in products.list_products(conn, category_id=3)] == ["p-new"]
    products.delete_product(conn, product_id="p-new")
    assert products.get_product(conn, product_id="p-new") is None


def test_a_product_is_in_use_while_a_device_has_it(conn: sqlite3.Connection) -> None:
    assert products.product_in_use(conn, product_id="p-lamp")  # bound and unbound devices
    assert products.product_in_use(conn, product_id="p-plug")
    assert not products.product_in_use(conn, product_id="p-spare")
    assert not products.product_in_use(conn, product_id="p-none")
