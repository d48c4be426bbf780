"""ipywidgets panels: filters over a frame, and figures and tables redrawn in place.

A panel holds one source frame and a few filter widgets (dropdowns, multi-selects, a date
range). Each ``panel.plot(build)`` / ``panel.table(build)`` call adds a *view*: ``build``
turns the filtered frame into a figure or a table, and is called again whenever a filter
changes. Views keep the same figure object across redraws (a ``Figure`` whose traces and
layout are replaced, shown in an ``Output`` widget), so a test can set
``panel.<filter>.value`` and assert on ``panel.filtered`` and ``panel.figures[name].data``.

``panel.plot_top(build)`` adds a figure of the largest counts only, ``build(filtered, n)``;
live, a "show top" box above it picks ``n`` and redraws that figure alone.

With ``interactive=False`` a panel creates no widget at all: views render once as static
figures and tables, which is what unattended reports show.

>>> from opslib import analysis, plots, widgets
>>> panel = widgets.FleetPanel(devices)  # doctest: +SKIP
>>> by_status = lambda d: plots.counts_bar(analysis.count_by(d, "status_name"), "status_name")
>>> panel.plot(by_status)  # doctest: +SKIP
"""

from opslib.widgets._tables import Table, readable, time_text
from opslib.widgets._views import ALL, Panel, View
from opslib.widgets.panels import EventPanel, FleetPanel, device_options, value_options
from opslib.widgets.products import ProductForm

__all__ = [
    "ALL",
    "EventPanel",
    "FleetPanel",
    "Panel",
    "ProductForm",
    "Table",
    "View",
    "device_options",
    "readable",
    "time_text",
    "value_options",
]
