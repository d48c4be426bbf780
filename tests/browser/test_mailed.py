"""A report opened away from its folder (a copy, a mail attachment): it says its charts
cannot be drawn, and the copy a mail attaches draws them (plotly.js inside it, once)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from reports.runs import FIGURES

from opslib.reports import RunResult
from opslib.reports.export import self_contained_copy
from opslib.reports.notify import _attachments

from .pages import open_report


def test_a_copy_in_another_folder_warns_and_the_mailed_copy_draws(
    chromium: Any, report_runs: dict[tuple[str, str], RunResult], tmp_path: Path
) -> None:
    result = report_runs[("fleet_inventory", "unattended")]
    elsewhere = tmp_path / "downloads"
    elsewhere.mkdir()
    copy = Path(shutil.copy(result.html, elsewhere))
    page = open_report(chromium, str(copy))
    warning = page.locator(".opslib-noplotly")
    assert warning.is_visible()
    box = warning.bounding_box()
    assert box is not None
    assert box["y"] < 100  # at the top, before the report
    assert "charts of this report cannot be drawn here" in warning.inner_text()
    assert page.locator(".js-plotly-plot .main-svg").count() == 0
    page.screenshot(path=str(tmp_path / "copy.png"), full_page=True)

    # what a notification attaches: one file that draws anywhere
    (mailed,) = _attachments([(result.report, result.html)], set(), tmp_path / "mail").paths
    page = open_report(chromium, mailed)
    requests: list[str] = []
    page.on("request", lambda req: requests.append(req.url))
    page.reload()
    page.locator(".js-plotly-plot .main-svg").nth(FIGURES["fleet_inventory"] - 1).wait_for()
    assert not page.locator(".opslib-noplotly").is_visible()
    assert requests == [Path(mailed).as_uri()]  # nothing beside it is read
    text = Path(mailed).read_text()
    assert text.count("window.PlotlyConfig") == 1  # plotly.js once
    assert 'src="../../plotly-' not in text  # not loaded from beside the report
    # the attachment is that copy
    assert self_contained_copy(result.html, tmp_path / "again.html").read_text() == text
