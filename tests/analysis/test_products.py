"""opslib.analysis.products: the desired-state file checked cell by cell, and the plan."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from opslib import analysis

from .frames import CATEGORIES, make_devices, products


def csv_frame(text: str) -> pd.DataFrame:
    import io

    return analysis.read_product_file(io.StringIO(text))


def test_validate_product_file_accepts_numbers_and_labels() -> None:
    raw = csv_frame(
        "product_id,product_name,category_id,net_type,node_type,encrypt_type,status,product_secret\n"
        "p-lamp,Lamp,1,1,1,TLS,released,lamp-secret-1\n"
        "p-hub,Hub,2,Ethernet,gateway,,,hub-secret-1\n"
    )
    check = analysis.validate_product_file(raw, CATEGORIES)
    assert check.ok
    desired = check.desired.set_index("product_id")
    assert desired.loc["p-lamp", "encrypt_type"] == 2
    assert desired.loc["p-lamp", "status"] == 1
    assert desired.loc["p-hub", "net_type"] == 5
    assert desired.loc["p-hub", "node_type"] == 2
    assert desired.loc["p-hub", "status"] == 0  # default
    assert str(check.desired["category_id"].dtype) == "Int64"


def test_validate_product_file_names_each_problem_by_row_and_column() -> None:
    raw = csv_frame(
        "product_id,product_name,category_id,net_type,node_type,colour,product_secret\n"
        "p-ok,Fine,1,1,1,red,long-enough-secret\n"
        "bad id!,Lamp,9,7,1,red,short\n"
        "p-ok,,x,1,4,red,\n"
    )
    check = analysis.validate_product_file(raw, CATEGORIES)
    assert not check.ok
    found = {(r.row if r.row is not pd.NA else None, r.column) for r in check.problems.itertuples()}
    assert found == {
        (None, "colour"),
        (2, "product_id"),
        (2, "category_id"),
        (2, "net_type"),
        (2, "product_secret"),
        (3, "product_id"),
        (3, "product_name"),
        (3, "category_id"),
        (3, "node_type"),
    }
    problems = check.problems.set_index(["row", "column"])
    assert (
        "unknown category; known: 1 (lighting), 2 (sockets)"
        in problems.loc[(2, "category_id"), "problem"]
    )
    assert "not one of 1 (Wi-Fi)" in problems.loc[(2, "net_type"), "problem"]
    assert problems.loc[(3, "product_id"), "problem"] == "duplicate product_id, first on row 1"
    assert problems.loc[(3, "category_id"), "problem"] == "not an integer"
    assert problems.loc[(2, "product_secret"), "value"] == analysis.SECRET_MASK
    assert list(check.problems["line"].dropna())[:1] == [1]
    assert list(check.desired["product_id"]) == ["p-ok"]


def test_validate_product_file_reports_missing_required_columns() -> None:
    check = analysis.validate_product_file(csv_frame("product_id,product_name\np1,One\n"))
    missing = check.problems[check.problems["problem"] == "required column is missing"]
    assert set(missing["column"]) == {"category_id", "net_type", "node_type"}


def test_plan_products_adds_deletes_replaces_and_blocks() -> None:
    current = products(
        {
            "product_id": "p-keep",
            "product_name": "Keep",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
        {
            "product_id": "p-old",
            "product_name": "Old",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
        {
            "product_id": "p-used",
            "product_name": "Used",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
        {
            "product_id": "p-edit",
            "product_name": "Edit",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
        {
            "product_id": "p-busy",
            "product_name": "Busy",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
    )
    raw = csv_frame(
        "product_id,product_name,category_id,net_type,node_type,status,product_secret\n"
        "p-keep,Keep,1,1,1,1,\n"
        "p-edit,Edited,1,1,1,1,edit-secret-1\n"
        "p-busy,Busy,2,1,1,1,busy-secret-1\n"
        "p-new,New,2,3,3,0,new-secret-12\n"
        "p-nosecret,No secret,2,3,3,0,\n"
    )
    check = analysis.validate_product_file(raw, CATEGORIES)
    assert check.ok, check.problems
    devices = make_devices()
    devices["product_id"] = ["p-used", "p-busy", "p-busy", "x", "x", "x", "x", "x"]
    plan = analysis.plan_products(check.desired, current, devices=devices).set_index("product_id")
    assert plan["action"].to_dict() == {
        "p-new": "add",
        "p-nosecret": "add",
        "p-busy": "replace",
        "p-edit": "replace",
        "p-old": "delete",
        "p-used": "delete",
        "p-keep": "unchanged",
    }
    assert plan.loc["p-edit", "changes"] == "product_name: 'Edit' → 'Edited'"
    assert plan.loc["p-busy", "changes"] == "category_id: 1 → 2"
    assert not plan.loc["p-edit", "blocked"]
    assert "delete, then add" in plan.loc["p-edit", "note"]
    assert plan.loc["p-busy", "blocked"]
    assert plan.loc["p-busy", "devices"] == 2
    assert "refuses to delete it (409)" in plan.loc["p-busy", "note"]
    assert plan.loc["p-used", "blocked"]
    assert not plan.loc["p-old", "blocked"]
    assert plan.loc["p-nosecret", "blocked"]
    assert "product_secret" in plan.loc["p-nosecret", "note"]
    assert "product_secret" not in plan.columns


# --- a column left out means "keep"; the platform's products as a ready file ---------------

ICON = "https://cdn.example/p.png"
PLATFORM = products(
    {"product_id": "p-lamp", "product_name": "Lamp", "category_id": 1, "net_type": 1,
     "node_type": 1, "encrypt_type": 2, "product_icon": ICON, "vendor_type": 7},
    {"product_id": "p-hub", "product_name": "Hub", "category_id": 2, "net_type": 5,
     "node_type": 2, "status": 0, "popular": 1},
)  # fmt: skip


def test_a_column_left_out_plans_no_change() -> None:
    raw = csv_frame(
        "product_id,product_name,category_id,net_type,node_type\n"
        "p-lamp,Lamp,1,Wi-Fi,direct\np-hub,Hub,2,Ethernet,gateway\n"
    )
    check = analysis.validate_product_file(raw, CATEGORIES)
    assert check.ok, check.problems
    assert check.desired["product_icon"].isna().all()  # left out: keep
    plan = analysis.plan_products(check.desired, PLATFORM)
    assert list(plan["action"]) == ["unchanged", "unchanged"]


def test_a_column_that_is_there_is_compared_even_when_empty() -> None:
    raw = csv_frame(
        "product_id,product_name,category_id,net_type,node_type,product_icon\n"
        "p-lamp,Lamp,1,1,1,\np-hub,Hub,2,5,2,\n"
    )
    plan = analysis.plan_products(analysis.validate_product_file(raw).desired, PLATFORM)
    lamp = plan.set_index("product_id").loc["p-lamp"]
    assert lamp["action"] == "replace"
    assert lamp["changes"] == f"product_icon: '{ICON}' → ''"


def test_desired_state_plans_nothing_against_the_same_products() -> None:
    rows = analysis.desired_state(PLATFORM)
    assert list(rows.columns) == list(analysis.PRODUCT_COLUMNS)
    lamp = rows.set_index("product_id").loc["p-lamp"]
    assert lamp["net_type"] == "Wi-Fi"  # coded fields by their labels
    assert lamp["encrypt_type"] == "TLS"
    assert lamp["product_secret"] == ""  # the platform never shows it
    text = rows.to_csv(index=False)
    check = analysis.validate_product_file(csv_frame(text), CATEGORIES)
    assert check.ok, check.problems
    plan = analysis.plan_products(check.desired, PLATFORM)
    assert list(plan["action"]) == ["unchanged", "unchanged"]
    assert not plan["blocked"].any()


def test_keep_current_fills_what_the_file_leaves_out() -> None:
    raw = csv_frame("product_id,product_name,category_id,net_type,node_type\np-lamp,Lamp 2,1,1,1\n")
    desired = analysis.validate_product_file(raw).desired
    kept = analysis.keep_current(desired, PLATFORM).iloc[0]
    assert kept["product_name"] == "Lamp 2"  # what the file says wins
    assert kept["product_icon"] == ICON
    assert kept["vendor_type"] == 7
    assert kept["encrypt_type"] == 2


def test_every_label_the_protocol_shows_is_accepted_with_synonyms() -> None:
    raw = csv_frame(
        "product_id,product_name,category_id,net_type,node_type,encrypt_type,product_secret\n"
        "p-1,One,1,wifi,sub-device,aes-128,secret-0001\n"
        "p-2,Two,1,Wi-Fi,3 sub-device,AES_128,secret-0002\n"
        "p-3,Three,1,1 Wi-Fi,Sub Device,0 none,secret-0003\n"
        "p-4,Four,1,2 Wi-Fi,sub_device,none,secret-0004\n"
    )
    check = analysis.validate_product_file(raw, CATEGORIES)
    desired = check.desired.set_index("product_id")
    assert list(desired["node_type"]) == [3, 3, 3]
    assert list(desired["net_type"]) == [1, 1, 1]
    assert list(desired["encrypt_type"]) == [1, 1, 0]
    # a number and a label that disagree are refused, naming the row and column
    (problem,) = check.problems.to_dict("records")
    assert (problem["row"], problem["column"], problem["value"]) == (4, "net_type", "2 Wi-Fi")
    assert check.refused_ids == ("p-4",)


def test_a_file_that_is_not_a_table_is_named_with_its_line(tmp_path: Path) -> None:
    header = "product_id,product_name,category_id,net_type,node_type\n"
    for text, said in [
        # A comma in an unquoted cell: pandas made the first column the index and read
        # the rest one column to the left ("category_id 'Wi-Fi' is not an integer").
        (header + "p-1,Lamp, large,1,Wi-Fi,direct\n", "line 2 has 6 fields where the header has 5"),
        (header + "p-1,Lamp,1,Wi-Fi,direct\np-2,Lamp 2,1\n", "line 3 has 3 fields"),
        ("product_id;product_name\np-1;Lamp\n", "fields separated by ';'"),
        ("product_id,product_id\np-1,p-2\n", "the header names product_id more than once"),
        ("", "is empty: a CSV file starts with its header line (product_id,product_name"),
    ]:
        path = tmp_path / "products.csv"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=re.escape(said)):
            analysis.read_product_file(path)
    path.write_bytes((header + "p-1,Café,1,Wi-Fi,direct\n").encode("cp1252"))
    with pytest.raises(ValueError, match=r"products.csv is not UTF-8 text \(byte 0xe9 at"):
        analysis.read_product_file(path)
    quoted = header + '\ufeffp-1,"Lamp, large",1,Wi-Fi,direct\n\n  p-2,"Two\r\nlines",1,1,1\n'
    path.write_text("\ufeff" + quoted.replace("\ufeff", ""), encoding="utf-8", newline="")
    raw = analysis.read_product_file(path)
    assert raw["product_name"].tolist() == ["Lamp, large", "Two\r\nlines"]
    assert raw["product_id"].tolist() == ["p-1", "p-2"]  # the BOM, the blank line and the
    assert list(raw.columns) == header.strip().split(",")  # space after a comma: gone
