"""The four notebooks, run through the runner against the real platform, in both modes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import nbformat
import pandas as pd
import pytest

from opslib.client.frames import schema as _schemas
from opslib.reports import RunResult, find_notebook, inspect_report

from .runs import FIGURES, MODES, REPORTS

NOTEBOOKS = Path(__file__).parents[2] / "notebooks"
WIDGET = "application/vnd.jupyter.widget-view+json"
CASES = [(report, mode) for report in REPORTS for mode in MODES]


def outputs(result: RunResult) -> list[dict]:
    nb = nbformat.read(result.output_notebook, as_version=4)
    return [o for cell in nb.cells for o in cell.get("outputs", [])]


# --- the committed notebooks ---------------------------------------------------------------


@pytest.mark.parametrize("report", REPORTS)
def test_notebook_is_committed_clean_with_one_literal_parameters_cell(report: str) -> None:
    path = NOTEBOOKS / f"{report}.ipynb"
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    assert tagged[0] is code[0]
    assert nb.cells[0].cell_type == "markdown"
    lines = [line for line in tagged[0].source.splitlines() if line.strip()]
    declared = inspect_report(path)
    assert len(lines) == len(declared)
    for line, param in zip(lines, declared.values(), strict=True):
        # name: type = literal  # help
        assert re.fullmatch(r"\w+: [\w\[\]]+ = .+  # .+", line), line
        assert param.help
        assert param.type in {"str", "int", "bool", "float", "list[str]"}
    assert declared["interactive"].default is True
    assert not {"password", "client_secret", "base_url", "token"} & set(declared)
    assert find_notebook(report) == path.resolve()


# --- runs against the platform ------------------------------------------------------------


@pytest.mark.parametrize(("report", "mode"), CASES)
def test_report_runs_without_error(
    report_runs: dict[tuple[str, str], RunResult], report: str, mode: str
) -> None:
    result = report_runs[(report, mode)]
    assert result.outcome == "ok", result.summary()
    errors = [o for o in outputs(result) if o.get("output_type") == "error"]
    assert errors == []
    stderr = [o["text"] for o in outputs(result) if o.get("name") == "stderr"]
    assert not any("Warning" in text or "Traceback" in text for text in stderr), stderr
    status = json.loads((Path(result.run_dir) / "status.json").read_text())
    assert status["outcome"] == "ok"
    assert status["parameters"]["interactive"] is (mode == "interactive")


@pytest.mark.parametrize(("report", "mode"), CASES)
def test_html_has_rendered_offline_figures(
    report_runs: dict[tuple[str, str], RunResult], report: str, mode: str
) -> None:
    path = Path(report_runs[(report, mode)].html)
    html = path.read_text()
    assert "* plotly.js v" not in html  # shared beside the reports, not inside each
    scripts = re.findall(r'<script[^>]* src="([^"]+)"', html)
    assert len(scripts) == 1  # nothing from a CDN: plotly.js from the reports directory
    assert (path.parent / scripts[0]).is_file()
    assert html.count("Plotly.newPlot(") >= FIGURES[report]
    assert "not able to be represented" not in html
    assert "client = nb.connect()" not in html  # code hidden
    # the platform and the account once, in the run details at the end
    assert "<td>platform</td><td>OPSLIB_* environment (127.0.0.1:" in html
    assert "<td>account</td><td>Ops desk (555*****01), role ops</td>" in html
    assert "Platform: OPSLIB_* environment" not in html  # the notebook's own line left out
    assert path.stat().st_size < 1_000_000  # a typical report under 1 MB


@pytest.mark.parametrize("report", REPORTS)
def test_unattended_has_no_widgets_and_interactive_has_them(
    report_runs: dict[tuple[str, str], RunResult], report: str
) -> None:
    unattended = outputs(report_runs[(report, "unattended")])
    assert not any(WIDGET in o.get("data", {}) for o in unattended)
    interactive = outputs(report_runs[(report, "interactive")])
    if report != "product_upkeep":  # its form is there, but no panel
        assert sum(WIDGET in o.get("data", {}) for o in interactive) >= 2
    else:
        assert any(WIDGET in o.get("data", {}) for o in interactive)


@pytest.mark.parametrize("mode", MODES)
def test_fleet_inventory_exports_csv_and_parquet(
    report_runs: dict[tuple[str, str], RunResult], mode: str
) -> None:
    result = report_runs[("fleet_inventory", mode)]
    names = sorted(Path(p).name for p in result.exports)
    assert {"inventory.csv", "inventory.parquet"} <= set(names)
    # a table cut in the report is written whole beside it, and linked
    html = Path(result.html).read_text()
    for name in names:
        if name.endswith(".csv") and name != "inventory.csv":
            assert f'<a href="{name}">' in html
    run_dir = Path(result.run_dir)
    fixed = list(_schemas.DEVICE.dtypes())
    csv = pd.read_csv(run_dir / "inventory.csv")
    parquet = pd.read_parquet(run_dir / "inventory.parquet")
    for frame in (csv, parquet):
        assert list(frame.columns[: len(fixed)]) == fixed
        assert all(c.startswith("properties.") for c in frame.columns[len(fixed) :])
        assert len(frame) > 10
        assert frame["device_id"].is_unique
    assert str(parquet["status"].dtype) == "Int64"
    assert str(parquet["gmt_bind"].dtype).startswith("datetime64")
    assert len(csv) == len(parquet)


def test_event_analysis_writes_the_comparison(
    report_runs: dict[tuple[str, str], RunResult],
) -> None:
    html = Path(report_runs[("event_analysis", "unattended")].html).read_text()
    assert "previous period" in html
    assert "Period " in html
    assert "parameter interactive" not in html
    assert "<h1>Event analysis</h1>" in html
    assert "compared with" in html
    assert "Downtime per device" in html
    assert "Events by hour of day and weekday" in html


def test_user_lookup_masks_the_phone_only_when_unattended(
    report_runs: dict[tuple[str, str], RunResult],
) -> None:
    unattended = Path(report_runs[("user_lookup", "unattended")].html).read_text()
    assert "5550000003" not in unattended
    assert "555*****03" in unattended
    nb = nbformat.read(report_runs[("user_lookup", "interactive")].output_notebook, as_version=4)
    shown = json.dumps([c.get("outputs", []) for c in nb.cells if c.cell_type == "code"][2:])
    assert "5550000003" in shown  # the profile, live in Jupyter
    status = json.loads(
        (Path(report_runs[("user_lookup", "interactive")].run_dir) / "status.json").read_text()
    )
    assert status["parameters"]["phone"] == "555*****03"


def test_user_lookup_of_the_connected_account_shows_every_time_in_the_zone(
    report_run: Any,
) -> None:
    """The ops account has no device and no event: its last activity is its login, which
    the card showed in UTC, and its own settings table ("modified") too, in a report in
    Asia/Shanghai."""
    result = report_run("user_lookup", {"tz": "Asia/Shanghai"}, out="own-account")
    assert result.outcome == "ok", result.summary()
    html = Path(result.html).read_text()
    header = html[html.index("opslib-header") : html.index("</header>")]
    assert "Asia/Shanghai" in header
    assert " UTC<" not in header  # the last activity card
    settings = html[html.index("Notification settings") :]
    settings = settings[: settings.index("</table>")]
    assert re.search(r"modified</td>\s*<td[^>]*>\d{4}-\d\d-\d\d [\d:]+ Asia/Shanghai", settings)
    assert ">system notices<" in settings
    assert ">True<" not in settings  # yes / no
    assert ">False<" not in settings


def test_product_upkeep_dry_run_without_a_file(
    report_runs: dict[tuple[str, str], RunResult],
) -> None:
    html = Path(report_runs[("product_upkeep", "unattended")].html).read_text()
    assert "No desired-state file given: nothing to plan." in html
    assert "<code>opslib products export products.csv</code>" in html  # the next step
    assert "No plan: no desired-state file was given." in html
