"""Widget panels without a browser: set ``.value`` and assert on frames and figure data."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from test_analysis import T0, make_devices, make_events

from opslib import analysis, plots, widgets


def status_counts(d: pd.DataFrame) -> go.Figure:
    return plots.counts_bar(analysis.count_by(d, "status_name"), "status_name")


def total(fig: go.Figure) -> int:
    return int(sum(sum(v for v in t.x if v is not None) for t in fig.data))


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
    from test_analysis import CATEGORIES

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


def test_static_panel_has_no_widgets_and_renders_html() -> None:
    panel = widgets.FleetPanel(make_devices(), interactive=False)
    assert panel.controls is None
    assert not hasattr(panel, "status")
    view = panel.plot(status_counts)
    assert view.widget is None
    assert isinstance(view.figure, go.Figure)
    bundle = panel._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" not in bundle
    assert "all devices" in bundle["text/plain"]
    table = panel.table(lambda d: analysis.count_by(d, "version"), max_rows=2)
    html = table._repr_mimebundle_()["text/html"]
    assert "<table" in html
    assert "2 of 5 rows shown" in html


def test_interactive_view_bundle_has_widget_and_static_html() -> None:
    panel = widgets.EventPanel(make_events())
    view = panel.plot(lambda e: plots.event_volume_chart(analysis.event_volume(e, "1D")))
    bundle = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "Plotly.newPlot" in bundle["text/html"]
    assert "application/vnd.jupyter.widget-view+json" in panel._repr_mimebundle_()


def test_view_build_must_return_the_right_kind() -> None:
    panel = widgets.FleetPanel(make_devices(), interactive=False)
    with pytest.raises(TypeError, match="plotly Figure"):
        panel.plot(lambda d: d)  # type: ignore[arg-type, return-value]
    with pytest.raises(TypeError, match="DataFrame"):
        panel.table(lambda d: status_counts(d))  # type: ignore[arg-type, return-value]


class _FakeProducts:
    """Records calls; answers like the client's write frames (key, ok, error_code...)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def _frame(self, pid: str, ok: bool) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "product_id": [pid],
                "ok": [ok],
                "error_code": [200 if ok else 409],
                "error_msg": ["" if ok else "params.product_id: product still has devices"],
                "message_id": ["m"],
            }
        )

    def add(self, item: dict, errors: str) -> pd.DataFrame:
        self.calls.append(("add", item))
        return self._frame(item["product_id"], True)

    def delete(self, ids: list[str], errors: str) -> pd.DataFrame:
        self.calls.append(("delete", ids))
        return self._frame(ids[0], False)


class _FakeClient:
    def __init__(self) -> None:
        self.products = _FakeProducts()


def test_product_form_adds_with_coded_dropdowns_and_confirms_deletes() -> None:
    from test_analysis import CATEGORIES, products

    current = products(
        {"product_id": "p-a", "product_name": "A", "category_id": 1, "net_type": 1, "node_type": 1},
    )
    client = _FakeClient()
    written: list[str] = []
    form = widgets.ProductForm(
        client, CATEGORIES, current, on_write=lambda action, _r: written.append(action)
    )
    assert [o[0] for o in form.fields["net_type"].options] == [
        "Wi-Fi", "BLE", "Zigbee", "cellular", "Ethernet",
    ]  # fmt: skip
    form.fields["product_id"].value = "p-new"
    form.fields["product_name"].value = "New"
    form.fields["product_secret"].value = "a-long-secret"
    form.fields["category_id"].value = 2
    form.fields["net_type"].value = 3
    form.fields["node_type"].value = 3
    form.add_button.click()
    action, item = client.products.calls[0]
    assert action == "add"
    assert item["category_id"] == 2
    assert item["net_type"] == 3
    assert item["node_type"] == 3
    assert "product_icon" not in item
    assert "done" in form.message.value
    assert "a-long-secret" not in form.message.value

    form.delete_button.click()  # asks first, deletes nothing yet
    assert form.pending_delete == "p-a"
    assert len(client.products.calls) == 1
    form.cancel_button.click()
    assert form.pending_delete == ""
    assert form.confirm_delete() is None
    form.delete_button.click()
    form.confirm_button.click()
    assert client.products.calls[-1] == ("delete", ["p-a"])
    assert "refused (409)" in form.message.value
    assert written == ["add", "delete"]
    assert form.last_result is not None
    assert not bool(form.last_result["ok"].iloc[0])


def test_live_views_fill_their_output_widget_and_empty_it_before_a_redraw(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(widgets._views, "_shell", lambda: object())  # as if in a kernel
    monkeypatch.setattr(pio.renderers, "default", pio.renderers.default)  # restored after
    plots.use_offline_renderer(interactive=True, embed_plotlyjs=False)
    panel = widgets.EventPanel(make_events())
    view = panel.plot(lambda e: plots.event_volume_chart(analysis.event_volume(e, "1D")))
    table = panel.table(analysis.alarm_codes)
    assert view.output is not None
    (shown,) = view.output.outputs
    assert shown["output_type"] == "display_data"
    assert {"application/vnd.plotly.v1+json", "text/html"} <= set(shown["data"])
    changes: list[int] = []
    view.output.observe(lambda c: changes.append(len(c["new"])), names="outputs")
    panel.event_types.value = ("alarm",)
    assert changes == [0, 1]  # emptied, then the new figure: JupyterLab draws it anew
    (shown,) = view.output.outputs
    assert "Plotly.newPlot" in shown["data"]["text/html"]
    assert '"name":"alarm"' in shown["data"]["text/html"].replace(" ", "")
    assert "<table" in table.output.outputs[0]["data"]["text/html"]
