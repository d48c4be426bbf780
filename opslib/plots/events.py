"""Figures of the event analysis: volume, rhythm, noisy devices, alarms, downtime,
properties and the comparison of two periods."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from opslib.analysis._markup import label_text
from opslib.plots._base import (
    EVENT_COLOURS,
    HEIGHT,
    EmptyFigure,
    bar_height,
    first,
    labels,
    layout,
    slots,
    top,
    values,
    wall_text,
)

__all__ = [
    "alarm_codes_chart",
    "comparison_chart",
    "downtime_chart",
    "event_volume_chart",
    "hour_weekday_heatmap",
    "noisiest_chart",
    "property_boxes",
]


def _zone(frame_times: pd.Series | None, window: Any) -> str:
    """The zone the times are in, for an axis title (``UTC`` for naive ones)."""
    from opslib.analysis.zones import zone_label

    if window is not None and getattr(window[0], "tzinfo", None) is not None:
        return zone_label(window[0].tzinfo)
    if frame_times is not None and isinstance(frame_times.dtype, pd.DatetimeTZDtype):
        return zone_label(frame_times.dt.tz)
    return "UTC"


def event_volume_chart(
    volume: pd.DataFrame,
    *,
    title: str = "Events over time",
    window: tuple[pd.Timestamp, pd.Timestamp] | None = None,
) -> go.Figure:
    """One line per event type over time (``analysis.event_volume``), in the zone of its
    times (the axis title names it).

    The x axis covers ``window`` (the requested period) however little data there is.
    Buckets marked ``partial`` (partly outside the window) are left out of the lines, as
    the axis title says, so a short first or last bucket does not read as a real dip.

    Examples
    --------
    >>> fig = plots.event_volume_chart(analysis.event_volume(events, "1h"))  # doctest: +SKIP
    """
    if volume.empty or int(volume["events"].fillna(0).sum()) == 0:
        return EmptyFigure(title, "No events in this selection")
    zone = _zone(volume["time"], window)
    xaxis: dict[str, Any] = {
        "title": f"time ({zone})",
        "type": "date",
        "hoverformat": f"%Y-%m-%d %H:%M {zone}",
    }
    if window is not None:
        xaxis["range"] = [wall_text(window[0]), wall_text(window[1])]
    partial = (
        volume["partial"].astype(bool)
        if "partial" in volume.columns
        else pd.Series(False, index=volume.index)
    )
    buckets = volume["time"].nunique()
    fig = go.Figure()
    for label, part in volume.groupby("event_type_name", sort=False):
        cut = partial.loc[part.index].tolist()
        counts = values(part["events"])
        fig.add_trace(
            go.Scatter(
                x=values(part["time"]),
                # a bucket partly outside the period is left out: its count is no rate
                y=[None if c else n for c, n in zip(cut, counts, strict=True)],
                name=label_text(label),
                mode="lines+markers" if buckets <= 40 else "lines",
                line={"color": EVENT_COLOURS.get(str(label))},
            )
        )
    if bool(partial.any()):
        xaxis["title"] = f"time ({zone}); buckets partly outside the period left out"
    return layout(
        fig, title, xaxis=xaxis, yaxis={"title": "events", "rangemode": "tozero"}, hovermode="x"
    )


def hour_weekday_heatmap(matrix: pd.DataFrame, *, title: str = "", zone: str = "UTC") -> go.Figure:
    """A heatmap of ``analysis.hour_weekday_matrix``: one row per weekday the period
    covers, hours of the reader's zone.

    Examples
    --------
    >>> fig = plots.hour_weekday_heatmap(analysis.hour_weekday_matrix(events))  # doctest: +SKIP
    """
    title = title or f"Events by hour of day and weekday ({zone})"
    if matrix.empty or int(matrix.to_numpy().sum()) == 0:
        return EmptyFigure(title, "No events in this selection")
    fig = go.Figure(
        go.Heatmap(
            z=matrix.to_numpy().tolist(),
            x=[int(h) for h in matrix.columns],
            y=labels(list(matrix.index)),
            colorscale="Blues",
            zmin=0,
            colorbar={"title": {"text": "events"}},
            hovertemplate="%{y} %{x}:00: %{z} events<extra></extra>",
        )
    )
    rows = len(matrix.index)
    return layout(
        fig,
        title,
        xaxis={"title": f"hour ({zone})", "dtick": 2, "range": [-0.5, 23.5]},
        yaxis={"autorange": "reversed", "type": "category"},
        height=min(HEIGHT, 150 + 40 * rows),
    )


def noisiest_chart(
    noisy: pd.DataFrame,
    *,
    title: str = "Noisiest devices",
    top: int = 15,
    names: Mapping[str, str] | None = None,
) -> go.Figure:
    """Stacked horizontal bars of the ``top`` noisiest devices by event type, each named
    as people know it (``names``: device id → name; the id is in the hover text); given
    every device (``analysis.noisiest_devices(events, None)``), the title says how many.

    Examples
    --------
    >>> fig = plots.noisiest_chart(analysis.noisiest_devices(events, None))  # doctest: +SKIP
    """
    if noisy.empty:
        return EmptyFigure(title, "No events in this selection")
    shown = first(noisy, top)
    ids = [str(v) for v in values(shown["device_id"])]
    shown_names = labels([(names or {}).get(d, d) for d in ids])
    fig = go.Figure()
    fixed = {"device_id", "events", "share", "events_per_day", "top_type"}
    for label in [c for c in shown.columns if c not in fixed]:  # a column per event type
        if int(shown[label].sum()):
            fig.add_trace(
                go.Bar(
                    x=values(shown[label]),
                    y=shown_names,
                    name=label,
                    orientation="h",
                    marker_color=EVENT_COLOURS.get(label),
                    customdata=labels(ids),
                    hovertemplate="%{y} (%{customdata}): %{x} " + label + "<extra></extra>",
                )
            )
    title = top_title(fig, title, len(shown), len(noisy))
    return layout(
        fig,
        title,
        barmode="stack",
        xaxis_title="events",
        yaxis={"type": "category", "automargin": True},
        height=bar_height(len(shown)),
    )


top_title = top


def alarm_codes_chart(codes: pd.DataFrame, *, title: str = "Alarms by code") -> go.Figure:
    """Alarms per code, faults (``F`` codes) in red (``analysis.alarm_codes``).

    Examples
    --------
    >>> fig = plots.alarm_codes_chart(analysis.alarm_codes(events))  # doctest: +SKIP
    """
    if codes.empty:
        return EmptyFigure(title, "No alarms in this selection")
    fig = go.Figure()
    for severity, colour in (("fault", "#d62728"), ("alarm", "#ff7f0e")):
        part = codes[codes["severity"] == severity]
        if len(part):
            fig.add_trace(
                go.Bar(
                    x=labels(values(part["code"])),
                    y=values(part["alarms"]),
                    name=severity,
                    marker_color=colour,
                    customdata=values(part["devices"]),
                    hovertemplate="%{x}: %{y} alarms on %{customdata} devices",
                )
            )
    return layout(
        fig,
        title,
        xaxis={"title": "code", "type": "category", "range": slots(len(codes))},
        yaxis_title="alarms",
    )


def downtime_chart(
    down: pd.DataFrame,
    *,
    title: str = "Downtime per device",
    top: int = 20,
    names: Mapping[str, str] | None = None,
) -> go.Figure:
    """Hours offline per device, the most first (``analysis.downtime``); the first ``top``
    devices, named as people know them (``names``), and the title says of how many.

    Examples
    --------
    >>> fig = plots.downtime_chart(analysis.downtime(events, window=window))  # doctest: +SKIP
    """
    if down.empty:
        return EmptyFigure(title, "No device was offline in this selection")
    shown = first(down, top)
    ids = [str(v) for v in values(shown["device_id"])]
    fig = go.Figure(
        go.Bar(
            x=values(shown["downtime_hours"]),
            y=labels([(names or {}).get(d, d) for d in ids]),
            orientation="h",
            marker_color="#7f7f7f",
            customdata=list(zip(labels(ids), values(shown["outages"]), strict=True)),
            hovertemplate="%{y} (%{customdata[0]}): %{x:.1f} h in %{customdata[1]} outages"
            "<extra></extra>",
            name="downtime",
        )
    )
    title = top_title(fig, title, len(shown), len(down))
    return layout(
        fig,
        title,
        xaxis={"title": "hours offline", "rangemode": "tozero"},
        yaxis={"type": "category", "automargin": True},
        showlegend=False,
        height=bar_height(len(shown)),
    )


def property_boxes(
    events: pd.DataFrame,
    properties: Sequence[str],
    *,
    title: str = "Reported properties",
    max_properties: int = 16,
    message: str = "No numeric property reported in this selection",
) -> go.Figure:
    """One box per numeric property, each on its own scale: quartiles, mean, and whiskers
    at the 5th and 95th percentiles.

    The boxes are drawn from precomputed statistics, so the figure stays small however
    many events there are. Properties come in the order given (most reported first, as
    ``analysis.chart_properties`` orders them).

    Parameters
    ----------
    events
        An event frame.
    properties
        ``properties.<key>`` columns (``analysis.chart_properties(events)``).
    max_properties
        Show at most this many (four a row); the title names those left out.
    message
        What an empty figure says.

    Examples
    --------
    >>> fig = plots.property_boxes(events, analysis.chart_properties(events))  # doctest: +SKIP
    """
    shown = list(properties)[:max_properties]
    if not shown or events.empty:
        return EmptyFigure(title, message)
    left_out = [p.removeprefix("properties.") for p in list(properties)[max_properties:]]
    if left_out:
        omitted = label_text(", ".join(left_out))
        title += f" ({len(shown)} of {len(properties)}; left out: {omitted})"
    names = labels([p.removeprefix("properties.") for p in shown])
    cols = min(4, len(shown))
    rows = -(-len(shown) // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=names, vertical_spacing=0.12)
    for i, column in enumerate(shown, start=1):
        numbers = pd.to_numeric(events[column], errors="coerce").dropna().astype("float64")
        if numbers.empty:
            continue
        q = numbers.quantile([0.05, 0.25, 0.5, 0.75, 0.95]).tolist()
        fig.add_trace(
            go.Box(
                x=[names[i - 1]],
                lowerfence=[q[0]],
                q1=[q[1]],
                median=[q[2]],
                q3=[q[3]],
                upperfence=[q[4]],
                mean=[float(numbers.mean())],
                name=names[i - 1],
            ),
            row=(i - 1) // cols + 1,
            col=(i - 1) % cols + 1,
        )
    return layout(fig, title, showlegend=False, height=max(HEIGHT, 260 * rows))


def comparison_chart(
    comparison: pd.DataFrame, *, title: str = "This period and the previous one"
) -> go.Figure:
    """The event counts of two periods, one small chart per event type, each on its own
    linear axis from zero, its title giving the change (``analysis.compare_periods``).

    Event types differ by orders of magnitude (property reports against alarms): on one
    axis the small ones would not show, and on a log axis (or one not starting at zero)
    bar heights no longer compare. Each type gets its own honest axis instead.

    Examples
    --------
    >>> fig = plots.comparison_chart(analysis.compare_periods(events, earlier))  # doctest: +SKIP
    """
    from opslib._percent import step_text

    rows = comparison[comparison["measure"].str.endswith(" events")]
    rows = rows[(rows["current"] > 0) | (rows["previous"] > 0)]
    if rows.empty:
        return EmptyFigure(title, "No events in either period")
    titles = []
    for measure, before, now in zip(
        rows["measure"], rows["previous"], rows["current"], strict=True
    ):
        change = (
            "no change" if before == now else "none before" if before == 0
            else step_text(float(before), float(now), "")
        )  # fmt: skip
        name = label_text(str(measure).removesuffix(" events"))
        titles.append(f"{name}<br>{before:,.0f} → {now:,.0f} ({change})")
    cols = min(3, len(rows))
    lines = -(-len(rows) // cols)
    fig = make_subplots(rows=lines, cols=cols, subplot_titles=titles, vertical_spacing=0.3)
    for i, (before, now) in enumerate(zip(rows["previous"], rows["current"], strict=True)):
        where = {"row": i // cols + 1, "col": i % cols + 1}
        fig.add_trace(
            go.Bar(
                x=["previous", "this period"],
                y=[float(before), float(now)],
                marker_color=["#c7c7c7", "#1f77b4"],
                showlegend=False,
                hovertemplate="%{x}: %{y:,} events<extra></extra>",
            ),
            **where,
        )
        fig.update_yaxes(rangemode="tozero", type="linear", **where)
    layout(fig, title, height=max(HEIGHT, 250 * lines + 110), showlegend=False)
    return fig.update_layout(margin={"t": 110})  # the panel titles sit under the title
