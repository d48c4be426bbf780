"""Export an executed notebook as an HTML report.

Code is hidden, tables and figures stay. The page loads nothing from the network: the lab
template's require.js, MathJax and Mermaid scripts (all from CDNs, none needed by a report)
are left out. plotly.js is added once when the page has figures: from a file shared by
every report of a reports directory (``plotly_src``, a relative path, so the reports still
open offline from disk), or inline for a single-file report. A plotly.js the notebook
embedded itself is dropped from the page first. plotly.js comes last in the body and the
figures are drawn once the page is parsed, so the text shows first (:mod:`._policy`).

The first screen is the answer: the title, the parameters as a sentence and the headline
figures the notebook showed (:func:`opslib.reports.notebook.headline`), under one DEMO DATA
banner on demo data; the run details (platform, account, when, how long) and what the
report is about go to a footer. A report that did not succeed opens with a summary (what
failed, in which section, the error message) with the traceback folded below; papermill's
own error banners are left out. A report whose charts cannot be drawn (opened away from
the plotly.js beside it) says so at the top; :func:`self_contained_copy` makes the one file
a mail attaches.

The page carries a Content-Security-Policy that lets run only the scripts the report
itself wrote: plotly.js (the shared file, or inline), its one-line configuration, two
one-line markers (scripts run; plotly.js did not load) and each figure's ``Plotly.newPlot``
call (whose arguments must be JSON), by their SHA-256 hashes.
Any other script, event handler attribute or ``javascript:`` URL (say, markup a platform
user put in a device's alarm code that escaped escaping) does not run, and nothing is
fetched from the network.
"""

from __future__ import annotations

import html
import os
import re
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from opslib.reports._policy import (
    content_security_policy,
    defer_figures,
    noplotly_html,
    plotly_scripts,
    scripts_run_head,
    with_policy,
)

__all__ = [
    "PLATFORM_OUTPUT",
    "PLOTLY_MARKER",
    "content_security_policy",
    "export_html",
    "plotly_js_file",
    "problem_html",
    "self_contained_copy",
]

_TEMPLATE = "opslib_report.html.j2"
_TEMPLATE_SOURCE = """\
{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block extra_css -%}
<style type="text/css">
.opslib-header { font-family: system-ui, sans-serif; padding: 12px 20px; margin: 0 0 8px;
  border-bottom: 1px solid #ddd; background: #fafafa; }
.opslib-header h1 { font-size: 1.4em; margin: 0 0 4px; }
.opslib-footer { font-family: system-ui, sans-serif; padding: 10px 20px; margin: 24px 0 0;
  border-top: 1px solid #ddd; background: #fafafa; color: #444; font-size: 0.9em; }
.opslib-footer h2 { font-size: 1em; margin: 6px 0 4px; }
.opslib-footer table { border-collapse: collapse; }
.opslib-footer td { padding: 1px 10px 1px 0; vertical-align: top; }
.opslib-noplotly { border-left: 4px solid #b26a00; background: #fff4e5; padding: 8px 14px;
  margin: 0 0 8px; font-family: system-ui, sans-serif; }
.opslib-js .opslib-noplotly { display: none; }
.opslib-js.opslib-noplotly-shown .opslib-noplotly { display: block; }
.jp-RenderedHTMLCommon td, .jp-RenderedHTMLCommon th { text-align: left; }
.jp-OutputArea-output { max-width: 100%; overflow-x: auto; }
.opslib-failed { color: #b00020; font-weight: bold; }
.opslib-demo { background: #b00020; color: #fff; font-weight: bold; padding: 6px 20px;
  font-family: system-ui, sans-serif; position: sticky; top: 0; z-index: 10; }
.opslib-problem { border-left: 4px solid #b00020; background: #fdecea; padding: 8px 14px;
  margin: 10px 0 0; font-family: system-ui, sans-serif; }
.opslib-problem h2 { font-size: 1.1em; margin: 0 0 4px; color: #b00020; }
.opslib-problem p { margin: 2px 0; }
.opslib-error summary, .opslib-problem summary { cursor: pointer; color: #555; }
.opslib-error pre, .opslib-problem pre { font-size: 12px; white-space: pre-wrap; }
</style>
{{ resources.opslib_head }}
{%- endblock extra_css -%}
{%- block body_header -%}
{{ super() }}
{{ resources.opslib_header }}
{%- endblock body_header -%}
{%- block body_footer -%}
{{ resources.opslib_footer }}
{{ resources.opslib_scripts }}
{{ super() }}
{%- endblock body_footer -%}
"""

PLATFORM_OUTPUT = "platform"
"""``metadata["opslib"]`` of the platform line ``nb.connect()`` shows (left out of a report,
whose banner and footer say it)."""

PLOTLY_MARKER = "window.PlotlyConfig"
"""In the HTML of plotly.js as :func:`opslib.plots.plotly_js_html` embeds it."""

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_PAPERMILL_ERROR_TAG = "papermill-error-cell-tag"

# Rich outputs first: a widget view without saved state would render as nothing, while
# the panels of opslib.widgets also carry a static HTML snapshot.
_PRIORITY = [
    "text/html",
    "application/vnd.jupyter.widget-view+json",
    "application/javascript",
    "text/markdown",
    "image/svg+xml",
    "text/latex",
    "image/png",
    "image/jpeg",
    "text/plain",
]


def plotly_js_file(directory: str | os.PathLike[str]) -> Path:
    """``plotly-<version>.min.js`` in ``directory``, written once (shared by its reports).

    The version is in the name, so reports made before an upgrade keep theirs.
    """
    from plotly.offline import get_plotlyjs, get_plotlyjs_version

    path = Path(directory) / f"plotly-{get_plotlyjs_version()}.min.js"
    if not path.exists():
        tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")  # runs write at once
        tmp.write_text(get_plotlyjs(), encoding="utf-8")
        tmp.replace(path)
    return path


def _header(
    title: str,
    sentence: str,
    headline: Mapping[str, Any] | None,
    banner: str,
    problem: str,
    warning: str = "",
) -> str:
    """The first screen: one DEMO banner, the title, the parameters as a sentence and the
    headline figures (or what went wrong); run details are in the footer."""
    from opslib.reports._headline import headline_html

    demo = f'<div class="opslib-demo">{html.escape(banner)}</div>' if banner else ""
    if headline and headline.get("figures"):
        first = headline_html(str(headline.get("sentence") or sentence), headline["figures"])
    else:
        first = f'<p class="opslib-sentence">{html.escape(sentence)}</p>' if sentence else ""
    return (
        f'{demo}{warning}<header class="opslib-header"><h1>{html.escape(title)}</h1>'
        f"{first}{problem}</header>"
    )


def _footer(facts: Mapping[str, Any], about: str) -> str:
    """Run details (outcome, platform, account, when, how long, parameters) and what the
    report is about, at the end of the page."""
    rows = []
    for key, value in facts.items():
        text = html.escape(str(value))
        if key == "outcome" and value != "ok":
            text = f'<span class="opslib-failed">{text}</span>'
        rows.append(f"<tr><td>{html.escape(key)}</td><td>{text}</td></tr>")
    parts = ['<footer class="opslib-footer">']
    if rows:
        parts.append(f"<h2>About this run</h2><table>{''.join(rows)}</table>")
    if about:
        parts.append(f'<h2>About this report</h2><div class="opslib-about">{about}</div>')
    parts.append("</footer>")
    return "".join(parts)


def _traceback(lines: list[str]) -> str:
    text = "\n".join(_ANSI.sub("", line) for line in lines)
    return f"<details><summary>Traceback</summary><pre>{html.escape(text)}</pre></details>"


def problem_html(
    outcome: str,
    *,
    section: str = "",
    error: Mapping[str, Any] | None = None,
    reason: str = "",
    traceback: list[str] | None = None,
) -> str:
    """The summary a report that did not succeed opens with.

    Examples
    --------
    >>> problem_html("failed", section="The period", error={"ename": "ValueError",
    ...              "evalue": "bad"})[:60]
    '<section class="opslib-problem" role="alert"><h2>Failed in '
    """
    where = f" in section “{html.escape(section)}”" if section else ""
    parts = [
        '<section class="opslib-problem" role="alert">',
        f"<h2>{html.escape(outcome.capitalize())}{where}</h2>",
    ]
    if error:
        parts.append(
            f"<p><strong>{html.escape(str(error.get('ename', '')))}</strong>: "
            f"{html.escape(str(error.get('evalue', '')))}</p>"
        )
    if reason:
        # the heading names the section already
        said = re.sub(r"^In section '[^']*': ", "", reason)
        parts.append(f"<p>{html.escape(said[:1].upper() + said[1:])}</p>")
    if traceback:
        parts.append(_traceback(traceback))
    parts.append("</section>")
    return "".join(parts)


def _fold_errors(nb: Any) -> None:
    """Error outputs as their message with the traceback folded below; no papermill banner."""
    import nbformat

    nb.cells = [c for c in nb.cells if _PAPERMILL_ERROR_TAG not in c.metadata.get("tags", [])]
    for cell in nb.cells:
        outputs = cell.get("outputs", [])
        for i, output in enumerate(outputs):
            if output.get("output_type") != "error":
                continue
            text = (
                f'<div class="opslib-error"><p><strong>{html.escape(output.get("ename", ""))}'
                f"</strong>: {html.escape(output.get('evalue', ''))}</p>"
                f"{_traceback(output.get('traceback', []))}</div>"
            )
            outputs[i] = nbformat.v4.new_output("display_data", data={"text/html": text})


def _take_headline(nb: Any) -> dict[str, Any] | None:
    """The last headline the notebook showed, taken out of the body (the header shows it)."""
    from opslib.reports._headline import HEADLINE_MIMETYPE

    found = None
    for cell in nb.cells:
        kept = []
        for output in cell.get("outputs", []):
            data = (output.get("data") or {}).get(HEADLINE_MIMETYPE)
            if isinstance(data, dict):
                found = dict(data)
                continue
            kept.append(output)
        if "outputs" in cell:
            cell["outputs"] = kept
    return found


def _drop_platform_lines(nb: Any) -> None:
    """The platform line (and its DEMO banner) ``nb.connect()`` shows in JupyterLab, and
    the lines a notebook declares its outcome with: the report says each once, in its
    banner, header and footer."""
    from opslib.reports.status import OUTCOME_MIMETYPE

    for cell in nb.cells:
        if "outputs" in cell:
            cell["outputs"] = [
                o
                for o in cell["outputs"]
                if (o.get("metadata") or {}).get("opslib") != PLATFORM_OUTPUT
                and OUTCOME_MIMETYPE not in (o.get("data") or {})
            ]


def _take_about(nb: Any) -> str:
    """The notebook's opening cell (its ``# title`` and description) taken out of the body:
    the title heads the header, the description goes to the footer (as HTML)."""
    from nbconvert.filters.markdown import markdown2html

    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "markdown":
            continue
        source = str(cell.get("source", ""))
        if not re.match(r"^\s*#\s", source):
            return ""
        del nb.cells[index]
        text = re.sub(r"^\s*#\s[^\n]*\n?", "", source, count=1).strip()
        return str(markdown2html(text)) if text else ""
    return ""


def _drop_embedded_plotly(nb: Any) -> bool:
    """Remove plotly.js the notebook embedded; True when the page draws plotly figures."""
    figures = False
    for cell in nb.cells:
        kept = []
        for output in cell.get("outputs", []):
            page = str((output.get("data") or {}).get("text/html", ""))
            if PLOTLY_MARKER in page:
                continue
            figures = figures or "Plotly.newPlot(" in page
            kept.append(output)
        if "outputs" in cell:
            cell["outputs"] = kept
    return figures


def export_html(
    notebook: str | os.PathLike[str],
    destination: str | os.PathLike[str],
    *,
    title: str,
    facts: Mapping[str, Any] | None = None,
    banner: str = "",
    problem: str = "",
    plotly_src: str | None = None,
) -> Path:
    """Write ``notebook`` as HTML with the code hidden.

    Parameters
    ----------
    notebook
        An executed ``.ipynb``.
    destination
        The ``.html`` file to write.
    title
        The page title and heading.
    facts
        The run details, shown in the footer (parameters, platform, time, outcome...);
        ``parameters`` is also the header's sentence when the notebook showed no headline
        (:func:`opslib.reports.notebook.headline`).
    banner
        A line shown above the header on a strong background (DEMO DATA).
    problem
        HTML the header ends with (:func:`problem_html`).
    plotly_src
        Where the page loads plotly.js from (relative to ``destination``); None puts it
        inside the page.

    Returns
    -------
    Path
        ``destination``.

    Examples
    --------
    >>> export_html("run/fleet_inventory.ipynb", "run/fleet_inventory.html",
    ...             title="fleet_inventory")  # doctest: +SKIP
    """
    import jinja2
    import nbformat
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    config = Config()
    config.NbConvertBase.display_data_priority = _PRIORITY
    exporter = HTMLExporter(
        config=config,
        template_name="lab",
        extra_loaders=[jinja2.DictLoader({_TEMPLATE: _TEMPLATE_SOURCE})],
    )
    exporter.template_file = _TEMPLATE
    exporter.exclude_input = True
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    nb = nbformat.read(os.fspath(notebook), as_version=4)
    nb.metadata["title"] = title
    _fold_errors(nb)
    figures = _drop_embedded_plotly(nb)
    headline = _take_headline(nb)
    _drop_platform_lines(nb)
    about = _take_about(nb)
    shown = dict(facts or {})
    sentence = str((headline or {}).get("sentence") or shown.get("parameters") or "")
    warning = noplotly_html(plotly_src) if figures else ""
    resources = {
        "opslib_header": _header(title, sentence, headline, banner, problem, warning),
        "opslib_footer": _footer(shown, about),
        "opslib_head": scripts_run_head() if figures else "",
        "opslib_scripts": plotly_scripts(plotly_src) if figures else "",
    }
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    out = Path(destination)
    page = defer_figures(body) if figures else body
    page = with_policy(page, script_file=bool(figures) and plotly_src is not None)
    out.write_text(page, encoding="utf-8")
    return out


_PLOTLY_FILE = re.compile(r'<script\b[^>]*\bsrc="(?P<src>[^"]*plotly-[^"]*\.js)"[^>]*></script>')
_POLICY_META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="[^"]*">\n?')


def self_contained_copy(
    report: str | os.PathLike[str], destination: str | os.PathLike[str]
) -> Path:
    """A copy of ``report`` that draws its charts anywhere (a mail attachment): the
    plotly.js it loads from beside it is put inside the copy, once.

    A report that already holds plotly.js, or has no chart, is copied as it is.

    Examples
    --------
    >>> self_contained_copy("reports/x/run/x.html", "/tmp/mail/x.html")  # doctest: +SKIP
    PosixPath('/tmp/mail/x.html')
    """
    source = Path(report)
    page = source.read_text(encoding="utf-8")
    found = _PLOTLY_FILE.search(page)
    if found is not None:
        script = (source.parent / html.unescape(found.group("src"))).resolve()
        if script.is_file():
            inline = f'<script type="text/javascript">{script.read_text(encoding="utf-8")}</script>'
            page = page[: found.start()] + inline + page[found.end() :]
            page = with_policy(_POLICY_META.sub("", page, count=1), script_file=False)
    out = Path(destination)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    return out
