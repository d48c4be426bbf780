"""How the product_upkeep report says what it found and did, top-down: the outcome and the
counts first, with the command line of every next step; then only the rows that change or
have a problem (the unchanged ones behind a count and the plan's CSV); the executed steps
(a success without its code); the products.

:mod:`opslib.reports.product_upkeep` re-exports these for the notebook.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pandas as pd

from opslib.analysis.products import ProductFileCheck
from opslib.csvcells import write_csv
from opslib.reports.platform import Platform

__all__ = [
    "PRODUCT_TABLE_COLUMNS",
    "apply_command",
    "changes_table",
    "check_summary",
    "outcome_table",
    "outcome_text",
    "plan_summary",
    "plan_table",
    "products_after",
]


PRODUCT_TABLE_COLUMNS = [
    "product_id",
    "product_name",
    "category_id",
    "category_name",
    "net_type_name",
    "node_type_name",
    "encrypt_type_name",
    "vendor_type",
    "status_name",
    "popular",
]
"""The product columns the report shows (never the secret)."""


def _count(number: int, noun: str) -> str:
    """``1 row``, ``2 rows``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def apply_command(
    products_path: str, *, allow_delete: bool = False, platform: Platform | None = None
) -> str:
    """The command line that applies the plan of ``products_path``; on the run's own
    platform when its account is an admin (its profile, or the demo platform as admin).

    Examples
    --------
    >>> apply_command("/data/products.csv")
    'opslib report run product_upkeep -p products_path /data/products.csv -p apply true'
    >>> apply_command("p.csv", platform=Platform(profile="prod", role="admin"))
    'opslib report run product_upkeep -p products_path p.csv -p apply true --profile prod'
    """
    words = ["opslib", "report", "run", "product_upkeep", "-p", "products_path", products_path]
    words += ["-p", "apply", "true"]
    if allow_delete:
        words += ["-p", "allow_delete", "true"]
    return shlex.join(words + _where(platform))


def _where(platform: Platform | None) -> list[str]:
    """The options that run on ``platform`` again, when its account may apply."""
    if platform is None or platform.role != "admin":
        return []
    if platform.demo:
        return ["--demo", "--as", "admin"]
    return ["--profile", platform.profile] if platform.profile else []


def _as_admin(platform: Platform | None) -> str:
    if _where(platform):
        return ""
    return " as an admin (`--profile ADMIN`, or `--demo --as admin` on the demo platform)"


def outcome_text(
    check: ProductFileCheck | None,
    plan: pd.DataFrame,
    outcome: pd.DataFrame | None,
    *,
    products_path: str,
    apply: bool,
    allow_delete: bool,
    audit_log: Path | str = "",
    platform: Platform | None = None,
) -> str:
    """The outcome in a few Markdown lines, first on the page, with the command line of
    the next step (on ``platform``, the run's, when its account is an admin).

    Examples
    --------
    >>> outcome_text(None, plan, None, products_path="", apply=False, allow_delete=False)
    ...  # doctest: +SKIP
    'No desired-state file given ...'
    """
    if check is None:
        return (
            "No desired-state file given: nothing to plan. Start from the platform's products "
            "with `opslib products export products.csv`, edit the file, then plan with "
            "`opslib report run product_upkeep -p products_path products.csv`."
        )
    lines = []
    if not check.ok:
        bad = check.problems["row"].dropna().nunique()
        lines.append(
            f"**{_count(len(check.problems), 'problem')}** in {_count(bad, 'row')} of "
            f"`{products_path}` (listed below): nothing can be applied until every problem "
            "is fixed. The plan below is a preview of the valid rows."
        )
    if apply and outcome is not None and len(outcome):
        counts = outcome["result"].value_counts()
        done, failed = int(counts.get("done", 0)), int(counts.get("failed", 0))
        skipped = int(counts.get("skipped", 0))
        lines.append(
            f"**Applied: {done} done, {failed} failed, {skipped} skipped.** Audit log: "
            f"`{audit_log}`."
        )
        waiting = outcome[(outcome["result"] == "skipped") & (outcome["error_msg"].str.contains(
            "allow_delete", na=False))]  # fmt: skip
        if len(waiting):
            lines.append(
                f"{_count(waiting['product_id'].nunique(), 'product')} to delete or to delete "
                "and add again waited for `allow_delete`: "
                f"`{apply_command(products_path, allow_delete=True, platform=platform)}`"
                f"{_as_admin(platform)}."
            )
    elif apply:
        lines.append("**Applied: nothing to change.** The platform already matches the file.")
    else:
        lines.append(f"**Dry run: nothing was changed.** {plan_summary(plan)}")
        changes = int((plan["action"] != "unchanged").sum()) if len(plan) else 0
        if check.ok and changes:
            deletes = bool(plan["action"].isin(["delete", "replace"]).any())
            command = apply_command(products_path, allow_delete=deletes, platform=platform)
            lines.append(
                f"To apply it: `{command}`{_as_admin(platform)}"
                + ("; without `-p allow_delete true` only the adds run." if deletes else ".")
            )
    return "\n\n".join(lines)


def check_summary(check: ProductFileCheck | None, products_path: str) -> str:
    """One Markdown sentence about the validation."""
    if check is None:
        return "No desired-state file given (`products_path`): nothing to validate or plan."
    rows = len(check.desired) + check.problems["row"].dropna().nunique()
    if check.ok:
        return f"`{products_path}`: {rows} rows, no problem."
    bad_rows = check.problems["row"].dropna().nunique()
    return (
        f"`{products_path}`: **{_count(len(check.problems), 'problem')}** in "
        f"{_count(bad_rows, 'row')} (and the "
        "header when its row is empty), listed below. The file is refused as a whole: "
        "nothing is applied until every problem is fixed."
    )


def plan_summary(plan: pd.DataFrame, check: ProductFileCheck | None = None) -> str:
    """The plan in one Markdown line: how many of each action, how many blocked, and
    (with ``check``) what the rows with problems leave out."""
    if plan.empty:
        return "No valid row in the file: there is nothing to plan."
    counts = plan["action"].value_counts()
    parts = [f"{int(counts.get(a, 0))} to {a}" for a in ("add", "replace", "delete")]
    parts.append(f"{int(counts.get('unchanged', 0))} unchanged")
    blocked = int(plan["blocked"].sum())
    text = "Plan: " + ", ".join(parts) + "."
    if blocked:
        text += f" **{blocked} blocked** (see the note of each)."
    text = text.replace("to replace", "to delete and add again")
    if check is not None and not check.ok:
        bad = check.problems["row"].dropna().nunique()
        text = (
            f"Preview of {_count(len(check.desired), 'valid row')}; "
            f"{_count(bad, 'row')} with problems "
            f"left out (their products are neither changed nor deleted), and nothing "
            f"can be applied until the file is clean. {text}"
        )
    return text


def changes_table(
    plan: pd.DataFrame,
    *,
    products: pd.DataFrame | None = None,
    desired: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The rows of the plan that change something, each product by its name (the file's
    for one to add), the blocked ones first among equals."""
    rows = plan[plan["action"] != "unchanged"].copy()
    names: dict[str, str] = {}
    for frame in (products, desired):
        if frame is not None and not frame.empty and "product_name" in frame.columns:
            pairs = zip(frame["product_id"], frame["product_name"], strict=True)
            names.update({str(p): str(n) for p, n in pairs})
    rows.insert(1, "product_name", rows["product_id"].map(names).astype("string"))
    return rows.reset_index(drop=True)


def plan_table(
    plan: pd.DataFrame,
    *,
    products: pd.DataFrame | None = None,
    desired: pd.DataFrame | None = None,
    output_dir: str = "",
) -> Any:
    """The plan's changes as a table (unchanged products only counted, the whole plan in
    ``plan.csv`` beside the report), or one sentence when there is no plan."""
    from opslib.reports._selection import markdown
    from opslib.widgets import Table

    if plan.empty:
        why = "no desired-state file was given" if desired is None else "the file has no valid row"
        return Table(plan, empty=f"No plan: {why}.")
    unchanged = int((plan["action"] == "unchanged").sum())
    where = ""
    if output_dir:
        target = Path(output_dir)
        target.mkdir(parents=True, exist_ok=True)
        write_csv(plan, target / "plan.csv")  # no cell a spreadsheet would run
        where = " (every product, unchanged ones included: [plan.csv](plan.csv))"
    if unchanged:
        markdown(f"{_count(unchanged, 'product')} unchanged, not listed{where}.")
    changes = changes_table(plan, products=products, desired=desired)
    return Table(changes, max_rows=200, empty="Nothing to change: the platform matches the file.")


def outcome_table(outcome: pd.DataFrame) -> Any:
    """The executed steps as a table, a success without its code, or nothing after a dry
    run (the sentence says it)."""
    if outcome.empty:
        return None
    from opslib.widgets import Table

    shown = outcome.copy()
    done = (shown["result"] == "done").to_numpy()
    shown["error_code"] = shown["error_code"].astype("Int64").mask(done)
    shown = shown.drop(columns=["message_id"])
    return Table(shown, max_rows=200)


def products_after(client: Any, outcome: pd.DataFrame) -> Any:
    """After an apply that wrote something, the platform's products as they are now
    (a section of its own); nothing at all after a dry run."""
    if outcome.empty or not outcome["result"].isin(["done", "failed"]).any():
        return None
    from opslib.reports._selection import section
    from opslib.widgets import Table

    products = client.products.list()
    section("The products after the apply", f"As the platform lists them now: {len(products)}.")
    return Table(products[PRODUCT_TABLE_COLUMNS], max_rows=500)
