"""The interactive path as a person uses it: JupyterLab, run all cells, change a filter.

JupyterLab runs on a free loopback port (no token) in a tmp root holding a copy of
event_analysis.ipynb, with the environment pointing at the test platform. Headless
Chromium opens the notebook, runs every cell, picks one event type in the filter and sees
the volume figure redrawn with that type only. Every process started is stopped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reports.runs import platform_env

from .lab import running_lab

NOTEBOOKS = Path(__file__).parents[2] / "notebooks"
NOTEBOOK = NOTEBOOKS / "event_analysis.ipynb"
UPKEEP = NOTEBOOKS / "product_upkeep.ipynb"
RUN_TIMEOUT_MS = 180_000  # for every cell to run and draw
REDRAW_TIMEOUT_MS = 60_000

# The figures' data as plotly holds it in the page: {title: [trace names]}.
FIGURE_TRACES = """() => Object.fromEntries([...document.querySelectorAll('.js-plotly-plot')]
  .map(gd => [(gd.layout && gd.layout.title && gd.layout.title.text) || '',
              (gd.data || []).map(trace => trace.name)]))"""


@pytest.fixture
def jupyterlab(tmp_path: Path, platform: Any) -> Iterator[str]:
    """JupyterLab over copies of event_analysis and product_upkeep; yields its base URL."""
    with running_lab(tmp_path, (NOTEBOOK, UPKEEP), platform_env(platform)) as base:
        yield base


def _quiet_device(platform: Any) -> tuple[str, str, int]:
    """A device of the fleet with no event in the last 7 days: (id, its picker label,
    how many devices the fleet has)."""
    from opslib import widgets

    client = platform.connect("ops")
    devices = client.devices.list(progress=False)
    events = client.events.list("-7d", "now", progress=False)
    labels = widgets.device_options(events, devices)
    reporting = set(events["device_id"].astype(str))
    quiet = next(label for label, did in labels.items() if did not in reporting)
    return labels[quiet], quiet, len(labels)


def test_run_all_cells_then_a_filter_redraws_the_figure(
    chromium: Any, jupyterlab: str, platform: Any, tmp_path: Path
) -> None:
    quiet_id, quiet_label, fleet_size = _quiet_device(platform)
    page = chromium.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{jupyterlab}/lab/tree/{NOTEBOOK.name}")
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=90_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    page.wait_for_function(
        "document.querySelectorAll('.widget-output .js-plotly-plot .main-svg').length >= 6",
        timeout=RUN_TIMEOUT_MS,
    )
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=RUN_TIMEOUT_MS)
    before = page.evaluate(FIGURE_TRACES)
    assert len(before["Events over time"]) > 1, before
    assert "alarm" in before["Events over time"]
    assert page.locator(".jp-OutputArea-output[data-mime-type*='error']").count() == 0
    page.screenshot(path=str(tmp_path / "after-run-all.png"))

    # the noisiest devices' "show top" box picks how many bars that figure shows
    assert [t for t in before if t.startswith("Noisiest devices (top 15 of ")], before
    show_top = page.locator(".widget-inline-hbox", has_text="show top").first.locator("input")
    show_top.fill("3")
    show_top.press("Enter")
    page.wait_for_function(
        """() => [...document.querySelectorAll('.js-plotly-plot')].some(gd =>
            ((gd.layout && gd.layout.title && gd.layout.title.text) || '')
                .startsWith('Noisiest devices (top 3 of ')
            && gd.data.every(trace => (trace.y || []).length === 3))""",
        timeout=REDRAW_TIMEOUT_MS,
    )
    assert "Events over time" in page.evaluate(FIGURE_TRACES)

    types = page.locator(".widget-select-multiple select").first
    types.select_option(label="alarm")
    page.wait_for_function(
        f"""() => {{ const traces = ({FIGURE_TRACES})();
            const names = traces['Events over time'] || [];
            const noisy = Object.entries(traces)
                .filter(([title]) => title.startsWith('Noisiest devices')).flatMap(e => e[1]);
            return names.length === 1 && names[0] === 'alarm'
                && noisy.length > 0 && noisy.every(name => name === 'alarm'); }}""",
        timeout=REDRAW_TIMEOUT_MS,
    )
    after = page.evaluate(FIGURE_TRACES)
    assert after["Events over time"] == ["alarm"]
    noisy = [n for t, names in after.items() if t.startswith("Noisiest devices") for n in names]
    assert noisy
    assert set(noisy) <= {"alarm"}
    page.locator(".js-plotly-plot").nth(1).scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "after-filter.png"))
    assert (tmp_path / "after-filter.png").stat().st_size > 10_000

    # the day slider's readout shows both days whole ("Nov 17-Nov 24"), never cut
    readout = page.locator(".widget-hslider .widget-readout").first
    assert re.fullmatch(r"[A-Z][a-z]{2} \d{2}\s*[-–]\s*[A-Z][a-z]{2} \d{2}", readout.inner_text())
    assert readout.evaluate("e => e.scrollWidth <= e.clientWidth + 1")

    # the device picker lists every device, the quiet ones too, and finds one by its label
    types.select_option([])
    options = page.evaluate(
        "() => [...document.querySelectorAll('datalist option')].map(o => o.value)"
    )
    assert len(options) == fleet_size
    assert quiet_label in options
    picker = page.locator(".jp-OutputArea-output input[list]").first
    picker.fill(quiet_label)
    picker.press("Enter")
    # a figure with nothing to draw is one sentence naming the selection, not empty axes
    page.wait_for_function(
        f"""() => [...document.querySelectorAll('.widget-output .opslib-empty')].some(p =>
            p.innerText.includes({json.dumps("device " + quiet_id)}))""",
        timeout=REDRAW_TIMEOUT_MS,
    )
    page.screenshot(path=str(tmp_path / "quiet-device.png"))


def test_product_upkeep_form_is_disabled_for_an_ops_account(
    chromium: Any, jupyterlab: str, tmp_path: Path
) -> None:
    page = chromium.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{jupyterlab}/lab/tree/{UPKEEP.name}")
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=90_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    add = page.get_by_role("button", name="Add product")
    add.wait_for(timeout=RUN_TIMEOUT_MS)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=RUN_TIMEOUT_MS)
    assert add.is_disabled()
    assert page.get_by_role("button", name="Delete…").is_disabled()
    note = page.get_by_text("adding or deleting a product needs the").inner_text()
    assert "Ops desk (555*****01), role ops" in note
    assert "OPSLIB_PROFILE" in note
    label = page.locator(".widget-label", has_text="encrypt_type").first
    assert label.inner_text() == "encrypt_type"  # whole, not "encrypt_t…"
    assert label.evaluate("e => e.scrollWidth <= e.clientWidth")
    assert page.locator(".jp-OutputArea-output[data-mime-type*='error']").count() == 0
    page.screenshot(path=str(tmp_path / "upkeep-ops.png"), full_page=True)
