"""The client's edge (opslib/client/_dialect.py): a page's gmt_* values read at once."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opslib.client._dialect import Edge
from opslib.dialects import chint, vendor
from opslib.protocol.tables import dialect_from_table

EDGES = {
    "vendor": Edge(vendor.vendor_dialect()),  # ISO 8601 at +08:00
    "vendor-local": Edge(vendor.vendor_local_dialect()),  # zone-less, Asia/Shanghai
    "vendor-epoch": Edge(vendor.vendor_epoch_dialect()),  # strings of epoch ms
    "chint": Edge(chint.chint_dialect()),  # epoch ms numbers
    "epoch_s": Edge(dialect_from_table({"base": "opslib", "times": {"gmt_format": "epoch_s"}})),
    # zone-less local times where the clocks change: ambiguous and missing hours
    "new-york": Edge(
        dialect_from_table(
            {"base": "opslib", "times": {"gmt_format": "datetime", "zone": "America/New_York"}}
        )
    ),
}

_ZONES = st.sampled_from(
    [
        dt.UTC,
        dt.timezone(dt.timedelta(hours=8)),
        dt.timezone(-dt.timedelta(hours=5, minutes=30)),
        dt.timezone(dt.timedelta(hours=23, minutes=59)),
    ]
)


def _iso(moment: dt.datetime, sep: str, spec: str, z: bool) -> str:
    text = moment.isoformat(sep, spec)
    return text.replace("+00:00", "Z") if z else text


_TEXTS = st.one_of(
    st.builds(
        _iso,
        st.datetimes(min_value=dt.datetime(1, 1, 2), timezones=st.none() | _ZONES),
        st.sampled_from(["T", " "]),
        st.sampled_from(["seconds", "milliseconds", "microseconds"]),
        st.booleans(),
    ),
    # around New York's clock changes of 2026 (Mar 8, Nov 1): missing and doubled hours
    st.datetimes(dt.datetime(2026, 3, 8), dt.datetime(2026, 3, 9)).map(str),
    st.datetimes(dt.datetime(2026, 11, 1), dt.datetime(2026, 11, 2)).map(str),
    st.sampled_from(["2026-02-30 08:00:00", "2026-13-01T00:00:00Z", "yesterday", " 2026-10-31"]),
    st.text(max_size=25),
)
_NUMBERS = st.one_of(
    st.integers(-(10**15), 10**15),  # seconds, milliseconds, and beyond the calendar
    st.integers(0, 10**13).map(str),  # strings of digits
    st.floats(allow_nan=True),
    st.booleans(),
)
_VALUES = st.one_of(st.none(), st.just(""), _TEXTS, _NUMBERS)


def _one_by_one(edge: Edge, value: Any) -> Any:
    try:
        return edge.gmt(value, "gmt_create")
    except Exception as exc:  # the error gmts must raise too
        return (type(exc), str(exc))


@pytest.mark.parametrize("name", list(EDGES))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_VALUES)
def test_gmts_reads_each_value_as_gmt_does(name: str, value: Any) -> None:
    edge = EDGES[name]
    want = _one_by_one(edge, value)
    if isinstance(want, tuple):  # gmt raises: gmts raises the same
        with pytest.raises(want[0]) as info:
            edge.gmts([value, value], "gmt_create")
        assert str(info.value) == want[1]
    else:
        assert edge.gmts([value, value], "gmt_create") == [want, want]


def test_gmts_short_path_texts() -> None:
    # The shapes platforms send, against texts worked out by hand.
    assert EDGES["vendor"].gmts(["2026-10-31T08:00:01+08:00", None, ""]) == [
        "2026-10-31 00:00:01",
        None,
        None,
    ]
    assert EDGES["vendor-local"].gmts(["2026-10-31 08:00:01"]) == ["2026-10-31 00:00:01"]
    assert EDGES["chint"].gmts([1793404801987, "1793404801987"]) == ["2026-10-31 00:00:01"] * 2
    assert EDGES["epoch_s"].gmts([-1]) == ["1969-12-31 23:59:59"]
    # the first 2026-11-01 01:30 in New York is EDT (fold 0, as datetime reads it)
    assert EDGES["new-york"].gmts(["2026-11-01 01:30:00"]) == ["2026-11-01 05:30:00"]


def test_times_reads_every_gmt_key_at_any_depth() -> None:
    edge = EDGES["chint"]
    ms = 1793404801987
    text = "2026-10-31 00:00:01"
    data: dict[str, Any] = {
        "gmt_modified": ms,
        "events_list": [
            {"gmt_create": ms, "properties": {"gmt_seen": ms, "power": True}, "n": [1]},
            {"properties": {"nested": [{"gmt_at": ms}, [{"gmt_deep": ms}]]}},
            {"gmt_create": None},
            "not an object",
        ],
        "total": 2,
    }
    assert edge.times(data) is data
    assert data == {
        "gmt_modified": text,
        "events_list": [
            {"gmt_create": text, "properties": {"gmt_seen": text, "power": True}, "n": [1]},
            {"properties": {"nested": [{"gmt_at": text}, [{"gmt_deep": text}]]}},
            {"gmt_create": None},
            "not an object",
        ],
        "total": 2,
    }


def test_a_value_that_is_no_moment_names_its_field() -> None:
    records = [{"gmt_create": 1793404801987}, {"gmt_create": "soon"}]
    with pytest.raises(ValueError, match="gmt_create: cannot read 'soon' as a moment"):
        EDGES["chint"].times({"events_list": records})
