"""What every figure shares: colours, sizes, labels as text, times as the reader's, and the
one sentence an empty figure is."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from opslib._limits import check_count
from opslib.analysis._markup import label_text

HEIGHT = 420
_MAX_BAR_HEIGHT = 24_000  # past this a browser may not draw the SVG at all
# A category axis shows at least this many slots: one bar never fills the page.
MIN_SLOTS = 6
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
CONFIG = {"displaylogo": False, "responsive": True}
EMPTY = "empty"
"""``layout.meta["opslib"]`` of a figure with nothing to draw (:class:`EmptyFigure`)."""


class EmptyFigure(go.Figure):
    """A figure with nothing to draw: shown as one sentence (its title and why), never as
    empty axes. ``layout.meta`` marks it, so a panel can say which selection emptied it.

    Examples
    --------
    >>> EmptyFigure("Alarms by code", "No alarms in this selection").message
    'No alarms in this selection'
    """

    def __init__(self, title: str = "", message: str = "No data for this selection") -> None:
        super().__init__(layout={"meta": {"opslib": EMPTY, "title": title, "message": message}})
        layout(self, title, height=120)

    @property
    def message(self) -> str:
        return str((self.layout.meta or {}).get("message", ""))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **_: Any) -> dict:
        return {"text/html": empty_html(self), "text/plain": empty_text(self)}

    def _ipython_display_(self) -> None:
        # plotly's own would draw it through the renderer: empty axes
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)


def is_empty(fig: go.Figure) -> bool:
    """Whether ``fig`` has nothing to draw (an :class:`EmptyFigure`, or its layout)."""
    return (fig.layout.meta or {}).get("opslib") == EMPTY


def empty_text(fig: go.Figure, selection: str = "") -> str:
    """The sentence of an empty figure: ``Alarms by code: no alarms in this selection.``"""
    meta = fig.layout.meta or {}
    title, message = str(meta.get("title", "")), str(meta.get("message", "")).rstrip(".")
    if selection:
        message += f" ({selection})"
    text = f"{title}: {message[:1].lower()}{message[1:]}" if title else message
    return text + "."


def empty_html(fig: go.Figure, selection: str = "") -> str:
    """An empty figure as the one paragraph a report shows in its place."""
    return f'<p class="opslib-empty"><em>{html.escape(empty_text(fig, selection))}</em></p>'


def values(series: pd.Series) -> list[Any]:
    """A column as a plain list, NA as None, timestamps as the wall-clock text of their own
    zone (``2026-11-24 06:00:00``): plotly.js has no zones, so the axis shows the reader's
    time when the frame holds it (and its title names the zone)."""
    if isinstance(series.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_any_dtype(
        series.dtype
    ):
        return [None if pd.isna(v) else wall_text(pd.Timestamp(v)) for v in series]
    return [None if v is None or v is pd.NA or v is pd.NaT else v for v in series.astype(object)]


def wall_text(moment: pd.Timestamp) -> str:
    """A moment as plotly reads a date: its wall-clock time in its own zone."""
    if moment.tzinfo is not None:
        moment = moment.tz_localize(None)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def labels(items: Sequence[Any]) -> list[str]:
    """Values as plotly labels that show as their text (see the package docstring)."""
    return [label_text(v) for v in items]


def layout(fig: go.Figure, title: str, **extra: Any) -> go.Figure:
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


def bar_height(rows: int) -> int:
    """Horizontal bars: about 24 px a bar (a reader who asks for 200 can read 200); a
    chart of a few bars keeps room for :data:`MIN_SLOTS` (its bars stay bars)."""
    return min(_MAX_BAR_HEIGHT, 110 + 24 * max(rows, MIN_SLOTS))


def slots(count: int) -> list[float]:
    """A category axis range of at least :data:`MIN_SLOTS` slots, so that a chart of one
    or two bars (a narrow filter) keeps bars of the usual width."""
    return [-0.5, max(count, MIN_SLOTS) - 0.5]


def first(frame: pd.DataFrame, top: int) -> pd.DataFrame:
    """The first ``top`` rows, in the order a horizontal bar chart draws them (bottom up);
    ``top`` below 1 is refused (``head(-1)`` would be every row but the last)."""
    return frame.head(check_count("top", top, "bars")).iloc[::-1]


def top(fig: go.Figure, title: str, shown: int, items: int) -> str:
    """Mark a figure of the first ``shown`` of ``items`` (``layout.meta``: a panel bounds
    its "show top" chooser by ``items``); the title says what is left out."""
    fig.update_layout(meta={"opslib": "top", "items": items})
    if items > shown:
        title += f" (top {shown:,} of {items:,})"
    return title


def share_text(share: float) -> str:
    """A share 0..1 as a bar label: ``41%``, and one decimal under 1% (``0.4%``, not 0%)."""
    percent = share * 100
    if percent == 0 or percent >= 1:
        return f"{percent:.0f}%"
    return f"{percent:.1f}%" if percent >= 0.1 else "<0.1%"
