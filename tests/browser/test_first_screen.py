"""Each report's first screen is the answer, and it names things as people do; read from
the page in headless Chromium (the shared runs of tests/reports/runs.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from reports.runs import REPORTS

from opslib.reports import RunResult

from .pages import FIGURES, FIRST_SCREEN, TABLES, figure, open_report

TITLES = {
    "fleet_inventory": "Fleet inventory",
    "event_analysis": "Event analysis",
    "product_upkeep": "Product upkeep",
    "user_lookup": "User lookup",
}
# What the headline of each report holds, as labels.
HEADLINE = {
    "fleet_inventory": {"devices", "online now", "faulty", "silent 7+ days", "never online"},
    "event_analysis": {"events", "alarms", "devices with alarms", "downtime"},
    "user_lookup": {"user", "devices", "last activity", "events in 7 days"},
    "product_upkeep": {"to add", "to delete and add again", "to delete", "blocked",
                       "problems in the file"},
}  # fmt: skip
# Figures that change have them said: how many cards with a change at the least.
CHANGES = {"fleet_inventory": 5, "event_analysis": 4, "user_lookup": 3, "product_upkeep": 1}
# Marks the moment plotly.js has run (it sets window.Plotly last). Added before the page's
# own scripts, in Playwright's world, which the page's policy does not govern.
PLOTLY_RAN = """(() => {
  let plotly;
  Object.defineProperty(window, 'Plotly', {configurable: true, get() { return plotly; },
    set(value) { plotly = value; performance.mark('plotly-ran'); }});
})();"""
PAINTS = """() => ({
  firstPaint: performance.getEntriesByName('first-contentful-paint')[0].startTime,
  plotlyRan: performance.getEntriesByName('plotly-ran')[0].startTime})"""


@pytest.mark.parametrize("report", REPORTS)
def test_the_first_screen_is_the_answer_and_names_are_names(
    chromium: Any, report_runs: dict[tuple[str, str], RunResult], report: str, tmp_path: Path
) -> None:
    result = report_runs[(report, "unattended")]
    page = open_report(chromium, result.html)
    first = page.evaluate(FIRST_SCREEN)
    # the title, the parameters as a sentence, 3 to 6 figures with their change, all on
    # the first screen; run details only at the end, the platform said once
    assert first["title"] == TITLES[report]
    assert first["sentence"].endswith(".")
    assert "interactive" not in first["sentence"]
    assert "=" not in first["sentence"]  # a sentence, not Python text
    labels = {card["label"] for card in first["cards"]}
    assert labels == HEADLINE[report], labels
    assert 3 <= len(first["cards"]) <= 6
    assert all(card["visible"] and card["bottom"] <= first["height"] for card in first["cards"])
    assert sum(bool(card["change"]) for card in first["cards"]) >= CHANGES[report], first["cards"]
    assert all(card["value"] for card in first["cards"])
    assert first["headerBottom"] <= first["height"]
    assert first["footerTop"] > first["height"]  # run details below the fold
    assert "platform" in first["footer"]
    assert "account" in first["footer"]
    assert first["demoBanners"] == 0  # not a demo run
    assert first["platformLines"] == 0  # said once, in the footer
    # names, not codes: column titles, labels, product and device names
    tables = page.evaluate(TABLES)
    titles = [t for table in tables for t in table["head"]]
    assert not [t for t in titles if "_" in t], titles
    text = page.inner_text("body")
    assert "status_name" not in text
    assert "error_code" not in text
    figures = page.evaluate(FIGURES)
    if report == "fleet_inventory":
        products = figure(figures, "Devices by product")["traces"][0]["y"]
        assert products
        assert not [p for p in products if re.fullmatch(r"p-[\w-]+", p)], products  # names
        groups = next(t for t in tables if t["head"][:2] == ["group", "devices"])
        assert "no group" in [row[0] for row in groups["rows"]]
        assert "0" not in [row[0] for row in groups["rows"]]
    if report == "event_analysis":
        noisy = figure(figures, "Noisiest devices")["traces"][0]["y"]
        assert any(" · " in name for name in noisy), noisy  # nick name · product
    if report == "product_upkeep":
        products = next(t for t in tables if "popular" in t["head"])
        index = products["head"].index("popular")
        assert {row[index] for row in products["rows"]} <= {"yes", "no"}
    page.screenshot(path=str(tmp_path / f"{report}.png"), full_page=True)


@pytest.mark.parametrize("mode", ["unattended", "interactive"])
def test_the_first_screen_shows_before_plotly_js_has_run(
    chromium: Any, report_runs: dict[tuple[str, str], RunResult], mode: str
) -> None:
    """plotly.js takes a second or more to start on a slow machine; the header, with its
    headline figures, is on the screen before that, and the charts follow."""
    result = report_runs[("event_analysis", mode)]
    page = chromium.new_page()
    page.add_init_script(PLOTLY_RAN)
    page.goto(Path(result.html).as_uri())
    page.locator(".js-plotly-plot .main-svg").first.wait_for()
    times = page.evaluate(PAINTS)
    assert times["firstPaint"] < times["plotlyRan"], times
    assert not page.locator(".opslib-noplotly").is_visible()
