"""Views (one figure or table bound to a panel's filtered frame) and the Panel base class."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as w
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from opslib.analysis._common import parquet_ready
from opslib.csvcells import write_csv
from opslib.plots._base import empty_html, empty_text, is_empty
from opslib.widgets._tables import check_rows, table_html

__all__ = ["ALL", "Panel", "View"]

ALL = ""
"""The dropdown value that means "no filter"."""
_TABLE_ROWS = 20


def _shell() -> Any:
    """The IPython kernel shell running this code, or None outside a kernel."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return None
    shell = get_ipython()
    return shell if shell is not None and hasattr(shell, "kernel") else None


def _figure_html(fig: go.Figure) -> str:
    return pio.to_html(
        fig,
        include_plotlyjs=False,
        include_mathjax=False,
        full_html=False,
        default_width="100%",
        config={"displaylogo": False, "responsive": True},
    )


def _export_full(frame: pd.DataFrame, directory: str, stem: str) -> list[str]:
    """Write the whole table as ``<stem>.csv`` and ``<stem>.parquet``; their names."""
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    write_csv(frame, target / f"{stem}.csv")  # no cell a spreadsheet would run
    parquet_ready(frame).to_parquet(target / f"{stem}.parquet", index=False)
    return [f"{stem}.csv", f"{stem}.parquet"]


class View:
    """One figure or table computed from a panel's filtered frame.

    Live, the view is an ``Output`` widget holding the figure; a redraw replaces the
    figure's traces and layout and the widget's one output. (plotly's ``FigureWidget``
    would need the anywidget package, which opslib does not depend on.)

    Attributes
    ----------
    name : str
        Its key in ``panel.figures`` or ``panel.tables``.
    figure : plotly Figure or None
        For a figure view: the same object across redraws.
    frame : pandas.DataFrame or None
        For a table view: the latest table.
    """

    def __init__(
        self,
        name: str,
        build: Callable[[pd.DataFrame], Any],
        *,
        kind: str,
        interactive: bool,
        max_rows: int = _TABLE_ROWS,
        empty: str = "",
        context: Callable[[], str] | None = None,
        export_dir: str = "",
    ) -> None:
        self.name = name
        self.kind = kind
        self.build = build
        self.interactive = interactive
        self.max_rows = check_rows(max_rows)
        self.empty = empty
        self.context = context
        self.export_dir = export_dir
        self.full_files: list[str] = []
        self.controls: w.Widget | None = None  # shown above the figure (a chooser of its own)
        self.figure: go.Figure | None = None
        self.frame: pd.DataFrame | None = None
        self.output: w.Output | None = None
        self.redraws = 0

    def update(self, filtered: pd.DataFrame) -> None:
        """Rebuild from the filtered frame; a figure is changed in place, not replaced."""
        result = self.build(filtered)
        if self.kind == "figure":
            if not isinstance(result, go.Figure):
                raise TypeError(f"view {self.name!r}: build must return a plotly Figure")
            if self.figure is None:
                # a plain Figure, whatever the first build gave: empty or not, it is redrawn
                self.figure = go.Figure(result) if type(result) is not go.Figure else result
            else:
                _replace_figure(self.figure, result)
        else:
            if not isinstance(result, pd.DataFrame):
                raise TypeError(f"view {self.name!r}: build must return a DataFrame")
            self.frame = result
            self.full_files = []
            if self.export_dir and len(result) > self.max_rows:
                self.full_files = _export_full(result, self.export_dir, self.name)
        self.redraws += 1
        self._refresh_output()

    def _selection(self) -> str:
        return self.context() if self.context is not None else ""

    def is_empty(self) -> bool:
        """Whether the figure has nothing to draw (shown as one sentence instead)."""
        return self.kind == "figure" and self.figure is not None and is_empty(self.figure)

    def _figure_bundle(self) -> dict[str, Any]:
        """The figure as a report shows it: one sentence naming the selection when empty."""
        assert self.figure is not None
        if is_empty(self.figure):
            return {
                "text/html": empty_html(self.figure, self._selection()),
                "text/plain": empty_text(self.figure, self._selection()),
            }
        data = dict(self.figure._repr_mimebundle_() or {})
        data.setdefault("text/html", _figure_html(self.figure))
        return data

    def table_html(self) -> str:
        """The table as HTML: N of M rows with the whole table's files, or why it is empty."""
        assert self.frame is not None
        # a table that could not be computed says why (frame.attrs["why"]), never "none"
        empty = str(self.frame.attrs.get("why") or self.empty or "No rows")
        selection = self._selection()
        if selection:
            empty = f"{empty.rstrip('.')} for this selection ({selection})."
        return table_html(
            self.frame,
            self.max_rows,
            empty=empty,
            full=self.full_files,
            whole=f"panel.tables[{self.name!r}]",
        )

    def _refresh_output(self) -> None:
        if not self.interactive:
            return
        if self.output is None:
            self.output = w.Output()
        if _shell() is None:
            return
        # Set the Output widget's outputs in one state update instead of capturing a
        # display inside `with output:`: a headless runner (nbclient, under papermill)
        # answers captured outputs on the shell channel while it waits there for the
        # cell's reply, and can then miss that reply until the cell timeout. The bundle is
        # built here: IPython's formatter would call a figure's _ipython_display_, which
        # displays it in the cell instead.
        if self.kind == "figure":
            data = self._figure_bundle()
        else:
            assert self.frame is not None
            data = {
                "text/html": self.table_html(),
                "text/plain": repr(self.frame.head(self.max_rows)),
            }
        metadata: dict[str, Any] = {}
        if self.output.outputs:
            # Empty it first: JupyterLab reuses the renderer of an output replaced by one of
            # the same mimetype, and plotly's renderer then keeps the figure it drew.
            self.output.outputs = ()
        self.output.outputs = ({"output_type": "display_data", "data": data, "metadata": metadata},)

    @property
    def widget(self) -> w.DOMWidget | None:
        """What is shown live: the Output widget (None when static)."""
        if not self.interactive:
            return None
        if self.controls is not None and self.output is not None:
            return w.VBox([self.controls, self.output])
        return self.output

    def snapshot_html(self) -> str:
        """The current figure or table as static HTML (plotly.js must be on the page)."""
        if self.kind == "figure":
            assert self.figure is not None
            if is_empty(self.figure):
                return empty_html(self.figure, self._selection())
            return _figure_html(self.figure)
        return self.table_html()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        widget = self.widget
        if widget is not None:
            # Live in Jupyter; the static HTML is what an exported report shows.
            bundle = dict(widget._repr_mimebundle_())
            bundle["text/html"] = self.snapshot_html()
            return bundle
        if self.kind == "figure":
            assert self.figure is not None
            if is_empty(self.figure):
                return self._figure_bundle()
            return self.figure._repr_mimebundle_(include, exclude)
        assert self.frame is not None
        return {
            "text/html": self.snapshot_html(),
            "text/plain": repr(self.frame.head(self.max_rows)),
        }


def _replace_figure(target: go.Figure, new: go.Figure) -> None:
    """Give ``target`` the traces and layout of ``new``, keeping the object."""
    target.data = ()
    target.add_traces(list(new.data))
    target.layout = new.layout


class Panel:
    """Filters over one frame and the views that follow them.

    Subclasses create the filter widgets (in ``_make_controls``) and say how they filter
    (``_apply``). ``interactive=False`` creates no widgets: every view renders once.

    Attributes
    ----------
    source : pandas.DataFrame
        The frame given.
    filtered : pandas.DataFrame
        The rows the current filter values keep.
    figures, tables : dict
        Figure (``panel.figures[name]``) and table views' current results by name.
    top : dict
        Live, the "show top" box (``ipywidgets.BoundedIntText``) of each ``plot_top``
        figure by name.
    """

    title = "Filters"

    def __init__(
        self, frame: pd.DataFrame, *, interactive: bool = True, output_dir: str = ""
    ) -> None:
        self.source = frame
        self.interactive = interactive
        self.output_dir = output_dir
        self.views: list[View] = []
        self.top: dict[str, w.BoundedIntText] = {}  # the "show top" box of a plot_top view
        self.controls: w.Box | None = None
        if interactive:
            self.controls = self._make_controls()
            for control in self._filter_widgets():
                control.observe(self._on_change, names="value")
        self.filtered = self._apply()

    # -- for subclasses ------------------------------------------------------------------
    def _make_controls(self) -> w.Box:
        return w.HBox([])

    def _filter_widgets(self) -> list[w.ValueWidget]:
        return []

    def _apply(self) -> pd.DataFrame:
        return self.source

    def describe(self) -> str:
        """The current filters in words."""
        return "no filter"

    # -- views ---------------------------------------------------------------------------
    def plot(self, build: Callable[[pd.DataFrame], go.Figure], *, name: str = "") -> View:
        """Add a figure view: ``build(filtered)`` → plotly Figure, redrawn on every change."""
        return self._add(
            View(
                name or f"figure{len(self.figures) + 1}",
                build,
                kind="figure",
                interactive=self.interactive,
                context=self.describe,
            )
        )

    def plot_top(
        self,
        build: Callable[[pd.DataFrame, int], go.Figure],
        *,
        name: str = "",
        top: int = 25,
    ) -> View:
        """Add a figure of the first ``n`` items: ``build(filtered, n)`` → plotly Figure.

        For the bar charts that show the largest counts only (``plots.counts_bar``,
        ``plots.noisiest_chart``, ``plots.downtime_chart``), whose title says what they
        leave out ("top 25 of 1,234"). Unattended, ``n`` is ``top``. Live, a "show top" box
        above the figure picks ``n``, from 1 to the most items the figure has had, and
        redraws this figure only.

        Examples
        --------
        >>> by_product = lambda d, n: plots.counts_bar(  # doctest: +SKIP
        ...     analysis.count_by(d, "product_id"), "product_id", top=n
        ... )
        >>> view = panel.plot_top(by_product, name="product")  # doctest: +SKIP
        >>> panel.top["product"].value = 100  # doctest: +SKIP
        """
        if not self.interactive:
            return self.plot(lambda frame: build(frame, top), name=name)
        chooser = w.BoundedIntText(
            value=top,
            min=1,
            max=top,
            description="show top",
            layout=w.Layout(width="180px"),
        )

        def draw(frame: pd.DataFrame) -> go.Figure:
            fig = build(frame, chooser.value)
            items = int((fig.layout.meta or {}).get("items", 0))
            # only ever raised: a narrower selection never cuts the number asked for
            chooser.max = max(chooser.max, items)
            return fig

        view = self.plot(draw, name=name)
        view.controls = chooser
        self.top[view.name] = chooser
        chooser.observe(lambda _change: view.update(self.filtered), names="value")
        return view

    def table(
        self,
        build: Callable[[pd.DataFrame], pd.DataFrame],
        *,
        name: str = "",
        max_rows: int = _TABLE_ROWS,
        empty: str = "",
    ) -> View:
        """Add a table view: ``build(filtered)`` → DataFrame (first ``max_rows`` shown).

        A longer table says "N of M rows shown" and, with the panel's ``output_dir``, is
        written whole beside the report as ``<name>.csv`` and ``<name>.parquet``, linked
        under it. An empty one shows ``empty`` (why it is empty) and the selection.
        """
        view = View(
            name or f"table{len(self.tables) + 1}",
            build,
            kind="table",
            interactive=self.interactive,
            max_rows=max_rows,
            empty=empty,
            context=self.describe,
            export_dir=self.output_dir,
        )
        return self._add(view)

    def _add(self, view: View) -> View:
        view.update(self.filtered)
        self.views.append(view)
        return view

    @property
    def figures(self) -> dict[str, go.Figure]:
        return {v.name: v.figure for v in self.views if v.kind == "figure" and v.figure is not None}

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        return {v.name: v.frame for v in self.views if v.kind == "table" and v.frame is not None}

    def refresh(self) -> None:
        """Filter again and redraw every view."""
        self.filtered = self._apply()
        for view in self.views:
            view.update(self.filtered)

    def _on_change(self, _change: dict[str, Any]) -> None:
        self.refresh()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        text = (
            f"{self.title}: {self.describe()} ({len(self.filtered):,} of {len(self.source):,} rows)"
        )
        note = f"<p><strong>{html.escape(text)}</strong></p>"
        if self.controls is None:
            return {"text/html": note, "text/plain": text}
        bundle = dict(self.controls._repr_mimebundle_())
        bundle["text/html"] = note
        return bundle
