"""Product categories and products."""

from __future__ import annotations

import sqlite3
from typing import Any

from opslib.server.store._rows import Row, all_rows, one, scalar

PRODUCT_PUBLIC_COLUMNS = (
    "product_id, product_name, product_icon, category_id, vendor_type, net_type,"
    " encrypt_type, node_type, status, popular, gmt_create, gmt_modified"
)


def list_categories(conn: sqlite3.Connection) -> list[Row]:
    return all_rows(
        conn,
        "SELECT category_id, category_name, category_icon FROM categories ORDER BY category_id",
    )


def get_category(conn: sqlite3.Connection, *, category_id: int) -> Row | None:
    return one(conn, "SELECT * FROM categories WHERE category_id = ?", (category_id,))


def insert_category(
    conn: sqlite3.Connection, *, category_id: int, category_name: str, category_icon: str = ""
) -> None:
    conn.execute(
        "INSERT INTO categories (category_id, category_name, category_icon) VALUES (?, ?, ?)",
        (category_id, category_name, category_icon),
    )


def list_products(conn: sqlite3.Connection, *, category_id: int) -> list[Row]:
    """The category's products without their secrets, ordered by product_id."""
    return all_rows(
        conn,
        f"SELECT {PRODUCT_PUBLIC_COLUMNS} FROM products WHERE category_id = ? ORDER BY product_id",
        (category_id,),
    )


def get_product(conn: sqlite3.Connection, *, product_id: str) -> Row | None:
    return one(conn, "SELECT * FROM products WHERE product_id = ?", (product_id,))


def insert_product(conn: sqlite3.Connection, *, product: dict[str, Any], now: int) -> None:
    """Insert ``product`` (column -> value, secret already hashed as ``secret_hash``)."""
    columns = sorted(product)
    conn.execute(
        f"INSERT INTO products ({', '.join(columns)}, gmt_create, gmt_modified)"
        f" VALUES ({', '.join('?' for _ in columns)}, ?, ?)",
        (*[product[c] for c in columns], now, now),
    )


def delete_product(conn: sqlite3.Connection, *, product_id: str) -> None:
    conn.execute("DELETE FROM products WHERE product_id = ?", (product_id,))


def product_in_use(conn: sqlite3.Connection, *, product_id: str) -> bool:
    return (
        scalar(conn, "SELECT 1 FROM devices WHERE product_id = ? LIMIT 1", (product_id,))
        is not None
    )
