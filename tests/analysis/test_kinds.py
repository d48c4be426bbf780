"""Analyses by event kind, never by raw code.

The published platform numbers its event types 0 property report, 1 fault and system
report (2026; 2021 adds 2 fault): the codes 1 and 2 that mean online and offline on ours
mean something else there, and it has no online/offline events at all.
"""

from __future__ import annotations

import pandas as pd
import pytest

from opslib import analysis
from opslib.analysis.kinds import REFERENCE_KINDS, EventKinds, event_kinds, not_computable

from .frames import WEEK, make_events

CHINT_LIKE = EventKinds({0: "property", 1: "fault", 2: "fault"})


def _as_chint(events: pd.DataFrame) -> pd.DataFrame:
    """The same frame, read as a platform whose 1 and 2 are faults (no connectivity)."""
    out = events.copy()
    out.attrs["event_kinds"] = {"kinds": {0: "property", 1: "fault", 2: "fault"}}
    return out


def test_reference_kinds_match_our_codes() -> None:
    assert REFERENCE_KINDS.codes("connectivity") == [1, 2]
    assert REFERENCE_KINDS.online == frozenset({1})
    assert REFERENCE_KINDS.offline == frozenset({2})
    assert REFERENCE_KINDS.codes("fault") == [4]
    assert REFERENCE_KINDS.missing("fault", "outages", "system") == ["system"]


def test_no_downtime_where_the_platform_reports_no_connectivity() -> None:
    events = make_events()
    assert len(analysis.downtime(events, window=WEEK)) > 0  # our kinds: there are outages
    assert analysis.downtime(events, window=WEEK, kinds=CHINT_LIKE).empty
    assert analysis.outages(_as_chint(events)).empty  # the frame's own kinds


def test_alarm_codes_follow_the_fault_kind() -> None:
    events = make_events()
    ours = analysis.alarm_codes(events)
    theirs = analysis.alarm_codes(events, kinds=CHINT_LIKE)
    faults = events[events["event_type"].isin([1, 2])]
    assert int(theirs["alarms"].sum()) == len(faults)
    assert int(ours["alarms"].sum()) == int((events["event_type"] == 4).sum())


def test_summary_says_what_cannot_be_computed() -> None:
    events = _as_chint(make_events())
    earlier = events.copy()
    earlier["gmt_create"] = earlier["gmt_create"] - pd.Timedelta(days=7)
    text = analysis.change_summary(events, earlier)
    assert "no online/offline events, so downtime" in text
    assert "Downtime hours" not in text
    table = analysis.compare_periods(events, events.iloc[:0]).set_index("measure")
    assert "downtime hours" not in table.index
    assert "devices with alarms" in table.index  # the fault kind exists there


def test_not_computable_sentences() -> None:
    assert not_computable(REFERENCE_KINDS, "fault", "outages") == {}
    said = not_computable(CHINT_LIKE, "outages", "fault", "firmware")
    assert list(said) == ["outages", "firmware"]
    assert said["outages"].startswith("This platform reports no online/offline events")


def test_kinds_from_labels_and_bad_kinds() -> None:
    kinds = event_kinds(
        None,
        {"kinds": {5: "connectivity", 6: "connectivity"}, "labels": {5: "online", 6: "offline"}},
    )
    assert kinds.has_outages
    assert kinds.offline == frozenset({6})
    with pytest.raises(ValueError, match="unknown kinds"):
        EventKinds({1: "alarm"})
