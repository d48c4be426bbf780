"""opslib.reports.product_upkeep without a platform: a preview plan, the audit log's place."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd
import pytest
from analysis.frames import CATEGORIES, products

from opslib import analysis
from opslib.reports import product_upkeep

CURRENT = products(
    {"product_id": "p-a", "product_name": "A", "category_id": 1, "net_type": 1, "node_type": 1},
    {"product_id": "p-b", "product_name": "B", "category_id": 1, "net_type": 1, "node_type": 1},
    {"product_id": "p-c", "product_name": "C", "category_id": 1, "net_type": 1, "node_type": 1},
)


def test_the_valid_rows_are_planned_even_when_other_rows_have_problems() -> None:
    raw = analysis.read_product_file(
        io.StringIO(
            "product_id,product_name,category_id,net_type,node_type\n"
            "p-a,A renamed,1,1,1\n"
            "p-b,B,1,nonsense,1\n"  # a problem: p-b must be neither changed nor deleted
            "p-n,New,1,1,1\n"
        )
    )
    check = analysis.validate_product_file(raw, CATEGORIES)
    assert not check.ok
    plan = product_upkeep.plan_for(check, CURRENT, CURRENT.iloc[0:0])
    actions = dict(zip(plan["product_id"], plan["action"], strict=True))
    assert actions == {"p-a": "replace", "p-n": "add", "p-c": "delete"}
    summary = product_upkeep.plan_summary(plan, check)
    assert summary.startswith("Preview of 2 valid rows; 1 row with problems left out")
    assert "nothing can be applied until the file is clean" in summary
    assert product_upkeep.plan_table(plan) is not None
    with pytest.raises(product_upkeep.ProductFileRefused):
        product_upkeep.apply_if_asked(
            None, check, plan, apply=True, allow_delete=True, audit_log=Path("unused.csv")
        )


def test_the_next_step_runs_on_the_runs_own_platform_when_its_account_is_an_admin() -> None:
    # Before: "To apply it: `...` as an admin (`--profile ADMIN`, ...)" after a dry run
    # already made with an admin profile: a placeholder where the profile was known.
    from opslib.reports.platform import Platform

    raw = analysis.read_product_file(
        io.StringIO("product_id,product_name,category_id,net_type,node_type\np-n,New,1,1,1\n")
    )
    check = analysis.validate_product_file(raw, CATEGORIES)
    plan = product_upkeep.plan_for(check, CURRENT, CURRENT.iloc[0:0])

    def next_step(platform: Platform | None) -> str:
        text = product_upkeep.outcome_text(
            check, plan, None, products_path="p.csv", apply=False, allow_delete=False,
            platform=platform,
        )  # fmt: skip
        return text.split("To apply it: ")[1]

    command = "opslib report run product_upkeep -p products_path p.csv -p apply true"
    assert next_step(Platform(profile="prod", role="admin")).startswith(
        f"`{command} -p allow_delete true --profile prod`;"
    )
    assert next_step(Platform(demo=True, role="admin")).startswith(
        f"`{command} -p allow_delete true --demo --as admin`;"
    )
    for ops in (Platform(profile="prod", role="ops"), None):  # the admin is another account
        assert "` as an admin (`--profile ADMIN`" in next_step(ops)


def test_no_file_shows_a_sentence_not_an_empty_table() -> None:
    plan = product_upkeep.plan_for(None, CURRENT, CURRENT.iloc[0:0])
    assert plan.empty
    assert "nothing to plan" in product_upkeep.plan_summary(plan, None)
    shown = product_upkeep.plan_table(plan)._repr_html_()
    assert shown == '<p class="opslib-empty"><em>No plan: no desired-state file was given.</em></p>'


def test_the_audit_log_never_lands_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert product_upkeep.audit_path("", "") == tmp_path / "state" / "opslib" / "product_audit.csv"
    beside = product_upkeep.audit_path("", str(tmp_path / "data" / "products.csv"))
    assert beside == tmp_path / "data" / "product_audit.csv"


def test_audit_rows_name_the_action_the_step_and_the_person(tmp_path: Path) -> None:
    outcome = pd.DataFrame(
        [
            {
                "product_id": "p-a",
                "action": "replace",
                "step": "delete",
                "result": "done",
                "error_code": None,
                "error_msg": "",
                "message_id": "m1",
            },
            {
                "product_id": "p-a",
                "action": "replace",
                "step": "add",
                "result": "failed",
                "error_code": 400,
                "error_msg": "bad",
                "message_id": "m2",
            },
        ]
    ).astype({"error_code": "Int64"})
    log = tmp_path / "audit.csv"
    product_upkeep.append_audit_log(log, outcome, who="Ada (555*****01)", user_id="u-1")
    rows = list(csv.DictReader(log.open()))
    assert [(r["action"], r["step"], r["who"], r["user_id"]) for r in rows] == [
        ("replace", "delete", "Ada (555*****01)", "u-1"),
        ("replace", "add", "Ada (555*****01)", "u-1"),
    ]
    assert [r["error_code"] for r in rows] == ["", "400"]
    old = tmp_path / "old.csv"
    old.write_text("when,who,action,product_id,result,error_code,error_msg,message_id\n")
    with pytest.raises(ValueError, match="its columns are"):
        product_upkeep.append_audit_log(old, outcome, who="Ada (555*****01)")
    assert old.read_text().count("\n") == 1  # nothing written
