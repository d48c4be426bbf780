"""product_upkeep read top-down at 1,000 px: the outcome and the counts first, only the
rows that change, nothing wider than the page, successes without codes, and the command
line of the next step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reports.more_fixtures import more_report_runs  # noqa: F401 - the fixture
from reports.more_runs import NEW_PRODUCT, RENAMED

from opslib.reports import RunResult

from .pages import FIRST_SCREEN, TABLES, column, open_report

OVERFLOW = """() => ({page: document.documentElement.scrollWidth,
  tables: [...document.querySelectorAll('table.opslib-table')].map(
    t => t.parentElement.scrollWidth - t.parentElement.clientWidth)})"""


def test_a_plan_reads_top_down_and_fits_the_page(
    chromium: Any,
    more_report_runs: dict[str, RunResult],  # noqa: F811
    tmp_path: Path,
) -> None:
    result = more_report_runs["upkeep_problems"]
    page = open_report(chromium, result.html, width=1000)
    first = page.evaluate(FIRST_SCREEN)
    counts = {card["label"]: card["value"] for card in first["cards"]}
    assert counts["problems in the file"] == "2"
    assert counts["to delete and add again"] == "1"
    assert counts["to add"] == "1"
    assert "the desired-state file has 2 problems in 2 rows" in first["problem"].lower()
    width = page.evaluate(OVERFLOW)
    assert width["page"] <= 1000, width  # nothing wider than the page
    assert all(extra <= 1 for extra in width["tables"]), width  # no column cut off
    tables = page.evaluate(TABLES)
    plan = next(t for t in tables if "action" in t["head"])
    assert sorted(column(plan, "product id")) == sorted([NEW_PRODUCT, RENAMED])  # changes only
    outcome = page.get_by_text("Dry run: nothing was changed.")
    assert outcome.bounding_box()["y"] < plan["top"]  # the outcome before any table
    text = page.inner_text("body")
    assert "unchanged, not listed" in text
    assert "nothing can be applied until every problem is fixed" in text
    assert "apply=True" not in text
    page.screenshot(path=str(tmp_path / "plan.png"), full_page=True)


def test_an_apply_says_what_it_did_and_what_to_run_next(
    chromium: Any,
    more_report_runs: dict[str, RunResult],  # noqa: F811
    tmp_path: Path,
) -> None:
    result = more_report_runs["upkeep_apply"]
    page = open_report(chromium, result.html, width=1000)
    first = page.evaluate(FIRST_SCREEN)
    counts = {card["label"]: card["value"] for card in first["cards"]}
    assert counts == {"changes done": "1", "failed": "0", "skipped": "1"}
    done = next(t for t in page.evaluate(TABLES) if "step" in t["head"])
    rows = dict(zip(column(done, "product id"), column(done, "result"), strict=True))
    assert rows == {NEW_PRODUCT: "done", RENAMED: "skipped"}
    codes = dict(zip(column(done, "product id"), column(done, "error code"), strict=True))
    assert codes[NEW_PRODUCT] == ""  # a success without its code
    text = page.inner_text("body")
    assert (
        "opslib report run product_upkeep -p products_path "
        f"{result.parameters['products_path']} -p apply true -p allow_delete true"
    ) in text  # the command line of the next step
    assert "--demo --as admin" in text
    assert page.evaluate(OVERFLOW)["page"] <= 1000
    page.screenshot(path=str(tmp_path / "apply.png"), full_page=True)
