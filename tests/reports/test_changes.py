"""What changed between two runs: the figures that moved, the members a set gained and lost,
the previous run of the same parameters, and ``opslib report diff`` (status files only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from opslib.cli import main
from opslib.reports.changes import changes_html, changes_lines, compare

from .alert_fixtures import FakeRuns

SILENT = [f"dev-{n:02d}" for n in range(30)]


def test_the_block_says_what_moved_with_arrows_and_who_went_silent() -> None:
    before = {
        "started_at": "2026-11-24T05:00:00+00:00",
        "metrics": {
            "events.alarms": {"value": 80, "unit": "", "label": "alarms"},
            "fleet.online_share": {"value": 61.2, "unit": "%", "label": "online now"},
            "events.downtime_hours": {"value": 3.0, "unit": "h", "label": "downtime"},
        },
        "sets": {"fleet.silent_devices": {"members": SILENT[:5], "noun": "device",
                                          "joined": "went silent", "left": "came back"}},
    }  # fmt: skip
    now = {
        "metrics": {
            "events.alarms": {"value": 120, "unit": "", "label": "alarms"},
            "fleet.online_share": {"value": 58.0, "unit": "%", "label": "online now"},
            "events.downtime_hours": {"value": 3.0, "unit": "h", "label": "downtime"},
        },
        "sets": {"fleet.silent_devices": {"members": SILENT[3:17], "noun": "device",
                                          "joined": "went silent", "left": "came back"}},
    }  # fmt: skip
    lines = changes_lines(compare(before, now))
    assert lines == [
        "Since the last run (2026-11-24 05:00 UTC):",
        "  ↑ alarms (events.alarms): 80 → 120 (+50%)",
        "  ↓ online now (fleet.online_share): 61.2% → 58.0% (-3.2 pts)",
        "  12 devices went silent: " + ", ".join(SILENT[5:10]) + " and 7 more; 3 came back: "
        + ", ".join(SILENT[:3]) + " (fleet.silent_devices)",
        "  1 figure steady.",
    ]  # fmt: skip
    shown = changes_html(compare(before, {**now, "metrics": {}}))
    assert shown.count("<li>") == 1
    assert "12 devices went silent: dev-05" in shown


def test_a_small_move_of_a_large_figure_is_not_minus_nought_percent() -> None:
    # Before: "52,103 → 52,096 (-0%)", a change said as none; the headlines said -0.01%.
    before = {"metrics": {"events.total": {"value": 52_103, "unit": "", "label": "events"}}}
    now = {"metrics": {"events.total": {"value": 52_096, "unit": "", "label": "events"}}}
    assert changes_lines(compare(before, now))[1] == (
        "  ↓ events (events.total): 52,103 → 52,096 (-0.01%)"
    )


def test_a_tiny_move_keeps_its_first_digit_and_a_kept_figure_rounds_as_shown() -> None:
    # Before: the demo's "since the last run" said 230,252 → 230,243 (-0.00%), and
    # downtime kept as 147,536.5 h in status.json was shown as 147,536 h (Python rounds a
    # half to even) where the comparison below it said the unrounded 147,536.54 as 147,537.
    events = {"value": 230_252, "unit": "", "label": "events"}
    hours = {"value": 147_536.5, "unit": "h", "label": "downtime"}
    before = {"metrics": {"events.total": events, "events.downtime_hours": hours}}
    now = {"metrics": {"events.total": {**events, "value": 230_243},
                       "events.downtime_hours": {**hours, "value": 150_267.0}}}  # fmt: skip
    assert changes_lines(compare(before, now))[1:3] == [
        "  ↓ events (events.total): 230,252 → 230,243 (-0.004%)",
        "  ↑ downtime (events.downtime_hours): 147,537 h → 150,267 h (+2%)",
    ]


def test_members_are_named_where_a_run_knew_their_names() -> None:
    # Before: "1 device went offline: dev-2; 1 came back online: dev-1", ids only.
    def run(members: list[str], names: dict[str, str]) -> dict[str, object]:
        offline = {"members": members, "noun": "device", "joined": "went offline",
                   "left": "came back online", "names": names}  # fmt: skip
        return {"metrics": {}, "sets": {"fleet.offline_devices": offline}}

    before = run(["dev-1"], {"dev-1": "Kitchen ·\r\nRun: Bulb"})  # one line, whatever the name
    now = run(["dev-2", "dev-3"], {"dev-2": "Hall · Plug"})
    assert changes_lines(compare(before, now))[1] == (
        "  2 devices went offline: Hall · Plug (dev-2), dev-3; 1 came back online: "
        "Kitchen · Run: Bulb (dev-1) (fleet.offline_devices)"
    )


def test_a_long_set_is_cut_in_the_block_and_whole_in_a_diff() -> None:
    before = {"sets": {"s": {"members": [], "noun": "device", "joined": "went silent"}}}
    now = {"sets": {"s": {"members": SILENT, "noun": "device", "joined": "went silent"}}}
    (_, line) = changes_lines(compare(before, now))
    assert line.endswith("dev-03, dev-04 and 25 more (s)")  # five named on a first screen
    (_, line) = changes_lines(compare(before, now), limit=None)
    assert line.endswith("dev-29 (s)")


def test_a_run_is_compared_with_the_previous_counted_run_of_its_parameters(
    tmp_path: Path,
) -> None:
    runs = FakeRuns(tmp_path)
    first = runs.run({"quick.count": 1}, parameters={"start": "-1d", "output_dir": "a"})
    assert first.changes is None
    runs.run({"quick.count": 50}, parameters={"start": "-7d"})  # other parameters
    runs.run({"quick.count": 99}, outcome="failed", parameters={"start": "-1d"})
    third = runs.run({"quick.count": 4}, parameters={"start": "-1d", "output_dir": "b"})
    assert third.changes is not None
    assert third.changes["against"]["run_dir"] == first.run_dir
    assert third.changes["metrics"] == [
        {"name": "quick.count", "label": "quick.count", "unit": "", "before": 1, "now": 4}
    ]


def test_report_diff_prints_the_block_for_any_two_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = FakeRuns(tmp_path)
    a = runs.run({"quick.count": 3}, {"quick.devices": ["d1", "d2"]})
    runs.run({"quick.count": 5}, {"quick.devices": ["d1"]})
    b = runs.run({"quick.count": 9}, {"quick.devices": ["d2", "d3"]})
    assert main(["report", "diff", a.run_dir, str(Path(b.run_dir) / "status.json")]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "quick, from the run of 2026-11-24 07:00 UTC to the run of 2026-11-24 09:00 UTC:",
        "  ↑ quick.count (quick.count): 3 → 9 (+6)",
        "  1 device went silent: d3; 1 came back: d1 (quick.devices)",
    ]
    assert main(["report", "diff", a.run_dir, str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"opslib report diff: {tmp_path / 'nope'}: not a run (no status.json there)"
    )
    # A failed run published no figures: it said "nothing moved (0 figures steady)".
    failed = runs.run({}, outcome="failed")
    assert main(["report", "diff", a.run_dir, failed.run_dir]) == 2
    assert capsys.readouterr().err.strip() == (
        f"opslib report diff: {failed.run_dir}: that run is failed and published no figures; "
        "compare runs that are ok or partial"
    )
    other = runs.run({"quick.rate": 2.0})  # no figure of a's
    assert main(["report", "diff", a.run_dir, other.run_dir]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(": no figure is in both runs.")
