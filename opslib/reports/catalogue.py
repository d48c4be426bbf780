"""Apply a catalogue plan (:func:`opslib.analysis.plan_catalogue`) and keep an audit log.

Applying executes exactly the plan: adds; deletes and the delete-then-add of a replace
only with ``allow_delete``; blocked rows (devices still use the product, or no secret to
add it with) are skipped with their reason. Every step is one row of the outcome and one
line of the audit log (CSV: when, who, action, product_id, result, error_code, error_msg,
message_id). Product secrets appear in neither.
"""

from __future__ import annotations

import csv
import datetime as dt
import os
from pathlib import Path
from typing import Any

import pandas as pd

from opslib.analysis.catalogue import CATALOGUE_COLUMNS

__all__ = ["AUDIT_COLUMNS", "OUTCOME_COLUMNS", "append_audit_log", "apply_plan"]

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
    "action",
    "product_id",
    "result",
    "error_code",
    "error_msg",
    "message_id",
]


def _add_item(row: pd.Series) -> dict[str, Any]:
    item: dict[str, Any] = {}
    for name in CATALOGUE_COLUMNS:
        value = row.get(name)
        if value is None or value is pd.NA or (name == "product_icon" and value == ""):
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
    code = None if row["error_code"] is pd.NA else int(row["error_code"])
    msg = "" if ok or row["error_msg"] is pd.NA else str(row["error_msg"])
    return _step(pid, action, step, "done" if ok else "failed", code, msg, str(row["message_id"]))


def apply_plan(
    client: Any, plan: pd.DataFrame, desired: pd.DataFrame, *, allow_delete: bool = False
) -> pd.DataFrame:
    """Execute a catalogue plan through the client (an admin connection).

    Parameters
    ----------
    client
        ``opslib.connect(...)`` as an admin (product writes need it; others fail with 403,
        recorded per row).
    plan
        :func:`opslib.analysis.plan_catalogue`.
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
    when: dt.datetime | None = None,
) -> Path:
    """Append one line per step of ``outcome`` to the audit CSV (header when new).

    Examples
    --------
    >>> append_audit_log("catalogue_audit.csv", outcome, who=client.user_id)  # doctest: +SKIP
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    moment = (when or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds")
    new = not target.exists() or target.stat().st_size == 0
    with target.open("a", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        if new:
            writer.writerow(AUDIT_COLUMNS)
        for _, row in outcome.iterrows():
            code = "" if row["error_code"] is pd.NA else int(row["error_code"])
            writer.writerow(
                [
                    moment,
                    who,
                    f"{row['action']}:{row['step']}",
                    row["product_id"],
                    row["result"],
                    code,
                    "" if row["error_msg"] is pd.NA else row["error_msg"],
                    "" if row["message_id"] is pd.NA else row["message_id"],
                ]
            )
    return target
