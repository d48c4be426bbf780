"""index.html and a failed report as a person sees them in headless Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reports.conftest import write_quick_notebook
from reports.runs import FIGURES, platform_env

from opslib.reports import RunResult, run_report
from opslib.reports.index import write_index

LATEST_ROWS = "[...document.querySelectorAll('#latest + table tbody tr')].map(r => r.innerText)"


def test_the_index_shows_the_latest_runs_first_and_links_to_reports(
    chromium: Any, report_runs: dict[tuple[str, str], RunResult], tmp_path: Path
) -> None:
    runs = list(report_runs.values())  # all eight made (each is made on first use)
    out = Path(runs[0].run_dir).parents[1]
    index = write_index(out)
    page = chromium.new_page()
    requests: list[str] = []
    page.on("request", lambda req: requests.append(req.url))
    page.goto(index.as_uri())
    latest = page.evaluate(LATEST_ROWS)
    assert len(latest) == 8  # four reports in two modes: each label is a report's own line
    assert all("\tok\t" in row for row in latest), latest
    assert all("OPSLIB_* environment (127.0.0.1:" in row for row in latest)
    assert all("Ops desk (555*****01), role ops" in row for row in latest)
    history = page.locator("#history ~ details summary").all_inner_texts()
    assert len(history) == 8
    assert page.locator(".demo-banner").count() == 0  # no demo run here
    page.screenshot(path=str(tmp_path / "index.png"), full_page=True)
    # The first report's link opens it, drawn offline with the shared plotly.js.
    first = page.locator("#latest + table tbody tr").first
    name = first.locator("td").first.inner_text().split("/")[0]
    first.get_by_role("link", name="report").click()
    # a locator waits in Playwright's own world, which the page's CSP does not govern
    page.locator(".js-plotly-plot .main-svg").nth(FIGURES[name] - 1).wait_for()
    assert all(url.startswith("file://") for url in requests), requests
    assert any(url.endswith(".min.js") for url in requests)  # plotly.js beside the reports


def test_a_failed_report_shows_its_summary_first_and_folds_the_traceback(
    chromium: Any, platform: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    write_quick_notebook(notebooks / "quick.ipynb")
    monkeypatch.setenv("OPSLIB_NOTEBOOKS", str(notebooks))
    result = run_report(
        "quick", {"fail": True}, out_dir=tmp_path / "out", env=platform_env(platform)
    )
    assert result.outcome == "failed"
    page = chromium.new_page()
    page.goto(Path(result.html).as_uri())
    summary = page.locator(".opslib-problem")
    assert summary.is_visible()
    box = summary.bounding_box()
    assert box is not None
    assert box["y"] < 900  # on the first screen, before any of the report
    text = summary.inner_text()
    assert "Failed in section “The failure point”" in text
    assert "ValueError: quick failure" in text
    assert "Traceback (most recent call last)" not in page.inner_text("body")  # folded
    assert not summary.locator("pre").is_visible()
    summary.locator("summary").click()
    assert summary.locator("pre").is_visible()  # unfolded on a click
    assert "Traceback (most recent call last)" in summary.locator("pre").inner_text()
    assert page.get_by_text("An Exception was encountered").count() == 0
    page.screenshot(path=str(tmp_path / "failed.png"), full_page=True)


def test_a_demo_report_carries_its_banner_on_screen(
    chromium: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    write_quick_notebook(notebooks / "quick.ipynb")
    monkeypatch.setenv("OPSLIB_NOTEBOOKS", str(notebooks))
    result = run_report("quick", out_dir=tmp_path / "out", demo=True)
    page = chromium.new_page()
    page.goto(Path(result.html).as_uri())
    banner = page.locator(".opslib-demo").first
    assert banner.is_visible()
    assert banner.inner_text().startswith("DEMO DATA")
    page.goto(write_index(tmp_path / "out").as_uri())
    assert page.locator(".demo-banner").inner_text().startswith("DEMO DATA")
