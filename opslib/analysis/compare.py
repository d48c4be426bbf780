"""What changed between two periods of equal length, as a table and as a few sentences."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from opslib.analysis._common import Window
from opslib.analysis._markup import markdown_text
from opslib.analysis.events import alarm_codes, downtime
from opslib.analysis.kinds import KINDS, EventKinds, event_kinds, not_computable

__all__ = ["change_summary", "compare_periods"]


def _measures(events: pd.DataFrame, window: Window | None, known: EventKinds) -> dict[str, float]:
    """The measures the platform's event kinds allow: per kind it reports, alarms only
    with a fault kind, downtime only with online and offline events."""
    per_kind = known.of(events["event_type"]).value_counts()
    values: dict[str, float] = {"events": float(len(events))}
    for kind in KINDS:
        if known.reports(kind):
            values[f"{kind} events"] = float(per_kind.get(kind, 0))
    values["devices reporting"] = float(events["device_id"].nunique())
    if known.reports("fault"):
        faults = events["event_type"].isin(known.codes("fault"))
        values["devices with alarms"] = float(events.loc[faults, "device_id"].nunique())
    if known.has_outages:
        hours = downtime(events, window=window, kinds=known)["downtime_hours"].sum()
        values["downtime hours"] = float(hours)
    return values


def compare_periods(
    current: pd.DataFrame,
    previous: pd.DataFrame,
    *,
    current_window: Window | None = None,
    previous_window: Window | None = None,
    kinds: EventKinds | None = None,
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
    known = event_kinds(current, kinds)
    now = _measures(current, current_window, known)
    before = _measures(previous, previous_window, known)
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
    kinds: EventKinds | None = None,
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
    kinds
        The platform's event kinds (default: the frame's own); what it does not report
        (alarms, downtime) is said in one sentence instead of a figure.

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
    known = event_kinds(current, kinds)
    table = compare_periods(
        current,
        previous,
        current_window=current_window,
        previous_window=previous_window,
        kinds=known,
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
    for label in [k for k in KINDS if f"{k} events" in rows]:
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
        lines.append("- Changed by kind: " + "; ".join(parts) + ".")
    else:
        lines.append(f"- Every event kind is within ±{threshold_pct:.0f}% of the previous period.")
    for measure in ("devices reporting", "devices with alarms", "downtime hours"):
        if measure not in rows:
            continue
        row = rows[measure]
        lines.append(
            f"- {measure.capitalize()}: {_fmt(float(row['current']))} "
            f"(previous {_fmt(float(row['previous']))}, {_pct(row['change_pct'])})."
        )
    for sentence in not_computable(known, "fault", "outages").values():
        lines.append(f"- {sentence}")
    if not known.reports("fault"):
        return "\n".join(lines)
    now_codes = set(alarm_codes(current, kinds=known)["code"])
    before_codes = set(alarm_codes(previous, kinds=known)["code"])
    new_codes, gone_codes = sorted(now_codes - before_codes), sorted(before_codes - now_codes)
    # codes are whatever devices reported: shown as text, never read as Markdown or HTML
    if new_codes:
        lines.append(f"- New alarm codes: {', '.join(map(markdown_text, new_codes))}.")
    if gone_codes:
        lines.append(f"- Alarm codes no longer seen: {', '.join(map(markdown_text, gone_codes))}.")
    if not new_codes and not gone_codes and now_codes:
        lines.append("- The same alarm codes as in the previous period.")
    return "\n".join(lines)
