"""The headline figures as published metrics and sets: the ids behind a count, the hidden
figures, a value per product, and the notebooks' declarations of them."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from opslib import analysis
from opslib.client.frames import schema as _schemas

from .frames import T0, WEEK, make_devices, make_events, typed_frame

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def _by_key(figures: list[analysis.headline.Figure]) -> dict[str, analysis.headline.Figure]:
    return {f.key: f for f in figures}


def test_the_fleet_headline_carries_the_devices_behind_each_count() -> None:
    figures = _by_key(analysis.fleet_headline(make_devices(), now=T0 + pd.Timedelta(days=22)))
    silent = figures["fleet.silent_devices"]
    assert silent.value == 2
    assert silent.members is not None
    assert silent.members.ids == ("d2", "d6")
    assert (silent.members.joined, silent.members.left) == ("went silent", "came back")
    assert figures["fleet.faulty_devices"].members.ids == ("d3",)  # type: ignore[union-attr]
    assert figures["fleet.never_online"].members.ids == ("d4", "d7")  # type: ignore[union-attr]
    offline = figures["fleet.offline_devices"]
    assert offline.members.ids == ("d2", "d6")
    assert not offline.shown
    assert figures["fleet.offline_share"].value == 25.0
    assert figures["fleet.offline_share"].unit == "%"
    assert [k for k, f in figures.items() if f.shown] == [
        "fleet.devices", "fleet.online_share", "fleet.faulty_devices", "fleet.silent_devices",
        "fleet.never_online",
    ]  # fmt: skip


def test_the_devices_of_a_set_are_published_with_their_names() -> None:
    # Before: "2 devices went silent: d2, d6", ids a reader has to look up.
    from opslib.reports.metrics import published

    devices = make_devices()
    names = analysis.device_names(devices)
    figures = analysis.fleet_headline(devices, now=T0 + pd.Timedelta(days=22), names=names)
    silent = _by_key(figures)["fleet.silent_devices"].members
    assert silent is not None
    assert silent.names == {"d2": "nick d2 · p-lamp", "d6": "nick d6 · p-cam"}
    _, sets = published({"figures": [f.as_dict() for f in figures]})
    assert sets["fleet.silent_devices"]["names"] == silent.names
    assert "names" not in published({"figures": [
        f.as_dict() for f in analysis.fleet_headline(devices, now=T0)
    ]})[1]["fleet.silent_devices"]  # fmt: skip


def test_faulty_is_not_computed_where_the_platform_has_no_fault_status() -> None:
    devices = make_devices()
    chint = ["inactive", "online", "offline", "disabled", "activated"]  # chint's labels
    labels = devices["status"].map(dict(enumerate(chint))).astype(pd.CategoricalDtype(chint))
    figures = _by_key(analysis.fleet_headline(devices.assign(status_name=labels), now=T0))
    faulty = figures["fleet.faulty_devices"]
    assert faulty.value is None
    assert faulty.members is None
    assert faulty.value_text() == "not computed"
    assert faulty.note == (
        "this platform has no fault status (its statuses: inactive, online, offline, "
        "disabled, activated)"
    )
    assert figures["fleet.online_share"].value == 37.5  # the statuses it has still count


def test_the_event_headline_publishes_fault_codes_and_the_fault_rate_by_product() -> None:
    earlier = typed_frame(_schemas.EVENT, [])
    previous = (T0 - pd.Timedelta(days=7), T0)
    figures = _by_key(
        analysis.event_headline(
            make_events(), earlier, window=WEEK, previous_window=previous, devices=make_devices()
        )
    )
    codes = figures["events.fault_codes"]
    assert codes.members is not None
    assert codes.members.ids == ("F201",)
    assert not codes.shown
    rate = figures["events.fault_rate_by_product"]
    assert rate.parts == {"p-cam": 0.0, "p-lamp": 25.0, "p-plug": 0.0}  # d1 of 4 lamps
    assert rate.value == 12.5
    assert rate.unit == "%"
    alarming = figures["events.devices_with_alarms"]
    assert alarming.members is not None
    assert alarming.members.ids == ("d1",)
    assert figures["events.alarms"].value == 7


def test_each_products_fault_rate_is_published_with_its_name() -> None:
    # Before: an alert said "events.fault_rate_by_product[p-lamp] is 25.0%", never a name.
    from opslib.reports.metrics import published

    products = pd.DataFrame({"product_id": ["p-lamp", "p-cam"], "product_name": ["Lamp", "Cam"]})
    figures = analysis.event_headline(
        make_events(), typed_frame(_schemas.EVENT, []), window=WEEK,
        previous_window=(T0 - pd.Timedelta(days=7), T0), devices=make_devices(),
        products=products,
    )  # fmt: skip
    assert _by_key(figures)["events.fault_rate_by_product"].part_names == {
        "p-cam": "Cam", "p-lamp": "Lamp",
    }  # fmt: skip
    metrics, _ = published({"figures": [f.as_dict() for f in figures]})
    lamp = metrics["events.fault_rate_by_product[p-lamp]"]
    assert (lamp["label"], lamp["part"]) == ("devices with a fault: Lamp (p-lamp)", "Lamp (p-lamp)")
    assert metrics["events.fault_rate_by_product[p-plug]"]["part"] == "p-plug"  # no name known


def test_each_notebook_declares_what_its_headline_publishes() -> None:
    devices, events = make_devices(), make_events()
    earlier = typed_frame(_schemas.EVENT, [])
    made = {
        "fleet_inventory": analysis.fleet_headline(devices, now=T0 + pd.Timedelta(days=22)),
        "event_analysis": analysis.event_headline(
            events, earlier, window=WEEK, previous_window=(T0 - pd.Timedelta(days=7), T0),
            devices=devices,
        ),
    }  # fmt: skip
    for report, figures in made.items():
        meta = json.loads((NOTEBOOKS / f"{report}.ipynb").read_text())["metadata"]["opslib"]
        declared = meta["publishes"]
        for figure in figures:
            if isinstance(figure.value, str):
                continue
            assert declared["metrics"][figure.key] == figure.unit, (report, figure.key)
            if figure.parts is not None:
                assert declared["metrics"][f"{figure.key}[*]"] == figure.unit
            if figure.members is not None:
                assert figure.key in declared["sets"], (report, figure.key)


def test_a_large_figure_is_shown_whole_and_a_small_one_with_its_decimal() -> None:
    # Before: the demo's first screen said "downtime 152,423.3 h (previous 149,738.2 h)",
    # and the index and alerts said it the same way: a tenth of an hour that no one reads.
    from opslib.analysis.headline import Figure
    from opslib.reports.metrics import format_value

    downtime = Figure("events.downtime_hours", "downtime", 152_423.3, "h", previous=149_738.2)
    assert downtime.value_text() == "152,423 h"
    assert downtime.change_text() == "+2% (previous 149,738 h)"
    assert format_value(152_423.3, "h") == "152,423 h"
    assert format_value(12.46, "h") == "12.5 h"
    assert format_value(99.5, "") == "99.5"
    assert format_value(0.0421, "h") == "0.042 h"  # before: "0.0 h"
    assert format_value(99.96, "h") == "100 h"  # not "100.0 h"
    assert format_value(float("nan"), "h") == "not computed"  # before: ValueError
    # A change on a small base is said in the unit, by the same rule (before: "+150.4",
    # "+0.2 h" for a quarter of an hour).
    from opslib._percent import step_text

    assert (step_text(3, 153.4, ""), step_text(5, 5.25, "h")) == ("+150", "+0.25 h")
    assert Figure("x", "x", 0.25, "%").value_text() == "0.25%"
