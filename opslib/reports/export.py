"""Export an executed notebook as an HTML report.

Code is hidden, tables and figures stay. The page loads nothing from the network: the lab
template's require.js, MathJax and Mermaid scripts (all from CDNs, none needed by a report)
are left out. plotly.js is added once when the page has figures: from a file shared by
every report of a reports directory (``plotly_src``, a relative path, so the reports still
open offline from disk), or inline for a single-file report. A plotly.js the notebook
embedded itself is dropped from the page first.

A header names the report, its parameters, the platform and the account, when it ran and
how it ended; a run on demo data carries a DEMO DATA banner. A report that did not succeed
opens with a summary (what failed, in which section, the error message) with the
traceback folded below; papermill's own error banners are left out.

The page carries a Content-Security-Policy that lets run only the scripts the report
itself wrote: plotly.js (the shared file, or inline), its one-line configuration and each
figure's ``Plotly.newPlot`` call (whose arguments must be JSON), by their SHA-256 hashes.
Any other script, event handler attribute or ``javascript:`` URL (say, markup a platform
user put in a device's alarm code that escaped escaping) does not run, and nothing is
fetched from the network.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
import os
import re
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "PLOTLY_MARKER",
    "content_security_policy",
    "export_html",
    "plotly_js_file",
    "problem_html",
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
.opslib-header h1 { font-size: 1.3em; margin: 0 0 6px; }
.opslib-header table { border-collapse: collapse; font-size: 0.9em; }
.opslib-header td { padding: 1px 10px 1px 0; vertical-align: top; }
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
"""

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


def _plotly_head(plotly_src: str | None) -> str:
    config = '<script type="text/javascript">window.PlotlyConfig = {MathJaxConfig: "local"};'
    config += "</script>\n"
    if plotly_src is not None:
        return f'{config}<script type="text/javascript" src="{html.escape(plotly_src)}"></script>'
    from plotly.offline import get_plotlyjs

    return f'{config}<script type="text/javascript">{get_plotlyjs()}</script>'


_SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script[\s/>]", re.IGNORECASE | re.DOTALL)
# A figure as plotly.io.to_html writes it (include_plotlyjs=False): its arguments are JSON.
_FIGURE = re.compile(
    r"\s*window\.PLOTLYENV=window\.PLOTLYENV \|\| \{\};\s*"
    r'if \(document\.getElementById\("(?P<id>[0-9a-f-]{36})"\)\) \{\s*'
    r'Plotly\.newPlot\(\s*"(?P=id)",(?P<args>.*)\)\s*\};?\s*',
    re.DOTALL,
)
_PLOTLY_CONFIGS = (
    'window.PlotlyConfig = {MathJaxConfig: "local"};',
    "window.PlotlyConfig = {MathJaxConfig: 'local'};",
)
_POLICY = (
    "default-src 'none'; script-src {scripts}; style-src 'unsafe-inline'; img-src data:;"
    " font-src data:; base-uri 'none'; form-action 'none'"
)


@functools.cache
def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def _json_arguments(text: str, count: int) -> bool:
    """Whether ``text`` is exactly ``count`` JSON values separated by commas."""
    decoder = json.JSONDecoder()
    position = 0
    for n in range(count):
        while position < len(text) and text[position].isspace():
            position += 1
        try:
            _, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            return False
        rest = text[position:].lstrip()
        if n < count - 1:
            if not rest.startswith(","):
                return False
            position = len(text) - len(rest) + 1
    return not text[position:].strip()


def _trusted(script: str) -> bool:
    """A script the report wrote itself: plotly.js, its configuration, a figure call."""
    if script.strip() in _PLOTLY_CONFIGS or script == _plotly_js():
        return True
    figure = _FIGURE.fullmatch(script)
    return figure is not None and _json_arguments(figure.group("args"), 3)


def _hashes(page: str) -> Iterator[str]:
    for match in _SCRIPT.finditer(page):
        script = match.group(1)
        if _trusted(script):
            digest = hashlib.sha256(script.encode("utf-8")).digest()
            yield f"'sha256-{base64.b64encode(digest).decode()}'"


def content_security_policy(page: str, *, script_file: bool = False) -> str:
    """The policy of ``page``: only its own plotly.js, configuration and figure calls run.

    ``script_file``: the page loads plotly.js from the file its reports share; Chromium
    allows a script file of a page opened from disk by ``'self'`` only (not by its hash).

    Examples
    --------
    >>> content_security_policy("<p>no script</p>").split(";")[1]
    " script-src 'none'"
    """
    sources = list(dict.fromkeys(_hashes(page)))
    if script_file:
        sources.insert(0, "'self'")
    scripts = " ".join(sources) or "'none'"
    return _POLICY.format(scripts=scripts)


def _with_policy(page: str, *, script_file: bool) -> str:
    policy = content_security_policy(page, script_file=script_file)
    meta = f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy)}">'
    head = re.search(r"<head\b[^>]*>", page, re.IGNORECASE)
    if head is None:
        raise ValueError("the exported page has no <head>")
    return page[: head.end()] + "\n" + meta + page[head.end() :]


def _header(title: str, facts: Mapping[str, Any], banner: str, problem: str) -> str:
    rows = []
    for key, value in facts.items():
        text = html.escape(str(value))
        if key == "outcome" and value != "ok":
            text = f'<span class="opslib-failed">{text}</span>'
        rows.append(f"<tr><td>{html.escape(key)}</td><td>{text}</td></tr>")
    demo = f'<div class="opslib-demo">{html.escape(banner)}</div>' if banner else ""
    return (
        f'{demo}<header class="opslib-header"><h1>{html.escape(title)}</h1>'
        f"<table>{''.join(rows)}</table>{problem}</header>"
    )


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
        parts.append(f"<p>{html.escape(reason)}</p>")
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
        Shown in the header table (parameters, platform, time, outcome...).
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
    resources = {
        "opslib_header": _header(title, facts or {}, banner, problem),
        "opslib_head": _plotly_head(plotly_src) if figures else "",
    }
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    out = Path(destination)
    page = _with_policy(body, script_file=bool(figures) and plotly_src is not None)
    out.write_text(page, encoding="utf-8")
    return out
