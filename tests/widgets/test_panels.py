"""opslib.widgets.panels without a browser: set ``.value`` and assert on frames and figures."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from analysis.frames import T0, WEEK, make_devices, make_events

from opslib import analysis, plots, widgets

from .builders import status_counts, total


def test_fleet_panel_filters_and_redraws_in_place() -> None:
    panel = widgets.FleetPanel(make_devices())
    view = panel.plot(status_counts, name="status")
    table = panel.table(lambda d: analysis.count_by(d, "version"), name="firmware")
    fig = panel.figures["status"]
    assert total(fig) == 8
    assert len(panel.filtered) == 8

    panel.status.value = ("online", "fault")
    assert set(panel.filtered["device_id"]) == {"d1", "d3", "d5", "d8"}
    assert panel.figures["status"] is fig  # same object, new data
    assert total(fig) == 4
    assert view.redraws == 2
    assert set(panel.tables["firmware"]["version"]) == {"1.0.0", "1.1.0", "1.2.0", "(none)"}
    assert table.frame is panel.tables["firmware"]

    panel.category.value = "1"
    assert set(panel.filtered["device_id"]) == {"d1", "d8"}
    assert list(panel.product.options) == ["p-lamp · 4 devices"]  # of the category
    panel.product.value = "p-lamp · 4 devices"
    panel.version.value = "1.2.0"  # a value typed as it is works too
    assert list(panel.filtered["device_id"]) == ["d8"]
    assert total(fig) == 1
    assert "category 1" in panel.describe()
    assert "firmware 1.2.0" in panel.describe()

    panel.category.value = ""  # clearing the category resets the product
    panel.status.value = ()
    panel.version.value = ""
    assert panel.product.value == ""
    assert len(panel.filtered) == 8


def _large_fleet() -> pd.DataFrame:
    """703 devices: 3 of one product and firmware, then 700 each of its own."""
    from analysis.frames import typed_frame

    from opslib.client.frames import schema as _schemas

    busy = [{"device_id": f"b{i}", "product_id": "p-busy", "version": "9.9"} for i in range(3)]
    rare = [
        {"device_id": f"d{i:04d}", "product_id": f"p{i:04d}", "version": f"1.{i}"}
        for i in range(700)
    ]
    rows = [dict(r, category_id="1", status=1) for r in busy + rare]
    return typed_frame(_schemas.DEVICE, rows)


def test_fleet_panel_reaches_every_product_and_firmware_of_a_large_fleet() -> None:
    panel = widgets.FleetPanel(_large_fleet())
    assert len(panel.product.options) == len(panel.version.options) == 701  # no cap at 500
    assert panel.product.options[0] == "p-busy · 3 devices"  # the commonest first
    assert "all 701 products" in panel.product.placeholder
    last = "p0699 · 1 device"
    assert panel.product.options[-1] == last
    panel.product.value = last
    assert list(panel.filtered["device_id"]) == ["d0699"]
    panel.product.value = ""
    panel.version.value = "1.650 · 1 device"
    assert list(panel.filtered["device_id"]) == ["d0650"]
    assert panel.describe() == "firmware 1.650"
    panel.version.value = "1.65 ·"  # text that names no version yet filters nothing
    assert len(panel.filtered) == 703


def test_fleet_panel_names_categories() -> None:
    from analysis.frames import CATEGORIES

    panel = widgets.FleetPanel(make_devices(), categories=CATEGORIES)
    labels = [o[0] for o in panel.category.options]
    assert labels[:3] == ["all categories", "1 lighting", "2 sockets"]


def test_fleet_panel_offers_the_platforms_own_statuses() -> None:
    devices = make_devices()
    chint = ["inactive", "online", "offline", "disabled", "activated"]  # chint's statuses
    labels = devices["status"].map(dict(enumerate(chint))).astype(pd.CategoricalDtype(chint))
    panel = widgets.FleetPanel(devices.assign(status_name=labels))
    assert list(panel.status.options) == chint  # no "fault", which chint has not got
    panel.status.value = ("disabled",)
    assert list(panel.filtered["device_id"]) == ["d3"]


def test_event_panel_types_device_and_date_range() -> None:
    events = make_events()
    panel = widgets.EventPanel(events)
    panel.plot(lambda e: plots.event_volume_chart(analysis.event_volume(e, "1D")), name="volume")
    panel.plot(lambda e: plots.alarm_codes_chart(analysis.alarm_codes(e)), name="alarms")
    volume = panel.figures["volume"]
    assert len(volume.data) == 5

    panel.event_types.value = ("alarm",)
    assert set(panel.filtered["event_type"]) == {4}
    assert [t.name for t in volume.data] == ["alarm"]
    assert sum(volume.data[0].y) == 7

    panel.event_types.value = ()
    panel.device.value = "d2"
    assert set(panel.filtered["device_id"]) == {"d2"}
    alarms = next(v for v in panel.views if v.name == "alarms")
    assert alarms.is_empty()
    assert alarms.snapshot_html() == (
        '<p class="opslib-empty"><em>Alarms by code: no alarms in this selection '
        "(2024-05-06 to 2024-05-12; all types; device d2).</em></p>"
    )

    days = [value for _, value in panel.date_range.options]
    assert days[0] == T0
    assert days[-1] == T0 + pd.Timedelta(days=6)  # the last day with events, included
    assert panel.date_range.options[-1][0] == "May 12"  # short enough to show whole
    panel.date_range.value = (T0 + pd.Timedelta(days=1), T0 + pd.Timedelta(days=1))
    assert panel.filtered["gmt_create"].min() >= T0 + pd.Timedelta(days=1)
    assert panel.filtered["gmt_create"].max() < T0 + pd.Timedelta(days=2)
    assert len(panel.filtered) == 5  # 3 reports, offline, online
    assert panel.describe().startswith("2024-05-07; all types")


def test_event_panel_device_picker_finds_a_quiet_device_by_name() -> None:
    events = make_events()
    devices = make_devices()
    quiet = sorted(set(devices["device_id"]) - set(events["device_id"]))[0]
    panel = widgets.EventPanel(events, devices=devices)
    labels = list(panel.device.options)
    assert len(labels) == len(set(devices["device_id"]) | set(events["device_id"]))
    (label,) = [o for o in labels if o.startswith(f"{quiet} ")]
    assert f"nick {quiet}" in label
    panel.device.value = label
    assert panel.device_id() == quiet
    assert panel.filtered.empty
    assert f"device {quiet}" in panel.describe()
    panel.device.value = "no such device"
    assert panel.device_id() == ""
    assert len(panel.filtered) == len(events)


def test_property_chooser_picks_the_boxes_and_redraws_that_figure_only() -> None:
    events = make_events()
    extra = {f"properties.p{i:02d}": list(range(len(events))) for i in range(18)}
    events = events.assign(**extra)
    panel = widgets.EventPanel(events)
    other = panel.plot(lambda e: plots.event_volume_chart(analysis.event_volume(e, "1D")))
    view = panel.plot_properties()
    assert panel.properties is not None
    every = list(panel.properties.options)
    assert len(every) == len(analysis.property_columns(events)) > 16
    assert len(panel.properties.value) == 16  # the first 16 at first
    assert len(view.figure.data) == 16
    redraws = other.redraws
    panel.properties.value = (every[-1], every[0])
    assert len(view.figure.data) == 2
    assert "2 of" in view.figure.layout.title.text
    assert other.redraws == redraws  # the other figures are not recomputed
    panel.properties.value = ()
    assert "no property chosen: pick some above" in view.snapshot_html()
    static = widgets.EventPanel(events, interactive=False)
    assert "left out" in static.plot_properties().figure.layout.title.text


def _by_product(d: pd.DataFrame, n: int) -> go.Figure:
    return plots.counts_bar(analysis.count_by(d, "product_id"), "product_id", top=n)


def test_show_top_chooses_how_many_bars_and_redraws_that_figure_only() -> None:
    panel = widgets.FleetPanel(_large_fleet())
    other = panel.plot(status_counts, name="status")
    view = panel.plot_top(_by_product, name="product")
    chooser = panel.top["product"]
    assert view.widget is not None
    assert chooser in view.widget.children  # above the figure
    assert (chooser.value, chooser.min, chooser.max) == (25, 1, 701)  # bounded by the items
    fig = panel.figures["product"]
    assert len(fig.data[0].y) == 25
    assert fig.layout.title.text == "Devices by product (top 25 of 701)"
    redraws = other.redraws
    chooser.value = 701
    assert panel.figures["product"] is fig  # redrawn in place
    assert len(fig.data[0].y) == 701  # every product: the rarest is reachable
    assert fig.layout.title.text == "Devices by product"
    chooser.value = 2
    assert list(fig.data[0].y) == ["p0000", "p-busy"]  # largest on top
    assert "(top 2 of 701)" in fig.layout.title.text
    assert other.redraws == redraws  # the other figures are not recomputed
    panel.version.value = "9.9"  # a narrower selection keeps the number asked for
    assert (chooser.value, chooser.max) == (2, 701)
    assert fig.layout.title.text == "Devices by product"  # 1 product: nothing left out
    static = widgets.FleetPanel(_large_fleet(), interactive=False)
    assert static.plot_top(_by_product, name="product", top=10).widget is None
    assert static.top == {}
    assert "(top 10 of 701)" in static.figures["product"].layout.title.text


def test_show_top_on_the_event_panel_noisiest_and_downtime() -> None:
    events = make_events()
    panel = widgets.EventPanel(events)
    panel.plot_top(
        lambda e, n: plots.noisiest_chart(analysis.noisiest_devices(e, None), top=n),
        name="noisiest",
        top=2,
    )
    panel.plot_top(
        lambda e, n: plots.downtime_chart(analysis.downtime(e, window=WEEK), top=n),
        name="downtime",
        top=1,
    )
    noisy = panel.figures["noisiest"]
    devices = events["device_id"].nunique()
    assert f"(top 2 of {devices})" in noisy.layout.title.text
    assert panel.top["noisiest"].max == devices
    panel.top["noisiest"].value = devices
    assert len(noisy.data[0].y) == devices
    assert noisy.layout.title.text == "Noisiest devices"
    assert panel.top["downtime"].max == 1  # one device went offline: nothing to choose


def test_downtime_of_a_filter_without_online_and_offline_says_not_computed() -> None:
    panel = widgets.EventPanel(make_events(), devices=make_devices(), window=WEEK)
    chart = panel.plot_downtime()
    table = panel.table_downtime()
    assert not chart.is_empty()
    panel.event_types.value = ("alarm",)
    assert chart.is_empty()
    for view in (chart, table):
        shown = view.snapshot_html()
        assert "downtime not computed: the event types chosen (alarm) leave out" in shown.lower()
        assert "No outages" not in shown
