"""client.products on the real platform: categories, products, bulk add and delete."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest

import opslib
from client.resources.dialected import empty, error_code, fleet_devices, product_fields
from opslib.client.frames import schema as S

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def assert_schema(df: pd.DataFrame, schema: S.FrameSchema, platform: ServedPlatform) -> None:
    assert list(df.columns) == list(schema.dtypes())
    assert df.dtypes.to_dict() == empty(schema, platform).dtypes.to_dict()


def new_product(platform: ServedPlatform, product_id: str, **over: object) -> dict[str, object]:
    return {
        "product_id": product_id,
        "product_secret": "product-secret-1",
        "product_name": f"Product {product_id}",
        "category_id": 1,
        "net_type": "Wi-Fi",
        **product_fields(platform, **over),
    }


def test_categories(platform: ServedPlatform) -> None:
    df = platform.connect("user").products.categories()
    assert_schema(df, S.CATEGORY, platform)
    assert str(df["category_id"].dtype) == "Int64"
    assert df["category_id"].is_monotonic_increasing
    assert df["category_name"].iloc[0] == "Lighting"


def test_list_one_category(platform: ServedPlatform) -> None:
    df = platform.connect("user").products.list(1)
    assert_schema(df, S.PRODUCT, platform)
    assert len(df) > 0
    assert set(df["category_id"]) == {1}
    assert set(df["category_name"]) == {"Lighting"}
    assert df["product_id"].is_monotonic_increasing
    assert str(df["net_type"].dtype) == "Int64"
    assert str(df["net_type_name"].dtype) == "category"
    assert str(df["gmt_create"].dtype) == "datetime64[ns, UTC]"
    assert "product_secret" not in df.columns
    categories = platform.connect("user").products.categories()
    first = categories["category_id"].to_numpy()[0]  # numpy's integer, as a frame holds it
    assert platform.connect("user").products.list(first)["category_id"].eq(first).all()


def test_list_every_category(platform: ServedPlatform) -> None:
    client = platform.connect("user")
    df = client.products.list()
    assert_schema(df, S.PRODUCT, platform)
    assert set(df["category_id"]) == set(client.products.categories()["category_id"])
    assert df["product_id"].is_unique
    assert df[["category_id", "product_id"]].equals(
        df[["category_id", "product_id"]].sort_values(
            ["category_id", "product_id"], ignore_index=True
        )
    )
    assert df["category_name"].notna().all()


def test_unknown_category(platform: ServedPlatform) -> None:
    with pytest.raises(opslib.NotFound):
        platform.connect().products.list(999)


def test_add_one_and_delete_it(fresh_platform: ServedPlatform) -> None:
    admin = fresh_platform.connect("admin")
    chint = fresh_platform.dialect == "chint"
    encrypt = "one secret per device" if chint else "TLS"
    df = admin.products.add(
        new_product(fresh_platform, "p-new-1", encrypt_type=encrypt, status="released")
    )
    assert_schema(df, S.PRODUCT_WRITE_RESULT, fresh_platform)
    assert df["ok"].tolist() == [True]
    assert df["product_id"].tolist() == ["p-new-1"]
    row = admin.products.list(1).set_index("product_id").loc["p-new-1"]
    assert row["net_type_name"] == "Wi-Fi"
    assert row["encrypt_type_name"] == encrypt
    assert row["status_name"] == "released"
    gone = admin.products.delete("p-new-1")
    assert_schema(gone, S.PRODUCT_WRITE_RESULT, fresh_platform)
    assert gone["ok"].tolist() == [True]
    assert "p-new-1" not in set(admin.products.list(1)["product_id"])


def test_bulk_add_collects_failures_per_row(fresh_platform: ServedPlatform) -> None:
    admin = fresh_platform.connect("admin")
    existing = admin.products.list(1)["product_id"].iloc[0]
    frame = pd.DataFrame(
        [
            new_product(fresh_platform, "p-bulk-1"),
            new_product(fresh_platform, existing),
            new_product(fresh_platform, "p-bulk-2", category_id=999),
        ]
    )
    df = admin.products.add(frame)
    assert_schema(df, S.PRODUCT_WRITE_RESULT, fresh_platform)
    assert df["product_id"].tolist() == ["p-bulk-1", existing, "p-bulk-2"]
    assert df["ok"].tolist() == [True, False, False]
    assert df["error_code"].tolist() == [
        200,
        error_code(fresh_platform, 409),
        error_code(fresh_platform, 404, "product"),
    ]
    assert df["message_id"].is_unique


def test_bulk_add_raise_names_the_rows(fresh_platform: ServedPlatform) -> None:
    admin = fresh_platform.connect("admin")
    existing = admin.products.list(1)["product_id"].iloc[0]
    conflict = error_code(fresh_platform, 409)
    with pytest.raises(
        opslib.BulkWriteError,
        match=rf"1 of 2 rows failed: row 1 \(product_id='{existing}'\): {conflict}",
    ):
        admin.products.add(
            [new_product(fresh_platform, "p-bulk-3"), new_product(fresh_platform, existing)],
            errors="raise",
        )
    assert "p-bulk-3" in set(admin.products.list(1)["product_id"])


def test_add_refuses_unknown_columns_before_sending(platform: ServedPlatform) -> None:
    with pytest.raises(ValueError, match="colour"):
        platform.connect("admin").products.add(new_product(platform, "p-x", colour="red"))
    with pytest.raises(ValueError, match="net_type must be one of"):
        platform.connect("admin").products.add(
            new_product(platform, "p-x", net_type="carrier pigeon")
        )


def test_add_takes_vendor_type_and_popular_by_the_platforms_labels(
    fresh_platform: ServedPlatform,
) -> None:
    """vendor_type and popular are read like the other coded fields: the platform's label
    (chint: "partner ecosystem", "popular") or its code; ours names no vendor types, so an
    integer only."""
    admin = fresh_platform.connect("admin")
    chint = fresh_platform.dialect == "chint"
    labelled = (
        {"vendor_type": "partner ecosystem", "popular": "popular"}
        if chint
        else {
            "vendor_type": 7,
            "popular": "yes",
        }
    )
    coded = {"vendor_type": 1, "popular": 0}  # codes are accepted as well
    added = admin.products.add(
        [
            new_product(fresh_platform, "p-lab-1", **labelled),
            new_product(fresh_platform, "p-lab-2", **coded),
        ]
    )
    assert added["ok"].tolist() == [True, True]
    rows = admin.products.list(1).set_index("product_id")
    assert rows.loc["p-lab-1", ["vendor_type", "popular"]].tolist() == [1 if chint else 7, 1]
    assert rows.loc["p-lab-2", ["vendor_type", "popular"]].tolist() == [1, 0]


@pytest.mark.parametrize(
    ("field", "value", "allowed"),
    [("vendor_type", "nobody", "in-house"), ("popular", "hot", "normal")],
)
def test_add_refuses_a_bad_vendor_type_or_popular_label_before_sending(
    fresh_platform: ServedPlatform, field: str, value: str, allowed: str
) -> None:
    admin = fresh_platform.connect("admin")
    if fresh_platform.dialect != "chint":
        allowed = "integer" if field == "vendor_type" else "no"
    good = new_product(fresh_platform, "p-bad-0")
    bad = new_product(fresh_platform, "p-bad-1", **{field: value})
    with pytest.raises(ValueError, match=rf"item 1: {field}\b.*{allowed}.*'{value}'") as info:
        admin.products.add([good, bad])
    assert field in str(info.value)
    listed = set(admin.products.list(1)["product_id"])
    assert not {"p-bad-0", "p-bad-1"} & listed  # nothing sent, not even the good row


def test_only_admin_adds(platform: ServedPlatform) -> None:
    with pytest.raises(opslib.PermissionDenied):
        platform.connect("ops").products.add(new_product(platform, "p-ops-1"))


def test_bulk_delete(fresh_platform: ServedPlatform) -> None:
    admin = fresh_platform.connect("admin")
    admin.products.add(
        [new_product(fresh_platform, "p-del-1"), new_product(fresh_platform, "p-del-2")]
    )
    in_use = fleet_devices(admin, fresh_platform, limit=1)["product_id"].iloc[0]
    ids = pd.Series(["p-del-1", "p-missing", in_use, "p-del-2"])
    df = admin.products.delete(ids)
    assert_schema(df, S.PRODUCT_WRITE_RESULT, fresh_platform)
    assert df["product_id"].tolist() == ids.tolist()
    assert df["ok"].tolist() == [True, False, False, True]
    assert df["error_code"].tolist() == [
        200,
        error_code(fresh_platform, 404, "product"),
        error_code(fresh_platform, 409),
        200,
    ]
    with pytest.raises(opslib.NotFound):
        admin.products.delete("p-missing")


def test_delete_takes_a_filtered_frame_and_refuses_a_missing_id_before_sending(
    fresh_platform: ServedPlatform,
) -> None:
    admin = fresh_platform.connect("admin")
    admin.products.add(
        [new_product(fresh_platform, "p-del-3"), new_product(fresh_platform, "p-del-4")]
    )
    products = admin.products.list()
    chosen = products[products["product_id"].isin(["p-del-3", "p-del-4"])]
    # Iterating a frame gives its column names: the rows are what is meant.
    assert admin.products.delete(chosen)["ok"].tolist() == [True, True]
    assert not admin.products.list()["product_id"].isin(["p-del-3", "p-del-4"]).any()
    admin.products.add(new_product(fresh_platform, "p-del-5"))
    for ids, said in [
        (["p-del-5", None], "item 1 is None"),  # was sent as the id "None"
        (pd.Series(["p-del-5", float("nan")]), "item 1 is nan"),
        (["p-del-5", 5], "item 1 is 5"),
    ]:
        with pytest.raises(ValueError, match=f"products.delete: {said}; allowed: a product_id"):
            admin.products.delete(ids)
    for wrong in (None, 5, {"product_id": "p-del-5"}):
        with pytest.raises(TypeError, match=r"products\.delete: give a product_id"):
            admin.products.delete(wrong)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="the DataFrame has no product_id column"):
        admin.products.delete(products[["product_name"]])
    assert "p-del-5" in admin.products.list()["product_id"].tolist()  # nothing was deleted


def test_a_product_file_speaks_the_platforms_labels(
    platform: ServedPlatform, tmp_path: Path
) -> None:
    """Exported, checked and planned against the same platform, a desired-state file
    plans nothing, under every dialect: its coded cells are the platform's labels (chint's
    Wi-Fi is 0, ours 1; its encrypt_type 1 is "one secret per device")."""
    from opslib.reports import product_upkeep

    admin = platform.connect("admin")
    labels = admin.products.labels()
    products = admin.products.list()
    for name in ("net_type", "encrypt_type", "node_type", "status", "popular"):  # the frame's
        pairs = products[[name, f"{name}_name"]].dropna().drop_duplicates()
        assert all(labels[name][int(c)] == str(n) for c, n in pairs.itertuples(index=False))
    path = tmp_path / "products.csv"
    assert product_upkeep.export_products(admin, path) == len(products)
    check = product_upkeep.check_file(str(path), admin.products.categories(), labels)
    assert check is not None
    assert check.problems.empty, check.problems.to_string()
    plan = product_upkeep.plan_for(check, products, None)
    assert set(plan["action"]) == {"unchanged"}
    wifi = next(code for code, label in labels["net_type"].items() if label == "Wi-Fi")
    assert check.desired["net_type"].eq(wifi).any()  # "Wi-Fi" read as the platform's code
