"""Moments by a dialect (opslib/protocol/times.py): a page's gmt_* values read at once read
each value as one by one, straight to epoch milliseconds, strict on units."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opslib.dialects import chint, vendor
from opslib.exceptions import ProtocolError
from opslib.protocol import Codec
from opslib.protocol import operations as ops
from opslib.protocol.tables import dialect_from_table
from opslib.protocol.times import TimeCodec


def _times(table: dict[str, Any]) -> TimeCodec:
    return TimeCodec(dialect_from_table({"base": "opslib", "times": table}).times)


EDGES = {
    "vendor": TimeCodec(vendor.vendor_dialect().times),  # ISO 8601 at +08:00
    "vendor-local": TimeCodec(vendor.vendor_local_dialect().times),  # zone-less, Shanghai
    "vendor-epoch": TimeCodec(vendor.vendor_epoch_dialect().times),  # strings of epoch ms
    "chint": TimeCodec(chint.chint_dialect().times),  # epoch ms numbers
    "epoch_s": _times({"gmt_format": "epoch_s"}),
    # zone-less local times where the clocks change: ambiguous and missing hours
    "new-york": _times({"gmt_format": "datetime", "zone": "America/New_York"}),
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


def _one_by_one(times: TimeCodec, value: Any) -> Any:
    try:
        return times.ms(value, field="gmt_create")
    except Exception as exc:  # the error column_ms must raise too
        return (type(exc), str(exc))


@pytest.mark.parametrize("name", list(EDGES))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_VALUES)
def test_a_column_reads_each_value_as_one_value_does(name: str, value: Any) -> None:
    times = EDGES[name]
    want = _one_by_one(times, value)
    if isinstance(want, tuple):  # ms raises: column_ms raises the same
        with pytest.raises(want[0]) as info:
            times.column_ms([value, value], field="gmt_create")
        assert str(info.value) == want[1]
    else:
        assert times.column_ms([value, value], field="gmt_create") == [want, want]


def test_the_shapes_platforms_send() -> None:
    # Against epoch milliseconds worked out by hand (2026-10-31 00:00:01 UTC).
    ms = 1_793_404_801_000
    assert EDGES["vendor"].column_ms(["2026-10-31T08:00:01+08:00", None, ""], field="g") == [
        ms,
        None,
        None,
    ]
    assert EDGES["vendor-local"].column_ms(["2026-10-31 08:00:01"], field="g") == [ms]
    assert EDGES["chint"].column_ms([ms + 987, str(ms + 987)], field="g") == [ms + 987] * 2
    assert EDGES["epoch_s"].column_ms([ms // 1000], field="g") == [ms]
    # the first 2026-11-01 01:30 in New York is EDT (fold 0, as datetime reads it)
    assert EDGES["new-york"].ms("2026-11-01 01:30:00", field="g") == 1_793_511_000_000


@pytest.mark.parametrize(
    ("name", "value"),
    [("epoch_s", -1), ("epoch_s", 1_793_404_801_000), ("chint", 1_793_404_801), ("chint", True)],
)
def test_a_number_in_the_wrong_unit_is_an_error_not_a_date(name: str, value: Any) -> None:
    with pytest.raises(ProtocolError, match="gmt_create"):
        EDGES[name].ms(value, field="gmt_create")


def test_the_declared_moments_of_every_record_are_read() -> None:
    ms = 1793404801987
    data: dict[str, Any] = {
        "total": 2,
        "page_no": 1,
        "page_size": 100,
        "events_list": [
            {"gmt_create": ms, "properties": {"gmt_seen": ms, "power": True}, "n": [1]},
            {"gmt_create": None},
            "not an object",
        ],
    }
    body = {"error_code": 200, "data": data}
    got = Codec(chint.chint_dialect()).decode_answer(ops.QUERY_RECORD, 200, body, sent={})
    assert got["events_list"][0]["gmt_create"] == ms
    # a property is the device's own data: its name is no moment of the protocol's
    assert got["events_list"][0]["properties"] == {"gmt_seen": ms, "power": True}
    assert got["events_list"][1]["gmt_create"] is None


def test_a_value_that_is_no_moment_names_its_field() -> None:
    records = [{"gmt_create": 1793404801987}, {"gmt_create": "soon"}]
    body = {"error_code": 200, "data": {"total": 2, "events_list": records}}
    with pytest.raises(ProtocolError, match=r"events_list\[\]\.gmt_create is 'soon'"):
        Codec(chint.chint_dialect()).decode_answer(ops.QUERY_RECORD, 200, body, sent={})
