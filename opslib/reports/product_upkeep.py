"""Apply a product plan (:func:`opslib.analysis.plan_products`) and keep an audit log.

Applying executes exactly the plan: adds; deletes and the delete-then-add of a replace
only with ``allow_delete``; blocked rows (devices still use the product, or no secret to
add it with) are skipped with their reason. Every step is one row of the outcome and one
line of the audit log (CSV: when, who, user_id, action, step, product_id, result,
error_code, error_msg, message_id; ``who`` is the person: nick name and masked phone).
Product secrets appear in neither.
"""

from __future__ import annotations

import csv
import datetime as dt
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from opslib._missing import is_missing
from opslib.analysis.product_plan import keep_current, plan_products
from opslib.analysis.products import (
    PRODUCT_COLUMNS,
    ProductFileCheck,
    desired_state,
    read_product_file,
    validate_product_file,
)
from opslib.csvcells import neutralise, write_csv
from opslib.reports.upkeep_view import (
    PRODUCT_TABLE_COLUMNS,
    apply_command,
    changes_table,
    check_summary,
    outcome_table,
    outcome_text,
    plan_summary,
    plan_table,
    products_after,
)

__all__ = [
    "AUDIT_COLUMNS",
    "OUTCOME_COLUMNS",
    "PRODUCT_TABLE_COLUMNS",
    "ProductFileRefused",
    "append_audit_log",
    "apply_command",
    "apply_if_asked",
    "apply_plan",
    "audit_path",
    "changes_table",
    "check_file",
    "check_summary",
    "export_products",
    "form_audit",
    "outcome_table",
    "outcome_text",
    "plan_for",
    "plan_summary",
    "plan_table",
    "products_after",
]

OUTCOME_COLUMNS = [
    "product_id",
    "action",
    "step",
    "result",
    "error_code",
    "error_msg",
    "message_id",
]
AUDIT_COLUMNS = [
    "when",
    "who",
    "user_id",
    "action",
    "step",
    "product_id",
    "result",
    "error_code",
    "error_msg",
    "message_id",
]


def _add_item(row: pd.Series) -> dict[str, Any]:
    item: dict[str, Any] = {}
    for name in PRODUCT_COLUMNS:
        value: Any = row.get(name)
        if is_missing(value) or (name == "product_icon" and value == ""):
            continue
        item[name] = int(value) if not isinstance(value, str) else value
    return item


def _step(
    pid: str, action: str, step: str, result: str, code: Any = None, msg: str = "", mid: str = ""
) -> dict[str, Any]:
    return {
        "product_id": pid,
        "action": action,
        "step": step,
        "result": result,
        "error_code": code,
        "error_msg": msg,
        "message_id": mid,
    }


def _write(frame: pd.DataFrame, pid: str, action: str, step: str) -> dict[str, Any]:
    row = frame.iloc[0]
    ok = bool(row["ok"])
    code = None if is_missing(row["error_code"]) else int(row["error_code"])
    msg = "" if ok or is_missing(row["error_msg"]) else str(row["error_msg"])
    return _step(pid, action, step, "done" if ok else "failed", code, msg, str(row["message_id"]))


def apply_plan(
    client: Any, plan: pd.DataFrame, desired: pd.DataFrame, *, allow_delete: bool = False
) -> pd.DataFrame:
    """Execute a product plan through the client (an admin connection).

    Parameters
    ----------
    client
        ``opslib.connect(...)`` as an admin (product writes need it; others fail with 403,
        recorded per row).
    plan
        :func:`opslib.analysis.plan_products`.
    desired
        The valid desired rows (they carry the secrets of products to add).
    allow_delete
        Deletes, and replaces (delete then add), run only when True.

    Returns
    -------
    pandas.DataFrame
        One row per step: ``product_id``, ``action``, ``step`` (add/delete),
        ``result`` (done/failed/skipped), ``error_code``, ``error_msg``, ``message_id``.

    Examples
    --------
    >>> outcome = apply_plan(admin, plan, check.desired, allow_delete=True)  # doctest: +SKIP
    """
    if (plan["action"] == "replace").any():  # what the file leaves out stays as it is
        desired = keep_current(desired, client.products.list())
    wanted = {str(r["product_id"]): r for _, r in desired.iterrows()}
    steps: list[dict[str, Any]] = []
    for _, entry in plan.iterrows():
        pid, action = str(entry["product_id"]), str(entry["action"])
        if action == "unchanged":
            continue
        if bool(entry["blocked"]):
            steps.append(_step(pid, action, action, "skipped", msg=str(entry["note"])))
            continue
        if action in ("delete", "replace"):
            if not allow_delete:
                steps.append(_step(pid, action, "delete", "skipped", msg="allow_delete is False"))
                continue
            done = _write(client.products.delete([pid], errors="collect"), pid, action, "delete")
            steps.append(done)
            if action == "delete":
                continue
            if done["result"] != "done":
                steps.append(_step(pid, action, "add", "skipped", msg="the delete failed"))
                continue
        added = client.products.add([_add_item(wanted[pid])], errors="collect")
        steps.append(_write(added, pid, action, "add"))
    out = pd.DataFrame(steps, columns=OUTCOME_COLUMNS)
    return out.astype(
        {
            "product_id": "string",
            "action": "string",
            "step": "string",
            "result": "string",
            "error_code": "Int64",
            "error_msg": "string",
            "message_id": "string",
        }
    )


def append_audit_log(
    path: str | os.PathLike[str],
    outcome: pd.DataFrame,
    *,
    who: str,
    user_id: str = "",
    when: dt.datetime | None = None,
) -> Path:
    """Append one line per step of ``outcome`` to the audit CSV (header when new).

    ``action`` is the plan's (add, delete, replace), ``step`` the write (a replace is a
    delete step then an add step); ``who`` the person (nick name and masked phone).

    Raises
    ------
    ValueError
        The file exists with other columns (an older log): nothing is written.

    Examples
    --------
    >>> append_audit_log("product_audit.csv", outcome, who="Ada (555*****01)",
    ...                  user_id=client.user_id)  # doctest: +SKIP
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    moment = (when or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds")
    new = not target.exists() or target.stat().st_size == 0
    if not new:
        with target.open(newline="", encoding="utf-8") as handle:
            header = next(csv.reader(handle), [])
        if header != AUDIT_COLUMNS:
            raise ValueError(
                f"audit log {target}: its columns are {header}, expected {AUDIT_COLUMNS}; "
                "give another audit_log (or move this one aside): nothing was written"
            )
    with target.open("a", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        if new:
            writer.writerow(AUDIT_COLUMNS)
        for _, row in outcome.iterrows():
            code = "" if is_missing(row["error_code"]) else int(row["error_code"])
            writer.writerow(
                neutralise(cell) if isinstance(cell, str) else cell
                for cell in [
                    moment,
                    who,
                    user_id,
                    row["action"],
                    row["step"],
                    row["product_id"],
                    row["result"],
                    code,
                    "" if is_missing(row["error_msg"]) else row["error_msg"],
                    "" if is_missing(row["message_id"]) else row["message_id"],
                ]
            )
    return target


# --- what the product_upkeep notebook calls ----------------------------------------------


class ProductFileRefused(RuntimeError):
    """apply=True with a desired-state file that has problems (or none given)."""


def audit_path(audit_log: str, products_path: str) -> Path:
    """The audit CSV: ``audit_log``, else ``product_audit.csv`` beside the desired file,
    else in the user's state directory (``$XDG_STATE_HOME/opslib``, by default
    ``~/.local/state/opslib``): never in the notebooks' directory.

    Examples
    --------
    >>> audit_path("", "/data/products.csv").as_posix()
    '/data/product_audit.csv'
    """
    if audit_log:
        return Path(audit_log)
    if products_path:
        return Path(products_path).parent / "product_audit.csv"
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "opslib" / "product_audit.csv"


def check_file(
    products_path: str,
    categories: pd.DataFrame,
    labels: Mapping[str, Mapping[int, str]] | None = None,
) -> ProductFileCheck | None:
    """Validate the desired-state file, or None when no path is given (``labels``: the
    platform's, ``client.products.labels()``)."""
    if not products_path:
        return None
    return validate_product_file(read_product_file(products_path), categories, labels)


def plan_for(
    check: ProductFileCheck | None, products: pd.DataFrame, devices: pd.DataFrame | None
) -> pd.DataFrame:
    """The plan of the file's valid rows (empty when there is no file).

    With problems in the file, the valid rows are still planned so they can be previewed
    (an apply stays refused): the products of the rows with problems are left out of the
    plan, never planned as deletes.
    """
    if check is None:
        return plan_products(_NO_ROWS, products.iloc[0:0])
    refused = set(check.refused_ids)
    current = products[~products["product_id"].astype(str).isin(refused)]
    return plan_products(check.desired, current, devices=devices)


_NO_ROWS = pd.DataFrame({name: pd.Series([], dtype="string") for name in PRODUCT_COLUMNS})


def apply_if_asked(
    client: Any,
    check: ProductFileCheck | None,
    plan: pd.DataFrame,
    *,
    apply: bool,
    allow_delete: bool,
    audit_log: Path,
    who: str = "",
) -> pd.DataFrame:
    """Dry run unless ``apply``; then refuse a file with problems, else apply and log
    (``who``: the person, nick name and masked phone).

    The report's outcome: a dry run of a file with problems is ``partial`` (how many); an
    apply is ``partial`` when any change was skipped or failed, ``failed`` when every
    write failed.

    Raises
    ------
    ProductFileRefused
        ``apply`` without a file, or with a file that has problems: nothing is changed.
    """
    from opslib.reports.notebook import declare_outcome

    if not apply:
        if check is not None and not check.ok:
            bad = check.problems["row"].dropna().nunique()
            declare_outcome(
                "partial",
                f"the desired-state file has {_count(len(check.problems), 'problem')} in "
                f"{_count(bad, 'row')}: nothing can be applied until they are fixed",
            )
        return pd.DataFrame({c: pd.Series([], dtype="string") for c in OUTCOME_COLUMNS})
    if check is None:
        raise ProductFileRefused("apply=True needs products_path: there is no plan to apply")
    if not check.ok:
        from IPython.display import display

        from opslib.widgets import Table

        display(Table(check.problems, max_rows=500))  # what to fix, before the refusal
        raise ProductFileRefused(
            f"the desired-state file has {len(check.problems)} problems (listed below); "
            "nothing was applied"
        )
    outcome = apply_plan(client, plan, check.desired, allow_delete=allow_delete)
    if not outcome.empty:
        append_audit_log(audit_log, outcome, who=who, user_id=str(client.user_id))
    counts = outcome["result"].value_counts()
    done, failed = int(counts.get("done", 0)), int(counts.get("failed", 0))
    skipped = int(counts.get("skipped", 0))
    if failed or skipped:
        declare_outcome("failed" if failed and not done else "partial", apply_failures(outcome))
    return outcome


def apply_failures(outcome: pd.DataFrame) -> str:
    """The writes an apply failed and the changes it skipped, in one sentence (how many,
    and the first of each with why)."""
    failed = outcome[outcome["result"] == "failed"]
    skipped = outcome[outcome["result"] == "skipped"]
    writes = outcome[outcome["result"].isin(["done", "failed"])]
    parts = []
    if len(failed):
        first = failed.iloc[0]
        code = "" if is_missing(first["error_code"]) else f" {int(first['error_code'])}"
        parts.append(
            f"{len(failed)} of {len(writes)} product writes failed (first: {first['step']} of "
            f"{first['product_id']}:{code} {first['error_msg']})"
        )
    if len(skipped):
        first = skipped.iloc[0]
        parts.append(
            f"{len(skipped)} of {len(outcome)} steps skipped (first: {first['step']} of "
            f"{first['product_id']}: {first['error_msg']})"
        )
    return "; ".join(parts)


def export_products(client: Any, path: str | os.PathLike[str]) -> int:
    """Write the platform's products as a desired-state CSV; return how many.

    Run as ``product_upkeep`` with ``products_path`` set to this file, it plans nothing to
    change. ``product_secret`` is left empty: the platform never shows it, and a product
    kept as it is needs none.

    Examples
    --------
    >>> export_products(opslib.connect(profile="prod"), "products.csv")  # doctest: +SKIP
    7
    """
    rows = desired_state(client.products.list(), client.products.labels())
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    write_csv(rows, tmp)  # no cell a spreadsheet would run; read_product_file restores them
    tmp.replace(target)
    return len(rows)


def form_audit(audit_log: Path, who: str, user_id: str = "") -> Any:
    """A ``ProductForm`` ``on_write`` callback that appends each write to the audit log."""

    def write(action: str, result: pd.DataFrame) -> None:
        rows = [
            _write(result.iloc[[i]], str(result["product_id"].iloc[i]), action, action)
            for i in range(len(result))
        ]
        outcome = pd.DataFrame(rows, columns=OUTCOME_COLUMNS).astype({"error_code": "Int64"})
        append_audit_log(audit_log, outcome, who=who, user_id=user_id)

    return write


def _count(number: int, noun: str) -> str:
    """``1 row``, ``2 rows``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
