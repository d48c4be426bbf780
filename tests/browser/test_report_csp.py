"""The reports' Content-Security-Policy, on its own.

Escaping keeps platform text from ever becoming markup (test_hostile_text.py). The
policy is the second wall: should markup reach a report anyway, no script runs but the
report's own (plotly.js, its configuration, each figure's ``Plotly.newPlot`` call with
JSON arguments). A notebook whose outputs hold raw hostile HTML (a script, an event
handler, a look-alike figure call that does more, a script from elsewhere) is exported and
opened in headless Chromium: the figure draws, nothing else runs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import nbformat
import plotly.graph_objects as go
import plotly.io as pio

from opslib import plots
from opslib.reports.export import content_security_policy, export_html
from opslib.reports.runall import write_index

FIGURE_ID = "0f0e0d0c-0b0a-4909-8807-060504030201"
LOOK_ALIKE = (
    'window.PLOTLYENV=window.PLOTLYENV || {}; if (document.getElementById("'
    + FIGURE_ID
    + '")) { Plotly.newPlot("'
    + FIGURE_ID
    + '", [], {}, {}); window.__pwned = "look-alike" };'
)
HOSTILE_HTML = [
    "<script>window.__pwned = 'script'</script>",
    "<img src=x onerror=\"window.__pwned = 'onerror'\">",
    f"<div id='{FIGURE_ID}'></div><script>{LOOK_ALIKE}</script>",
    "<script src='data:text/javascript,window.__pwned=%22src%22'></script>",
    "<svg><script>window.__pwned = 'svg'</script></svg>",
]


def _notebook(path: Path) -> Path:
    figure = go.Figure(go.Bar(x=["a", "b"], y=[1, 2]))
    plots.use_offline_renderer(embed_plotlyjs=False)  # registers the renderer
    figure_html = pio.renderers[plots.OFFLINE_RENDERER].to_mimebundle(figure.to_dict())
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("...")
    cell.outputs = [
        nbformat.v4.new_output("display_data", {"text/html": plots.plotly_js_html()}),
        nbformat.v4.new_output("display_data", figure_html),
        *(nbformat.v4.new_output("display_data", {"text/html": h}) for h in HOSTILE_HTML),
        nbformat.v4.new_output("display_data", {"text/markdown": "\n\n".join(HOSTILE_HTML)}),
    ]
    nb.cells = [cell]
    nbformat.write(nb, path)
    return path


def test_only_the_reports_own_scripts_get_a_hash(tmp_path: Path) -> None:
    page = export_html(_notebook(tmp_path / "r.ipynb"), tmp_path / "r.html", title="r")
    text = page.read_text(encoding="utf-8")
    policy = content_security_policy(text)
    # plotly.js, its configuration, the lines that mark scripts running and plotly.js
    # missing, and the one figure; none of the five hostile scripts
    assert policy.count("'sha256-") == 5
    assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert f'content="{policy}"'.replace("'", "&#x27;") in text


def test_only_the_figure_calls_wait_for_the_page_and_plotly_js_comes_last(
    tmp_path: Path,
) -> None:
    text = export_html(_notebook(tmp_path / "r.ipynb"), tmp_path / "r.html", title="r").read_text(
        encoding="utf-8"
    )
    modules = re.findall(r'<script type="module">(.*?)</script>', text, re.DOTALL)
    assert len(modules) == 1  # the one figure; not the look-alike
    assert "Plotly.newPlot" in modules[0]
    assert "__pwned" not in modules[0]
    assert f"<script>{LOOK_ALIKE}</script>" in text  # left as it was: inert
    # plotly.js after everything the reader sees, the marker of a running page in the head
    assert text.index("<footer") < text.index("window.PlotlyConfig") < text.index("</body>")
    assert text.index("classList.add('opslib-js')") < text.index("</head>")


def test_a_report_runs_its_figures_and_nothing_else(chromium: Any, tmp_path: Path) -> None:
    page_path = export_html(_notebook(tmp_path / "r.ipynb"), tmp_path / "r.html", title="r")
    assert HOSTILE_HTML[0] in page_path.read_text(encoding="utf-8")  # there, yet inert
    page = chromium.new_page()
    requests: list[str] = []
    page.on("request", lambda req: requests.append(req.url))
    page.goto(page_path.as_uri())
    page.wait_for_selector(".js-plotly-plot .main-svg")
    page.wait_for_timeout(500)
    assert page.evaluate("window.__pwned") is None
    assert page.locator(".js-plotly-plot").count() == 1
    assert all(url.startswith("file://") for url in requests), requests


def test_the_index_runs_no_script(chromium: Any, tmp_path: Path) -> None:
    hostile = "<img src=x onerror=\"window.__pwned='index'\">"
    run = tmp_path / "out" / "r" / "20240501T000000Z"
    run.mkdir(parents=True)
    status = {
        "report": "r",
        "outcome": "failed",
        "reason": f"E: {hostile}",  # the index shows a run's reason
        "error": {"ename": "E", "evalue": hostile},
    }
    (run / "status.json").write_text(json.dumps(status))
    index = write_index(tmp_path / "out")
    assert "Content-Security-Policy" in index.read_text()
    page = chromium.new_page()
    page.goto(index.as_uri())
    page.wait_for_timeout(300)
    assert page.evaluate("window.__pwned") is None
    assert hostile in page.inner_text("body")
