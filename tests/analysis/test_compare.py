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
    assert table.loc["fault events", "current"] == 7
    assert table.loc["fault events", "previous"] == 0
    assert table.loc["fault events", "change_pct"] is pd.NA
    text = analysis.change_summary(
        current, previous, current_window=WEEK, previous_window=prev_window
    )
    assert "- Period 2024-05-06 00:00 to 2024-05-13 00:00 UTC" in text
    assert "fault new (0 → 7)" in text
    assert "New alarm codes: E101, F201." in text
    assert text.count("\n- ") >= 4
