"""What index.html shows of each report beside its latest run: the alerts that hold now,
what changed since the run before, and a small trend of each headline figure over the
kept runs (an inline SVG line: the index runs no script and fetches nothing)."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from opslib.reports.changes import COUNTED, changes_lines
from opslib.reports.metrics import format_value

__all__ = ["alerts_summary", "report_details", "sparkline"]

TREND_RUNS = 30  # the newest runs a trend draws
TREND_FIGURES = 8  # headline figures a report shows a trend of


def _e(text: Any) -> str:
    return html.escape("" if text is None else str(text))


def sparkline(values: Sequence[float | None], *, width: int = 96, height: int = 22) -> str:
    """A small line of ``values`` (oldest first; None leaves a gap) as inline SVG.

    Examples
    --------
    >>> sparkline([1, 3, 2]).startswith('<svg class="spark"')
    True
    """
    known = [v for v in values if v is not None]
    if len(known) < 2:
        return ""
    low, high = min(known), max(known)
    span = (high - low) or 1.0
    step = width / max(len(values) - 1, 1)
    segments: list[list[str]] = [[]]
    for i, value in enumerate(values):
        if value is None:
            segments.append([])
            continue
        y = height - 2 - (value - low) / span * (height - 4)
        segments[-1].append(f"{i * step:.1f},{y:.1f}")
    lines = "".join(
        f'<polyline points="{" ".join(points)}" fill="none" stroke="#1565c0" stroke-width="1.5"/>'
        for points in segments
        if len(points) > 1
    )
    last = segments[-1][-1].split(",") if segments[-1] else []
    dot = f'<circle cx="{last[0]}" cy="{last[1]}" r="2" fill="#1565c0"/>' if last else ""
    return (
        f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="trend">{lines}{dot}</svg>'
    )


def _trends(history: Sequence[Mapping[str, Any]]) -> str:
    """One trend per headline figure of the latest run, over the runs of ``history``
    (newest first) whose figures count."""
    counted = [s for s in history if str(s.get("outcome")) in COUNTED][:TREND_RUNS]
    if not counted:
        return ""
    latest = counted[0].get("metrics") or {}
    names = [n for n in latest if "[" not in n][:TREND_FIGURES]
    items = []
    for name in names:
        unit = str(latest[name].get("unit") or "")
        values = [(s.get("metrics") or {}).get(name, {}).get("value") for s in reversed(counted)]
        line = sparkline(values)
        if not line:
            continue
        now = format_value(values[-1], unit)
        label = latest[name].get("label") or name
        items.append(
            f'<span class="trend" title="{_e(name)}: {len(values)} runs">{_e(label)} '
            f"{line} <strong>{_e(now)}</strong></span>"
        )
    return f'<div class="trends">{"".join(items)}</div>' if items else ""


def _alerts(firing: Sequence[Mapping[str, Any]]) -> str:
    items = "".join(
        f"<li><strong>{_e(item.get('title') or item.get('when'))}</strong>: "
        f"{_e(item.get('detail') or '')} (since {_e(str(item.get('since') or '')[:16])})</li>"
        for item in firing
    )
    return f'<div class="alerts"><span>Alerts that hold now:</span><ul>{items}</ul></div>'


def report_details(
    latest: Mapping[str, Any],
    history: Sequence[Mapping[str, Any]],
    firing: Sequence[Mapping[str, Any]],
) -> str:
    """The block under a report's latest run: its alerts that hold, the rules it could not
    evaluate, what changed since the run before (as in the report), its trends; ``""``
    when there is nothing to show."""
    parts = []
    if firing:
        parts.append(_alerts(firing))
    untold = [
        a for a in latest.get("alerts") or () if isinstance(a, Mapping) and a["holds"] is None
    ]
    if untold:  # a rule that could not tell would look like one that does not hold
        items = "".join(
            f"<li>{_e(a.get('title') or a.get('rule'))}: {_e(a.get('detail', ''))}</li>"
            for a in untold
        )
        parts.append(
            f'<div class="untold"><span>Alert rules not evaluated</span><ul>{items}</ul></div>'
        )
    lines = changes_lines(latest.get("changes"))
    if lines:
        rest = "".join(f"<li>{_e(line.strip())}</li>" for line in lines[1:])
        parts.append(
            f'<div class="since"><span>{_e(lines[0])}</span>'
            + (f"<ul>{rest}</ul>" if rest else "")
            + "</div>"
        )
    trends = _trends(history)
    if trends:
        parts.append(trends)
    return "".join(parts)


def alerts_summary(firing: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]]) -> str:
    """The index's line of the alerts that hold now (``""`` when none does)."""
    named = [
        f"{report}/{label}: {item.get('title') or item.get('when')}"
        if label
        else f"{report}: {item.get('title') or item.get('when')}"
        for (report, label), items in sorted(firing.items())
        for item in items
    ]
    if not named:
        return ""
    count = f"{len(named)} alert" + ("s hold" if len(named) != 1 else " holds")
    return f'<p class="summary bad"><strong>{count} now</strong>: {_e("; ".join(named))}.</p>'


STYLE = """
tr.detail td { border-bottom: 1px solid #e0e0e0; padding-top: 0; }
.alerts { border-left: 4px solid #b00020; background: #fdecea; padding: 4px 10px;
  margin: 2px 0; }
.alerts ul, .since ul, .untold ul { margin: 2px 0; padding-left: 18px; }
.untold { border-left: 4px solid #9e9e9e; background: #f5f5f5; padding: 4px 10px;
  margin: 2px 0; }
.since { border-left: 4px solid #1565c0; background: #e8f0fe; padding: 4px 10px;
  margin: 2px 0; }
.trends { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 4px 0; font-size: 13px; }
.trend svg { vertical-align: middle; }
"""
