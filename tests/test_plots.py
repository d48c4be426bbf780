"""opslib.plots: each figure from small typed frames, and the offline renderer."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from analysis.frames import T0, WEEK, make_devices, make_events

from opslib import analysis, plots
from opslib.client.frames import schema as _schemas


def _json_ok(fig: go.Figure) -> dict:
    """The figure serialises (no pandas NA left in it) and round-trips as JSON."""
    return json.loads(pio.to_json(fig))


def test_counts_bar_colours_statuses_and_limits_rows() -> None:
    fig = plots.counts_bar(analysis.count_by(make_devices(), "status_name"), "status_name")
    bar = fig.data[0]
    assert bar.orientation == "h"
    assert list(bar.y)[-1] == "online"  # largest on top
    assert dict(zip(bar.y, bar.marker.color, strict=True))["fault"] == plots.STATUS_COLOURS["fault"]
    assert fig.layout.title.text == "Devices by status"
    top = plots.counts_bar(analysis.count_by(make_devices(), "device_id"), "device_id", top=3)
    assert len(top.data[0].y) == 3
    assert "(top 3 of 8)" in top.layout.title.text
    _json_ok(fig)


def test_empty_frames_give_a_figure_that_says_so() -> None:
    empty = [
        plots.counts_bar(analysis.count_by(_schemas.DEVICE.empty(), "version"), "version"),
        plots.cohorts_chart(analysis.bind_cohorts(_schemas.DEVICE.empty())),
        plots.event_volume_chart(analysis.event_volume(_schemas.EVENT.empty())),
        plots.noisiest_chart(analysis.noisiest_devices(_schemas.EVENT.empty())),
        plots.alarm_codes_chart(analysis.alarm_codes(_schemas.EVENT.empty())),
        plots.downtime_chart(analysis.downtime(_schemas.EVENT.empty())),
        plots.property_boxes(_schemas.EVENT.empty(), []),
        plots.products_chart(_schemas.PRODUCT.empty()),
    ]
    for fig in empty:
        assert len(fig.data) == 0
        _json_ok(fig)
        # one sentence in place of the figure: no empty axes, the message said once
        bundle = fig._repr_mimebundle_()
        assert "Plotly.newPlot" not in bundle["text/html"]
        assert bundle["text/html"].startswith('<p class="opslib-empty"><em>')
        assert bundle["text/html"].count(" no ") == 1, bundle["text/html"]


def test_cohorts_chart_stacks_one_trace_per_status() -> None:
    fig = plots.cohorts_chart(analysis.bind_cohorts(make_devices(), "W"))
    assert [t.name for t in fig.data] == ["inactive", "online", "offline", "fault"]
    assert fig.layout.barmode == "stack"
    assert sum(sum(t.y) for t in fig.data) == 8
    assert _json_ok(fig)["data"][0]["x"][0].startswith("2024-05-06")


def test_event_charts() -> None:
    events = make_events()
    volume = plots.event_volume_chart(analysis.event_volume(events, "1D"))
    assert {t.name for t in volume.data} == {
        "online", "offline", "property report", "alarm", "firmware upgrade",
    }  # fmt: skip
    assert sum(sum(t.y) for t in volume.data) == len(events)
    heat = plots.hour_weekday_heatmap(analysis.hour_weekday_matrix(events))
    assert len(heat.data[0].z) == 7
    assert len(heat.data[0].z[0]) == 24
    noisy = plots.noisiest_chart(analysis.noisiest_devices(events, 3))
    assert "alarm" in {t.name for t in noisy.data}
    alarms = plots.alarm_codes_chart(analysis.alarm_codes(events))
    assert [t.name for t in alarms.data] == ["fault", "alarm"]
    assert list(alarms.data[0].x) == ["F201"]
    down = plots.downtime_chart(analysis.downtime(events, window=WEEK))
    assert list(down.data[0].y) == ["d2"]
    assert down.data[0].x[0] == pytest.approx(3.5)
    boxes = plots.property_boxes(events, analysis.property_columns(events))
    assert [t.name for t in boxes.data] == ["humidity", "temperature"]
    temperature = boxes.data[1]
    assert temperature.y is None  # statistics only: the figure does not grow with the data
    assert temperature.median[0] == pytest.approx(events["properties.temperature"].median())
    assert temperature.upperfence[0] == pytest.approx(
        events["properties.temperature"].astype("float64").quantile(0.95)
    )
    for fig in (volume, heat, noisy, alarms, down, boxes):
        _json_ok(fig)


def test_comparison_chart_draws_each_type_on_a_linear_axis_from_zero() -> None:
    current = make_events()
    previous = current[current["event_type"] != 4]
    previous = pd.concat([previous, previous.iloc[:1]], ignore_index=True)  # one more online
    fig = plots.comparison_chart(analysis.compare_periods(current, previous))
    titles = [a.text for a in fig.layout.annotations]
    assert "alarm<br>0 → 7 (none before)" in titles
    assert any(t.startswith("online<br>") for t in titles)
    axes = [fig.layout[t.yaxis.replace("y", "yaxis")] for t in fig.data]
    assert len(axes) == len(titles)
    # no log axis and none that starts above zero: bar heights compare within a type
    assert all(a.type == "linear" and a.rangemode == "tozero" for a in axes)
    assert list(fig.data[0].x) == ["previous", "this period"]


def test_products_chart_stacks_statuses_per_category() -> None:
    from analysis.frames import products

    frame = products(
        {"product_id": "a", "product_name": "A", "category_id": 1, "net_type": 1, "node_type": 1},
        {"product_id": "b", "product_name": "B", "category_id": 1, "net_type": 1, "node_type": 1,
         "status": 2},
    )  # fmt: skip
    fig = plots.products_chart(frame)
    assert sorted(t.name for t in fig.data) == ["released", "retired"]


def test_offline_renderer_emits_html_without_any_cdn() -> None:
    before = pio.renderers.default
    try:
        assert plots.use_offline_renderer(embed_plotlyjs=False) == plots.OFFLINE_RENDERER
        fig = plots.counts_bar(analysis.count_by(make_devices(), "version"), "version")
        bundle = fig._repr_mimebundle_()
        html = bundle["text/html"]
        assert "Plotly.newPlot" in html
        assert "cdn" not in html.lower()
        assert "mathjax" not in html.lower()
        assert "plotly.js v" not in html  # plotly.js comes once, from use_offline_renderer
        interactive = plots.use_offline_renderer(interactive=True, embed_plotlyjs=False)
        assert interactive == f"plotly_mimetype+{plots.OFFLINE_RENDERER}"
        both = fig._repr_mimebundle_()
        assert {"application/vnd.plotly.v1+json", "text/html"} <= set(both)
    finally:
        pio.renderers.default = before


def test_importing_plots_leaves_plotly_as_it_was() -> None:
    code = (
        "import plotly.io as pio\n"
        "before = (sorted(pio.renderers), pio.renderers.default)\n"
        "import opslib.plots\n"
        "print(before == (sorted(pio.renderers), pio.renderers.default))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_plotly_js_html_is_inline() -> None:
    script = plots.plotly_js_html()
    assert script.startswith('<script type="text/javascript">window.PlotlyConfig')
    assert '<script type="text/javascript">/**\n* plotly.js v' in script
    assert "<script src" not in script


def test_volume_chart_spans_the_window_and_marks_partial_buckets() -> None:
    window = (T0 - pd.Timedelta(hours=36), T0 + pd.Timedelta(days=7, hours=12))
    fig = plots.event_volume_chart(
        analysis.event_volume(make_events(), "1D", window=window), window=window
    )
    assert list(fig.layout.xaxis.range) == ["2024-05-04 12:00:00", "2024-05-13 12:00:00"]
    assert len(fig.data) == 5  # one trace a type: filters see only the types
    first = fig.data[0]
    assert first.x[0] == "2024-05-04 00:00:00"
    assert first.y[0] is None  # the partial first bucket is left out, not drawn as a dip
    assert first.y[1] == 0
    assert first.y[-1] is None
    assert "partly outside the period left out" in fig.layout.xaxis.title.text
    assert fig.layout.title.text == "Events over time"


def test_property_boxes_show_every_property_or_name_those_left_out() -> None:
    events = make_events()
    extra = {f"properties.p{i:02d}": range(len(events)) for i in range(18)}
    events = events.assign(**{k: list(v) for k, v in extra.items()})
    columns = analysis.property_columns(events)
    fig = plots.property_boxes(events, columns)
    assert len(fig.data) == 16
    assert f"16 of {len(columns)}; left out:" in fig.layout.title.text
    small = plots.property_boxes(events, columns[:7])
    assert len(small.data) == 7


def test_top_n_charts_say_what_they_leave_out_and_how_many_items_there_are() -> None:
    events = make_events()
    every = analysis.noisiest_devices(events, None)
    assert len(every) == events["device_id"].nunique() == 3
    noisy = plots.noisiest_chart(every, top=2)
    assert len(noisy.data[0].y) == 2
    assert noisy.layout.title.text == "Noisiest devices (top 2 of 3)"
    assert noisy.layout.meta == {"opslib": "top", "items": 3}  # a panel bounds its chooser
    whole = plots.noisiest_chart(every)
    assert whole.layout.title.text == "Noisiest devices"
    down = plots.downtime_chart(analysis.downtime(events, window=WEEK), top=5)
    assert down.layout.meta == {"opslib": "top", "items": 1}
    bars = plots.counts_bar(analysis.count_by(make_devices(), "product_id"), "product_id", top=2)
    assert bars.layout.title.text == "Devices by product (top 2 of 3)"
    assert bars.layout.height == 110 + 24 * 6  # two bars of the usual width, not two slabs
    assert bars.layout.yaxis.range == (-4.5, 1.5)
    many = analysis.count_by(
        make_devices().assign(device_id=[f"d{i}" for i in range(8)]), "device_id"
    )
    tall = plots.counts_bar(pd.concat([many] * 100, ignore_index=True), "device_id", top=800)
    assert tall.layout.height == 110 + 24 * 800  # 800 bars asked for, 800 readable bars
    for chart in (
        lambda top: plots.noisiest_chart(every, top=top),
        lambda top: plots.counts_bar(many, "device_id", top=top),
    ):  # top=-1 drew every bar but the last, and said nothing was left out
        with pytest.raises(ValueError, match="top: give a number of bars of 1 or more, got -1"):
            chart(-1)


def _every_report_figure() -> dict[str, go.Figure]:
    """Each figure function of opslib.plots, on frames with several traces where it can."""
    from analysis.frames import products

    events, devices = make_events(), make_devices()
    window = (T0 - pd.Timedelta(hours=36), T0 + pd.Timedelta(days=7, hours=12))
    catalogue = products(
        {"product_id": "a", "product_name": "A", "category_id": 1, "net_type": 1, "node_type": 1},
        {"product_id": "b", "product_name": "B", "category_id": 1, "net_type": 1, "node_type": 1,
         "status": 2},
    )  # fmt: skip
    earlier = events[events["event_type"] != 4]
    return {
        "counts_bar": plots.counts_bar(analysis.count_by(devices, "status_name"), "status_name"),
        "cohorts_chart": plots.cohorts_chart(analysis.bind_cohorts(devices, "M")),
        "products_chart": plots.products_chart(catalogue),
        "event_volume_chart": plots.event_volume_chart(
            analysis.event_volume(events, "1D", window=window), window=window
        ),
        "hour_weekday_heatmap": plots.hour_weekday_heatmap(analysis.hour_weekday_matrix(events)),
        "noisiest_chart": plots.noisiest_chart(analysis.noisiest_devices(events, None), top=2),
        "alarm_codes_chart": plots.alarm_codes_chart(analysis.alarm_codes(events)),
        "downtime_chart": plots.downtime_chart(analysis.downtime(events, window=WEEK)),
        "property_boxes": plots.property_boxes(events, analysis.property_columns(events)),
        "comparison_chart": plots.comparison_chart(analysis.compare_periods(events, earlier)),
    }


def _legend_shown(fig: go.Figure) -> bool:
    if fig.layout.showlegend is not None:
        return bool(fig.layout.showlegend)
    shown = [t for t in fig.data if t.showlegend is not False and t.type != "heatmap"]
    return len(shown) > 1  # plotly's default: a legend once there are two traces


def _x_axes(fig: go.Figure) -> list[Any]:
    return [fig.layout[k] for k in fig.layout if k.startswith("xaxis")] or [fig.layout.xaxis]


def test_every_legend_sits_outside_every_x_axis_domain_clear_of_its_title() -> None:
    """By the layout alone: a legend right of every x axis's domain (anchored by its left
    edge), or below the plot further down than the x-axis title reaches."""
    figures = _every_report_figure()
    made = {name for name in plots.__all__ if callable(getattr(plots, name))}
    helpers = {"plotly_js_html", "use_offline_renderer", "EmptyFigure", "empty_html", "is_empty"}
    assert made - helpers == set(figures)
    title_reach = 60  # px under the plot area: tick labels, then the axis title
    with_legend = []
    for name, fig in figures.items():
        assert len(fig.data) > 0, name
        if not _legend_shown(fig):
            continue
        with_legend.append(name)
        legend, margin = fig.layout.legend, fig.layout.margin
        plot_height = fig.layout.height - margin.t - margin.b
        for axis in _x_axes(fig):
            right_edge = (axis.domain or (0, 1))[1]
            beside = legend.xanchor == "left" and legend.x >= right_edge
            below = (
                legend.yanchor == "top"
                and legend.y is not None
                and -legend.y * plot_height >= title_reach
                and axis.anchor in (None, "y")
            )
            assert beside or below, (name, legend.to_plotly_json(), axis.domain)
    # the figures with a legend are the ones with a trace per type, status or period
    assert sorted(with_legend) == [
        "alarm_codes_chart", "cohorts_chart", "event_volume_chart", "noisiest_chart",
        "products_chart",
    ]  # fmt: skip


def test_small_charts_keep_their_bars_and_say_small_shares() -> None:
    counts = analysis.count_by(make_devices(), "status_name")
    fig = plots.counts_bar(counts, "status_name")
    assert set(fig.data[0].y) == set(counts.loc[counts["devices"] > 0, "status_name"])
    tiny = pd.DataFrame(
        {"product_id": ["a", "b"], "devices": pd.array([996, 4], dtype="Int64"),
         "share": pd.array([0.996, 0.004], dtype="Float64")}
    )  # fmt: skip
    assert list(plots.counts_bar(tiny, "product_id").data[0].text) == ["0.4%", "100%"]
    one = plots.alarm_codes_chart(analysis.alarm_codes(make_events()).head(1))
    assert one.layout.xaxis.range == (-0.5, 5.5)  # one bar of the usual width
    empty = plots.hour_weekday_heatmap(analysis.hour_weekday_matrix(make_events().iloc[0:0]))
    assert plots.is_empty(empty)  # a sentence, not a solid heatmap scaled -0.4..0.4
