"""``index.html`` of every run under a reports directory, and pruning old runs.

The page opens with the alerts that hold now and how many of the latest runs did not end
ok and which, then the latest run of each report (a report and its run-all label: outcome,
platform, when, duration, the parameters as the report said them, link), those that did
not succeed first, each with its alerts that hold, what changed since the run before and a
small trend of each headline figure over the kept runs; then the history grouped by
report, newest first. It
reads the ``status.json`` of every run directory (``<out>/<report>/<run>/``), so runs of
``opslib report run`` and of every run-all appear. A run on demo data is marked, and the
page carries a DEMO DATA banner when any latest run is one.

:func:`prune` removes old run directories (``opslib report prune --keep N`` or
``--older-than DAYS``) and never the latest run of a report.
"""

from __future__ import annotations

import datetime as dt
import html
import math
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from opslib.reports._runs import Run, load_runs
from opslib.reports._trend import STYLE as TREND_STYLE
from opslib.reports._trend import alerts_summary, report_details
from opslib.reports.platform import DEMO_LABEL
from opslib.reports.status import STATUS_FILE

__all__ = ["INDEX_FILE", "Run", "load_runs", "prune", "write_index"]

INDEX_FILE = "index.html"
# The index runs no script at all (every cell is escaped text; the policy makes sure).
INDEX_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


def _latest(runs: Iterable[Run]) -> dict[tuple[str, str], Run]:
    latest: dict[tuple[str, str], Run] = {}
    for run in runs:  # newest first: the first of a key is its latest
        latest.setdefault(run.key, run)
    return dict(sorted(latest.items()))


def _e(text: Any) -> str:
    return html.escape("" if text is None else str(text))


def _links(run: Run, out: Path) -> str:
    links = []
    if run.status.get("html"):
        rel = os.path.relpath(run.status["html"], out)
        links.append(f'<a href="{_e(rel)}">report</a>')
    rel_status = os.path.relpath(run.run_dir / STATUS_FILE, out)
    links.append(f'<a href="{_e(rel_status)}">status</a>')
    return " ".join(links)


def _platform_cell(run: Run) -> str:
    platform = run.platform
    if platform is None:
        profile = run.status.get("profile")
        return _e(f"profile {profile!r}" if profile else "")
    badge = f'<span class="demo">{DEMO_LABEL}</span> ' if platform.demo else ""
    where = "embedded demo platform" if platform.demo else platform.name
    return f"{badge}{_e(where)}<br><small>{_e(platform.account)}</small>"


def _parameters(run: Run) -> str:
    """The parameters as the report said them (its first screen's sentence)."""
    said = str(run.status.get("sentence") or "")
    if said:
        return said
    from opslib.reports._describe import describe_parameters

    return describe_parameters(dict(run.status.get("parameters") or {}))


def _when(run: Run) -> str:
    started = _started(run)
    return started.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M") if started else run.started


def _row(run: Run, out: Path, *, name: bool) -> str:
    outcome = str(run.status.get("outcome", "?"))
    first = f"<td>{_e(run.name)}</td>" if name else ""
    return (
        f'<tr class="{_e(outcome)}">{first}<td class="outcome">{_e(outcome)}</td>'
        f'<td>{_platform_cell(run)}</td><td class="when">{_e(_when(run))}</td>'
        f"<td>{float(run.status.get('duration_s') or 0):.1f} s</td>"
        f"<td>{_e(_parameters(run))}</td><td>{_links(run, out)}</td>"
        f"<td>{_e(run.status.get('reason') or '')}</td></tr>"
    )


_HEAD = "<th>outcome</th><th>platform</th><th>started (UTC)</th><th>duration</th>"
_HEAD += "<th>parameters</th><th>links</th><th>reason</th>"
_STYLE = """
body { font-family: system-ui, sans-serif; margin: 24px; }
table { border-collapse: collapse; width: 100%; font-size: 14px; margin-bottom: 12px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #e0e0e0;
  vertical-align: top; }
tr.failed td, tr.timeout td, tr.partial td, tr.skipped td { background: #fdecea; }
tr.ok td.outcome { color: #1b5e20; }
td.outcome { font-weight: bold; }
td.when, td.outcome { white-space: nowrap; }
.summary { font-size: 1.1em; }
.summary.bad strong { color: #b00020; }
code { font-size: 12px; }
.demo { background: #b00020; color: #fff; font-weight: bold; padding: 0 4px; }
.demo-banner { background: #b00020; color: #fff; font-weight: bold; padding: 8px 12px; }
details { margin: 4px 0 12px; }
"""


def render_index(
    runs: list[Run],
    out: Path,
    firing: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]] | None = None,
) -> str:
    """The page: the alerts that hold now, the latest run per report (with its alerts,
    what changed since the run before and the trend of each headline figure), then each
    report's history. ``firing``: the alerts that hold, by report and label."""
    firing = firing or {}
    latest = _latest(runs)
    demo = sum(1 for r in latest.values() if r.platform is not None and r.platform.demo)
    banner = ""
    if demo:
        banner = (
            f'<div class="demo-banner">{DEMO_LABEL}: {demo} of the {len(latest)} latest '
            "runs used the embedded demo platform, not a real fleet.</div>"
        )
    failing = [r for r in latest.values() if str(r.status.get("outcome")) != "ok"]
    # what needs a person first: the runs that did not succeed, then the rest
    ordered = failing + [r for r in latest.values() if r not in failing]
    latest_rows = "\n".join(
        _row(run, out, name=True) + _details(run, runs, firing.get(run.key, ())) for run in ordered
    )
    if failing:
        named = ", ".join(f"{r.name} ({r.status.get('outcome')})" for r in failing)
        summary = (
            f'<p class="summary bad"><strong>{len(failing)} of {len(latest)} not ok</strong> '
            f"(latest run of each report): {_e(named)}.</p>"
        )
    else:
        summary = f'<p class="summary">All {len(latest)} latest runs ok.</p>'

    history = []
    for key in latest:
        rows = [r for r in runs if r.key == key]
        body = "\n".join(_row(run, out, name=False) for run in rows)
        count = f"{len(rows)} run" + ("s" if len(rows) != 1 else "")
        history.append(
            f"<details open><summary><strong>{_e(rows[0].name)}</strong> ({count})"
            f"</summary><table><thead><tr>{_HEAD}</tr></thead><tbody>\n{body}\n"
            "</tbody></table></details>"
        )
    generated = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{INDEX_POLICY}">
<title>opslib reports</title>
<style>{_STYLE}{TREND_STYLE}</style></head>
<body>{banner}<h1>opslib reports</h1>
{alerts_summary(firing)}{summary}
<p>{len(runs)} runs of {len(latest)} reports. Generated {generated}.</p>
<h2 id="latest">Latest run of each report</h2>
<table><thead><tr><th>report</th>{_HEAD}</tr></thead><tbody>
{latest_rows}
</tbody></table>
<h2 id="history">History by report</h2>
{chr(10).join(history)}
</body></html>
"""


def _details(run: Run, runs: list[Run], firing: Sequence[Mapping[str, Any]]) -> str:
    """The row under a report's latest run: alerts, changes, trends (none when empty)."""
    history = [r.status for r in runs if r.key == run.key]
    block = report_details(run.status, history, firing)
    return f'<tr class="detail"><td></td><td colspan="8">{block}</td></tr>' if block else ""


def write_index(out_dir: str | os.PathLike[str]) -> Path:
    """Write ``index.html`` of every run under ``out_dir`` (atomically).

    Examples
    --------
    >>> write_index("reports")  # doctest: +SKIP
    PosixPath('reports/index.html')
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    from opslib.reports._alerting import firing_alerts

    page = render_index(load_runs(out), out, firing_alerts(out))
    index = out / INDEX_FILE
    tmp = index.with_suffix(".html.tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(index)
    return index


def _started(run: Run) -> dt.datetime | None:
    try:
        moment = dt.datetime.fromisoformat(run.started)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def prune(
    out_dir: str | os.PathLike[str],
    *,
    keep: int | None = None,
    older_than_days: float | None = None,
    dry_run: bool = False,
) -> list[Path]:
    """Remove old run directories; the latest run of each report always stays.

    Parameters
    ----------
    out_dir
        The reports directory.
    keep
        Keep the newest ``keep`` runs of each report (and its label).
    older_than_days
        Remove runs that started more than this many days ago.
    dry_run
        List what would go, remove nothing.

    Returns
    -------
    list of Path
        The run directories removed (or that would be). index.html is rewritten.

    Examples
    --------
    >>> prune("reports", keep=30)  # doctest: +SKIP
    [PosixPath('reports/fleet_inventory/20240101T060000Z')]
    """
    if (keep is None) == (older_than_days is None):
        raise ValueError("give one of keep=N or older_than_days=DAYS")
    if keep is not None and (isinstance(keep, bool) or keep < 1):
        raise ValueError(f"keep must be 1 or more (the latest run always stays), got {keep!r}")
    if older_than_days is not None and not (
        math.isfinite(older_than_days) and older_than_days >= 0
    ):
        raise ValueError(
            f"older_than_days must be a number of days, 0 or more, got {older_than_days!r}"
        )
    out = Path(out_dir)
    runs = load_runs(out)
    cutoff = None
    if older_than_days is not None:
        try:
            cutoff = dt.datetime.now(dt.UTC) - dt.timedelta(days=older_than_days)
        except OverflowError:  # before year 1: no run is that old
            cutoff = dt.datetime.min.replace(tzinfo=dt.UTC)
    seen: dict[tuple[str, str], int] = {}
    doomed = []
    for run in runs:  # newest first
        seen[run.key] = seen.get(run.key, 0) + 1
        if seen[run.key] == 1:
            continue  # the latest run of a report stays
        if keep is not None and seen[run.key] > keep:
            doomed.append(run.run_dir)
        started = _started(run)
        if cutoff is not None and started is not None and started < cutoff:
            doomed.append(run.run_dir)
    doomed = sorted(set(doomed))
    if not dry_run:
        for path in doomed:
            shutil.rmtree(path)
            if path.parent != out and not any(path.parent.iterdir()):
                path.parent.rmdir()
        write_index(out)
    return doomed
