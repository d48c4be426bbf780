"""Figures of the fleet inventory and of the products."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

from opslib.analysis._markup import label_text
from opslib.plots._base import (
    STATUS_COLOURS,
    EmptyFigure,
    bar_height,
    first,
    labels,
    layout,
    share_text,
    slots,
    top,
    values,
)

__all__ = ["cohorts_chart", "counts_bar", "products_chart"]


def counts_bar(
    counts: pd.DataFrame,
    column: str,
    *,
    title: str = "",
    value: str = "devices",
    top: int = 25,
    names: Mapping[str, str] | None = None,
) -> go.Figure:
    """A horizontal bar per value of a count table (``analysis.count_by``), largest on top.

    Status labels get their fixed colours; other tables show the first ``top`` values and
    the title says of how many ("top 25 of 1,234"). Values with no device are not drawn.
    ``names`` labels each value with the name people know it by (a product's name for its
    id; the id stays in the hover text).

    Examples
    --------
    >>> counts = analysis.count_by(devices, "product_id")  # doctest: +SKIP
    >>> fig = plots.counts_bar(counts, "product_id", names=product_names)  # doctest: +SKIP
    """
    title = title or f"{value.capitalize()} by {column.removesuffix('_name').removesuffix('_id')}"
    if not counts.empty:
        counts = counts[counts[value].fillna(0) > 0]
    if counts.empty:
        return EmptyFigure(title)
    shown = first(counts, top)
    raw = [str(v) for v in values(shown[column])]
    named = [str((names or {}).get(v, v)) for v in raw]
    colours = [STATUS_COLOURS.get(v, "#1f77b4") for v in raw] if column == "status_name" else None
    share = shown["share"] if "share" in shown.columns else None
    fig = go.Figure(
        go.Bar(
            x=values(shown[value]),
            y=labels(named),
            orientation="h",
            marker_color=colours,
            text=[share_text(s) for s in share.astype("float64")] if share is not None else None,
            textposition="auto",
            customdata=labels(raw),
            hovertemplate="%{y} (%{customdata}): %{x:,} " + value + "<extra></extra>",
            name=value,
        )
    )
    title = _top_title(fig, title, len(shown), len(counts))
    n = len(shown)
    return layout(
        fig,
        title,
        xaxis_title=value,
        yaxis={"type": "category", "automargin": True, "range": _rows_range(n)},
        showlegend=False,
        height=bar_height(n),
    )


_top_title = top


def _rows_range(rows: int) -> list[float]:
    """Horizontal bars from the top: the empty slots of a short chart go below them."""
    low, high = slots(rows)
    return [rows - 0.5 - (high - low), rows - 0.5]


def cohorts_chart(
    cohorts: pd.DataFrame, *, title: str = "Devices by bind date", zone: str = "UTC"
) -> go.Figure:
    """Stacked bars per bind cohort by today's status (``analysis.bind_cohorts``).

    Examples
    --------
    >>> fig = plots.cohorts_chart(analysis.bind_cohorts(devices, "W"))  # doctest: +SKIP
    """
    if cohorts.empty:
        return EmptyFigure(title, "No bound device in this selection")
    x = values(cohorts["cohort"])
    fig = go.Figure()
    fixed = {"cohort", "devices", "never_online", "online_share"}
    for label in [c for c in cohorts.columns if c not in fixed]:  # the platform's statuses
        if int(cohorts[label].fillna(0).sum()):
            colour = STATUS_COLOURS.get(label)
            fig.add_trace(go.Bar(x=x, y=values(cohorts[label]), name=label, marker_color=colour))
    return layout(
        fig,
        title,
        barmode="stack",
        xaxis={"title": f"bound in (month, {zone})", "tickformat": "%b %Y", "type": "date"},
        yaxis_title="devices",
    )


def products_chart(products: pd.DataFrame, *, title: str = "Products by category") -> go.Figure:
    """Stacked bars of products per category and product status.

    Examples
    --------
    >>> fig = plots.products_chart(client.products.list())  # doctest: +SKIP
    """
    if products.empty:
        return EmptyFigure(title, "No product on the platform")
    category = products["category_name"].astype("string").fillna("(none)")
    status = products["status_name"].astype("string").fillna("(none)")
    table = pd.crosstab(category.rename("category"), status.rename("status"))
    fig = go.Figure()
    for label in table.columns:
        fig.add_trace(
            go.Bar(x=labels(list(table.index)), y=table[label].tolist(), name=label_text(label))
        )
    # whole products: a tick a product on a small axis, never 0.5
    dtick = 1 if int(table.sum(axis=1).max()) <= 10 else None
    return layout(
        fig,
        title,
        barmode="stack",
        xaxis={"type": "category", "range": slots(len(table.index))},
        yaxis={"title": "products", "dtick": dtick, "tickformat": "d"},
    )
