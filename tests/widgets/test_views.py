"""opslib.widgets._views: static and live views, their bundles and what a build returns."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from analysis.frames import make_devices, make_events

from opslib import analysis, plots, widgets

from .builders import status_counts


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
    assert "The whole table: <code>panel.tables[" in html  # no output_dir: where it is


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


def test_tables_read_as_people_read_them(tmp_path: Path) -> None:
    events = make_events()
    panel = widgets.EventPanel(events, interactive=False, output_dir=str(tmp_path))
    table = panel.table(lambda e: analysis.noisiest_devices(e), name="noisy", max_rows=1)
    html = table.snapshot_html()
    assert "%" in html
    assert "share" in html
    assert 'style="white-space:nowrap;' in html  # ids do not wrap
    assert ">events a day</th>" in html  # a title, not the column's name
    assert 'text-align:left">device id</th>' in html  # text left, numbers right
    assert "<th></th>" not in html
    assert "<tbody>\n    <tr>\n      <th>" not in html
    assert f"1 of {len(table.frame)} rows shown" in html
    assert '<a href="noisy.csv">' in html
    full = pd.read_csv(tmp_path / "noisy.csv")
    assert len(full) == len(table.frame) > 1
    assert (tmp_path / "noisy.parquet").exists()
    alarms = panel.table(lambda e: analysis.alarm_codes(e.iloc[0:0]), empty="No alarms.")
    text = alarms.snapshot_html()
    assert "<table" not in text
    assert "No alarms for this selection (all events)." in text


def test_readable_times_months_and_percentages() -> None:
    frame = pd.DataFrame(
        {
            "cohort": pd.to_datetime(["2025-11-01"], utc=True),
            "gmt_create": pd.to_datetime(["2026-11-24 06:00"], utc=True),
            "share": [0.041],
            "events": pd.array([39898], dtype="Int64"),
            "events_per_day": [1329.93],
            "mean": [0.04213],
            "ongoing": pd.array([True], dtype="boolean"),
        }
    )
    shown = widgets.readable(frame).iloc[0].tolist()
    assert shown == [
        "Nov 2025", "2026-11-24 06:00", "4.1%", "39,898", "1,330", "0.0421", "yes",
    ]  # fmt: skip
