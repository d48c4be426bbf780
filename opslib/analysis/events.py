"""Event analysis: volume, daily rhythm, noisy devices, alarms (downtime is in
:mod:`opslib.analysis.downtime`, the numeric properties in :mod:`opslib.analysis.properties`,
re-exported here).

Every function takes an event frame of :data:`opslib.client.frames.schema.EVENT` (as returned by
``client.events.list()``): ``gmt_create`` in UTC, ``event_type`` with its
``event_type_name`` label, ``code`` and one ``properties.<key>`` column per reported key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from pandas.tseries.frequencies import to_offset
from pandas.tseries.offsets import Tick

from opslib._limits import MAX_BUCKETS, check_count
from opslib.analysis._common import NONE_LABEL, Window, require_columns
from opslib.analysis.downtime import FILTER_ATTR
from opslib.analysis.kinds import EventKinds, event_kinds, type_labels
from opslib.analysis.properties import (
    PROPERTY_PREFIX,
    chart_properties,
    property_columns,
    property_stats,
    value_by_command,
)
from opslib.analysis.zones import bucket_range, bucket_starts, local, zone, zone_label

__all__ = [
    "PROPERTY_PREFIX",
    "WEEKDAYS",
    "alarm_codes",
    "chart_properties",
    "event_type_values",
    "event_volume",
    "filter_events",
    "hour_weekday_matrix",
    "noisiest_devices",
    "property_columns",
    "property_stats",
    "value_by_command",
    "window_weekdays",
]

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _type_value(value: int | str, labels: Mapping[int, str]) -> int:
    if isinstance(value, str):
        text = value.strip().lower().replace("_", " ")
        if text.isdigit():
            value = int(text)
        else:
            by_label = {label.lower(): v for v, label in labels.items()}
            if text not in by_label:
                raise ValueError(
                    f"event_types: unknown event type {value!r}; allowed: "
                    f"{', '.join(labels.values())} or {sorted(labels)}"
                )
            return by_label[text]
    if value not in labels:
        raise ValueError(f"event_types: {value} is not an event type; allowed: {sorted(labels)}")
    return int(value)


def event_type_values(
    event_types: Sequence[int | str] | None, labels: Mapping[int, str] | None = None
) -> list[int]:
    """Event types given as numbers or labels (``"alarm"``, ``"property report"``) → numbers,
    by the platform's ``labels`` (:func:`~opslib.analysis.type_labels` of its events;
    default ours).

    Examples
    --------
    >>> event_type_values(["alarm", 1, "property_report"])
    [4, 1, 3]
    """
    known = labels if labels is not None else type_labels()
    return [_type_value(v, known) for v in (event_types or [])]


def filter_events(
    events: pd.DataFrame,
    *,
    event_types: Sequence[int | str] | None = None,
    device_id: str | None = None,
    start: pd.Timestamp | None = None,
    end: pd.Timestamp | None = None,
) -> pd.DataFrame:
    """Keep the events of the given types, device and ``[start, end)``; empty means any.

    Filtered by type, the frame keeps the types in ``attrs["event_types"]``: a measure built
    on types left out (downtime without online/offline events) is then not computed, never
    zero (:func:`opslib.analysis.downtime_not_computed`).

    Examples
    --------
    >>> analysis.filter_events(events, event_types=["alarm"])  # doctest: +SKIP
    """
    mask = pd.Series(True, index=events.index)
    types = event_type_values(event_types, type_labels(events))
    if types:
        mask &= events["event_type"].isin(types)
    if device_id:
        mask &= events["device_id"] == device_id
    if start is not None:
        mask &= events["gmt_create"] >= start
    if end is not None:
        mask &= events["gmt_create"] < end
    out = events[mask.fillna(False).astype(bool)]
    if types:
        kept = events.attrs.get(FILTER_ATTR)
        out.attrs[FILTER_ATTR] = [t for t in types if kept is None or t in kept]
    return out


def _check_freq(freq: str) -> str:
    try:
        offset = to_offset(freq)
    except ValueError:
        raise ValueError(
            f"freq: {freq!r} is not a pandas frequency; use e.g. '15min', '1h', '6h', '1D'"
        ) from None
    if offset.n <= 0:  # a bucket of no time: a ZeroDivisionError, or buckets backwards
        raise ValueError(f"freq: {freq!r} is not longer than zero; use e.g. '15min', '1h', '1D'")
    return freq


def _check_buckets(freq: str, window: Window) -> None:
    """A bucket of fixed length that cuts ``window`` into more than :data:`MAX_BUCKETS`
    (the report runner refuses it before a kernel; this is for a notebook run by hand)."""
    offset = to_offset(freq)
    if isinstance(offset, Tick):
        buckets = (window[1] - window[0]) // pd.Timedelta(offset.nanos, "ns")
        if buckets > MAX_BUCKETS:
            raise ValueError(
                f"freq: {freq!r} cuts the window into {buckets:,} buckets; at most "
                f"{MAX_BUCKETS:,} make a chart: give a longer one"
            )


def _zone_of(window: Window | None, tz: str | None) -> str | None:
    """The reader's zone: ``tz``, else the window's, else UTC (None)."""
    if tz:
        return tz
    if window is not None and window[0].tzinfo is not None:
        return zone_label(window[0].tzinfo)
    return None


def event_volume(
    events: pd.DataFrame,
    freq: str = "1h",
    *,
    window: Window | None = None,
    tz: str | None = None,
) -> pd.DataFrame:
    """Events per time bucket and event type (long form, ready for a line or bar chart).

    Parameters
    ----------
    events
        An event frame.
    freq
        Bucket length as a pandas frequency: ``"15min"``, ``"1h"``, ``"1D"``...
    window
        The period asked for: the buckets then cover all of it (zeros where no event),
        and a bucket that reaches outside it is marked ``partial``.
    tz
        The reader's zone (default: the window's, else UTC): days are its calendar days
        (23 or 25 hours when the clocks change), shorter buckets start at its midnight.

    Returns
    -------
    pandas.DataFrame
        Columns ``time`` (bucket start, in the zone), ``event_type_name``, ``events``
        (Int64) and ``partial`` (the bucket is only partly inside ``window``; False without
        one); every type present in the frame has a row for every bucket (zeros included).

    Examples
    --------
    >>> analysis.event_volume(events, "6h").head()  # doctest: +SKIP
    """
    require_columns(events, ["gmt_create", "event_type"], "event_volume")
    _check_freq(freq)
    if window is not None:
        _check_buckets(freq, window)
    reader = _zone_of(window, tz)
    info = zone(reader)
    columns: dict[str, Any] = {
        "time": pd.DatetimeTZDtype("ns", info),
        "event_type_name": "string",
        "events": "Int64",
        "partial": "bool",
    }
    if events.empty:
        return pd.DataFrame({c: pd.Series([], dtype=d) for c, d in columns.items()})
    by_code = type_labels(events)
    labels = events["event_type"].map(by_code).astype("string").fillna(NONE_LABEL)
    anchor = window[0] if window is not None else events["gmt_create"].min()
    buckets = bucket_starts(events["gmt_create"], freq, info, anchor=anchor)
    table = pd.crosstab(buckets.rename("time"), labels.rename("event_type_name"))
    first, last = events["gmt_create"].min(), events["gmt_create"].max()
    if window is not None:
        first = min(first, window[0])
        last = max(last, window[1] - pd.Timedelta(1, "ns"))
    starts, ends = bucket_range(first, last, freq, info, anchor=anchor)
    table = table.reindex(starts.rename("time"), fill_value=0)
    order = [label for label in by_code.values() if label in table.columns]
    order += [c for c in table.columns if c not in order]
    stacked: pd.Series = table[order].stack()  # type: ignore[assignment]
    out = stacked.rename("events").reset_index()
    out["partial"] = False
    if window is not None:
        end_of = pd.Series(ends, index=starts)
        out["partial"] = (out["time"] < window[0]) | (
            out["time"].map(end_of).to_numpy() > window[1]
        )
    return out.astype(columns)


def hour_weekday_matrix(
    events: pd.DataFrame, *, tz: str | None = None, window: Window | None = None
) -> pd.DataFrame:
    """Events by weekday (rows) and hour of day (columns 0..23), in the reader's zone.

    With a ``window`` shorter than a week, only the weekdays it covers are rows, in the
    order they come (a one-day window from Tuesday noon: Tuesday, Wednesday); otherwise
    every weekday, Monday first.

    Examples
    --------
    >>> analysis.hour_weekday_matrix(events, tz="Asia/Shanghai").loc["Monday", 3]  # doctest: +SKIP
    """
    require_columns(events, ["gmt_create"], "hour_weekday_matrix")
    reader = _zone_of(window, tz)
    moments = local(events["gmt_create"].dropna(), reader)
    weekday = moments.dt.day_of_week.map(dict(enumerate(WEEKDAYS))).rename("weekday")
    hour = moments.dt.hour.rename("hour")
    table = pd.crosstab(weekday, hour) if len(moments) else pd.DataFrame()
    rows = list(WEEKDAYS)
    if window is not None:
        rows = window_weekdays(window, reader)
    table = table.reindex(index=rows, columns=range(24), fill_value=0).fillna(0)
    table.index.name, table.columns.name = "weekday", "hour"
    return table.astype("int64")


def window_weekdays(window: Window, tz: str | None = None) -> list[str]:
    """The weekdays a window covers in the reader's zone, in the order they come; every
    weekday, Monday first, from a week on.

    Examples
    --------
    >>> w = (pd.Timestamp("2024-05-07 12:00", tz="UTC"), pd.Timestamp("2024-05-08 12:00", tz="UTC"))
    >>> window_weekdays(w)
    ['Tuesday', 'Wednesday']
    """
    first = window[0].tz_convert(zone(tz)).tz_localize(None).normalize()
    last = (window[1] - pd.Timedelta(1, "ns")).tz_convert(zone(tz)).tz_localize(None).normalize()
    days = pd.date_range(first, last, freq="D")
    if len(days) >= 7:
        return list(WEEKDAYS)
    return [WEEKDAYS[d.day_of_week] for d in days]


def noisiest_devices(
    events: pd.DataFrame, n: int | None = 10, *, window: Window | None = None
) -> pd.DataFrame:
    """The ``n`` devices with the most events, with their mix of event types.

    Parameters
    ----------
    events
        An event frame.
    n
        How many devices; None for every device, the noisiest first.
    window
        The window the events cover, for ``events_per_day`` (default: first to last event).

    Returns
    -------
    pandas.DataFrame
        Columns ``device_id``, ``events``, ``share`` (of all events), ``events_per_day``,
        one count column per event type label, and ``top_type``.

    Examples
    --------
    >>> analysis.noisiest_devices(events, 5)  # doctest: +SKIP
    """
    require_columns(events, ["device_id", "event_type", "gmt_create"], "noisiest_devices")
    if n is not None:
        n = check_count("n", n, "devices")
    by_code = type_labels(events)
    labels = list(by_code.values())
    if events.empty:
        cols = ["device_id", "events", "share", "events_per_day", *labels, "top_type"]
        return pd.DataFrame({c: pd.Series([], dtype="string") for c in cols})
    # Counts by (device, type) with one bincount over codes, much cheaper than pd.crosstab
    # (docs/performance.md). Devices sorted by id, as crosstab sorts them, so ties keep
    # crosstab's order; events of an unknown type count for no column.
    devices, device_ids = pd.factorize(events["device_id"], sort=True)
    known = list(by_code)
    kinds = pd.Index(known).get_indexer(
        pd.Index(events["event_type"].to_numpy(dtype="float64", na_value=np.nan))
    )
    keep = (devices >= 0) & (kinds >= 0)
    width = len(known)
    counts = np.bincount(
        devices[keep] * width + kinds[keep], minlength=len(device_ids) * width
    ).reshape(len(device_ids), width)
    order = np.argsort(-counts.sum(axis=1), kind="stable")[:n]
    table = pd.DataFrame(counts[order], index=device_ids[order], columns=labels)
    top = table.index
    total = table.sum(axis=1)
    if window is not None:
        days = (window[1] - window[0]) / pd.Timedelta(days=1)
    else:
        span = events["gmt_create"].max() - events["gmt_create"].min()
        days = max(span / pd.Timedelta(days=1), 1 / 24)
    out = pd.DataFrame(
        {
            "device_id": pd.array(list(top), dtype="string"),
            "events": pd.array(total.loc[top].to_numpy(), dtype="Int64"),
            "share": pd.array(total.loc[top].to_numpy() / len(events), dtype="Float64"),
            "events_per_day": pd.array(total.loc[top].to_numpy() / days, dtype="Float64"),
        }
    )
    for label in labels:
        out[label] = pd.array(table[label].to_numpy(), dtype="Int64")
    out["top_type"] = pd.array(table.idxmax(axis=1).to_numpy(), dtype="string")
    return out


def alarm_codes(
    events: pd.DataFrame, *, kinds: EventKinds | None = None, tz: str | None = None
) -> pd.DataFrame:
    """Alarm events (the platform's fault kind) by code: how many, on how many devices,
    first and last seen.

    Codes starting with ``F`` put a device into the fault state (protocol §6.19); they are
    marked ``fault``, every other code ``alarm``. ``kinds`` says which event types are
    faults (default: the frame's own, see :mod:`opslib.analysis.kinds`); first and last
    seen are in ``tz``, the reader's zone (default UTC).

    Returns
    -------
    pandas.DataFrame
        Columns ``code``, ``severity``, ``alarms``, ``devices``, ``first_seen``,
        ``last_seen``; most frequent first.

    Examples
    --------
    >>> analysis.alarm_codes(events).head()  # doctest: +SKIP
    """
    require_columns(events, ["event_type", "code", "device_id", "gmt_create"], "alarm_codes")
    alarms = events[events["event_type"].isin(event_kinds(events, kinds).codes("fault"))]
    codes = alarms["code"].astype("string").fillna("").str.strip()
    codes = codes.mask(codes == "", NONE_LABEL)
    frame = pd.DataFrame(
        {"code": codes, "device_id": alarms["device_id"], "gmt_create": alarms["gmt_create"]}
    )
    out = frame.groupby("code", sort=True).agg(
        alarms=("device_id", "size"),
        devices=("device_id", "nunique"),
        first_seen=("gmt_create", "min"),
        last_seen=("gmt_create", "max"),
    )
    out = out.reset_index()
    out["code"] = out["code"].astype("string")
    out.insert(
        1,
        "severity",
        out["code"]
        .str.upper()
        .str.startswith("F")
        .map({True: "fault", False: "alarm"})
        .astype("string"),
    )
    out["alarms"] = out["alarms"].astype("Int64")
    out["devices"] = out["devices"].astype("Int64")
    for column in ("first_seen", "last_seen"):
        out[column] = out[column].astype("datetime64[ns, UTC]").dt.tz_convert(zone(tz))
    return out.sort_values(["alarms", "code"], ascending=[False, True]).reset_index(drop=True)
