"""What changed between two periods of equal length, as a table and as a few sentences."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from opslib import enums
from opslib.analysis._common import Window
from opslib.analysis._markup import markdown_text
from opslib.analysis.events import alarm_codes, downtime

__all__ = ["change_summary", "compare_periods"]

_TYPE_LABELS = enums.labels(enums.EventType)


def _measures(events: pd.DataFrame, window: Window | None) -> dict[str, float]:
    types = events["event_type"].map(_TYPE_LABELS).value_counts()
    values: dict[str, float] = {"events": float(len(events))}
    for label in _TYPE_LABELS.values():
        values[f"{label} events"] = float(types.get(label, 0))
    values["devices reporting"] = float(events["device_id"].nunique())
    values["devices with alarms"] = float(
        events.loc[events["event_type"] == enums.EventType.ALARM, "device_id"].nunique()
    )
    values["downtime hours"] = float(downtime(events, window=window)["downtime_hours"].sum())
    return values


def compare_periods(
    current: pd.DataFrame,
    previous: pd.DataFrame,
    *,
    current_window: Window | None = None,
    previous_window: Window | None = None,
) -> pd.DataFrame:
    """Key measures of two event frames side by side.

    Parameters
    ----------
    current, previous
        Event frames of the period under review and of the period before it.
    current_window, previous_window
        The windows they cover (for downtime of ongoing outages).

    Returns
    -------
    pandas.DataFrame
        Columns ``measure``, ``current``, ``previous``, ``change`` and ``change_pct``
        (NA when the previous value is 0).

    Examples
    --------
    >>> analysis.compare_periods(events, earlier)  # doctest: +SKIP
    """
    now = _measures(current, current_window)
    before = _measures(previous, previous_window)
    out = pd.DataFrame(
        {
            "measure": pd.array(list(now), dtype="string"),
            "current": pd.array(list(now.values()), dtype="Float64"),
            "previous": pd.array([before[k] for k in now], dtype="Float64"),
        }
    )
    out["change"] = out["current"] - out["previous"]
    pct = out["change"] / out["previous"].where(out["previous"] != 0) * 100
    out["change_pct"] = pct.astype("Float64")
    return out


def _missing(value: object) -> bool:
    return value is pd.NA or value is None or (isinstance(value, float) and math.isnan(value))


def _pct(value: object) -> str:
    if _missing(value):
        return "new"
    number = float(value)  # type: ignore[arg-type]
    return f"{number:+.0f}%"


def _fmt(value: float) -> str:
    return f"{value:,.1f}" if value != int(value) else f"{int(value):,}"


def change_summary(
    current: pd.DataFrame,
    previous: pd.DataFrame,
    *,
    current_window: Window | None = None,
    previous_window: Window | None = None,
    threshold_pct: float = 10.0,
) -> str:
    """A short written summary (Markdown bullets) of what changed since the previous period.

    Parameters
    ----------
    current, previous
        Event frames of this period and of the period of equal length before it.
    current_window, previous_window
        The windows they cover.
    threshold_pct
        Changes smaller than this (in percent) are reported as steady.

    Returns
    -------
    str
        Markdown text, one bullet per finding; the alarm codes in it are escaped, so they
        show as the platform sent them and are never read as Markdown or HTML.

    Examples
    --------
    >>> print(analysis.change_summary(events, earlier))  # doctest: +SKIP
    - 12,345 events, +8% on the previous period (11,430).
    """
    table = compare_periods(
        current, previous, current_window=current_window, previous_window=previous_window
    )
    rows: dict[str, dict[str, Any]] = {
        str(r["measure"]): {str(k): v for k, v in r.items()} for r in table.to_dict("records")
    }
    lines = []
    if current_window is not None and previous_window is not None:
        fmt = "%Y-%m-%d %H:%M"
        lines.append(
            f"- Period {current_window[0]:{fmt}} to {current_window[1]:{fmt}} UTC, compared with "
            f"{previous_window[0]:{fmt}} to {previous_window[1]:{fmt}} UTC."
        )
    total = rows["events"]
    lines.append(
        f"- {_fmt(float(total['current']))} events, {_pct(total['change_pct'])} on the previous "
        f"period ({_fmt(float(total['previous']))})."
    )
    movers = []
    for label in _TYPE_LABELS.values():
        row = rows[f"{label} events"]
        if row["current"] == 0 and row["previous"] == 0:
            continue
        pct = row["change_pct"]
        if _missing(pct) or abs(float(pct)) >= threshold_pct:
            movers.append((label, row))
    if movers:
        parts = [
            f"{label} {_pct(row['change_pct'])} ({_fmt(float(row['previous']))} → "
            f"{_fmt(float(row['current']))})"
            for label, row in movers
        ]
        lines.append("- Changed by type: " + "; ".join(parts) + ".")
    else:
        lines.append(f"- Every event type is within ±{threshold_pct:.0f}% of the previous period.")
    for measure in ("devices reporting", "devices with alarms", "downtime hours"):
        row = rows[measure]
        lines.append(
            f"- {measure.capitalize()}: {_fmt(float(row['current']))} "
            f"(previous {_fmt(float(row['previous']))}, {_pct(row['change_pct'])})."
        )
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
