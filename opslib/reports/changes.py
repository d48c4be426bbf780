"""What changed since the last run: the metrics that moved and the sets that gained or lost
members, between two runs of a report.

Each run is compared with the previous run of the same report, label and parameters that
published its figures (outcome ``ok`` or ``partial``); the comparison is kept in its
status.json (``changes``), shown as a short "Since the last run" block at the top of the
report and in index.html, and ``opslib report diff RUN_A RUN_B`` prints it for any two
runs. Nothing here imports pandas.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from opslib._percent import step_text
from opslib.reports._runs import load_runs
from opslib.reports.metrics import format_value, one_line

__all__ = [
    "COUNTED",
    "RunNotFound",
    "changes_html",
    "changes_lines",
    "compare",
    "listed",
    "member_text",
    "members_text",
    "previous_run",
    "read_run",
    "same_parameters",
    "when_text",
]

COUNTED = ("ok", "partial")  # outcomes whose figures count: the report published them
# Members a block, a message or an alert names before "and N more": each is a name and an
# id, and the first screen is the answer, not the list (`opslib report diff --all` has it).
SHOWN_MEMBERS = 5
DIFF_MEMBERS = 20  # what `opslib report diff` names in a terminal, without --all
SHOWN_METRICS = 12  # moved metrics a block lists before "and N more"
_RUNNER_PARAMETERS = ("output_dir",)  # set per run by the runner: never "different"


class RunNotFound(LookupError):
    """Not a run directory (nor its status.json); the message names the path."""


def read_run(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The status of a run, from its directory or its ``status.json``.

    Raises
    ------
    RunNotFound
        Naming the path and what was missing.

    Examples
    --------
    >>> read_run("reports/fleet_inventory/20261124T060000Z")["outcome"]  # doctest: +SKIP
    'ok'
    """
    given = Path(path)
    file = given / "status.json" if given.is_dir() else given
    try:
        status = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunNotFound(f"{given}: not a run (no status.json there)") from None
    except (OSError, ValueError) as exc:
        raise RunNotFound(f"{given}: cannot read its status.json: {exc}") from None
    if not isinstance(status, dict) or "report" not in status:
        raise RunNotFound(f"{given}: not a run's status.json")
    return status


def same_parameters(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two runs were given the same parameters (the runner's ``output_dir`` aside).

    Examples
    --------
    >>> same_parameters({"start": "-1d", "output_dir": "a"}, {"start": "-1d", "output_dir": "b"})
    True
    """

    def given(parameters: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in parameters.items() if k not in _RUNNER_PARAMETERS}

    return given(a) == given(b)


def previous_run(
    out_dir: str | os.PathLike[str], status: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The latest run before ``status`` of the same report, label and parameters whose
    figures count (:data:`COUNTED`), or None.

    Examples
    --------
    >>> previous_run("reports", read_run(run_dir))["started_at"]  # doctest: +SKIP
    '2026-11-24T05:00:00+00:00'
    """
    report, label = str(status.get("report", "")), str(status.get("label") or "")
    started = str(status.get("started_at") or "")
    here = str(status.get("run_dir") or "")
    for run in load_runs(out_dir):  # newest first
        if run.key != (report, label) or str(run.run_dir) == here or run.started >= started:
            continue
        if str(run.status.get("outcome")) not in COUNTED:
            continue
        if same_parameters(run.status.get("parameters") or {}, status.get("parameters") or {}):
            return {**run.status, "run_dir": str(run.run_dir)}
    return None


def compare(before: Mapping[str, Any], now: Mapping[str, Any]) -> dict[str, Any]:
    """The metrics that moved and the sets that changed from run ``before`` to ``now``.

    Returns
    -------
    dict
        ``against`` (``run_dir``, ``started_at`` of ``before``); ``metrics``: each moved
        metric's ``name``, ``label``, ``unit``, ``before``, ``now``; ``sets``: each changed
        set's ``name``, ``label``, ``noun``, ``joined``, ``left``, ``added``, ``removed``
        (and ``names`` of those members, where either run knew them);
        ``steady``: how many metrics did not move.

    Examples
    --------
    >>> a = {"metrics": {"x": {"value": 1, "unit": "", "label": "x"}}, "sets": {}}
    >>> b = {"metrics": {"x": {"value": 3, "unit": "", "label": "x"}}, "sets": {}}
    >>> compare(a, b)["metrics"][0]["now"]
    3
    """
    old_metrics, new_metrics = before.get("metrics") or {}, now.get("metrics") or {}
    moved, steady = [], 0
    for name, metric in new_metrics.items():
        if name not in old_metrics:
            continue
        was, is_ = old_metrics[name].get("value"), metric.get("value")
        if was == is_:
            steady += 1
            continue
        moved.append(
            {"name": name, "label": metric.get("label", ""), "unit": metric.get("unit", ""),
             "before": was, "now": is_}
        )  # fmt: skip
    changed = []
    old_sets = before.get("sets") or {}
    for name, members in (now.get("sets") or {}).items():
        if name not in old_sets:
            continue
        was_in, is_in = set(old_sets[name].get("members") or []), set(members.get("members") or [])
        if was_in == is_in:
            continue
        added, removed = sorted(is_in - was_in), sorted(was_in - is_in)
        known = {**(old_sets[name].get("names") or {}), **(members.get("names") or {})}
        item = {
            "name": name,
            "label": members.get("label", ""),
            "noun": members.get("noun", "member"),
            "joined": members.get("joined", "joined"),
            "left": members.get("left", "left"),
            "added": added,
            "removed": removed,
        }
        named = {i: known[i] for i in added + removed if i in known}
        changed.append({**item, "names": named} if named else item)
    return {
        "against": {
            "run_dir": str(before.get("run_dir") or ""),
            "started_at": str(before.get("started_at") or ""),
        },
        "metrics": moved,
        "sets": changed,
        "steady": steady,
    }


def when_text(started: str) -> str:
    """A run's start as index.html shows it: ``2026-11-24 06:00 UTC``."""
    try:
        moment = dt.datetime.fromisoformat(started)
    except ValueError:
        return started
    moment = moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _step(before: float | None, now: float | None, unit: str) -> str:
    if before is None or now is None:
        return ""
    return step_text(before, now, unit)


def metric_line(item: Mapping[str, Any]) -> str:
    """``↑ alarms (events.alarms): 80 → 120 (+50%)``."""
    before, now, unit = item.get("before"), item.get("now"), str(item.get("unit") or "")
    arrow = "→"
    if before is not None and now is not None:
        arrow = "↑" if now > before else "↓"
    step = _step(before, now, unit)
    return (
        f"{arrow} {item.get('label') or item['name']} ({item['name']}): "
        f"{format_value(before, unit)} → {format_value(now, unit)}" + (f" ({step})" if step else "")
    )


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def member_text(member: str, names: Mapping[str, str] | None) -> str:
    """A set's member as people know it, its id always in sight.

    >>> names = {"dev-05": "Kitchen lamp · Smart Bulb", "dev-06": "Smart Bulb dev-06"}
    >>> [member_text(m, names) for m in ("dev-05", "dev-06", "dev-07")]
    ['Kitchen lamp · Smart Bulb (dev-05)', 'Smart Bulb dev-06', 'dev-07']
    """
    name = one_line((names or {}).get(member) or "")
    if not name or member in name:
        return name or member
    return f"{name} ({member})"


def members_text(
    ids: Sequence[str], names: Mapping[str, str] | None = None, limit: int | None = SHOWN_MEMBERS
) -> str:
    """The first ``limit`` members of a set as people know them (every one with None),
    and how many more.

    >>> members_text([f"dev-{i}" for i in range(1, 1008)], {"dev-1": "Porch light"}, 2)
    'Porch light (dev-1), dev-2 and 1,005 more'
    """
    shown = ids if limit is None else ids[:limit]
    return listed([member_text(i, names) for i in shown], len(ids))


def listed(shown: Sequence[str], total: int) -> str:
    """``shown`` joined, and how many of ``total`` are not shown.

    >>> listed(["a", "b"], 2), listed(["a", "b"], 1234)
    ('a, b', 'a, b and 1,232 more')
    """
    more = total - len(shown)
    return ", ".join(shown) + (f" and {more:,} more" if more > 0 else "")


def set_line(item: Mapping[str, Any], *, limit: int | None = SHOWN_MEMBERS) -> str:
    """``12 devices went silent: d1, d2, ...; 3 came back: d7, d8, d9 (fleet.silent_devices)``."""
    parts = []
    added, removed = list(item.get("added") or []), list(item.get("removed") or [])
    names = item.get("names")
    if added:
        said = members_text(added, names, limit)
        parts.append(f"{_count(len(added), item['noun'])} {item['joined']}: {said}")
    if removed:
        who = _count(len(removed), item["noun"]) if not added else f"{len(removed):,}"
        parts.append(f"{who} {item['left']}: {members_text(removed, names, limit)}")
    return "; ".join(parts) + f" ({item['name']})"


def changes_lines(
    changes: Mapping[str, Any] | None,
    *,
    limit: int | None = SHOWN_MEMBERS,
    heading: str = "",
) -> list[str]:
    """The comparison as lines of text, its heading first (default: "Since the last run"
    and the earlier run's start); ``[]`` without one. ``limit``: the members of a set
    named by id (None: all).

    Examples
    --------
    >>> changes_lines({"metrics": [], "sets": [], "steady": 4}, heading="Since Monday")
    ['Since Monday: nothing moved (4 figures steady).']
    """
    if not changes:
        return []
    when = when_text(str((changes.get("against") or {}).get("started_at") or ""))
    heading = heading or f"Since the last run ({when})"
    moved, sets = list(changes.get("metrics") or []), list(changes.get("sets") or [])
    steady = int(changes.get("steady") or 0)
    if not moved and not sets:
        if not steady:  # no figure is in both runs: nothing was compared
            return [f"{heading}: no figure is in both runs."]
        return [f"{heading}: nothing moved ({_count(steady, 'figure')} steady)."]
    lines = [f"{heading}:"]
    cap = len(moved) if limit is None else SHOWN_METRICS
    lines += [f"  {metric_line(item)}" for item in moved[:cap]]
    if len(moved) > cap:
        lines.append(f"  and {len(moved) - cap:,} more figures moved")
    lines += [f"  {set_line(item, limit=limit)}" for item in sets]
    if steady:
        lines.append(f"  {_count(steady, 'figure')} steady.")
    return lines


def changes_html(changes: Mapping[str, Any] | None) -> str:
    """The "Since the last run" block of a report's header (escaped text); ``""`` without
    a comparison.

    Examples
    --------
    >>> changes_html(None)
    ''
    """
    lines = changes_lines(changes)
    if not lines:
        return ""
    items = "".join(f"<li>{html.escape(line.strip())}</li>" for line in lines[1:])
    return (
        '<div class="opslib-since" style="border-left:4px solid #1565c0;background:#e8f0fe;'
        'padding:6px 14px;margin:10px 0 0;font-family:system-ui,sans-serif">'
        f"<strong>{html.escape(lines[0])}</strong>"
        + (f'<ul style="margin:4px 0 0;padding-left:18px">{items}</ul>' if items else "")
        + "</div>"
    )
