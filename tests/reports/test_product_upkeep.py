"""Product upkeep against a platform of each test's own: dry run, apply, refusal, form."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from opslib import analysis, widgets
from opslib.reports import RunResult, run_report
from opslib.reports.product_upkeep import apply_plan

from .runs import CELL_TIMEOUT, RUN_TIMEOUT, platform_env
from .test_platform import write_config

FIELDS = [
    "product_id", "product_name", "category_id", "net_type", "node_type", "encrypt_type",
    "status", "popular", "vendor_type", "product_icon", "product_secret",
]  # fmt: skip
USED = "p-light-01"  # devices use it: the platform refuses to delete it


def product_rows(client: Any) -> list[dict[str, Any]]:
    """The platform's products as desired-state rows (no secrets: it never shows them)."""
    products = client.products.list()
    return [
        {**{f: r.get(f, "") for f in FIELDS}, "product_secret": ""}
        for r in products.to_dict("records")
    ]


def write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None or v is pd.NA else v) for k, v in row.items()})
    return path


def snapshot(client: Any) -> pd.DataFrame:
    columns = ["product_id", "product_name", "category_id", "net_type", "status"]
    return client.products.list()[columns].sort_values("product_id").reset_index(drop=True)


@pytest.fixture
def admin_platform(platform_factory: Callable[..., Any]) -> Any:
    """A platform of its own with two extra products no device uses."""
    platform = platform_factory()
    admin = platform.connect("admin")
    base = {"category_id": 1, "net_type": "Wi-Fi", "node_type": "direct", "status": 1}
    admin.products.add(
        [
            {
                **base,
                "product_id": "p-test-edit",
                "product_name": "Editable",
                "product_secret": "edit-secret-1",
            },
            {
                **base,
                "product_id": "p-test-drop",
                "product_name": "Droppable",
                "product_secret": "drop-secret-1",
            },
        ]
    )
    return platform


def desired_changes(client: Any) -> list[dict[str, Any]]:
    """The products with: one renamed, one dropped, one in-use dropped, one new."""
    rows = [r for r in product_rows(client) if r["product_id"] not in ("p-test-drop", USED)]
    for row in rows:
        if row["product_id"] == "p-test-edit":
            row.update(product_name="Edited", product_secret="edit-secret-2")
    rows.append(
        {"product_id": "p-test-new", "product_name": "Brand new", "category_id": 2, "net_type": 3,
         "node_type": 3, "encrypt_type": 1, "status": 0, "popular": 0, "vendor_type": 7,
         "product_icon": "", "product_secret": "new-secret-123"}
    )  # fmt: skip
    return rows


def run_upkeep(platform: Any, out: Path, role: str, **params: Any) -> RunResult:
    return run_report(
        "product_upkeep",
        params,
        out_dir=out,
        env=platform_env(platform, role),
        cell_timeout=CELL_TIMEOUT,
        run_timeout=RUN_TIMEOUT,
    )


def test_dry_run_shows_the_plan_and_changes_nothing(admin_platform: Any, tmp_path: Path) -> None:
    admin = admin_platform.connect("admin")
    before = snapshot(admin)
    desired = write_csv(tmp_path / "desired.csv", desired_changes(admin))
    result = run_upkeep(admin_platform, tmp_path / "out", "admin", products_path=str(desired))
    assert result.outcome == "ok", result.summary()
    pd.testing.assert_frame_equal(snapshot(admin), before)
    html = Path(result.html).read_text()
    assert "Dry run: nothing was changed" in html
    assert "Plan: 1 to add, 1 to delete and add again, 2 to delete" in html
    assert "1 blocked" in html
    assert "refuses to delete it (409)" in html
    assert "edit-secret-2" not in html  # secrets never shown
    assert not (tmp_path / "product_audit.csv").exists()


def test_apply_changes_exactly_the_plan_and_keeps_an_audit_log(
    admin_platform: Any, tmp_path: Path
) -> None:
    admin = admin_platform.connect("admin")
    before = snapshot(admin).set_index("product_id")
    desired = write_csv(tmp_path / "desired.csv", desired_changes(admin))
    result = run_upkeep(
        admin_platform, tmp_path / "out", "admin",
        products_path=str(desired), apply=True, allow_delete=True,
    )  # fmt: skip
    # the blocked delete was skipped: partial, never ok
    assert result.outcome == "partial", result.summary()
    using = int((admin.devices.list()["product_id"] == USED).sum())
    assert result.reason == (
        f"In section 'The outcome': 1 of 5 steps skipped (first: delete of {USED}: {using} "
        "device(s) use it: the platform refuses to delete it (409))."
    )
    after = snapshot(admin).set_index("product_id")
    assert "p-test-drop" not in after.index
    assert after.loc["p-test-edit", "product_name"] == "Edited"
    assert after.loc["p-test-new", "product_name"] == "Brand new"
    assert after.loc["p-test-new", "net_type"] == 3
    assert USED in after.index  # blocked: still there, unchanged
    untouched = before.index.difference(["p-test-drop", "p-test-edit"])
    pd.testing.assert_frame_equal(after.loc[untouched], before.loc[untouched])
    assert set(after.index) == set(before.index) - {"p-test-drop"} | {"p-test-new"}
    log = list(csv.DictReader((tmp_path / "product_audit.csv").open()))
    steps = {(r["product_id"], r["action"], r["step"], r["result"]) for r in log}
    assert steps == {
        ("p-test-new", "add", "add", "done"),
        ("p-test-edit", "replace", "delete", "done"),
        ("p-test-edit", "replace", "add", "done"),
        ("p-test-drop", "delete", "delete", "done"),
        (USED, "delete", "delete", "skipped"),
    }
    assert {r["user_id"] for r in log} == {str(admin.user_id)}
    (who,) = {r["who"] for r in log}
    assert re.fullmatch(r".+ \(\d{3}\*+\d{2}\)", who), who  # nick name, masked phone
    assert all(r["when"] for r in log)
    assert "secret" not in (tmp_path / "product_audit.csv").read_text()


def test_apply_without_allow_delete_only_adds(admin_platform: Any) -> None:
    admin = admin_platform.connect("admin")
    check = analysis.validate_product_file(
        pd.DataFrame(desired_changes(admin)).astype(str).replace({"<NA>": "", "None": ""}),
        admin.products.categories(),
    )
    assert check.ok, check.problems
    plan = analysis.plan_products(
        check.desired, admin.products.list(), devices=admin.devices.list()
    )
    outcome = apply_plan(admin, plan, check.desired, allow_delete=False)
    results = {(r.product_id, r.step): r.result for r in outcome.itertuples()}
    assert results[("p-test-new", "add")] == "done"
    assert results[("p-test-drop", "delete")] == "skipped"
    assert results[("p-test-edit", "delete")] == "skipped"
    assert "p-test-drop" in set(admin.products.list()["product_id"])


def test_a_bad_file_is_refused_row_by_row_and_nothing_changes(
    admin_platform: Any, tmp_path: Path
) -> None:
    admin = admin_platform.connect("admin")
    before = snapshot(admin)
    rows = desired_changes(admin)
    rows[0]["net_type"] = "carrier pigeon"
    rows[1]["category_id"] = 99
    rows.append(dict(rows[2]))  # a duplicate product_id
    desired = write_csv(tmp_path / "bad.csv", rows)
    result = run_upkeep(
        admin_platform, tmp_path / "out", "admin",
        products_path=str(desired), apply=True, allow_delete=True,
    )  # fmt: skip
    assert result.outcome == "failed"
    assert result.error is not None
    assert result.error["ename"] == "ProductFileRefused"
    assert "3 problems" in result.error["evalue"]
    pd.testing.assert_frame_equal(snapshot(admin), before)
    html = Path(result.html).read_text()
    assert "not one of 1 (Wi-Fi)" in html
    assert "unknown category; known: 1 (Lighting)" in html
    assert "duplicate product_id, first on row 3" in html
    assert not (tmp_path / "product_audit.csv").exists()


def test_the_form_adds_and_deletes_after_confirmation_on_the_platform(
    admin_platform: Any, tmp_path: Path
) -> None:
    from opslib.reports.product_upkeep import form_audit

    admin = admin_platform.connect("admin")
    log = tmp_path / "audit.csv"
    form = widgets.ProductForm(
        admin, admin.products.categories(), admin.products.list(),
        on_write=form_audit(log, who="Admin desk (555*****09)", user_id=admin.user_id),
        account="Admin desk (555*****09), role admin", role="admin",
    )  # fmt: skip
    form.fields["product_id"].value = "p-form-1"
    form.fields["product_name"].value = "From the form"
    form.fields["product_secret"].value = "form-secret-1"
    form.fields["net_type"].value = 2
    form.add_button.click()
    assert bool(form.last_result["ok"].iloc[0]), form.message.value
    added = admin.products.list().set_index("product_id").loc["p-form-1"]
    assert added["net_type"] == 2
    # The product just added is offered for deletion (it was not until the notebook ran again).
    assert "p-form-1" in form.delete_product.options
    form.delete_product.value = USED
    form.delete_button.click()
    form.confirm_button.click()
    assert "refused (409)" in form.message.value
    assert USED in set(admin.products.list()["product_id"])
    form.delete_product.value = "p-form-1"
    form.delete_button.click()
    assert "p-form-1" in set(admin.products.list()["product_id"])  # not before confirming
    form.confirm_button.click()
    assert "p-form-1" not in set(admin.products.list()["product_id"])
    assert "p-form-1" not in form.delete_product.options  # deleted: no second try, no 404
    log_rows = list(csv.DictReader(log.open()))
    assert [(r["product_id"], r["result"]) for r in log_rows] == [
        ("p-form-1", "done"), (USED, "failed"), ("p-form-1", "done"),
    ]  # fmt: skip


# --- from the current products to a plan of nothing; honest outcomes of an apply ----------


def test_export_then_upkeep_from_the_same_directory_plans_nothing(
    admin_platform: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "OPSLIB_CONFIG", str(write_config(tmp_path / "config.toml", admin_platform, role="admin"))
    )
    here = tmp_path / "pm"
    here.mkdir()

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "opslib.cli", *args]
        return subprocess.run(command, cwd=here, capture_output=True, text=True, check=False)

    exported = cli("products", "export", "products.csv", "--profile", "staging")
    assert exported.returncode == 0, exported.stderr
    count = len(admin_platform.connect("admin").products.list())
    assert exported.stdout.startswith(f"{count} products of profile 'staging' (")
    rows = list(csv.DictReader((here / "products.csv").open()))
    assert len(rows) == count
    assert {r["product_secret"] for r in rows} == {""}
    again = cli("products", "export", "products.csv", "--profile", "staging")
    assert again.returncode == 2
    assert "products.csv exists; pass --force to overwrite it" in again.stderr
    assert (
        cli("products", "export", "products.csv", "--force", "--profile", "staging").returncode == 0
    )
    nothing = cli("products", "export", "p.csv")
    assert nothing.returncode == 2
    assert "no platform configured" in nothing.stderr
    assert not (here / "p.csv").exists()

    run = cli(
        "report", "run", "product_upkeep", "-p", "products_path", "products.csv",
        "--profile", "staging", "--out", "out",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    html = next((here / "out" / "product_upkeep").glob("*/product_upkeep.html")).read_text()
    assert f"Plan: 0 to add, 0 to delete and add again, 0 to delete, {count} unchanged." in html
    assert "blocked" not in html.split("Plan:")[1].split("</p>")[0]


class FailAdds:
    """The platform's ASGI app, except that adding one product answers 409 (a fault)."""

    def __init__(self, app: Any, product_id: str) -> None:
        self.app, self.product_id = app, product_id

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/product/add":
            return await self.app(scope, receive, send)
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        if self.product_id.encode() not in body:

            async def replay() -> dict[str, Any]:
                return {"type": "http.request", "body": body, "more_body": False}

            return await self.app(scope, replay, send)
        answer = {
            "error_code": 409, "message_id": json.loads(body)["message_id"],
            "error_msg": "product_id: injected failure", "data": {},
        }  # fmt: skip
        await send(
            {"type": "http.response.start", "status": 409,
             "headers": [(b"content-type", b"application/json")]}
        )  # fmt: skip
        await send({"type": "http.response.body", "body": json.dumps(answer).encode()})
        return None


def test_an_apply_with_failed_writes_is_partial_with_exit_1(
    platform_factory: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from opslib.server import runner

    real = runner.create_app
    monkeypatch.setattr(
        runner, "create_app", lambda db, **kw: FailAdds(real(db, **kw), "p-test-fail")
    )
    faulty = platform_factory()
    admin = faulty.connect("admin")
    rows = product_rows(admin)
    new = {"category_id": 1, "net_type": 1, "node_type": 1, "product_icon": ""}
    rows.append({**new, "product_id": "p-test-ok", "product_name": "Fine",
                 "product_secret": "fine-secret-1"})  # fmt: skip
    rows.append({**new, "product_id": "p-test-fail", "product_name": "Refused",
                 "product_secret": "fail-secret-1"})  # fmt: skip
    desired = write_csv(tmp_path / "desired.csv", rows)
    result = run_upkeep(faulty, tmp_path / "out", "admin", products_path=str(desired), apply=True)
    assert result.outcome == "partial", result.summary()
    assert result.reason == (
        "In section 'The outcome': 1 of 2 product writes failed (first: add of p-test-fail: 409 "
        "product_id: injected failure)."
    )
    assert "p-test-ok" in set(admin.products.list()["product_id"])
    status = json.loads((Path(result.run_dir) / "status.json").read_text())
    assert status["outcome"] == "partial"
    assert status["reason"] == result.reason
