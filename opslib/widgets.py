"""ipywidgets panels: filters over a frame, and figures and tables redrawn in place.

A panel holds one source frame and a few filter widgets (dropdowns, multi-selects, a date
range). Each ``panel.plot(build)`` / ``panel.table(build)`` call adds a *view*: ``build``
turns the filtered frame into a figure or a table, and is called again whenever a filter
changes. Views keep the same figure object across redraws (a ``Figure`` whose traces and
layout are replaced, shown in an ``Output`` widget), so a test can set
``panel.<filter>.value`` and assert on ``panel.filtered`` and ``panel.figures[name].data``.

With ``interactive=False`` a panel creates no widget at all: views render once as static
figures and tables, which is what unattended reports show.

>>> from opslib import analysis, plots, widgets
>>> panel = widgets.FleetPanel(devices)  # doctest: +SKIP
>>> by_status = lambda d: plots.counts_bar(analysis.count_by(d, "status_name"), "status_name")
>>> panel.plot(by_status)  # doctest: +SKIP
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as w
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from opslib import analysis, enums
from opslib.analysis._common import NONE_LABEL, fill_label

__all__ = ["CatalogueForm", "EventPanel", "FleetPanel", "Panel", "View"]

ALL = ""
"""The dropdown value that means "no filter"."""
MAX_DROPDOWN_OPTIONS = 500
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


def _table_html(frame: pd.DataFrame, max_rows: int) -> str:
    note = ""
    if len(frame) > max_rows:
        note = f"<p><em>{max_rows} of {len(frame)} rows shown.</em></p>"
    return frame.head(max_rows).to_html(index=False, na_rep="", border=0) + note


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
    ) -> None:
        self.name = name
        self.kind = kind
        self.build = build
        self.interactive = interactive
        self.max_rows = max_rows
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
                self.figure = result
            else:
                _replace_figure(self.figure, result)
        else:
            if not isinstance(result, pd.DataFrame):
                raise TypeError(f"view {self.name!r}: build must return a DataFrame")
            self.frame = result
        self.redraws += 1
        self._refresh_output()

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
            assert self.figure is not None
            data = dict(self.figure._repr_mimebundle_() or {})
            data.setdefault("text/html", _figure_html(self.figure))
        else:
            assert self.frame is not None
            data = {
                "text/html": _table_html(self.frame, self.max_rows),
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
        return self.output

    def snapshot_html(self) -> str:
        """The current figure or table as static HTML (plotly.js must be on the page)."""
        if self.kind == "figure":
            assert self.figure is not None
            return _figure_html(self.figure)
        assert self.frame is not None
        return _table_html(self.frame, self.max_rows)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        widget = self.widget
        if widget is not None:
            # Live in Jupyter; the static HTML is what an exported report shows.
            bundle = dict(widget._repr_mimebundle_())
            bundle["text/html"] = self.snapshot_html()
            return bundle
        if self.kind == "figure":
            assert self.figure is not None
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
    """

    title = "Filters"

    def __init__(self, frame: pd.DataFrame, *, interactive: bool = True) -> None:
        self.source = frame
        self.interactive = interactive
        self.views: list[View] = []
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
            )
        )

    def table(
        self,
        build: Callable[[pd.DataFrame], pd.DataFrame],
        *,
        name: str = "",
        max_rows: int = _TABLE_ROWS,
    ) -> View:
        """Add a table view: ``build(filtered)`` → DataFrame (first ``max_rows`` shown)."""
        view = View(
            name or f"table{len(self.tables) + 1}",
            build,
            kind="table",
            interactive=self.interactive,
            max_rows=max_rows,
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
        text = f"{self.title}: {self.describe()} ({len(self.filtered)} of {len(self.source)} rows)"
        note = f"<p><strong>{html.escape(text)}</strong></p>"
        if self.controls is None:
            return {"text/html": note, "text/plain": text}
        bundle = dict(self.controls._repr_mimebundle_())
        bundle["text/html"] = note
        return bundle


def _labels_present(series: pd.Series) -> list[str]:
    if isinstance(series.dtype, pd.CategoricalDtype):
        return [str(c) for c in series.dtype.categories]
    return sorted({str(v) for v in series.dropna()})


class FleetPanel(Panel):
    """Devices filtered by status, category, product and firmware version.

    Attributes
    ----------
    status : ipywidgets.SelectMultiple
        Status labels; nothing selected means every status.
    category : ipywidgets.Dropdown
        A category id (string) or ``""`` for all.
    product : ipywidgets.Dropdown
        A product id or ``""``; its options follow the category.
    version : ipywidgets.SelectMultiple
        Firmware versions; nothing selected means every version.

    Examples
    --------
    >>> categories = client.products.categories()  # doctest: +SKIP
    >>> panel = widgets.FleetPanel(devices, categories=categories)  # doctest: +SKIP
    >>> panel.status.value = ("online",)  # doctest: +SKIP
    """

    title = "Fleet filters"

    def __init__(
        self,
        devices: pd.DataFrame,
        *,
        categories: pd.DataFrame | None = None,
        interactive: bool = True,
    ) -> None:
        self._category_names: dict[str, str] = {}
        if categories is not None and not categories.empty:
            self._category_names = {
                str(c): str(n)
                for c, n in zip(categories["category_id"], categories["category_name"], strict=True)
            }
        super().__init__(devices, interactive=interactive)

    def _make_controls(self) -> w.Box:
        devices = self.source
        self.status = w.SelectMultiple(
            options=list(enums.labels(enums.DeviceStatus).values()),
            value=(),
            description="status",
            rows=4,
        )
        cats = sorted({str(c) for c in devices["category_id"].dropna()}, key=lambda c: (len(c), c))
        self.category = w.Dropdown(
            options=[("all categories", ALL)]
            + [(f"{c} {self._category_names.get(c, '')}".strip(), c) for c in cats],
            value=ALL,
            description="category",
        )
        self.product = w.Dropdown(options=self._product_options(), value=ALL, description="product")
        versions = analysis.count_by(devices, "version")["version"].tolist()[:MAX_DROPDOWN_OPTIONS]
        self.version = w.SelectMultiple(options=versions, value=(), description="firmware", rows=4)
        self.category.observe(self._on_category, names="value")
        return w.HBox([w.VBox([self.category, self.product]), self.status, self.version])

    def _product_options(self) -> list[tuple[str, str]]:
        devices = self.source
        category = getattr(self, "category", None)
        if category is not None and category.value != ALL:
            devices = devices[devices["category_id"] == category.value]
        ids = analysis.count_by(devices, "product_id")["product_id"].tolist()[:MAX_DROPDOWN_OPTIONS]
        return [("all products", ALL)] + [(p, p) for p in ids if p != NONE_LABEL]

    def _on_category(self, _change: dict[str, Any]) -> None:
        with self.product.hold_trait_notifications():
            self.product.options = self._product_options()
            self.product.value = ALL

    def _filter_widgets(self) -> list[w.ValueWidget]:
        return [self.status, self.category, self.product, self.version]

    def _apply(self) -> pd.DataFrame:
        if self.controls is None:
            return self.source
        out = analysis.filter_devices(
            self.source,
            category_id=self.category.value or None,
            product_id=self.product.value or None,
        )
        if self.status.value:
            out = out[
                out["status_name"].astype("string").isin(list(self.status.value)).fillna(False)
            ]
        if self.version.value:
            shown = fill_label(out["version"])
            out = out[shown.isin(list(self.version.value))]
        return out

    def describe(self) -> str:
        if self.controls is None:
            return "all devices"
        parts = []
        if self.category.value:
            parts.append(f"category {self.category.label}")
        if self.product.value:
            parts.append(f"product {self.product.value}")
        if self.status.value:
            parts.append("status " + ", ".join(self.status.value))
        if self.version.value:
            parts.append("firmware " + ", ".join(self.version.value))
        return "; ".join(parts) or "all devices"


class EventPanel(Panel):
    """Events filtered by type, device and a date range.

    Attributes
    ----------
    event_types : ipywidgets.SelectMultiple
        Event type labels; nothing selected means every type.
    device : ipywidgets.Dropdown
        A device id or ``""`` for all (the busiest devices first).
    date_range : ipywidgets.SelectionRangeSlider
        Whole UTC days, ``(first day, day after the last)``; the end is excluded.

    Examples
    --------
    >>> panel = widgets.EventPanel(events)  # doctest: +SKIP
    >>> panel.event_types.value = ("alarm",)  # doctest: +SKIP
    """

    title = "Event filters"

    def _make_controls(self) -> w.Box:
        events = self.source
        self.event_types = w.SelectMultiple(
            options=_labels_present(events["event_type_name"]),
            value=(),
            description="types",
            rows=6,
        )
        busiest = events["device_id"].value_counts().index[:MAX_DROPDOWN_OPTIONS]
        self.device = w.Dropdown(
            options=[("all devices", ALL)] + [(str(d), str(d)) for d in busiest],
            value=ALL,
            description="device",
        )
        days = self._days()
        self.date_range = w.SelectionRangeSlider(
            options=[(d.strftime("%Y-%m-%d"), d) for d in days],
            index=(0, len(days) - 1),
            description="days",
            layout=w.Layout(width="520px"),
        )
        return w.HBox([self.event_types, w.VBox([self.device, self.date_range])])

    def _days(self) -> list[pd.Timestamp]:
        moments = self.source["gmt_create"].dropna()
        if moments.empty:
            first = pd.Timestamp.now(tz="UTC").floor("D")
            return [first, first + pd.Timedelta(days=1)]
        first, last = moments.min().floor("D"), moments.max().floor("D") + pd.Timedelta(days=1)
        return list(pd.date_range(first, last, freq="D"))

    def _filter_widgets(self) -> list[w.ValueWidget]:
        return [self.event_types, self.device, self.date_range]

    def _apply(self) -> pd.DataFrame:
        if self.controls is None:
            return self.source
        start, end = self.date_range.value
        return analysis.filter_events(
            self.source,
            event_types=list(self.event_types.value),
            device_id=self.device.value or None,
            start=start,
            end=end,
        )

    def describe(self) -> str:
        if self.controls is None:
            return "all events"
        start, end = self.date_range.value
        parts = [f"{start:%Y-%m-%d} to {end:%Y-%m-%d}"]
        if self.event_types.value:
            parts.append("types " + ", ".join(self.event_types.value))
        if self.device.value:
            parts.append(f"device {self.device.value}")
        return "; ".join(parts)


# --- the catalogue form --------------------------------------------------------------------

_CODED_FIELDS: dict[str, type[enums.IntEnum]] = {
    "net_type": enums.NetType,
    "node_type": enums.NodeType,
    "encrypt_type": enums.EncryptType,
    "status": enums.ProductStatus,
    "popular": enums.Popular,
}


class CatalogueForm:
    """Add one product, or delete one after a confirmation, through the client.

    Every coded field is a dropdown of its labels; the secret is a password box and never
    shown. ``on_write(action, result)`` is called after each write (e.g. to append to the
    audit log).

    Attributes
    ----------
    fields : dict of ipywidgets
        ``product_id``, ``product_name``, ``product_secret``, ``product_icon``,
        ``category_id``, ``vendor_type`` and every coded field.
    add_button, delete_button, confirm_button, cancel_button : ipywidgets.Button
    delete_product : ipywidgets.Dropdown
    pending_delete : str
        The product waiting for confirmation ("" when none).
    last_result : pandas.DataFrame or None
        The write frame of the last add or delete.

    Examples
    --------
    >>> form = widgets.CatalogueForm(client, categories, products)  # doctest: +SKIP
    """

    def __init__(
        self,
        client: Any,
        categories: pd.DataFrame,
        products: pd.DataFrame,
        *,
        on_write: Callable[[str, pd.DataFrame], None] | None = None,
    ) -> None:
        self.client = client
        self.on_write = on_write
        self.last_result: pd.DataFrame | None = None
        self.pending_delete = ""
        self.message = w.HTML()
        cats = [
            (f"{c} {n}", int(c))
            for c, n in zip(categories["category_id"], categories["category_name"], strict=True)
        ]
        self.fields: dict[str, w.ValueWidget] = {
            "product_id": w.Text(description="product_id"),
            "product_name": w.Text(description="name"),
            "product_secret": w.Password(description="secret"),
            "product_icon": w.Text(description="icon"),
            "category_id": w.Dropdown(
                options=cats, value=cats[0][1] if cats else None, description="category"
            ),
            "vendor_type": w.Dropdown(options=list(range(100)), value=0, description="vendor_type"),
        }
        for name, enum in _CODED_FIELDS.items():
            options = [(label, value) for value, label in enums.labels(enum).items()]
            self.fields[name] = w.Dropdown(options=options, value=options[0][1], description=name)
        self.add_button = w.Button(description="Add product", button_style="primary")
        self.add_button.on_click(lambda _b: self.add())
        ids = [str(p) for p in products["product_id"]] if not products.empty else []
        self.delete_product = w.Dropdown(
            options=ids, value=ids[0] if ids else None, description="product"
        )
        self.delete_button = w.Button(description="Delete…", button_style="warning")
        self.delete_button.on_click(lambda _b: self.ask_delete())
        self.confirm_button = w.Button(description="Yes, delete", button_style="danger")
        self.confirm_button.on_click(lambda _b: self.confirm_delete())
        self.cancel_button = w.Button(description="Cancel")
        self.cancel_button.on_click(lambda _b: self.cancel_delete())
        self.confirm_box = w.HBox(
            [self.confirm_button, self.cancel_button], layout=w.Layout(display="none")
        )
        self.widget = w.VBox(
            [
                w.HTML("<b>Add a product</b>"),
                w.GridBox(
                    list(self.fields.values()),
                    layout=w.Layout(grid_template_columns="repeat(2, 360px)"),
                ),
                self.add_button,
                w.HTML("<b>Delete a product</b>"),
                w.HBox([self.delete_product, self.delete_button]),
                self.confirm_box,
                self.message,
            ]
        )

    def values(self) -> dict[str, Any]:
        """The product the form describes (empty optional texts left out)."""
        out = {name: widget.value for name, widget in self.fields.items()}
        return {k: v for k, v in out.items() if not (k == "product_icon" and v == "")}

    def add(self) -> pd.DataFrame:
        """Add the product in the form; the outcome shows below it and in ``last_result``."""
        result = self.client.products.add(self.values(), errors="collect")
        self._done("add", result)
        return result

    def ask_delete(self) -> None:
        """Ask for confirmation before deleting the selected product."""
        self.pending_delete = str(self.delete_product.value or "")
        if not self.pending_delete:
            self.message.value = "Choose a product to delete."
            return
        self.confirm_box.layout.display = "flex"
        self.message.value = (
            f"Delete <code>{html.escape(self.pending_delete)}</code>? This cannot be undone."
        )

    def confirm_delete(self) -> pd.DataFrame | None:
        """Delete the product asked about; nothing happens without a pending request."""
        if not self.pending_delete:
            return None
        target, self.pending_delete = self.pending_delete, ""
        self.confirm_box.layout.display = "none"
        result = self.client.products.delete([target], errors="collect")
        self._done("delete", result)
        return result

    def cancel_delete(self) -> None:
        self.pending_delete = ""
        self.confirm_box.layout.display = "none"
        self.message.value = "Nothing deleted."

    def _done(self, action: str, result: pd.DataFrame) -> None:
        self.last_result = result
        row = result.iloc[0]
        pid = html.escape(str(row["product_id"]))
        if bool(row["ok"]):
            self.message.value = f"{action} <code>{pid}</code>: done."
        else:
            self.message.value = (
                f"{action} <code>{pid}</code> refused ({row['error_code']}): "
                f"{html.escape(str(row['error_msg']))}"
            )
        if self.on_write is not None:
            self.on_write(action, result)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle = dict(self.widget._repr_mimebundle_())
        bundle["text/html"] = (
            "<p><em>The add/delete form works when the notebook runs in Jupyter.</em></p>"
        )
        return bundle
