"""The plan of a desired-state file against the platform's products.

A column left out of the file means "keep the platform's value": it plans no change (an
empty cell in a column that is there means the field's default).

The platform cannot update a product in place (there is no such operation), so a product
whose fields differ must be deleted and added again, and the platform refuses to delete a
product that devices still use (409): the plan marks those rows as blocked.

Executing a plan needs the client and lives in :mod:`opslib.reports.product_upkeep`.
"""

from __future__ import annotations

import pandas as pd

from opslib._missing import is_missing
from opslib.analysis.products import COMPARED_FIELDS, PRODUCT_COLUMNS

__all__ = ["keep_current", "plan_products"]


def _describe(name: str, before: object, after: object) -> str:
    return (
        f"{name}: {before!r} → {after!r}"
        if isinstance(after, str)
        else f"{name}: {before} → {after}"
    )


def plan_products(
    desired: pd.DataFrame,
    current: pd.DataFrame,
    *,
    devices: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Compare the desired products with the platform's and list what would change.

    Actions: ``add`` (in the file, not on the platform), ``delete`` (on the platform, not
    in the file), ``replace`` (fields differ: delete and add again, as the platform cannot
    update a product) and ``unchanged``. A delete or replace of a product that devices
    still use is ``blocked``: the platform refuses it (409). An add or replace without a
    ``product_secret`` in the file is blocked as well.

    Parameters
    ----------
    desired
        Valid rows of the desired-state file (:attr:`ProductFileCheck.desired`).
    current
        The platform's products (``client.products.list()``).
    devices
        The fleet (``client.devices.list()``) to count devices per product.

    Returns
    -------
    pandas.DataFrame
        Columns ``product_id``, ``action``, ``changes``, ``devices``, ``blocked``, ``note``;
        adds, replaces, deletes, then unchanged products.

    Examples
    --------
    >>> plan = analysis.plan_products(check.desired, products, devices=fleet)  # doctest: +SKIP
    """
    in_use: dict[str, int] = {}
    if devices is not None and not devices.empty:
        in_use = {str(k): int(v) for k, v in devices["product_id"].value_counts().items()}
    now = {str(r["product_id"]): r for _, r in current.iterrows()}
    rows: list[dict[str, object]] = []
    for _, want in desired.iterrows():
        pid = str(want["product_id"])
        secret = want.get("product_secret")
        has_secret = not is_missing(secret) and bool(secret)
        if pid not in now:
            rows.append(_plan_row(pid, "add", "", 0, has_secret))
            continue
        have = now[pid]
        changes = [
            _describe(name, have[name], want[name])
            for name in COMPARED_FIELDS
            if name in have and not is_missing(want[name]) and not _same(have[name], want[name])
        ]
        if changes:
            rows.append(
                _plan_row(pid, "replace", "; ".join(changes), in_use.get(pid, 0), has_secret)
            )
        else:
            rows.append(_plan_row(pid, "unchanged", "", in_use.get(pid, 0), True))
    wanted = set(desired["product_id"].astype(str))
    for pid in sorted(set(now) - wanted):
        rows.append(_plan_row(pid, "delete", "", in_use.get(pid, 0), True))
    order = {"add": 0, "replace": 1, "delete": 2, "unchanged": 3}
    plan = pd.DataFrame(
        rows, columns=["product_id", "action", "changes", "devices", "blocked", "note"]
    )
    plan = plan.astype(
        {
            "product_id": "string",
            "action": "string",
            "changes": "string",
            "devices": "Int64",
            "blocked": "boolean",
            "note": "string",
        }
    )
    plan["_order"] = plan["action"].map(order)
    return plan.sort_values(["_order", "product_id"]).drop(columns="_order").reset_index(drop=True)


def keep_current(desired: pd.DataFrame, current: pd.DataFrame) -> pd.DataFrame:
    """Desired rows with every left-out field (missing) taken from the platform's product.

    A product added again after a delete (a replace) keeps what the file does not say.
    """
    now = {str(r["product_id"]): r for r in current.to_dict("records")}
    out = desired.copy()
    for i, row in out.iterrows():
        have = now.get(str(row["product_id"]))
        if have is None:
            continue
        for name in PRODUCT_COLUMNS:
            if is_missing(row[name]) and not is_missing(have.get(name)):
                out.loc[i, name] = have[name]
    return out


def _same(have: object, want: object) -> bool:
    have, want = ("" if is_missing(v) else v for v in (have, want))
    if isinstance(want, str) or isinstance(have, str):
        return str(have) == str(want)
    return int(have) == int(want)  # type: ignore[call-overload]


def _plan_row(
    pid: str, action: str, changes: str, devices: int, has_secret: bool
) -> dict[str, object]:
    reasons = []
    if action in ("delete", "replace") and devices:
        reasons.append(f"{devices} device(s) use it: the platform refuses to delete it (409)")
    if action in ("add", "replace") and not has_secret:
        reasons.append("no product_secret in the file: it cannot be added")
    notes = list(reasons)
    if action == "replace" and not reasons:
        notes.append("the platform cannot update a product in place: delete, then add")
    return {
        "product_id": pid,
        "action": action,
        "changes": changes,
        "devices": devices,
        "blocked": bool(reasons),
        "note": "; ".join(notes),
    }
