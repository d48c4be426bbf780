"""The fleet inventory: who has which devices, in which state, on which firmware.

Every function takes a device frame of :data:`opslib.client.frames.schema.DEVICE` (as returned by
``client.devices.list()``) and returns a new frame; nothing here talks to the platform.
"""

from __future__ import annotations

import pandas as pd

from opslib import enums
from opslib.analysis._common import NONE_LABEL, fill_label, require_columns
from opslib.analysis.zones import localize_wall, zone
from opslib.analysis.zones import period_alias as _period_alias

__all__ = [
    "bind_cohorts",
    "count_by",
    "count_by_category",
    "filter_devices",
    "group_summary",
    "never_online",
    "ownership_summary",
    "silent_devices",
]

_STATUS_LABELS = enums.labels(enums.DeviceStatus)


def _statuses(devices: pd.DataFrame) -> tuple[pd.Series, list[str]]:
    """Each device's status label and every status label of its platform: the frame's own
    (``status_name`` and its categories, the dialect's), else ours by code."""
    if "status_name" in devices.columns:
        names = devices["status_name"]
        if isinstance(names.dtype, pd.CategoricalDtype):
            every = [str(c) for c in names.dtype.categories]
        else:
            every = sorted({str(v) for v in names.dropna()})
        return names.astype("string"), every
    return devices["status"].map(_STATUS_LABELS).astype("string"), list(_STATUS_LABELS.values())


def _status_mask(devices: pd.DataFrame, status: int | str) -> pd.Series:
    """The devices of one status, given as its number or its platform's label."""
    text = str(status).strip().lower()
    if text.isdigit():
        return devices["status"] == int(text)
    labels, every = _statuses(devices)
    if text not in {label.lower() for label in every}:
        raise ValueError(
            f"status: unknown device status {status!r}; allowed: {', '.join(every)} or their "
            "numbers"
        )
    return labels.str.lower() == text


def filter_devices(
    devices: pd.DataFrame,
    *,
    user_id: str | None = None,
    category_id: int | str | None = None,
    product_id: str | None = None,
    status: int | str | None = None,
) -> pd.DataFrame:
    """Keep the devices that match every filter given; ``None``, ``""`` and ``0`` mean any.

    Parameters
    ----------
    devices
        A device frame.
    user_id
        The owner (``user_id`` column).
    category_id
        A category id (devices carry it as a string; an int is accepted).
    product_id
        A product id.
    status
        A device status number or label (``"online"``, ``"fault"``...).

    Returns
    -------
    pandas.DataFrame
        The matching rows, same columns.

    Examples
    --------
    >>> from opslib import analysis
    >>> analysis.filter_devices(devices, status="online")  # doctest: +SKIP
    """
    mask = pd.Series(True, index=devices.index)
    if user_id:
        mask &= devices["user_id"] == user_id
    if category_id not in (None, "", 0, "0"):
        mask &= devices["category_id"].astype("string") == str(category_id)
    if product_id:
        mask &= devices["product_id"] == product_id
    if status is not None and status != "":
        mask &= _status_mask(devices, status)
    return devices[mask.fillna(False).astype(bool)]


def count_by(devices: pd.DataFrame, column: str, *, name: str = "devices") -> pd.DataFrame:
    """Count devices by the values of one column, largest first, with each one's share.

    Coded columns are best counted by their label (``status_name``): every label appears,
    also those with no device. Missing and empty values are counted as ``(none)``.

    Parameters
    ----------
    devices
        A device frame.
    column
        The column to count by, e.g. ``"status_name"``, ``"product_id"``, ``"version"``,
        ``"sdk_version"``.
    name
        Name of the count column.

    Returns
    -------
    pandas.DataFrame
        Columns ``column``, ``name`` (Int64) and ``share`` (0..1).

    Examples
    --------
    >>> analysis.count_by(devices, "version").head(3)  # doctest: +SKIP
    """
    require_columns(devices, [column], "count_by")
    values = devices[column]
    if isinstance(values.dtype, pd.CategoricalDtype):
        counts = values.value_counts(dropna=False, sort=False)
        counts.index = counts.index.astype("string").fillna(NONE_LABEL)
        counts = counts.groupby(level=0, sort=False).sum()
    else:
        counts = fill_label(values).value_counts(sort=False)
    out = counts.rename_axis(column).rename(name).reset_index()
    out[name] = out[name].astype("Int64")
    total = int(out[name].sum())
    out["share"] = (
        (out[name] / total).astype("Float64")
        if total
        else pd.array([0.0] * len(out), dtype="Float64")
    )
    out[column] = out[column].astype("string")
    return out.sort_values([name, column], ascending=[False, True], kind="stable").reset_index(
        drop=True
    )


def count_by_category(
    devices: pd.DataFrame, categories: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Count devices by category, named from the category frame when one is given.

    Parameters
    ----------
    devices
        A device frame (``category_id`` is a string on devices).
    categories
        A category frame (``client.products.categories()``); every category appears,
        also those without devices.

    Returns
    -------
    pandas.DataFrame
        Columns ``category_id`` (string), ``category_name``, ``devices``, ``share``.

    Examples
    --------
    >>> analysis.count_by_category(devices, client.products.categories())  # doctest: +SKIP
    """
    counts = count_by(devices, "category_id")
    if categories is None or categories.empty:
        counts.insert(1, "category_name", NONE_LABEL)
        counts["category_name"] = counts["category_name"].astype("string")
        return counts
    names = pd.DataFrame(
        {
            "category_id": categories["category_id"].astype("string"),
            "category_name": categories["category_name"].astype("string"),
        }
    )
    out = names.merge(counts, on="category_id", how="outer")
    out["category_name"] = out["category_name"].fillna(NONE_LABEL)
    out["devices"] = out["devices"].fillna(0).astype("Int64")
    out["share"] = out["share"].fillna(0.0).astype("Float64")
    return out.sort_values(["devices", "category_id"], ascending=[False, True]).reset_index(
        drop=True
    )


def bind_cohorts(devices: pd.DataFrame, freq: str = "W", *, tz: str | None = None) -> pd.DataFrame:
    """Devices grouped by when they were bound, with what became of each cohort.

    Parameters
    ----------
    devices
        A device frame.
    freq
        A pandas period alias: ``"D"``, ``"W"`` (weeks starting Monday), ``"M"``...
    tz
        The reader's zone: a device bound at 23:30 UTC on the last day of a month counts
        in the next month where that is already the case (default UTC).

    Returns
    -------
    pandas.DataFrame
        One row per cohort (``cohort``: the period's first moment, in the zone) with ``devices``,
        one count column per device status label, ``never_online`` and ``online_share``.

    Examples
    --------
    >>> analysis.bind_cohorts(devices, "M")  # doctest: +SKIP
    """
    require_columns(devices, ["gmt_bind", "status", "gmt_last_seen"], "bind_cohorts")
    labels, statuses = _statuses(devices)
    columns = ["cohort", "devices", *statuses, "never_online", "online_share"]
    bound = devices[devices["gmt_bind"].notna()]
    if bound.empty:
        return pd.DataFrame({c: pd.Series([], dtype="Int64") for c in columns}).assign(
            cohort=pd.Series([], dtype="datetime64[ns, UTC]"),
            online_share=pd.Series([], dtype="Float64"),
        )
    info = zone(tz)
    naive = bound["gmt_bind"].dt.tz_convert(info).dt.tz_localize(None)
    start = naive.dt.to_period(_period_alias(freq)).dt.start_time
    cohort = localize_wall(start, info).set_axis(bound.index)
    status = labels.loc[bound.index].fillna(NONE_LABEL)
    table = pd.crosstab(cohort.rename("cohort"), status.rename("status"))
    table = table.reindex(columns=statuses, fill_value=0)
    never = bound["gmt_last_seen"].isna().groupby(cohort.rename("cohort")).sum()
    out = table.reset_index()
    out.insert(1, "devices", table.sum(axis=1).to_numpy())
    out["never_online"] = never.reindex(table.index).to_numpy()
    for col in ["devices", *statuses, "never_online"]:
        out[col] = out[col].astype("Int64")
    online = out["online"] if "online" in out.columns else pd.NA
    out["online_share"] = (online / out["devices"]).astype("Float64")
    out["cohort"] = out["cohort"].astype(pd.DatetimeTZDtype("ns", info))
    out.columns.name = None
    return out[columns]


def ownership_summary(devices: pd.DataFrame) -> pd.DataFrame:
    """How devices are held: owned vs shared, direct vs sub-devices, in groups or not.

    Returns
    -------
    pandas.DataFrame
        Columns ``measure`` and ``devices`` (Int64), one row per measure.

    Examples
    --------
    >>> analysis.ownership_summary(devices)  # doctest: +SKIP
    """
    require_columns(
        devices, ["device_id", "owned", "is_sub_device", "group_id"], "ownership_summary"
    )
    owned = devices["owned"]
    sub = devices["is_sub_device"].fillna(False).astype(bool)
    grouped = devices["group_id"].fillna(0) != 0
    rows = [
        ("devices", devices["device_id"].nunique()),
        ("owned", int((owned == enums.Owned.OWNER).sum())),
        ("shared", int((owned == enums.Owned.SHARED).sum())),
        ("sub-devices", int(sub.sum())),
        ("direct devices", int((~sub).sum())),
        ("in a group", int(grouped.sum())),
        ("groups", int(devices.loc[grouped, "group_id"].nunique())),
    ]
    return pd.DataFrame(
        {
            "measure": pd.array([r[0] for r in rows], dtype="string"),
            "devices": pd.array([r[1] for r in rows], dtype="Int64"),
        }
    )


def group_summary(devices: pd.DataFrame) -> pd.DataFrame:
    """Devices per group (``group_id`` 0 means no group), with sub-devices and online ones.

    Returns
    -------
    pandas.DataFrame
        Columns ``group_id``, ``devices``, ``sub_devices``, ``online``; largest first.

    Examples
    --------
    >>> analysis.group_summary(devices).head()  # doctest: +SKIP
    """
    require_columns(devices, ["group_id", "is_sub_device", "status"], "group_summary")
    frame = pd.DataFrame(
        {
            "group_id": devices["group_id"].fillna(0).astype("Int64"),
            "sub": devices["is_sub_device"].fillna(False).astype(bool),
            "online": (_statuses(devices)[0] == "online").fillna(False),
        }
    )
    out = frame.groupby("group_id", sort=True).agg(
        devices=("sub", "size"), sub_devices=("sub", "sum"), online=("online", "sum")
    )
    out = out.astype("Int64").reset_index()
    return out.sort_values(["devices", "group_id"], ascending=[False, True]).reset_index(drop=True)


def never_online(devices: pd.DataFrame) -> pd.DataFrame:
    """Devices that never reported (``gmt_last_seen`` is empty), oldest binding first.

    Examples
    --------
    >>> analysis.never_online(devices)  # doctest: +SKIP
    """
    require_columns(devices, ["gmt_last_seen", "gmt_bind"], "never_online")
    out = devices[devices["gmt_last_seen"].isna()]
    return out.sort_values(["gmt_bind", "device_id"]).reset_index(drop=True)


def silent_devices(
    devices: pd.DataFrame, days: float, *, now: pd.Timestamp | None = None
) -> pd.DataFrame:
    """Devices that reported once but not within the last ``days`` days, most silent first.

    Parameters
    ----------
    devices
        A device frame.
    days
        How long without a report counts as silent.
    now
        The reference moment (default: the current time, UTC).

    Returns
    -------
    pandas.DataFrame
        The silent devices with an added ``days_silent`` column (Float64): days since
        the last report.

    Examples
    --------
    >>> analysis.silent_devices(devices, 7)  # doctest: +SKIP
    """
    require_columns(devices, ["gmt_last_seen"], "silent_devices")
    if not days >= 0 or days == float("inf"):  # NaN compares false
        raise ValueError(f"days: must be a finite number of 0 or more, got {days}")
    reference = pd.Timestamp.now(tz="UTC") if now is None else pd.Timestamp(now)
    if reference.tzinfo is None:
        reference = reference.tz_localize("UTC")
    last = devices["gmt_last_seen"]
    cutoff = reference - pd.Timedelta(days=days)
    out = devices[last.notna() & (last < cutoff)].copy()
    out["days_silent"] = ((reference - out["gmt_last_seen"]).dt.total_seconds() / 86400).astype(
        "Float64"
    )
    return out.sort_values(["days_silent", "device_id"], ascending=[False, True]).reset_index(
        drop=True
    )
