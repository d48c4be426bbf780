"""The fleet and event panels: which filters, and how they filter."""

from __future__ import annotations

from typing import Any

import ipywidgets as w
import pandas as pd

from opslib import analysis, plots
from opslib.analysis._common import NONE_LABEL, fill_label
from opslib.widgets._views import ALL, Panel, View

__all__ = ["EventPanel", "FleetPanel", "device_options", "value_options"]


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
    product : ipywidgets.Combobox
        Type to search every product of the category (the commonest first); empty for
        all. A product id typed as it is works too.
    version : ipywidgets.Combobox
        Type to search every firmware version (the commonest first); empty for all.

    Examples
    --------
    >>> categories = client.products.categories()  # doctest: +SKIP
    >>> panel = widgets.FleetPanel(devices, categories=categories)  # doctest: +SKIP
    >>> panel.status.value = ("online",)  # doctest: +SKIP
    >>> panel.version.value = "1.2.0"  # doctest: +SKIP
    """

    title = "Fleet filters"

    def __init__(
        self,
        devices: pd.DataFrame,
        *,
        categories: pd.DataFrame | None = None,
        products: pd.DataFrame | None = None,
        interactive: bool = True,
        output_dir: str = "",
    ) -> None:
        self.product_names = analysis.product_names(products)
        self._category_names: dict[str, str] = {}
        if categories is not None and not categories.empty:
            self._category_names = {
                str(c): str(n)
                for c, n in zip(categories["category_id"], categories["category_name"], strict=True)
            }
        super().__init__(devices, interactive=interactive, output_dir=output_dir)

    def _make_controls(self) -> w.Box:
        devices = self.source
        self.status = w.SelectMultiple(
            options=_labels_present(devices["status_name"]),  # the platform's statuses
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
        self.product_labels = self._product_options()
        self.product = _picker(self.product_labels, "product", "products")
        self.version_labels = value_options(devices, "version")
        self.version = _picker(self.version_labels, "firmware", "firmware versions")
        self.category.observe(self._on_category, names="value")
        return w.HBox([w.VBox([self.category, self.product, self.version]), self.status])

    def _product_options(self) -> dict[str, str]:
        devices = self.source
        category = getattr(self, "category", None)
        if category is not None and category.value != ALL:
            devices = devices[devices["category_id"] == category.value]
        options = value_options(devices, "product_id", names=self.product_names)
        return {label: p for label, p in options.items() if p != NONE_LABEL}

    def _on_category(self, _change: dict[str, Any]) -> None:
        self.product_labels = self._product_options()
        with self.product.hold_trait_notifications():
            self.product.options = list(self.product_labels)
            self.product.placeholder = _placeholder(self.product_labels, "products")
            self.product.value = ALL

    def product_id(self) -> str:
        """The product the picker names (``""``: every product, or text that names none)."""
        return _picked(self.product, self.product_labels) if self.controls is not None else ALL

    def firmware(self) -> str:
        """The firmware version the picker names (``""``: every version)."""
        return _picked(self.version, self.version_labels) if self.controls is not None else ALL

    def _filter_widgets(self) -> list[w.ValueWidget]:
        return [self.status, self.category, self.product, self.version]

    def _apply(self) -> pd.DataFrame:
        if self.controls is None:
            return self.source
        out = analysis.filter_devices(
            self.source,
            category_id=self.category.value or None,
            product_id=self.product_id() or None,
        )
        if self.status.value:
            out = out[
                out["status_name"].astype("string").isin(list(self.status.value)).fillna(False)
            ]
        version = self.firmware()
        if version:
            out = out[(fill_label(out["version"]) == version).to_numpy(dtype=bool)]
        return out

    def describe(self) -> str:
        if self.controls is None:
            return "all devices"
        parts = []
        if self.category.value:
            parts.append(f"category {self.category.label}")
        if self.product_id():
            pid = self.product_id()
            name = self.product_names.get(pid, "")
            parts.append(f"product {name} ({pid})" if name and name != pid else f"product {pid}")
        if self.status.value:
            parts.append("status " + ", ".join(self.status.value))
        if self.firmware():
            parts.append(f"firmware {self.firmware()}")
        return "; ".join(parts) or "all devices"


def value_options(
    devices: pd.DataFrame, column: str, *, names: dict[str, str] | None = None
) -> dict[str, str]:
    """Every value of a device column as a searchable label → the value:
    ``value · N devices`` (``name (value) · N devices`` when ``names`` knows it), the
    commonest first; missing values as ``(none)``.

    Examples
    --------
    >>> value_options(devices, "version")  # doctest: +SKIP
    {'1.0.0 · 3 devices': '1.0.0', '1.1.0 · 2 devices': '1.1.0', ...}
    """
    counts = analysis.count_by(devices, column)
    known = names or {}

    def shown(value: object) -> str:
        name = known.get(str(value), "")
        return f"{name} ({value})" if name and name != str(value) else str(value)

    return {
        f"{shown(v)} · {n:,} device{'' if n == 1 else 's'}": str(v)
        for v, n in zip(counts[column], counts["devices"], strict=True)
    }


def _placeholder(labels: dict[str, str], what: str) -> str:
    return f"all {len(labels):,} {what}: type to search"


def _picker(labels: dict[str, str], description: str, what: str) -> w.Combobox:
    """A text box that searches every label (the browser lists those that match)."""
    return w.Combobox(
        options=list(labels),
        value=ALL,
        placeholder=_placeholder(labels, what),
        description=description,
        ensure_option=False,
        layout=w.Layout(width="420px"),
    )


def _picked(box: w.Combobox, labels: dict[str, str]) -> str:
    """The value a picker's text names: a label, or a value typed as it is; else ALL."""
    text = str(box.value).strip()
    if text in labels:
        return labels[text]
    if text in labels.values():
        return text
    return ALL


def device_options(events: pd.DataFrame, devices: pd.DataFrame | None = None) -> dict[str, str]:
    """Every device as a searchable label → its id: ``id · nick name · product``.

    ``devices`` (``client.devices.list()``) names each device and lists the quiet ones
    too; without it, the devices of ``events`` are listed by id. The busiest come first.

    Examples
    --------
    >>> device_options(events, devices)  # doctest: +SKIP
    {'d1 · Kitchen lamp · p-lamp': 'd1', ...}
    """
    counts = events["device_id"].astype("string").value_counts()
    ids = [str(d) for d in counts.index]
    names: dict[str, list[str]] = {}
    if devices is not None and not devices.empty:
        for did, nick, pid in zip(
            devices["device_id"], devices["nick_name"], devices["product_id"], strict=True
        ):
            parts = [str(v) for v in (nick, pid) if not pd.isna(v) and str(v).strip()]
            names[str(did)] = parts
        ids += sorted(set(names) - set(ids))
    return {" · ".join([d, *names.get(d, [])]): d for d in ids}


class EventPanel(Panel):
    """Events filtered by type, device and a range of whole days of the events' zone.

    Attributes
    ----------
    event_types : ipywidgets.SelectMultiple
        Event type labels; nothing selected means every type.
    device : ipywidgets.Combobox
        Type to search every device by id, nick name or product (the busiest first);
        empty for all. A device id typed as it is works too.
    date_range : ipywidgets.SelectionRangeSlider
        ``(first day, last day)``, both included, in the zone of the events' times.

    Examples
    --------
    >>> panel = widgets.EventPanel(events, devices=client.devices.list())  # doctest: +SKIP
    >>> panel.event_types.value = ("alarm",)  # doctest: +SKIP
    >>> panel.device.value = "kitchen"  # doctest: +SKIP
    """

    title = "Event filters"

    def __init__(
        self,
        events: pd.DataFrame,
        *,
        devices: pd.DataFrame | None = None,
        interactive: bool = True,
        output_dir: str = "",
        selection: str = "",
        window: analysis.Window | None = None,
        before: pd.DataFrame | None = None,
        names: dict[str, str] | None = None,
    ) -> None:
        self._devices = devices
        self._selection = selection
        self._window = window
        self._before = before
        self.names = names or {}
        super().__init__(events, interactive=interactive, output_dir=output_dir)

    def _make_controls(self) -> w.Box:
        events = self.source
        self.event_types = w.SelectMultiple(
            options=_labels_present(events["event_type_name"]),
            value=(),
            description="types",
            rows=6,
        )
        self.device_labels = device_options(events, self._devices)
        self.device = w.Combobox(
            options=list(self.device_labels),
            value=ALL,
            placeholder=f"all {len(self.device_labels):,} devices: type an id, name or product",
            description="device",
            ensure_option=False,
            layout=w.Layout(width="520px"),
        )
        days = self._days()
        self.date_range = w.SelectionRangeSlider(
            options=[(f"{d:%b %d}", d) for d in days],
            index=(0, len(days) - 1),
            description="days",
            layout=w.Layout(width="520px"),
        )
        return w.HBox([self.event_types, w.VBox([self.device, self.date_range])])

    def plot_properties(self, *, name: str = "property_boxes", max_properties: int = 16) -> View:
        """Add the property boxes (``plots.property_boxes``), a command's ``value`` split
        by command; live, a chooser above the figure picks the properties (the first
        ``max_properties`` at first) and redraws this figure only.

        Examples
        --------
        >>> panel.plot_properties()  # doctest: +SKIP
        >>> panel.properties.value = ("temperature", "rssi")  # doctest: +SKIP
        """
        prefix = analysis.PROPERTY_PREFIX
        names: list[str] = []
        self.properties: w.SelectMultiple | None = None
        if self.interactive:  # the chooser's options: every numeric property of the source
            source = analysis.value_by_command(self.source)
            worth = analysis.chart_properties(source)
            every = worth + [c for c in analysis.property_columns(source) if c not in worth]
            names = [c.removeprefix(prefix) for c in every]
            if names:
                self.properties = w.SelectMultiple(
                    options=names,
                    value=tuple(c.removeprefix(prefix) for c in worth[:max_properties]),
                    description="properties",
                    rows=min(8, len(names)),
                )
        chooser = self.properties

        def build(events: pd.DataFrame) -> Any:
            frame = analysis.value_by_command(events)
            columns = analysis.chart_properties(frame)
            if chooser is None:
                return plots.property_boxes(frame, columns, max_properties=max_properties)
            picked = {prefix + n for n in chooser.value}
            title = f"Reported properties ({len(picked)} of {len(names)} chosen above)"
            if not picked:
                return plots.property_boxes(
                    frame, [], title=title, message="No property chosen: pick some above"
                )
            shown = [c for c in analysis.property_columns(frame) if c in picked]
            shown.sort(key=lambda c: columns.index(c) if c in columns else len(columns))
            return plots.property_boxes(frame, shown, title=title, max_properties=len(picked))

        view = self.plot(build, name=name)
        if chooser is not None:
            view.controls = chooser
            chooser.observe(lambda _change: view.update(self.filtered), names="value")
        return view

    def device_id(self) -> str:
        """The device the picker names (``""``: every device, or text that names none)."""
        return _picked(self.device, self.device_labels) if self.controls is not None else ALL

    def downtime(self, events: pd.DataFrame) -> pd.DataFrame:
        """Downtime of the filtered ``events`` (``analysis.downtime``), each device started
        in its state at the window's start (the listing and the events before it, narrowed
        to the picked device); when the filter leaves out online and offline events, an
        empty frame whose ``attrs["why"]`` says so.

        Examples
        --------
        >>> panel.downtime(panel.filtered).head()  # doctest: +SKIP
        """
        why = analysis.downtime_not_computed(events)
        if why:
            out = analysis.downtime(events.iloc[0:0])
            out.attrs["why"] = why
            return out
        listing, before, picked = self._devices, self._before, self.device_id()
        if picked:
            listing = None if listing is None else listing[listing["device_id"] == picked]
            before = None if before is None else before[before["device_id"] == picked]
        return analysis.downtime(events, window=self._window, devices=listing, before=before)

    def plot_downtime(self, *, name: str = "downtime", top: int = 20) -> View:
        """Add the downtime chart of the filtered events (:meth:`downtime`): the devices
        by name; "not computed" and why where the filter leaves out online and offline.

        Examples
        --------
        >>> panel.plot_downtime()  # doctest: +SKIP
        """

        def build(events: pd.DataFrame, n: int) -> Any:
            down = self.downtime(events)
            if "why" in down.attrs:
                return plots.EmptyFigure("Downtime per device", str(down.attrs["why"]))
            return plots.downtime_chart(down, top=n, names=self.names)

        return self.plot_top(build, name=name, top=top)

    def table_downtime(self, *, name: str = "downtime_table", max_rows: int = 20) -> View:
        """Add the downtime table (:meth:`downtime`), each device named beside its id."""

        def build(events: pd.DataFrame) -> pd.DataFrame:
            down = self.downtime(events)
            if "why" in down.attrs or down.empty:
                return down
            named = down.copy()
            named.insert(1, "device_name", named["device_id"].map(self.names).astype("string"))
            return named

        return self.table(
            build, name=name, max_rows=max_rows,
            empty="No device was offline: no outage",
        )  # fmt: skip

    def _days(self) -> list[pd.Timestamp]:
        moments = self.source["gmt_create"].dropna()
        if moments.empty:
            return [pd.Timestamp.now(tz="UTC").floor("D")]
        first, last = moments.min().floor("D"), moments.max().floor("D")
        return list(pd.date_range(first, last, freq="D"))

    def _filter_widgets(self) -> list[w.ValueWidget]:
        return [self.event_types, self.device, self.date_range]

    def _apply(self) -> pd.DataFrame:
        if self.controls is None:
            return self.source
        first, last = self.date_range.value
        return analysis.filter_events(
            self.source,
            event_types=list(self.event_types.value),
            device_id=self.device_id() or None,
            start=first,
            end=last + pd.Timedelta(days=1),
        )

    def describe(self) -> str:
        if self.controls is None:
            return self._selection or "all events"
        first, last = self.date_range.value
        parts = [f"{first:%Y-%m-%d}" if first == last else f"{first:%Y-%m-%d} to {last:%Y-%m-%d}"]
        parts.append(
            "types " + ", ".join(self.event_types.value) if self.event_types.value else "all types"
        )
        device = self.device_id()
        parts.append(f"device {device}" if device else "all devices")
        return "; ".join(parts)
