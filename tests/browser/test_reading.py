"""The reports read as a person reads them, checked in headless Chromium.

Each unattended report's HTML (the runs tests/reports makes too): a human title, the
parameters as a sentence, times without "+00:00", tables with no raw index and no
header-only table, legends clear of every axis title (by the drawn boxes), no section
that only works in Jupyter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from reports.runs import REPORTS

from opslib.reports import RunResult

TITLES = {
    "fleet_inventory": "Fleet inventory",
    "event_analysis": "Event analysis",
    "product_upkeep": "Product upkeep",
    "user_lookup": "User lookup",
}

# Every pair (legend, axis title) of every figure whose drawn boxes intersect.
LEGEND_OVERLAPS = """() => {
  const overlap = (a, b) => a.left < b.right && b.left < a.right
                            && a.top < b.bottom && b.top < a.bottom;
  const found = [];
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const legend = gd.querySelector('.legend');
    if (!legend) continue;
    const box = legend.getBoundingClientRect();
    if (!box.width) continue;
    for (const title of gd.querySelectorAll('.g-xtitle, .g-ytitle')) {
      const t = title.getBoundingClientRect();
      if (t.width && overlap(box, t)) {
        found.push((gd.layout.title && gd.layout.title.text) + ': ' + title.textContent);
      }
    }
  }
  return found;
}"""

# Tables as drawn: header cells in the body (a raw index) and tables without a body row.
TABLES = """() => [...document.querySelectorAll('table')]
  .filter(t => !t.closest('.opslib-header'))
  .map(t => ({index: t.querySelectorAll('tbody th').length,
              rows: t.querySelectorAll('tbody tr').length,
              head: t.querySelectorAll('thead th').length}))"""


@pytest.mark.parametrize("report", REPORTS)
def test_unattended_report_reads_as_a_person_reads_it(
    chromium: Any, report_runs: dict[tuple[str, str], RunResult], report: str, tmp_path: Path
) -> None:
    result = report_runs[(report, "unattended")]
    assert result.outcome == "ok", result.summary()
    page = chromium.new_page()
    page.goto(Path(result.html).as_uri())
    page.locator(".js-plotly-plot .main-svg").first.wait_for()
    assert page.locator(".opslib-header h1").inner_text() == TITLES[report]
    header = page.locator(".opslib-header").inner_text()
    assert page.locator(".opslib-header .opslib-sentence").inner_text().endswith(".")
    assert "parameters" in page.locator(".opslib-footer").inner_text()  # run details
    assert "interactive" not in header
    assert "output_dir" not in header
    text = page.inner_text("body")
    assert "+00:00" not in text
    assert "<NA>" not in text
    tables = page.evaluate(TABLES)
    assert all(t["index"] == 0 for t in tables), tables
    assert all(t["rows"] > 0 for t in tables if t["head"]), tables
    assert page.evaluate(LEGEND_OVERLAPS) == []
    assert "Interactive only" not in text
    assert "Add or delete one product" not in text
    if report == "event_analysis":
        assert "previous period" in text
        assert "Event filters: all event types, whole fleet" in text
    if report == "user_lookup":
        assert text.count("Notification settings of") == 1
        assert "the interface gives them only to the user themselves" in text
    page.screenshot(path=str(tmp_path / f"{report}.png"), full_page=True)
