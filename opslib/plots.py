"""Plotly figures of the analysis frames, and the offline renderer the reports use.

Each function takes a frame from :mod:`opslib.analysis` and returns a
``plotly.graph_objects.Figure``; an empty frame gives a figure that says so. Figures carry
plain lists (never pandas NA), so they serialise the same in a notebook, in HTML and in a
``FigureWidget``.

:func:`use_offline_renderer` makes every figure render as self-contained HTML: plotly.js is
embedded once (by that call) and each figure then needs no network to draw. Importing this
module changes nothing in plotly: the renderer is registered by that call.

plotly reads a few HTML tags and entities in every label (titles, ticks, legends, hover),
so each value from the platform (names, codes, versions, property keys) is passed through
:func:`_labels` and shows as the text it is (``<b>x</b>`` is not made bold, ``<img ...>``
is not dropped).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.io.base_renderers import MimetypeRenderer
from plotly.subplots import make_subplots

from opslib import enums
from opslib.analysis._markup import label_text

__all__ = [
    "OFFLINE_RENDERER",
    "alarm_codes_chart",
    "cohorts_chart",
    "comparison_chart",
    "counts_bar",
    "downtime_chart",
    "event_volume_chart",
    "hour_weekday_heatmap",
    "noisiest_chart",
    "plotly_js_html",
    "products_chart",
    "property_boxes",
    "use_offline_renderer",
]

OFFLINE_RENDERER = "opslib_offline"
"""Name of the renderer :func:`use_offline_renderer` registers (HTML without plotly.js, no CDN)."""

HEIGHT = 420
_MAX_BAR_HEIGHT = 24_000  # past this a browser may not draw the SVG at all
STATUS_COLOURS = {
    "online": "#2ca02c",
    "offline": "#7f7f7f",
    "fault": "#d62728",
    "inactive": "#c7c7c7",
    "(none)": "#e0e0e0",
}
EVENT_COLOURS = {
    "online": "#2ca02c",
    "offline": "#7f7f7f",
    "property report": "#1f77b4",
    "alarm": "#d62728",
    "command": "#9467bd",
    "firmware upgrade": "#ff7f0e",
}
_CONFIG = {"displaylogo": False, "responsive": True}


class _OfflineHtmlRenderer(MimetypeRenderer):
    """Each figure as a ``<div>`` and a script calling the page's ``Plotly``; no CDN at all.

    plotly's own notebook renderer also adds a MathJax script from a CDN to every figure;
    reports must draw with no network, so this one leaves it out.
    """

    def to_mimebundle(self, fig_dict: dict[str, Any]) -> dict[str, str]:
        html = pio.to_html(
            fig_dict,
            config=_CONFIG,
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


# --- helpers -----------------------------------------------------------------------------


def _values(series: pd.Series) -> list[Any]:
    """A column as a plain list, NA as None, timestamps as UTC date strings plotly reads
    as dates (``2026-11-24 06:00:00``; plotly.js has no time zones: every axis is UTC)."""
    if isinstance(series.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_any_dtype(
        series.dtype
    ):
        return [None if pd.isna(v) else _utc_text(pd.Timestamp(v)) for v in series]
    return [None if v is None or v is pd.NA or v is pd.NaT else v for v in series.astype(object)]


def _utc_text(moment: pd.Timestamp) -> str:
    if moment.tzinfo is not None:
        moment = moment.tz_convert("UTC").tz_localize(None)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _labels(values: Sequence[Any]) -> list[str]:
    """Values as plotly labels that show as their text (see the module docstring)."""
    return [label_text(v) for v in values]


def _layout(fig: go.Figure, title: str, **extra: Any) -> go.Figure:
    extra.setdefault("height", HEIGHT)
    fig.update_layout(
        title={"text": title, "x": 0.01},
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        template="plotly_white",
        # right of the plot area, top-aligned: never over an axis title (a horizontal
        # legend under the plot sat on the x-axis title)
        legend={"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top"},
        **extra,
    )
    return fig


def _bar_height(rows: int) -> int:
    """Horizontal bars: about 24 px a bar (a reader who asks for 200 can read 200), never
    smaller than a short chart."""
    return max(280, min(_MAX_BAR_HEIGHT, 110 + 24 * rows))


def _top(fig: go.Figure, title: str, shown: int, items: int) -> str:
    """Mark a figure of the first ``shown`` of ``items`` (``layout.meta``: a panel bounds
    its "show top" chooser by ``items``); the title says what is left out."""
    fig.update_layout(meta={"opslib": "top", "items": items})
    if items > shown:
        title += f" (top {shown:,} of {items:,})"
    return title


def _empty(title: str, message: str = "No data for this selection") -> go.Figure:
    """A figure that says why it is empty (``layout.meta`` marks it for the panels, which
    add the selection)."""
    fig = go.Figure(layout={"meta": {"opslib": "empty"}})
    fig.add_annotation(text=message, showarrow=False, font={"size": 16}, x=0.5, y=0.5)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return _layout(fig, title)


# --- fleet -------------------------------------------------------------------------------


def counts_bar(
    counts: pd.DataFrame, column: str, *, title: str = "", value: str = "devices", top: int = 25
) -> go.Figure:
    """A horizontal bar per value of a count table (``analysis.count_by``), largest on top.

    Status labels get their fixed colours; other tables show the first ``top`` values and
    the title says of how many ("top 25 of 1,234").

    Examples
    --------
    >>> counts = analysis.count_by(devices, "status_name")  # doctest: +SKIP
    >>> fig = plots.counts_bar(counts, "status_name")  # doctest: +SKIP
    """
    title = title or f"{value.capitalize()} by {column.removesuffix('_name').removesuffix('_id')}"
    if counts.empty or int(counts[value].sum()) == 0:
        return _empty(title)
    shown = counts.head(top).iloc[::-1]
    raw = [str(v) for v in _values(shown[column])]
    labels = _labels(raw)
    colours = [STATUS_COLOURS.get(v, "#1f77b4") for v in raw] if column == "status_name" else None
    share = shown["share"] if "share" in shown.columns else None
    fig = go.Figure(
        go.Bar(
            x=_values(shown[value]),
            y=labels,
            orientation="h",
            marker_color=colours,
            text=[f"{s:.0%}" for s in share.astype("float64")] if share is not None else None,
            textposition="auto",
            name=value,
        )
    )
    title = _top(fig, title, len(shown), len(counts))
    return _layout(
        fig,
        title,
        xaxis_title=value,
        yaxis={"type": "category", "automargin": True},
        showlegend=False,
        height=_bar_height(len(shown)),
    )


def cohorts_chart(cohorts: pd.DataFrame, *, title: str = "Devices by bind date") -> go.Figure:
    """Stacked bars per bind cohort by today's status (``analysis.bind_cohorts``).

    Examples
    --------
    >>> fig = plots.cohorts_chart(analysis.bind_cohorts(devices, "W"))  # doctest: +SKIP
    """
    if cohorts.empty:
        return _empty(title)
    x = _values(cohorts["cohort"])
    fig = go.Figure()
    for label in enums.labels(enums.DeviceStatus).values():
        if label in cohorts.columns:
            fig.add_trace(
                go.Bar(
                    x=x, y=_values(cohorts[label]), name=label, marker_color=STATUS_COLOURS[label]
                )
            )
    return _layout(
        fig,
        title,
        barmode="stack",
        xaxis={"title": "bound in (month, UTC)", "tickformat": "%b %Y", "type": "date"},
        yaxis_title="devices",
    )


def products_chart(products: pd.DataFrame, *, title: str = "Products by category") -> go.Figure:
    """Stacked bars of products per category and product status.

    Examples
    --------
    >>> fig = plots.products_chart(client.products.list())  # doctest: +SKIP
    """
    if products.empty:
        return _empty(title)
    category = products["category_name"].astype("string").fillna("(none)")
    status = products["status_name"].astype("string").fillna("(none)")
    table = pd.crosstab(category.rename("category"), status.rename("status"))
    fig = go.Figure()
    for label in table.columns:
        fig.add_trace(
            go.Bar(x=_labels(list(table.index)), y=table[label].tolist(), name=label_text(label))
        )
    # whole products: a tick a product on a small axis, never 0.5
    dtick = 1 if int(table.sum(axis=1).max()) <= 10 else None
    return _layout(
        fig, title, barmode="stack", yaxis={"title": "products", "dtick": dtick, "tickformat": "d"}
    )


# --- events ------------------------------------------------------------------------------


def event_volume_chart(
    volume: pd.DataFrame,
    *,
    title: str = "Events over time",
    window: tuple[pd.Timestamp, pd.Timestamp] | None = None,
) -> go.Figure:
    """One line per event type over time (``analysis.event_volume``).

    The x axis covers ``window`` (the requested period) however little data there is.
    Buckets marked ``partial`` (partly outside the window) are left out of the lines, as
    the axis title says, so a short first or last bucket does not read as a real dip.

    Examples
    --------
    >>> fig = plots.event_volume_chart(analysis.event_volume(events, "1h"))  # doctest: +SKIP
    """
    xaxis: dict[str, Any] = {
        "title": "time (UTC)",
        "type": "date",
        "hoverformat": "%Y-%m-%d %H:%M UTC",
    }
    if window is not None:
        xaxis["range"] = [_utc_text(window[0]), _utc_text(window[1])]
    if volume.empty:
        fig = _empty(title)
        return fig.update_xaxes(visible=True, showticklabels=True, **xaxis)
    partial = (
        volume["partial"].astype(bool)
        if "partial" in volume.columns
        else pd.Series(False, index=volume.index)
    )
    fig = go.Figure()
    for label, part in volume.groupby("event_type_name", sort=False):
        cut = partial.loc[part.index].tolist()
        counts = _values(part["events"])
        fig.add_trace(
            go.Scatter(
                x=_values(part["time"]),
                # a bucket partly outside the period is left out: its count is no rate
                y=[None if c else n for c, n in zip(cut, counts, strict=True)],
                name=label_text(label),
                mode="lines",
                line={"color": EVENT_COLOURS.get(str(label))},
            )
        )
    if bool(partial.any()):
        xaxis["title"] = "time (UTC); buckets partly outside the period left out"
    return _layout(fig, title, xaxis=xaxis, yaxis_title="events", hovermode="x")


def hour_weekday_heatmap(
    matrix: pd.DataFrame, *, title: str = "Events by hour of day and weekday (UTC)"
) -> go.Figure:
    """A heatmap of ``analysis.hour_weekday_matrix``.

    Examples
    --------
    >>> fig = plots.hour_weekday_heatmap(analysis.hour_weekday_matrix(events))  # doctest: +SKIP
    """
    fig = go.Figure(
        go.Heatmap(
            z=matrix.to_numpy().tolist(),
            x=[int(h) for h in matrix.columns],
            y=_labels(list(matrix.index)),
            colorscale="Blues",
            colorbar={"title": {"text": "events"}},
        )
    )
    return _layout(fig, title, xaxis={"title": "hour", "dtick": 2}, yaxis={"autorange": "reversed"})


def noisiest_chart(
    noisy: pd.DataFrame, *, title: str = "Noisiest devices", top: int = 15
) -> go.Figure:
    """Stacked horizontal bars of the ``top`` noisiest devices by event type; given every
    device (``analysis.noisiest_devices(events, None)``), the title says how many of them.

    Examples
    --------
    >>> fig = plots.noisiest_chart(analysis.noisiest_devices(events, None))  # doctest: +SKIP
    """
    if noisy.empty:
        return _empty(title)
    shown = noisy.head(top).iloc[::-1]
    fig = go.Figure()
    for label in enums.labels(enums.EventType).values():
        if label in shown.columns and int(shown[label].sum()):
            fig.add_trace(
                go.Bar(
                    x=_values(shown[label]),
                    y=_labels(_values(shown["device_id"])),
                    name=label,
                    orientation="h",
                    marker_color=EVENT_COLOURS.get(label),
                )
            )
    title = _top(fig, title, len(shown), len(noisy))
    return _layout(
        fig,
        title,
        barmode="stack",
        xaxis_title="events",
        yaxis={"type": "category", "automargin": True},
        height=_bar_height(len(shown)),
    )


def alarm_codes_chart(codes: pd.DataFrame, *, title: str = "Alarms by code") -> go.Figure:
    """Alarms per code, faults (``F`` codes) in red (``analysis.alarm_codes``).

    Examples
    --------
    >>> fig = plots.alarm_codes_chart(analysis.alarm_codes(events))  # doctest: +SKIP
    """
    if codes.empty:
        return _empty(title, "No alarms in this selection")
    fig = go.Figure()
    for severity, colour in (("fault", "#d62728"), ("alarm", "#ff7f0e")):
        part = codes[codes["severity"] == severity]
        if len(part):
            fig.add_trace(
                go.Bar(
                    x=_labels(_values(part["code"])),
                    y=_values(part["alarms"]),
                    name=severity,
                    marker_color=colour,
                    customdata=_values(part["devices"]),
                    hovertemplate="%{x}: %{y} alarms on %{customdata} devices",
                )
            )
    return _layout(fig, title, xaxis={"title": "code", "type": "category"}, yaxis_title="alarms")


def downtime_chart(
    down: pd.DataFrame, *, title: str = "Downtime per device", top: int = 20
) -> go.Figure:
    """Hours offline per device, the most first (``analysis.downtime``); the first ``top``
    devices, and the title says of how many.

    Examples
    --------
    >>> fig = plots.downtime_chart(analysis.downtime(events, window=window))  # doctest: +SKIP
    """
    if down.empty:
        return _empty(title, "No outages: no device went offline in this selection")
    shown = down.head(top).iloc[::-1]
    fig = go.Figure(
        go.Bar(
            x=_values(shown["downtime_hours"]),
            y=_labels(_values(shown["device_id"])),
            orientation="h",
            marker_color="#7f7f7f",
            customdata=_values(shown["outages"]),
            hovertemplate="%{y}: %{x:.1f} h in %{customdata} outages",
            name="downtime",
        )
    )
    title = _top(fig, title, len(shown), len(down))
    return _layout(
        fig,
        title,
        xaxis_title="hours offline",
        yaxis={"type": "category", "automargin": True},
        showlegend=False,
        height=_bar_height(len(shown)),
    )


def property_boxes(
    events: pd.DataFrame,
    properties: Sequence[str],
    *,
    title: str = "Reported properties",
    max_properties: int = 16,
    message: str = "No numeric properties: no event in this selection reports one",
) -> go.Figure:
    """One box per numeric property, each on its own scale: quartiles, mean, and whiskers
    at the 5th and 95th percentiles.

    The boxes are drawn from precomputed statistics, so the figure stays small however
    many events there are.

    Parameters
    ----------
    events
        An event frame.
    properties
        ``properties.<key>`` columns (``analysis.property_columns(events)``).
    max_properties
        Show at most this many (four a row); the title names those left out.
    message
        What an empty figure says.

    Examples
    --------
    >>> fig = plots.property_boxes(events, analysis.property_columns(events))  # doctest: +SKIP
    """
    shown = list(properties)[:max_properties]
    if not shown or events.empty:
        return _empty(title, message)
    left_out = [p.removeprefix("properties.") for p in list(properties)[max_properties:]]
    if left_out:
        omitted = label_text(", ".join(left_out))
        title += f" ({len(shown)} of {len(properties)}; left out: {omitted})"
    names = _labels([p.removeprefix("properties.") for p in shown])
    cols = min(4, len(shown))
    rows = -(-len(shown) // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=names, vertical_spacing=0.12)
    for i, column in enumerate(shown, start=1):
        values = pd.to_numeric(events[column], errors="coerce").dropna().astype("float64")
        if values.empty:
            continue
        q = values.quantile([0.05, 0.25, 0.5, 0.75, 0.95]).tolist()
        fig.add_trace(
            go.Box(
                x=[names[i - 1]],
                lowerfence=[q[0]],
                q1=[q[1]],
                median=[q[2]],
                q3=[q[3]],
                upperfence=[q[4]],
                mean=[float(values.mean())],
                name=names[i - 1],
            ),
            row=(i - 1) // cols + 1,
            col=(i - 1) % cols + 1,
        )
    return _layout(fig, title, showlegend=False, height=max(HEIGHT, 260 * rows))


def comparison_chart(
    comparison: pd.DataFrame, *, title: str = "This period and the previous one"
) -> go.Figure:
    """Grouped bars of the event counts of two periods (``analysis.compare_periods``).

    The count axis is logarithmic: event types differ by orders of magnitude (property
    reports against alarms), and on a linear axis the small ones would not show.

    Examples
    --------
    >>> fig = plots.comparison_chart(analysis.compare_periods(events, earlier))  # doctest: +SKIP
    """
    rows = comparison[comparison["measure"].str.endswith(" events")]
    rows = rows[(rows["current"] > 0) | (rows["previous"] > 0)]
    if rows.empty:
        return _empty(title)
    labels = _labels([str(m).removesuffix(" events") for m in rows["measure"]])
    fig = go.Figure(
        [
            go.Bar(x=labels, y=_values(rows["previous"]), name="previous", marker_color="#c7c7c7"),
            go.Bar(x=labels, y=_values(rows["current"]), name="current", marker_color="#1f77b4"),
        ]
    )
    return _layout(
        fig, title, barmode="group", yaxis={"title": "events (log scale)", "type": "log"}
    )
