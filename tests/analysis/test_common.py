"""opslib.analysis._common: report windows."""

from __future__ import annotations

import pandas as pd
import pytest

from opslib import analysis


def test_resolve_window_shares_one_now() -> None:
    start, end = analysis.resolve_window("-7d", "now")
    assert end - start == pd.Timedelta(days=7)
    with pytest.raises(ValueError, match="start must be before end"):
        analysis.resolve_window("now", "-1d")


def test_a_window_resolves_in_the_readers_zone() -> None:
    start, end = analysis.resolve_window("2026-03-07", "2026-03-10", tz="America/New_York")
    assert start.isoformat() == "2026-03-07T00:00:00-05:00"  # local midnight, not UTC
    assert (end - start) == pd.Timedelta(hours=71)  # the clocks went forward on Mar 8
    week = analysis.resolve_window("-7d", tz="Asia/Shanghai")
    assert str(week[0].tz) == "Asia/Shanghai"
    assert week[1] - week[0] == pd.Timedelta(days=7)
    before = analysis.previous_window((start, end))
    assert before[0].isoformat() == "2026-03-04T00:00:00-05:00"  # three local days before


def test_a_window_past_what_pandas_holds_is_named() -> None:
    # 1e20 ms ended in pandas' OutOfBoundsDatetime, naming neither end.
    with pytest.raises(ValueError, match=r"end 1e\+20 is outside the years 1677-2262"):
        analysis.resolve_window("-1d", 1e20)
