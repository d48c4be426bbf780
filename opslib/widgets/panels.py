"""The fleet and event panels: which filters, and how they filter."""

from __future__ import annotations

from typing import Any

import ipywidgets as w
import pandas as pd

from opslib import analysis, enums
from opslib.analysis._common import NONE_LABEL, fill_label
from opslib.widgets._views import ALL, MAX_DROPDOWN_OPTIONS, Panel

__all__ = ["EventPanel", "FleetPanel"]


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
