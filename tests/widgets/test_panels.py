"""opslib.widgets.panels without a browser: set ``.value`` and assert on frames and figures."""

from __future__ import annotations

import pandas as pd
from analysis.frames import T0, make_devices, make_events

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
    assert [o[1] for o in panel.product.options] == ["", "p-lamp"]
    panel.product.value = "p-lamp"
    panel.version.value = ("1.2.0",)
    assert list(panel.filtered["device_id"]) == ["d8"]
    assert total(fig) == 1
    assert "category 1" in panel.describe()
    assert "firmware 1.2.0" in panel.describe()

    panel.category.value = ""  # clearing the category resets the product
    panel.status.value = ()
    panel.version.value = ()
    assert panel.product.value == ""
    assert len(panel.filtered) == 8


def test_fleet_panel_names_categories() -> None:
    from analysis.frames import CATEGORIES

    panel = widgets.FleetPanel(make_devices(), categories=CATEGORIES)
    labels = [o[0] for o in panel.category.options]
    assert labels[:3] == ["all categories", "1 lighting", "2 sockets"]


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
    assert panel.figures["alarms"].layout.annotations[0].text == "No alarms in this selection"

    days = [value for _, value in panel.date_range.options]
    assert days[0] == T0
    assert days[-1] == T0 + pd.Timedelta(days=7)
    panel.date_range.value = (T0 + pd.Timedelta(days=1), T0 + pd.Timedelta(days=2))
    assert panel.filtered["gmt_create"].min() >= T0 + pd.Timedelta(days=1)
    assert panel.filtered["gmt_create"].max() < T0 + pd.Timedelta(days=2)
    assert len(panel.filtered) == 5  # 3 reports, offline, online
    assert "2024-05-07 to 2024-05-08" in panel.describe()
