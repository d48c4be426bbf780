"""Small, empty and clock-changing windows as a person sees them in headless Chromium (the
runs of tests/reports/more_runs.py): a one-day window, a window without data, and a zone
whose clocks go back inside the window; and the index of those runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from reports.more_fixtures import more_report_runs, out_dir  # noqa: F401 - the fixture
from reports.more_runs import DST_ZONE

from opslib import analysis
from opslib.reports import RunResult
from opslib.reports.index import write_index

from .pages import FIGURES, FIRST_SCREEN, TABLES, column, figure, open_report


def test_a_one_day_window_counts_a_device_offline_all_day_as_24_hours(
    chromium: Any,
    more_report_runs: dict[str, RunResult],  # noqa: F811
    platform: Any,
    tmp_path: Path,
) -> None:
    result = more_report_runs["one_day"]
    assert result.outcome == "ok", result.summary()
    devices = platform.connect().devices.list()
    start = pd.Timestamp(result.started_at) - pd.Timedelta(days=1)
    offline = devices[(devices["status_name"] == "offline") & (devices["gmt_last_seen"] < start)]
    assert len(offline)  # the seed leaves some devices offline since days
    page = open_report(chromium, result.html)
    first = page.evaluate(FIRST_SCREEN)
    assert first["sentence"].startswith("Last day to ")
    downtime = next(card for card in first["cards"] if card["label"] == "downtime")
    assert downtime["value"].endswith(" h")
    table = next(t for t in page.evaluate(TABLES) if "hours offline" in t["head"])
    hours = dict(zip(column(table, "device id"), column(table, "hours offline"), strict=True))
    for device in offline["device_id"]:
        assert hours[str(device)] == "24.0", (device, hours)  # offline from the first moment
    # one row per weekday the window covers, none empty for days outside it
    rhythm = figure(page.evaluate(FIGURES), "Events by hour of day and weekday")
    days = rhythm["traces"][0]["y"]
    assert days == analysis.window_weekdays(
        (start, pd.Timestamp(result.started_at))
    ), days  # fmt: skip
    assert 1 <= len(days) <= 2
    page.screenshot(path=str(tmp_path / "one_day.png"), full_page=True)


def test_an_empty_window_says_so_once_a_section_and_names_where_data_is(
    chromium: Any,
    more_report_runs: dict[str, RunResult],  # noqa: F811
    tmp_path: Path,
) -> None:
    result = more_report_runs["empty"]
    assert result.outcome == "failed"
    page = open_report(chromium, result.html)
    first = page.evaluate(FIRST_SCREEN)
    assert "No events from 2020-01-01 00:00 to 2020-01-02 00:00 UTC" in first["problem"]
    assert "the latest report of these devices is at" in first["problem"]
    assert page.locator(".js-plotly-plot").count() == 0  # no empty axes, no empty heatmap
    sentences = page.locator(".opslib-empty").all_inner_texts()
    assert len(sentences) >= 6, sentences  # one sentence in place of each chart and table
    assert all(text.count(".") >= 1 and "\n" not in text for text in sentences)
    assert any(text.startswith("Events by hour of day and weekday") for text in sentences)
    page.screenshot(path=str(tmp_path / "empty.png"), full_page=True)


def test_a_zone_whose_clocks_change_inside_the_window(
    chromium: Any,
    more_report_runs: dict[str, RunResult],  # noqa: F811
    tmp_path: Path,
) -> None:
    result = more_report_runs["dst"]
    assert result.outcome == "ok", result.summary()
    page = open_report(chromium, result.html)
    first = page.evaluate(FIRST_SCREEN)
    assert first["sentence"].startswith(
        "From 2026-10-31 to 2026-11-03, event types alarm, property report, 1D buckets"
    ), first["sentence"]
    assert DST_ZONE in first["sentence"]
    # the filter leaves out online and offline: downtime is not computed, and says why
    downtime = next(card for card in first["cards"] if card["label"] == "downtime")
    assert downtime["value"] == "not computed"
    assert "leave out the online and offline events" in downtime["note"]
    text = page.inner_text("body")
    assert "Downtime hours: 0" not in text
    assert "No outages" not in text
    figures = page.evaluate(FIGURES)
    volume = figure(figures, "Events over time")
    assert volume["xtitle"] == f"time ({DST_ZONE})"
    days = sorted({x for trace in volume["traces"] for x in trace["x"]})
    # local midnights: Oct 31 and Nov 2 are 24 hours, Nov 1 is 25
    assert days == ["2026-10-31 00:00:00", "2026-11-01 00:00:00", "2026-11-02 00:00:00"]
    rhythm = figure(figures, "Events by hour of day and weekday")
    assert rhythm["title"].endswith(f"({DST_ZONE})")
    assert rhythm["traces"][0]["y"] == ["Saturday", "Sunday", "Monday"]
    page.screenshot(path=str(tmp_path / "dst.png"), full_page=True)


def test_the_index_counts_the_failed_runs_and_lists_them_first(
    chromium: Any,
    more_report_runs: dict[str, RunResult],  # noqa: F811
) -> None:
    page = chromium.new_page()
    page.goto(write_index(out_dir(more_report_runs)).as_uri())
    summary = page.locator(".summary").inner_text()
    bad = [r for r in more_report_runs.values() if r.outcome != "ok"]
    assert summary.startswith(f"{len(bad)} of {len(more_report_runs)} not ok")
    assert all(f"{r.name} ({r.outcome})" in summary for r in bad), summary
    rows = page.evaluate(
        "[...document.querySelectorAll('#latest + table tbody tr')].map(r => r.className)"
    )
    assert rows[: len(bad)] == [r.outcome for r in sorted(bad, key=lambda r: r.name)]
    assert set(rows[len(bad) :]) == {"ok"}
    cells = page.locator("#latest + table tbody tr td.when").all_inner_texts()
    assert all(len(c) == len("2026-11-24 06:00") for c in cells), cells  # one format
    parameters = page.locator("#latest + table tbody tr td:nth-child(6)").all_inner_texts()
    assert all(p.endswith(".") and "=" not in p for p in parameters), parameters
