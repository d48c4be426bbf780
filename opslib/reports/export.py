"""Export an executed notebook as a self-contained HTML report.

Code is hidden, tables and figures stay. The page loads nothing from the network: the lab
template's require.js, MathJax and Mermaid scripts (all from CDNs, none needed by a report)
are left out, and plotly.js is in the notebook once, embedded by the report's setup cell.
A header names the report, its parameters, when it ran and how it ended.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["export_html"]

_TEMPLATE = "opslib_report.html.j2"
_TEMPLATE_SOURCE = """\
{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
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
    out.write_text(body, encoding="utf-8")
    return out
