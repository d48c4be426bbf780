"""Plotly figures of the analysis frames, and the offline renderer the reports use.

Each function takes a frame from :mod:`opslib.analysis` and returns a
``plotly.graph_objects.Figure``; an empty frame gives an :class:`EmptyFigure`, which a
notebook and a report show as one sentence (its title and why), never as empty axes.
Figures carry plain lists (never pandas NA), so they serialise the same in a notebook, in
HTML and in a ``FigureWidget``. Times are drawn in the zone of the frame's times (the
reader's, see :mod:`opslib.analysis.zones`) and the axis title names it.

:func:`use_offline_renderer` makes every figure render as self-contained HTML: plotly.js is
embedded once (by that call) and each figure then needs no network to draw. Importing this
module changes nothing in plotly: the renderer is registered by that call.

plotly reads a few HTML tags and entities in every label (titles, ticks, legends, hover),
so each value from the platform (names, codes, versions, property keys) is passed through
``opslib.plots._base.labels`` and shows as the text it is (``<b>x</b>`` is not made bold,
``<img ...>`` is not dropped).
"""

from __future__ import annotations

from typing import Any

import plotly.io as pio
from plotly.io.base_renderers import MimetypeRenderer

from opslib.plots._base import (
    CONFIG,
    EVENT_COLOURS,
    HEIGHT,
    STATUS_COLOURS,
    EmptyFigure,
    empty_html,
    is_empty,
)
from opslib.plots.events import (
    alarm_codes_chart,
    comparison_chart,
    downtime_chart,
    event_volume_chart,
    hour_weekday_heatmap,
    noisiest_chart,
    property_boxes,
)
from opslib.plots.fleet import cohorts_chart, counts_bar, products_chart

__all__ = [
    "EVENT_COLOURS",
    "HEIGHT",
    "OFFLINE_RENDERER",
    "STATUS_COLOURS",
    "EmptyFigure",
    "alarm_codes_chart",
    "cohorts_chart",
    "comparison_chart",
    "counts_bar",
    "downtime_chart",
    "empty_html",
    "event_volume_chart",
    "hour_weekday_heatmap",
    "is_empty",
    "noisiest_chart",
    "plotly_js_html",
    "products_chart",
    "property_boxes",
    "use_offline_renderer",
]

OFFLINE_RENDERER = "opslib_offline"
"""Name of the renderer :func:`use_offline_renderer` registers (HTML without plotly.js, no CDN)."""


class _OfflineHtmlRenderer(MimetypeRenderer):
    """Each figure as a ``<div>`` and a script calling the page's ``Plotly``; no CDN at all.

    plotly's own notebook renderer also adds a MathJax script from a CDN to every figure;
    reports must draw with no network, so this one leaves it out.
    """

    def to_mimebundle(self, fig_dict: dict[str, Any]) -> dict[str, str]:
        html = pio.to_html(
            fig_dict,
            config=CONFIG,
            include_plotlyjs=False,
            include_mathjax=False,
            full_html=False,
            default_width="100%",
            default_height=HEIGHT,
            validate=False,
        )
        return {"text/html": html}


def plotly_js_html() -> str:
    """plotly.js as one inline ``<script>`` (about 5 MB), to be shown once per report."""
    from plotly.offline import get_plotlyjs

    return (
        '<script type="text/javascript">window.PlotlyConfig = {MathJaxConfig: "local"};</script>\n'
        f'<script type="text/javascript">{get_plotlyjs()}</script>'
    )


def use_offline_renderer(*, interactive: bool = False, embed_plotlyjs: bool = True) -> str:
    """Render figures as offline HTML; embed plotly.js once in the current cell's output.

    Parameters
    ----------
    interactive
        Also emit plotly's own mimetype, which JupyterLab draws natively; the HTML part is
        still there for a report exported from the same notebook.
    embed_plotlyjs
        Display plotly.js now (needs IPython); call this once per notebook.

    Returns
    -------
    str
        The renderer now in use.

    Examples
    --------
    >>> from opslib import plots
    >>> plots.use_offline_renderer(embed_plotlyjs=False)
    'opslib_offline'
    """
    pio.renderers[OFFLINE_RENDERER] = _OfflineHtmlRenderer()
    name = f"plotly_mimetype+{OFFLINE_RENDERER}" if interactive else OFFLINE_RENDERER
    pio.renderers.default = name
    if embed_plotlyjs:
        from IPython.display import HTML, display

        display(HTML(plotly_js_html()))
    return name
