"""Event analysis: volume, daily rhythm, noisy devices, alarms, downtime, properties.

Every function takes an event frame of :data:`opslib.client.frames.schema.EVENT` (as returned by
``client.events.list()``): ``gmt_create`` in UTC, ``event_type`` with its
``event_type_name`` label, ``code`` and one ``properties.<key>`` column per reported key.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pandas.tseries.frequencies import to_offset

from opslib import enums
from opslib.analysis._common import NONE_LABEL, Window, require_columns
from opslib.analysis.kinds import EventKinds, event_kinds

__all__ = [
    "PROPERTY_PREFIX",
    "WEEKDAYS",
    "alarm_codes",
    "downtime",
    "event_type_values",
    "event_volume",
    "filter_events",
    "hour_weekday_matrix",
    "noisiest_devices",
    "outages",
    "property_columns",
    "property_stats",
    "value_by_command",
]

PROPERTY_PREFIX = "properties."
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_TYPE_LABELS = enums.labels(enums.EventType)
# A property column counts as numeric when at least this share of its values parse as numbers.
_NUMERIC_SHARE = 0.9


def _type_value(value: int | str) -> int:
    if isinstance(value, str):
        text = value.strip().lower().replace("_", " ")
        if text.isdigit():
            value = int(text)
        else:
            by_label = {label: v for v, label in _TYPE_LABELS.items()}
            if text not in by_label:
                raise ValueError(
                    f"event_types: unknown event type {value!r}; allowed: {', '.join(by_label)} "
                    f"or {sorted(_TYPE_LABELS)}"
                )
            return by_label[text]
    if value not in _TYPE_LABELS:
        raise ValueError(
            f"event_types: {value} is not an event type; allowed: {sorted(_TYPE_LABELS)}"
        )
    return int(value)


def event_type_values(event_types: Sequence[int | str] | None) -> list[int]:
    """Event types given as numbers or labels (``"alarm"``, ``"property report"``) → numbers.

    Examples
    --------
    >>> event_type_values(["alarm", 1, "property_report"])
    [4, 1, 3]
    """
    return [_type_value(v) for v in (event_types or [])]


def filter_events(
    events: pd.DataFrame,
    *,
    event_types: Sequence[int | str] | None = None,
    device_id: str | None = None,
    start: pd.Timestamp | None = None,
    end: pd.Timestamp | None = None,
) -> pd.DataFrame:
    """Keep the events of the given types, device and ``[start, end)``; empty means any.

    Examples
    --------
    >>> analysis.filter_events(events, event_types=["alarm"])  # doctest: +SKIP
    """
    mask = pd.Series(True, index=events.index)
    types = event_type_values(event_types)
    if types:
        mask &= events["event_type"].isin(types)
    if device_id:
        mask &= events["device_id"] == device_id
    if start is not None:
        mask &= events["gmt_create"] >= start
    if end is not None:
        mask &= events["gmt_create"] < end
    return events[mask.fillna(False).astype(bool)]


def _check_freq(freq: str) -> str:
    try:
        to_offset(freq)
    except ValueError:
        raise ValueError(
            f"freq: {freq!r} is not a pandas frequency; use e.g. '15min', '1h', '6h', '1D'"
        ) from None
    return freq


def event_volume(
    events: pd.DataFrame, freq: str = "1h", *, window: Window | None = None
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

    Returns
    -------
    pandas.DataFrame
        Columns ``time`` (bucket start, UTC), ``event_type_name``, ``events`` (Int64) and
        ``partial`` (the bucket is only partly inside ``window``; False without one);
        every type present in the frame has a row for every bucket (zeros included).

    Examples
    --------
    >>> analysis.event_volume(events, "6h").head()  # doctest: +SKIP
    """
    require_columns(events, ["gmt_create", "event_type"], "event_volume")
    _check_freq(freq)
    columns = {
        "time": "datetime64[ns, UTC]",
        "event_type_name": "string",
        "events": "Int64",
        "partial": "bool",
    }
    if events.empty:
        return pd.DataFrame({c: pd.Series([], dtype=d) for c, d in columns.items()})
    labels = events["event_type"].map(_TYPE_LABELS).astype("string").fillna(NONE_LABEL)
    buckets = events["gmt_create"].dt.floor(freq)
    table = pd.crosstab(buckets.rename("time"), labels.rename("event_type_name"))
    first, last = table.index.min(), table.index.max()
    if window is not None:
        first = min(first, window[0].floor(freq))
        last = max(last, (window[1] - pd.Timedelta(1, "ns")).floor(freq))
    full = pd.date_range(first, last, freq=freq, tz="UTC", name="time")
    table = table.reindex(full, fill_value=0)
    order = [label for label in _TYPE_LABELS.values() if label in table.columns]
    order += [c for c in table.columns if c not in order]
    stacked: pd.Series = table[order].stack()  # type: ignore[assignment]
    out = stacked.rename("events").reset_index()
    out["partial"] = False
    if window is not None:
        step = to_offset(freq)
        out["partial"] = (out["time"] < window[0]) | (out["time"] + step > window[1])
    return out.astype(columns)


def hour_weekday_matrix(events: pd.DataFrame) -> pd.DataFrame:
    """Events by weekday (rows, Monday first) and hour of day (columns 0..23, UTC).

    Examples
    --------
    >>> analysis.hour_weekday_matrix(events).loc["Monday", 3]  # doctest: +SKIP
    """
    require_columns(events, ["gmt_create"], "hour_weekday_matrix")
    moments = events["gmt_create"].dropna()
    weekday = moments.dt.day_of_week.map(dict(enumerate(WEEKDAYS))).rename("weekday")
    hour = moments.dt.hour.rename("hour")
    table = pd.crosstab(weekday, hour) if len(moments) else pd.DataFrame()
    table = table.reindex(index=list(WEEKDAYS), columns=range(24), fill_value=0).fillna(0)
    table.index.name, table.columns.name = "weekday", "hour"
    return table.astype("int64")


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
    labels = list(_TYPE_LABELS.values())
    if events.empty:
        cols = ["device_id", "events", "share", "events_per_day", *labels, "top_type"]
        return pd.DataFrame({c: pd.Series([], dtype="string") for c in cols})
    # Counts by (device, type) with one bincount over codes, much cheaper than pd.crosstab
    # (docs/performance.md). Devices sorted by id, as crosstab sorts them, so ties keep
    # crosstab's order; events of an unknown type count for no column.
    devices, device_ids = pd.factorize(events["device_id"], sort=True)
    known = list(_TYPE_LABELS)
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


def alarm_codes(events: pd.DataFrame, *, kinds: EventKinds | None = None) -> pd.DataFrame:
    """Alarm events (the platform's fault kind) by code: how many, on how many devices,
    first and last seen.

    Codes starting with ``F`` put a device into the fault state (protocol §6.19); they are
    marked ``fault``, every other code ``alarm``. ``kinds`` says which event types are
    faults (default: the frame's own, see :mod:`opslib.analysis.kinds`).

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
    out["first_seen"] = out["first_seen"].astype("datetime64[ns, UTC]")
    out["last_seen"] = out["last_seen"].astype("datetime64[ns, UTC]")
    return out.sort_values(["alarms", "code"], ascending=[False, True]).reset_index(drop=True)


def outages(
    events: pd.DataFrame, *, end: pd.Timestamp | None = None, kinds: EventKinds | None = None
) -> pd.DataFrame:
    """Offline periods: from an offline event to the device's next online event.

    Which event types mean offline and online comes from ``kinds`` (default: the frame's
    own, see :mod:`opslib.analysis.kinds`); on a platform without them there are none.

    Repeated offline events count from the first; an online event with no offline event
    before it in the frame is ignored (the state before the window is unknown). A device
    still offline at the end of the frame has an outage that runs to ``end`` (default: its
    last event of any type) and is marked ``ongoing``.

    Returns
    -------
    pandas.DataFrame
        Columns ``device_id``, ``offline_at``, ``online_at`` (NaT while ongoing),
        ``duration`` (Timedelta), ``ongoing``.

    Examples
    --------
    >>> analysis.outages(events, end=pd.Timestamp("2024-05-08", tz="UTC"))  # doctest: +SKIP
    """
    require_columns(events, ["device_id", "event_type", "gmt_create"], "outages")
    known = event_kinds(events, kinds)
    online = sorted(known.online) if known.has_outages else []
    offline = sorted(known.offline) if known.has_outages else []
    state = events[events["event_type"].isin([*online, *offline])]
    state = state[["device_id", "event_type", "gmt_create"]].dropna()
    # Order by device, time, event_id with one lexsort over integer keys, not over the text
    # columns; the sort is stable, as sort_values(stable).
    devices, device_ids = pd.factorize(state["device_id"], sort=True)
    times = state["gmt_create"].to_numpy(dtype="datetime64[ns]").view("int64")
    keys = [times, devices]
    if "event_id" in events.columns:
        event_ids, _ = pd.factorize(events.loc[state.index, "event_id"], sort=True)
        keys.insert(0, event_ids)
    order = np.lexsort(keys)
    # 1 went offline, 0 came online: the codes themselves are the platform's.
    went_off = state["event_type"].isin(offline).to_numpy(dtype=bool).astype("int64")
    dev, kind, moment = devices[order], went_off[order], times[order]
    # Keep only state changes: the first of each run of equal events per device.
    first = np.ones(len(dev), dtype=bool)
    first[1:] = (dev[1:] != dev[:-1]) | (kind[1:] != kind[:-1])
    dev, kind, moment = dev[first], kind[first], moment[first]
    same_next = np.zeros(len(dev), dtype=bool)
    same_next[:-1] = dev[1:] == dev[:-1]
    next_kind = np.append(kind[1:], -1)
    next_moment = np.append(moment[1:], 0)
    is_off = kind == 1
    back = is_off & same_next & (next_kind == 0)
    online_ns = np.where(back, next_moment, np.iinfo(np.int64).min)[is_off]  # min: NaT
    closing = end if end is not None else events["gmt_create"].max()
    out = pd.DataFrame(
        {
            "device_id": pd.array(np.asarray(device_ids)[dev[is_off]], dtype="string"),
            "offline_at": pd.to_datetime(moment[is_off], utc=True),
            "online_at": pd.to_datetime(online_ns.view("datetime64[ns]"), utc=True),
        }
    )
    out["ongoing"] = out["online_at"].isna()
    stop = out["online_at"].fillna(closing) if len(out) else out["online_at"]
    out["duration"] = _non_negative(stop - out["offline_at"])
    out["online_at"] = out["online_at"].astype("datetime64[ns, UTC]")
    out["offline_at"] = out["offline_at"].astype("datetime64[ns, UTC]")
    out["duration"] = out["duration"].astype("timedelta64[ns]")
    out["ongoing"] = out["ongoing"].astype("boolean")
    # Already by device_id (codes of the sorted ids), then offline_at.
    return out[["device_id", "offline_at", "online_at", "duration", "ongoing"]]


def _non_negative(durations: pd.Series) -> pd.Series:
    return durations.where(durations > pd.Timedelta(0), pd.Timedelta(0))


def downtime(
    events: pd.DataFrame, *, window: Window | None = None, kinds: EventKinds | None = None
) -> pd.DataFrame:
    """Downtime per device from its outages, and its availability over the window.

    Parameters
    ----------
    events
        An event frame.
    window
        ``(start, end)`` the events cover; ongoing outages run to ``end`` and availability
        is measured over the window (default: first to last event of the frame).
    kinds
        The platform's event kinds (default: the frame's own); without online and offline
        events (``kinds.has_outages`` false) the result is empty: ask
        ``kinds.missing("outages")`` before showing it.

    Returns
    -------
    pandas.DataFrame
        Columns ``device_id``, ``outages``, ``downtime_hours``, ``longest_hours``,
        ``ongoing`` and ``availability`` (0..1); most downtime first.

    Examples
    --------
    >>> analysis.downtime(events, window=window).head()  # doctest: +SKIP
    """
    end = window[1] if window is not None else None
    gaps = outages(events, end=end, kinds=kinds)
    columns = {
        "device_id": "string",
        "outages": "Int64",
        "downtime_hours": "Float64",
        "longest_hours": "Float64",
        "ongoing": "boolean",
        "availability": "Float64",
    }
    if gaps.empty:
        return pd.DataFrame({c: pd.Series([], dtype=d) for c, d in columns.items()})
    hours = gaps["duration"].dt.total_seconds() / 3600
    frame = gaps.assign(hours=hours)
    out = frame.groupby("device_id", sort=True).agg(
        outages=("hours", "size"),
        downtime_hours=("hours", "sum"),
        longest_hours=("hours", "max"),
        ongoing=("ongoing", "any"),
    )
    if window is not None:
        span_hours = (window[1] - window[0]) / pd.Timedelta(hours=1)
    else:
        span = events["gmt_create"].max() - events["gmt_create"].min()
        span_hours = max(span / pd.Timedelta(hours=1), 1e-9)
    out["availability"] = (1 - out["downtime_hours"] / span_hours).clip(lower=0.0, upper=1.0)
    out = out.reset_index().astype(columns)
    return out.sort_values(["downtime_hours", "device_id"], ascending=[False, True]).reset_index(
        drop=True
    )


def property_columns(events: pd.DataFrame) -> list[str]:
    """The ``properties.<key>`` columns whose values are (almost all) numbers.

    Examples
    --------
    >>> property_columns(events)  # doctest: +SKIP
    ['properties.power', 'properties.temperature']
    """
    names = []
    for column in events.columns:
        if not column.startswith(PROPERTY_PREFIX):
            continue
        series = events[column]
        if pd.api.types.is_bool_dtype(series.dtype):
            continue
        if pd.api.types.is_numeric_dtype(series.dtype):  # every value a number: no parsing
            if series.notna().any():
                names.append(column)
            continue
        share = _numeric_share(series)
        if share is not None and share >= _NUMERIC_SHARE:
            names.append(column)
    return sorted(names)


def _numeric_share(series: pd.Series) -> float | None:
    """The share of a text or object column's present values that parse as numbers (None:
    no value). Text is parsed once per distinct value (1M rows of a few modes: one hash
    pass instead of a million parses)."""
    if isinstance(series.dtype, pd.StringDtype) and series.dtype.storage == "pyarrow":
        counts = pc.value_counts(pa.array(series.array)).flatten()
        values = pd.Series(counts[0].to_pandas(), dtype=object)
        weights = counts[1].to_numpy()
        present = values.notna().to_numpy()
        total = int(weights[present].sum())
        if not total:
            return None
        numeric = pd.to_numeric(values[present], errors="coerce").notna().to_numpy()
        return float(weights[present][numeric].sum() / total)
    values = series.dropna()
    if values.empty:
        return None
    return float(pd.to_numeric(values, errors="coerce").notna().mean())


def _as_float(series: pd.Series) -> np.ndarray:
    """A property column as float64 values, NaN where missing or not a number."""
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        return series.to_numpy(dtype="float64", na_value=np.nan)
    numeric = pd.to_numeric(series, errors="coerce")
    return numeric.to_numpy(dtype="float64", na_value=np.nan)


def property_stats(events: pd.DataFrame) -> pd.DataFrame:
    """Statistics of every numeric reported property.

    Returns
    -------
    pandas.DataFrame
        One row per property (``property`` without the ``properties.`` prefix) with
        ``reports``, ``devices``, ``mean``, ``std``, ``min``, ``p05``, ``median``, ``p95``
        and ``max``.

    Examples
    --------
    >>> analysis.property_stats(events)  # doctest: +SKIP
    """
    rows = []
    numeric_columns = property_columns(events)
    # Device ids as codes once; per property the distinct codes among its reports (not
    # nunique over the text, once per property).
    devices, _ = (
        pd.factorize(events["device_id"]) if numeric_columns else (np.empty(0, np.int64), None)
    )
    seen = np.zeros(int(devices.max()) + 1 if len(devices) else 0, dtype=bool)
    for column in numeric_columns:
        values = _as_float(events[column])
        present = ~np.isnan(values)
        data = values[present]
        reported = devices[present]
        seen[:] = False
        seen[reported[reported >= 0]] = True
        # One sort of the values for the three quantiles (linear, as pandas computes them)
        p05, median, p95 = np.quantile(data, [0.05, 0.5, 0.95]) if data.size else [np.nan] * 3
        rows.append(
            {
                "property": column.removeprefix(PROPERTY_PREFIX),
                "reports": int(data.size),
                "devices": int(np.count_nonzero(seen)),
                "mean": data.mean() if data.size else np.nan,
                "std": data.std(ddof=1) if data.size > 1 else np.nan,
                "min": data.min() if data.size else np.nan,
                "p05": p05,
                "median": median,
                "p95": p95,
                "max": data.max() if data.size else np.nan,
            }
        )
    columns = {"property": "string", "reports": "Int64", "devices": "Int64"}
    stats = ["mean", "std", "min", "p05", "median", "p95", "max"]
    columns.update(dict.fromkeys(stats, "Float64"))
    if not rows:
        return pd.DataFrame({c: pd.Series([], dtype=d) for c, d in columns.items()})
    return pd.DataFrame(rows).astype(columns)


def value_by_command(events: pd.DataFrame) -> pd.DataFrame:
    """``events`` with the generic ``properties.value`` split by the command it belongs to.

    A command event reports ``{"command": "set_brightness", "value": 80}``: one ``value``
    key for unrelated quantities (a brightness, a temperature...). Each command's values
    become a column of their own, ``properties.value (set_brightness)``, so statistics
    never mix them; frames without both keys are returned as they are.

    Examples
    --------
    >>> analysis.property_stats(analysis.value_by_command(events))  # doctest: +SKIP
    """
    value, command = f"{PROPERTY_PREFIX}value", f"{PROPERTY_PREFIX}command"
    if value not in events.columns or command not in events.columns:
        return events
    names = events[command].astype("string")
    out = events.drop(columns=[value])
    extra = {}
    for name in sorted(names.dropna().unique()):
        extra[f"{value} ({name})"] = events[value].where(names == name)
    orphan = events[value].where(names.isna())
    if orphan.notna().any():
        extra[value] = orphan
    return pd.concat([out, pd.DataFrame(extra, index=events.index)], axis=1)
