"""The HTML of a run: a failed report's summary first, plotly.js shared beside the reports."""

from __future__ import annotations

import re
from pathlib import Path

from opslib.reports import run_report

from .test_runner import opslib_cli


def test_a_failed_report_opens_with_what_failed_where_and_why(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    result = run_report("quick", {"fail": True}, out_dir=tmp_path, env=env)
    html = Path(result.html).read_text()
    header = html[html.index('<header class="opslib-header">') : html.index("</header>")]
    assert '<section class="opslib-problem" role="alert">' in header
    assert "<h2>Failed in section “The failure point”</h2>" in header
    assert "<p><strong>ValueError</strong>: quick failure</p>" in header
    assert "<details><summary>Traceback</summary><pre>" in header  # folded below the summary
    # The summary comes before any output of the notebook.
    assert html.index("opslib-problem") < html.index('class="jp-Cell')
    # In the body, the error is its message with the traceback folded too.
    body = html[html.index("</header>") :]
    assert '<div class="opslib-error"><p><strong>ValueError</strong>: quick failure</p>' in body
    assert "<details><summary>Traceback</summary>" in body
    unfolded = re.sub(r"<details>.*?</details>", "", html, flags=re.DOTALL)
    assert "Traceback (most recent call last)" in html
    assert "Traceback (most recent call last)" not in unfolded  # every traceback is folded
    assert "An Exception was encountered" not in html  # papermill's banner is gone
    assert "failing cell" not in html


def test_the_reports_of_a_directory_share_one_plotly_js(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    first = run_report("tiny", {"n": 4}, out_dir=tmp_path, env=env)
    second = run_report("tiny", {"n": 5}, out_dir=tmp_path, env=env)
    shared = list(tmp_path.glob("plotly-*.min.js"))
    assert len(shared) == 1
    assert shared[0].stat().st_size > 3_000_000  # the whole library, once
    for result in (first, second):
        html = Path(result.html).read_text()
        sources = re.findall(r'<script[^>]* src="([^"]+)"', html)
        assert sources == [f"../../{shared[0].name}"]
        assert (Path(result.html).parent / sources[0]).resolve() == shared[0].resolve()
        assert "* plotly.js v" not in html
        assert Path(result.html).stat().st_size < 1_000_000
        assert Path(result.output_notebook).stat().st_size < 200_000  # no plotly.js inside


def test_self_contained_keeps_a_single_file(
    tiny: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    done = opslib_cli(
        "report", "run", "tiny", "--self-contained", "--out", str(tmp_path), env_extra=env
    )
    assert done.returncode == 0, done.stderr
    html_path = next(tmp_path.glob("tiny/*/tiny.html"))
    html = html_path.read_text()
    assert html.count("* plotly.js v") == 1
    assert "<script src=" not in html
    assert 'src="../../plotly-' not in html
    assert not list(tmp_path.glob("plotly-*.min.js"))
