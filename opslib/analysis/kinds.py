"""Event kinds: what an event means, whatever code a platform gives it.

Platforms number their event types differently (ours 1..6 with online and offline events;
the CHINT smart cloud 0 property report, 1 fault and system report). The analyses never
compare raw ``event_type`` codes: they ask an :class:`EventKinds` which codes are of a kind
(connectivity, property, fault, system, command, firmware, other), and whether the platform
reports that kind at all. A section built on a kind the platform does not report is not
computable there, and the report says so (:meth:`EventKinds.missing`).

An event frame from ``client.events.list()`` carries its platform's kinds in
``frame.attrs["event_kinds"]``; :func:`event_kinds` reads them (our platform's by default).

>>> from opslib.analysis.kinds import REFERENCE_KINDS
>>> REFERENCE_KINDS.codes("connectivity")
[1, 2]
>>> REFERENCE_KINDS.reports("system")
False
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from opslib import enums

__all__ = [
    "KINDS",
    "REFERENCE_KINDS",
    "EventKinds",
    "event_kinds",
    "not_computable",
    "type_labels",
]

KINDS = ("connectivity", "property", "fault", "system", "command", "firmware", "other")
"""Every event kind, in the order reports list them."""

ATTR = "event_kinds"
"""The key of ``DataFrame.attrs`` where an event frame carries its platform's kinds."""


@dataclass(frozen=True)
class EventKinds:
    """A platform's event_type codes by kind, and which connectivity codes mean what.

    Parameters
    ----------
    kinds
        event_type code -> kind (one of :data:`KINDS`).
    online, offline
        The connectivity codes that mean "came online" and "went offline" (empty where the
        platform reports no such events: downtime cannot be computed there).
    """

    kinds: Mapping[int, str]
    online: frozenset[int] = field(default_factory=frozenset)
    offline: frozenset[int] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        wrong = {code: kind for code, kind in self.kinds.items() if kind not in KINDS}
        if wrong:
            raise ValueError(f"event_kinds: unknown kinds {wrong}; allowed: {', '.join(KINDS)}")
        stray = (self.online | self.offline) - set(self.codes("connectivity"))
        if stray:
            raise ValueError(
                f"event_kinds: online/offline codes {sorted(stray)} are not connectivity"
            )

    @classmethod
    def from_labels(cls, kinds: Mapping[int, str], labels: Mapping[int, str]) -> EventKinds:
        """Kinds, with online/offline found among the connectivity codes by their labels.

        Examples
        --------
        >>> EventKinds.from_labels({1: "connectivity", 2: "connectivity"},
        ...                        {1: "online", 2: "offline"}).offline
        frozenset({2})
        """
        connectivity = [c for c, k in kinds.items() if k == "connectivity"]
        by = {c: str(labels.get(c, "")).lower() for c in connectivity}
        return cls(
            dict(kinds),
            online=frozenset(c for c, label in by.items() if label == "online"),
            offline=frozenset(c for c, label in by.items() if label == "offline"),
        )

    def codes(self, kind: str) -> list[int]:
        """The event_type codes of ``kind``, ascending (empty when not reported).

        Examples
        --------
        >>> REFERENCE_KINDS.codes("fault")
        [4]
        """
        if kind not in KINDS:
            raise ValueError(f"unknown event kind {kind!r}; allowed: {', '.join(KINDS)}")
        return sorted(code for code, k in self.kinds.items() if k == kind)

    def reports(self, kind: str) -> bool:
        """Whether the platform reports events of ``kind`` at all.

        Examples
        --------
        >>> REFERENCE_KINDS.reports("fault")
        True
        """
        return bool(self.codes(kind))

    @property
    def has_outages(self) -> bool:
        """Both "went offline" and "came online" events exist: outages can be computed."""
        return bool(self.online) and bool(self.offline)

    def of(self, codes: pd.Series) -> pd.Series:
        """The kind of each event_type code (``"other"`` for codes the platform never named).

        Examples
        --------
        >>> REFERENCE_KINDS.of(pd.Series([1, 4, 99], dtype="Int64")).tolist()
        ['connectivity', 'fault', 'other']
        """
        mapped = codes.astype("Int64").map(dict(self.kinds))
        return mapped.astype("string").fillna("other")

    def missing(self, *kinds: str) -> list[str]:
        """Those of ``kinds`` the platform does not report (``"outages"`` stands for online
        and offline events both).

        Examples
        --------
        >>> REFERENCE_KINDS.missing("fault", "system")
        ['system']
        """
        out = []
        for kind in kinds:
            ok = self.has_outages if kind == "outages" else self.reports(kind)
            if not ok:
                out.append(kind)
        return out


REFERENCE_KINDS = EventKinds(
    {1: "connectivity", 2: "connectivity", 3: "property", 4: "fault", 5: "command", 6: "firmware"},
    online=frozenset({1}),
    offline=frozenset({2}),
)
"""Our platform's kinds (docs/protocol.md: 1 online, 2 offline, 3 property report, 4 alarm,
5 command, 6 firmware upgrade)."""


def _carried(events: Any) -> Any:
    """What ``events`` carries as its platform's kinds and labels (a Dask frame keeps its
    attrs on its meta); None when nothing."""
    attrs = getattr(events, "attrs", None)
    if attrs is None:
        attrs = getattr(getattr(events, "_meta", None), "attrs", None)
    return (attrs or {}).get(ATTR)


def type_labels(events: pd.DataFrame | None = None) -> dict[int, str]:
    """The event type labels by code of the platform ``events`` came from (the frame's
    own), else our platform's.

    Examples
    --------
    >>> type_labels()[4]
    'alarm'
    """
    carried = _carried(events) if events is not None else None
    labels = carried.get("labels") if isinstance(carried, Mapping) else None
    if labels:
        return {int(code): str(label) for code, label in labels.items()}
    return enums.labels(enums.EventType)


def event_kinds(events: pd.DataFrame | None = None, kinds: Any = None) -> EventKinds:
    """The kinds to read ``events`` with: ``kinds`` if given (an :class:`EventKinds`, an
    object with one as ``event_kinds``, or a mapping ``{"kinds": {code: kind}, "labels":
    {code: label}}`` as the client puts in a frame's attrs), else the frame's own
    (``events.attrs["event_kinds"]``, a Dask frame's meta's), else our platform's.

    Examples
    --------
    >>> event_kinds().reports("connectivity")
    True
    """
    if kinds is None and events is not None:
        kinds = _carried(events)
    if kinds is None:
        return REFERENCE_KINDS
    if isinstance(kinds, EventKinds):
        return kinds
    if isinstance(kinds, Mapping) and "kinds" in kinds:
        codes = {int(c): str(k) for c, k in kinds["kinds"].items()}
        labels = {int(c): str(v) for c, v in (kinds.get("labels") or {}).items()}
        return EventKinds.from_labels(codes, labels)
    found = getattr(kinds, "event_kinds", None)
    if isinstance(found, EventKinds):
        return found
    if found is not None and found is not kinds:
        return event_kinds(None, found)
    raise TypeError(f"kinds must be an EventKinds, got {type(kinds).__name__}")


# What cannot be computed without each kind, said once for every report and analysis.
_NOT_COMPUTABLE = {
    "outages": "This platform reports no online/offline events, so downtime and availability "
    "cannot be computed; device status from the last listing is shown instead.",
    "fault": "This platform reports no fault or alarm events, so alarm codes cannot be listed.",
    "connectivity": "This platform reports no online/offline events, so connectivity cannot "
    "be analysed.",
    "property": "This platform reports no property events, so property statistics cannot be "
    "computed.",
    "system": "This platform reports no system events.",
    "command": "This platform reports no command events.",
    "firmware": "This platform reports no firmware events, so upgrades cannot be followed.",
    "other": "This platform reports no other events.",
}


def not_computable(kinds: EventKinds, *needed: str) -> dict[str, str]:
    """For each of ``needed`` (kinds, or ``"outages"``) the platform does not report, the
    one sentence a report shows instead of the section built on it.

    Examples
    --------
    >>> not_computable(REFERENCE_KINDS, "fault", "outages")
    {}
    >>> list(not_computable(EventKinds({0: "property", 1: "fault"}), "outages"))
    ['outages']
    """
    return {kind: _NOT_COMPUTABLE[kind] for kind in kinds.missing(*needed)}
