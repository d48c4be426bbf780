"""opslib.analysis.compare: a period against the one before it, in a table and in words."""

from __future__ import annotations

import pandas as pd

from opslib import analysis, enums

from .frames import T0, WEEK, make_events


def test_compare_periods_and_written_summary() -> None:
    current = make_events()
    previous = current[current["event_type"] != enums.EventType.ALARM].copy()
    previous["gmt_create"] = previous["gmt_create"] - pd.Timedelta(days=7)
    prev_window = analysis.previous_window(WEEK)
    assert prev_window == (T0 - pd.Timedelta(days=7), T0)
    table = analysis.compare_periods(
        current, previous, current_window=WEEK, previous_window=prev_window
    ).set_index("measure")
    assert table.loc["alarm events", "current"] == 7
    assert table.loc["alarm events", "previous"] == 0
    assert table.loc["alarm events", "change_pct"] is pd.NA
    text = analysis.change_summary(
        current, previous, current_window=WEEK, previous_window=prev_window
    )
    assert "- Period 2024-05-06 00:00 to 2024-05-13 00:00 UTC" in text
    assert "- Changed by type (previous → this period): alarm 0 → 7." in text  # none unchanged
    assert "New alarm codes: E101, F201." in text
    assert text.count("\n- ") >= 4


def _shifted(events: pd.DataFrame, days: float) -> pd.DataFrame:
    out = events.copy()
    out["gmt_create"] = out["gmt_create"] - pd.Timedelta(days=days)
    return out


def test_no_previous_data_says_so_instead_of_a_percentage() -> None:
    current = make_events()
    previous = current.iloc[0:0]
    prev_window = analysis.previous_window(WEEK)
    text = analysis.change_summary(
        current, previous, current_window=WEEK, previous_window=prev_window
    )
    assert "The previous period has no data: there is nothing to compare with." in text
    assert "- Alarm codes in this period: E101, F201." in text
    assert "%" not in text
    assert "New alarm codes" not in text


def test_no_percentage_on_a_tiny_base() -> None:
    current = pd.concat([make_events()] * 40, ignore_index=True)
    previous = _shifted(make_events().iloc[:3], 7)
    assert len(previous) < analysis.MIN_PERCENT_BASE <= len(current)
    table = analysis.compare_periods(current, previous).set_index("measure")
    assert table.loc["events", "change_pct"] is pd.NA
    text = analysis.change_summary(current, previous)
    assert "- 2,280 events (previous period 3, too few before for a percentage)." in text
    assert "%)" not in text  # no percentage change (the top offender's share is one)


def test_percentages_on_a_large_base_and_a_partly_covered_previous_period() -> None:
    current = pd.concat([make_events()] * 10, ignore_index=True)
    previous = _shifted(current, 7)
    prev_window = analysis.previous_window(WEEK)
    previous = previous[previous["gmt_create"] >= prev_window[0] + pd.Timedelta(days=3)]
    assert len(previous) >= analysis.MIN_PERCENT_BASE
    text = analysis.change_summary(
        current, previous, current_window=WEEK, previous_window=prev_window
    )
    assert "The previous period is only partly covered" in text
    assert "- 570 events (previous period 320, +78%)." in text


def test_a_filter_without_online_and_offline_gives_no_false_zero() -> None:
    current = analysis.filter_events(make_events(), event_types=["alarm"])
    previous = _shifted(current, 7)
    text = analysis.change_summary(current, previous)
    assert "Downtime hours" not in text
    assert (
        "- Downtime not computed: the event types chosen (alarm) leave out the online and "
        "offline events it is measured from; choose them too, or no event type."
    ) in text
    table = analysis.compare_periods(current, previous)
    assert "downtime hours" not in set(table["measure"])


def test_one_device_sending_most_alarms_is_named_with_its_share() -> None:
    events = pd.concat([make_events()] * 5, ignore_index=True)  # 35 alarms, all from d1
    names = {"d1": "Kitchen lamp · Smart Bulb"}
    text = analysis.change_summary(events, _shifted(events, 7), names=names)
    assert "- One device sent 100% of the alarms: Kitchen lamp · Smart Bulb, 35 of 35, " in text
    assert analysis.top_offender(events.iloc[:10]) is None  # too few alarms to say


def test_an_unchanged_type_is_not_listed_as_a_change() -> None:
    current = make_events()
    previous = _shifted(current[current["event_type"] != enums.EventType.ALARM], 7)
    text = analysis.change_summary(current, previous)
    changed = next(line for line in text.splitlines() if line.startswith("- Changed by type"))
    assert changed == "- Changed by type (previous → this period): alarm 0 → 7."  # no "2 → 2"
