"""index.html (the latest run of each report first, then each report's history) and prune."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest

from opslib.reports.index import load_runs, prune, write_index

from .test_runner import opslib_cli

NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)
PROD = {"profile": "prod", "base_url": "https://ops.example.com", "demo": False,
        "nick_name": "Ops desk", "phone": "555*****01", "role": "ops"}  # fmt: skip
DEMO = {"profile": "", "base_url": "http://127.0.0.1:4000", "demo": True, "role": "ops"}


def add_run(
    out: Path, report: str, days_ago: float, outcome: str = "ok", label: str = "", **extra: Any
) -> Path:
    started = NOW - dt.timedelta(days=days_ago)
    run_dir = out / report / (started.strftime("%Y%m%dT%H%M%SZ") + (f"-{label}" if label else ""))
    run_dir.mkdir(parents=True)
    html = run_dir / f"{report}.html"
    html.write_text("<html></html>")
    status = {
        "report": report, "label": label, "outcome": outcome,
        "started_at": started.isoformat(), "duration_s": 12.5, "html": str(html),
        "parameters": {"days": 7}, "platform": PROD, "profile": "prod",
        "reason": "" if outcome == "ok" else "The report failed in section 'X': E: boom.",
        **extra,
    }  # fmt: skip
    (run_dir / "status.json").write_text(json.dumps(status))
    return run_dir


@pytest.fixture
def out(tmp_path: Path) -> Path:
    out = tmp_path / "reports"
    add_run(out, "fleet_inventory", 3)
    add_run(out, "fleet_inventory", 2, "failed")
    add_run(out, "fleet_inventory", 1)
    add_run(out, "event_analysis", 5, label="last-week")
    add_run(out, "event_analysis", 0.5, "partial", label="last-week")
    add_run(out, "event_analysis", 4, label="alarms", platform=DEMO, profile="")
    return out


def _section(page: str, start: str, end: str) -> str:
    return page[page.index(start) : page.index(end)]


def test_the_index_opens_with_the_latest_run_of_each_report(out: Path) -> None:
    page = write_index(out).read_text()
    latest = _section(page, 'id="latest"', 'id="history"')
    rows = re.findall(r'<tr class="(\w+)"><td>([^<]+)</td>', latest)
    assert rows == [
        ("partial", "event_analysis/last-week"),  # what needs a look first
        ("ok", "event_analysis/alarms"),
        ("ok", "fleet_inventory"),
    ]
    assert page.index("1 of 3 not ok</strong>") < page.index('id="latest"')  # counted on top
    assert "event_analysis/last-week (partial)." in page.split("1 of 3 not ok</strong>")[1][:80]
    assert "profile &#x27;prod&#x27; (ops.example.com)" in latest  # the platform
    assert "Ops desk (555*****01), role ops" in latest  # the account
    assert "12.5 s" in latest  # the duration
    when = (NOW - dt.timedelta(days=1)).strftime("%Y-%m-%d %H:%M")
    assert f'<td class="when">{when}</td>' in latest  # when, in UTC, one format
    assert "Events of the last 7 days." in latest  # the parameters as a sentence
    assert "days=7" not in latest  # not as Python text
    assert re.search(r"Generated \d{4}-\d\d-\d\d \d\d:\d\d UTC\.", page)  # not raw ISO
    assert latest.count('">report</a>') == 3  # a link each
    assert "The report failed in section" in latest  # the reason of the partial one
    assert '<span class="demo">DEMO DATA</span>' in latest
    assert "DEMO DATA: 1 of the 3 latest runs used the embedded demo platform" in page


def test_the_history_is_grouped_by_report_newest_first(out: Path) -> None:
    page = write_index(out).read_text()
    history = page[page.index('id="history"') :]
    groups = re.findall(r"<summary><strong>([^<]+)</strong> \(([^)]+)\)</summary>", history)
    assert groups == [("event_analysis/alarms", "1 run"), ("event_analysis/last-week", "2 runs"),
                      ("fleet_inventory", "3 runs")]  # fmt: skip
    fleet = history[history.index("<strong>fleet_inventory</strong>") :]
    assert re.findall(r'<tr class="(\w+)">', fleet) == ["ok", "failed", "ok"]  # newest first


def test_prune_keeps_the_newest_n_of_each_report(out: Path) -> None:
    removed = prune(out, keep=1, dry_run=True)
    assert len(removed) == 3
    assert len(load_runs(out)) == 6  # a dry run removes nothing
    assert prune(out, keep=1) == removed
    runs = load_runs(out)
    assert sorted(r.name for r in runs) == [
        "event_analysis/alarms", "event_analysis/last-week", "fleet_inventory",
    ]  # fmt: skip
    assert all(not path.exists() for path in removed)
    assert write_index(out).read_text().count("<details") == 3


def test_prune_by_age_never_removes_a_reports_latest_run(out: Path) -> None:
    removed = prune(out, older_than_days=2.5)
    names = sorted(str(p.relative_to(out)).split("/")[0] for p in removed)
    assert names == ["event_analysis", "fleet_inventory"]  # last-week's 5 days, fleet's 3
    kept = {r.name: r.started for r in load_runs(out)}
    assert "event_analysis/alarms" in kept  # 4 days old, but its report's latest


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "give one of keep=N or older_than_days=DAYS"),
        ({"keep": 0}, "keep must be 1 or more"),
        ({"keep": 1, "older_than_days": 3}, "give one of"),
        ({"older_than_days": float("nan")}, "older_than_days must be a number of days, 0 or more"),
        ({"older_than_days": float("inf")}, "older_than_days must be a number of days"),
        ({"older_than_days": -1}, "older_than_days must be a number of days"),
    ],
)
def test_prune_refuses_unclear_requests(out: Path, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        prune(out, **kwargs)


def test_an_age_beyond_any_date_prunes_nothing(out: Path) -> None:
    before = load_runs(out)
    assert prune(out, older_than_days=1e300) == []
    assert load_runs(out) == before


def test_cli_prune(out: Path) -> None:
    done = opslib_cli("report", "prune", "--out", str(out), "--keep", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"removed 1 runs; index: {out / 'index.html'}"
    assert len(load_runs(out)) == 5
    both = opslib_cli("report", "prune", "--out", str(out), "--keep", "2", "--older-than", "3")
    assert both.returncode == 2
    neither = opslib_cli("report", "prune", "--out", str(out))
    assert neither.returncode == 2


def test_a_rule_that_could_not_tell_is_shown_as_not_evaluated(tmp_path: Path) -> None:
    """Under chint 'faulty' is not computed: a rule on it never holds, and says why."""
    out = tmp_path / "reports"
    untold = {
        "rule": "fleet_inventory: fleet.faulty_devices > 0", "title": "fleet.faulty_devices > 0",
        "holds": None, "firing": False,
        "detail": "fleet.faulty_devices: not computed in this run",
    }  # fmt: skip
    told = {**untold, "rule": "r2", "title": "fleet.devices > 0", "holds": False, "detail": ""}
    add_run(out, "fleet_inventory", 1, alerts=[untold, told])
    page = write_index(out).read_text()
    block = page[page.index('class="untold"') :]
    assert "Alert rules not evaluated" in block
    assert (
        "<li>fleet.faulty_devices &gt; 0: fleet.faulty_devices: not computed in this run</li>"
        in block
    )
    assert "fleet.devices &gt; 0" not in page  # a rule that was evaluated is not listed
