"""Export an executed notebook as a self-contained HTML report.

Code is hidden, tables and figures stay. The page loads nothing from the network: the lab
template's require.js, MathJax, Mermaid and widget-manager scripts (all from CDNs, none
needed by a report: widgets are exported as their static HTML) are left out, and plotly.js
is in the notebook once, embedded by the report's setup cell. A header names the report,
its parameters, when it ran and how it ended.

The page carries a Content-Security-Policy that lets run only the scripts the report
itself wrote: plotly.js, its one-line configuration and each figure's ``Plotly.newPlot``
call (whose arguments must be JSON), by their SHA-256 hashes. Any other script, event
handler attribute or ``javascript:`` URL (say, markup a platform user put in a device's
alarm code that escaped escaping) does not run, and nothing is fetched from anywhere.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = ["content_security_policy", "export_html"]

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
</style>
{%- endblock extra_css -%}
{%- block body_header -%}
{{ super() }}
{{ resources.opslib_header }}
{%- endblock body_header -%}
"""

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


def content_security_policy(page: str) -> str:
    """The policy of ``page``: only its own plotly.js, configuration and figure calls run.

    Examples
    --------
    >>> content_security_policy("<p>no script</p>").split(";")[1]
    " script-src 'none'"
    """
    scripts = " ".join(dict.fromkeys(_hashes(page))) or "'none'"
    return _POLICY.format(scripts=scripts)


def _with_policy(page: str) -> str:
    meta = (
        '<meta http-equiv="Content-Security-Policy" '
        f'content="{html.escape(content_security_policy(page))}">'
    )
    head = re.search(r"<head\b[^>]*>", page, re.IGNORECASE)
    if head is None:
        raise ValueError("the exported page has no <head>")
    return page[: head.end()] + "\n" + meta + page[head.end() :]


def _header(title: str, facts: Mapping[str, Any]) -> str:
    rows = []
    for key, value in facts.items():
        text = html.escape(str(value))
        if key == "outcome" and value != "ok":
            text = f'<span class="opslib-failed">{text}</span>'
        rows.append(f"<tr><td>{html.escape(key)}</td><td>{text}</td></tr>")
    return (
        f'<header class="opslib-header"><h1>{html.escape(title)}</h1>'
        f"<table>{''.join(rows)}</table></header>"
    )


def export_html(
    notebook: str | os.PathLike[str],
    destination: str | os.PathLike[str],
    *,
    title: str,
    facts: Mapping[str, Any] | None = None,
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
        Shown in the header table (parameters, time, outcome...).

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
    resources = {"opslib_header": _header(title, facts or {})}
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    out = Path(destination)
    out.write_text(_with_policy(body), encoding="utf-8")
    return out
