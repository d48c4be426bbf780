"""Each exported report, opened in headless Chromium: figures drawn, no error output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from reports.runs import FIGURES, REPORTS

from opslib.reports import RunResult


@pytest.mark.parametrize("report", REPORTS)
def test_report_draws_its_figures_offline(
    chromium: Any, report_runs: dict[tuple[str, str], RunResult], report: str, tmp_path: Path
) -> None:
    result = report_runs[(report, "unattended")]
    assert result.outcome == "ok", result.summary()
    page = chromium.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on(
        "console",
        lambda msg: problems.append(f"console: {msg.text}") if msg.type == "error" else None,
    )
    requests: list[str] = []
    page.on("request", lambda req: requests.append(req.url))
    page.goto(Path(result.html).as_uri())
    page.wait_for_selector(".main-svg")
    # a locator waits in Playwright's own world, which the page's CSP does not govern
    page.locator(".js-plotly-plot").nth(FIGURES[report] - 1).wait_for()
    drawn = page.locator(".js-plotly-plot .main-svg").count()
    assert drawn >= FIGURES[report]
    assert page.locator('[data-mime-type="application/vnd.jupyter.stderr"]').count() == 0
    assert page.locator(".jp-RenderedText[data-mime-type*='error']").count() == 0
    assert "Traceback" not in page.inner_text("body")
    assert problems == []
    assert all(url.startswith("file://") or url.startswith("data:") for url in requests), requests
    page.screenshot(path=str(tmp_path / f"{report}.png"), full_page=True)
    assert (tmp_path / f"{report}.png").stat().st_size > 10_000
