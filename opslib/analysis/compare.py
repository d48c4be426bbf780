"""What changed between two periods of equal length, as a table and as a few sentences."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from opslib._missing import is_missing
from opslib._percent import MIN_PERCENT_BASE, figure_text, percent_text
from opslib.analysis._common import Window
from opslib.analysis._markup import markdown_text
from opslib.analysis.downtime import downtime, downtime_not_computed, start_states
from opslib.analysis.events import alarm_codes
from opslib.analysis.kinds import event_kinds, not_computable, type_labels
from opslib.analysis.zones import zone_label

__all__ = [
    "MIN_PERCENT_BASE",
    "change_summary",
    "compare_periods",
    "percent_text",
    "period_states",
    "top_offender",
]

# A previous period whose first event comes this share of its length after its start is
# said to be only partly covered (the data start inside it).
_COVERAGE_GAP = 0.25


def _measures(
    events: pd.DataFrame, window: Window | None, states: pd.DataFrame | None = None
) -> dict[str, float]:
    """Per event type the platform has; alarms from its fault kind, downtime only where it
    can be computed (the platform reports online and offline events, and no filter left
    them out: :func:`~opslib.analysis.downtime_not_computed`)."""
    labels = type_labels(events)
    known = event_kinds(events)
    types = events["event_type"].map(labels).value_counts()
    values: dict[str, float] = {"events": float(len(events))}
    for label in labels.values():
        values[f"{label} events"] = float(types.get(label, 0))
    values["devices reporting"] = float(events["device_id"].nunique())
    if known.reports("fault"):
        faults = events["event_type"].isin(known.codes("fault"))
        values["devices with alarms"] = float(events.loc[faults, "device_id"].nunique())
    if not downtime_not_computed(events):
        hours = downtime(events, window=window, states=states)["downtime_hours"].sum()
        values["downtime hours"] = float(hours)
    return values


def period_states(
    current: pd.DataFrame,
    previous: pd.DataFrame,
    *,
    current_window: Window | None,
    previous_window: Window | None,
    devices: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """Each device's state at the start of each period (:func:`start_states`): the current
    period's from the previous period's events, then its own and the listing; the previous
    period's from both periods' events and the listing. None without windows."""
    if current_window is None or previous_window is None:
        return None, None
    now = start_states(current_window[0], before=previous, after=current, devices=devices)
    both = pd.concat([previous, current], ignore_index=True) if len(current) else previous
    both.attrs = dict(current.attrs)
    before = start_states(previous_window[0], after=both, devices=devices)
    return now, before


def compare_periods(
    current: pd.DataFrame,
    previous: pd.DataFrame,
    *,
    current_window: Window | None = None,
    previous_window: Window | None = None,
    devices: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Key measures of two event frames side by side.

    Parameters
    ----------
    current, previous
        Event frames of the period under review and of the period before it.
    current_window, previous_window
        The windows they cover (for downtime of ongoing outages).
    devices
        The device listing: a device offline since before a period counts from its start
        (:func:`period_states`).

    Returns
    -------
    pandas.DataFrame
        Columns ``measure``, ``current``, ``previous``, ``change`` and ``change_pct``
        (NA when the previous value is below :data:`MIN_PERCENT_BASE`: no percentage on
        a zero or tiny base). A measure that cannot be computed (downtime without online
        and offline events) has no row.

    Examples
    --------
    >>> analysis.compare_periods(events, earlier)  # doctest: +SKIP
    """
    now_states, before_states = period_states(
        current, previous, current_window=current_window, previous_window=previous_window,
        devices=devices,
    )  # fmt: skip
    now = _measures(current, current_window, now_states)
    before = _measures(previous, previous_window, before_states)
    out = pd.DataFrame(
        {
            "measure": pd.array(list(now), dtype="string"),
            "current": pd.array(list(now.values()), dtype="Float64"),
            "previous": pd.array([before.get(k, 0.0) for k in now], dtype="Float64"),
        }
    )
    out["change"] = out["current"] - out["previous"]
    pct = out["change"] / out["previous"].where(out["previous"] >= MIN_PERCENT_BASE) * 100
    out["change_pct"] = pct.astype("Float64")
    return out


def _change(row: dict[str, Any]) -> str:
    """The change of one measure in words: a percentage only on a base large enough."""
    before, now = float(row["previous"]), float(row["current"])
    if before == now:
        return "no change"
    if not is_missing(row["change_pct"]):
        return percent_text(float(row["change_pct"]))
    if before == 0:
        return "none before"
    return "too few before for a percentage"


def _coverage_note(previous: pd.DataFrame, window: Window | None) -> str:
    """A bullet when the previous period's data start well inside it, else ""."""
    if window is None or previous.empty:
        return ""
    first = previous["gmt_create"].min()
    length = window[1] - window[0]
    if pd.isna(first) or first - window[0] <= length * _COVERAGE_GAP:
        return ""
    zone = window[0].tzinfo
    shown = first.tz_convert(zone) if zone is not None else first
    return (
        f"- The previous period is only partly covered: its first event is at "
        f"{shown:%Y-%m-%d %H:%M} {zone_label(zone)}, {_days(first - window[0])} after its "
        "start, so the changes below overstate growth."
    )


def _days(delta: pd.Timedelta) -> str:
    days = delta / pd.Timedelta(days=1)
    return f"{days:.1f} days" if days >= 1 else f"{delta / pd.Timedelta(hours=1):.0f} hours"


def top_offender(
    events: pd.DataFrame,
    *,
    names: Mapping[str, str] | None = None,
    min_share: float = 0.25,
    min_alarms: int = int(MIN_PERCENT_BASE),
) -> dict[str, Any] | None:
    """The device that sent a large share of the period's alarms (at least ``min_share``
    of at least ``min_alarms``), or None.

    Returns
    -------
    dict or None
        ``device_id``, ``name`` (from ``names``, else the id), ``alarms``, ``total``,
        ``share`` (0..1), ``first`` and ``last`` (its first and last alarm).

    Examples
    --------
    >>> analysis.top_offender(events)["share"]  # doctest: +SKIP
    0.44
    """
    known = event_kinds(events)
    if not known.reports("fault"):
        return None
    alarms = events[events["event_type"].isin(known.codes("fault")).fillna(False).astype(bool)]
    if len(alarms) < min_alarms:
        return None
    counts = alarms["device_id"].astype("string").value_counts()
    device, count = str(counts.index[0]), int(counts.iloc[0])
    if count / len(alarms) < min_share:
        return None
    mine = alarms.loc[alarms["device_id"] == device, "gmt_create"]
    return {
        "device_id": device,
        "name": (names or {}).get(device, device),
        "alarms": count,
        "total": len(alarms),
        "share": count / len(alarms),
        "first": mine.min(),
        "last": mine.max(),
    }


def _offender_line(found: dict[str, Any] | None, window: Window | None) -> str:
    if found is None:
        return ""
    zone = window[0].tzinfo if window is not None else None
    first, last = (found[k].tz_convert(zone) if zone else found[k] for k in ("first", "last"))
    span = _days(found["last"] - found["first"])
    return (
        f"- One device sent {percent_text(found['share'] * 100, signed=False)} of the alarms: "
        f"{markdown_text(found['name'])}, {found['alarms']:,} of {found['total']:,}, from "
        f"{first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M} {zone_label(zone)} ({span})."
    )


def change_summary(
    current: pd.DataFrame,
    previous: pd.DataFrame,
    *,
    current_window: Window | None = None,
    previous_window: Window | None = None,
    threshold_pct: float = 10.0,
    devices: pd.DataFrame | None = None,
    names: Mapping[str, str] | None = None,
) -> str:
    """A short written summary (Markdown bullets) of what changed since the previous period.

    Parameters
    ----------
    current, previous
        Event frames of this period and of the period of equal length before it.
    current_window, previous_window
        The windows they cover (their zone is the one the times are written in).
    threshold_pct
        Changes smaller than this (in percent) are reported as steady.
    devices
        The device listing (downtime of devices offline since before a period).
    names
        Device ids to the names people know them by (the top offender).

    Returns
    -------
    str
        Markdown text, one bullet per finding; the alarm codes and names in it are escaped,
        so they show as the platform sent them and are never read as Markdown or HTML.

    Examples
    --------
    >>> print(analysis.change_summary(events, earlier))  # doctest: +SKIP
    - 12,345 events (previous period 11,430, +8%).
    """
    table = compare_periods(
        current, previous, current_window=current_window, previous_window=previous_window,
        devices=devices,
    )  # fmt: skip
    rows: dict[str, dict[str, Any]] = {
        str(r["measure"]): {str(k): v for k, v in r.items()} for r in table.to_dict("records")
    }
    lines = []
    if current_window is not None and previous_window is not None:
        fmt = "%Y-%m-%d %H:%M"
        zone = zone_label(current_window[0].tzinfo)
        lines.append(
            f"- Period {current_window[0]:{fmt}} to {current_window[1]:{fmt}} {zone}, compared "
            f"with {previous_window[0]:{fmt}} to {previous_window[1]:{fmt}} {zone}."
        )
    total = rows["events"]
    offender = _offender_line(top_offender(current, names=names), current_window)
    if float(total["previous"]) == 0:
        lines.append(
            f"- {figure_text(float(total['current']))} events. The previous period has no data: "
            "there is nothing to compare with."
        )
        if offender:
            lines.append(offender)
        codes = sorted(set(alarm_codes(current)["code"]))
        if codes:  # device text: escaped, never read as Markdown or HTML
            lines.append(f"- Alarm codes in this period: {', '.join(map(markdown_text, codes))}.")
        return "\n".join(lines)
    note = _coverage_note(previous, previous_window)
    if note:
        lines.append(note)
    lines.append(
        f"- {figure_text(float(total['current']))} events (previous period "
        f"{figure_text(float(total['previous']))}, {_change(total)})."
    )
    movers = []
    for label in type_labels(current).values():
        row = rows[f"{label} events"]
        if float(row["current"]) == float(row["previous"]):
            continue  # no change is no change, whatever the base
        pct = row["change_pct"]
        if is_missing(pct) or abs(float(pct)) >= threshold_pct:
            movers.append((label, row))
    if movers:
        parts = [
            f"{label} {figure_text(float(row['previous']))} → {figure_text(float(row['current']))}"
            + (f" ({_change(row)})" if not is_missing(row["change_pct"]) else "")
            for label, row in movers
        ]
        lines.append("- Changed by type (previous → this period): " + "; ".join(parts) + ".")
    else:
        lines.append(f"- Every event type is within ±{threshold_pct:.0f}% of the previous period.")
    if offender:
        lines.append(offender)
    for measure in ("devices reporting", "devices with alarms", "downtime hours"):
        if measure not in rows:  # not computable: said below
            continue
        row = rows[measure]
        lines.append(
            f"- {measure.capitalize()}: {figure_text(float(row['current']))} "
            f"(previous {figure_text(float(row['previous']))}, {_change(row)})."
        )
    known = event_kinds(current)
    why = downtime_not_computed(current)
    if why:
        lines.append(f"- {why}")
    for sentence in not_computable(known, "fault").values():
        lines.append(f"- {sentence}")
    if not known.reports("fault"):
        return "\n".join(lines)
    now_codes = set(alarm_codes(current)["code"])
    before_codes = set(alarm_codes(previous)["code"])
    new_codes, gone_codes = sorted(now_codes - before_codes), sorted(before_codes - now_codes)
    # codes are whatever devices reported: shown as text, never read as Markdown or HTML
    if new_codes:
        lines.append(f"- New alarm codes: {', '.join(map(markdown_text, new_codes))}.")
    if gone_codes:
        lines.append(f"- Alarm codes no longer seen: {', '.join(map(markdown_text, gone_codes))}.")
    if not new_codes and not gone_codes and now_codes:
        lines.append("- The same alarm codes as in the previous period.")
    return "\n".join(lines)
