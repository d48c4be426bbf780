"""Downtime: outages from offline to online, each device started in its state at the
window's start.

An outage runs from a device's offline event to its next online event. A device that was
already offline when the window began (its last online/offline event before the window
was an offline one, or its first one inside is an online one, or the listing says it is
offline and silent since before the window) is offline from the window's first moment: a
device offline all day has 24 hours of downtime in a one-day window, not none. An outage
still open at the end of the window runs to its end.

Which event types mean offline and online is the platform's (:mod:`opslib.analysis.kinds`);
where it reports neither, or a filter left them out, downtime is not computed, and
:func:`downtime_not_computed` says why in one sentence (never a zero).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from opslib.analysis._common import Window, require_columns
from opslib.analysis.kinds import EventKinds, event_kinds, type_labels

__all__ = [
    "FILTER_ATTR",
    "downtime",
    "downtime_not_computed",
    "outages",
    "start_states",
]

FILTER_ATTR = "event_types"
"""The key of ``DataFrame.attrs`` where a frame filtered by event type keeps the types it
kept (:func:`opslib.analysis.filter_events`)."""

_STATE_COLUMNS = {"device_id": "string", "state": "string", "since": "datetime64[ns, UTC]"}


def _state_events(events: pd.DataFrame | None, known: EventKinds) -> pd.DataFrame:
    """The online/offline events of ``events``, ordered by time (event id breaks ties),
    with ``down`` (1 went offline, 0 came online)."""
    if events is None or events.empty or not known.has_outages:
        return pd.DataFrame(
            {
                "device_id": pd.Series([], dtype="string"),
                "gmt_create": pd.Series([], dtype="datetime64[ns, UTC]"),
                "down": pd.Series([], dtype="int64"),
            }
        )
    codes = [*known.online, *known.offline]
    state = events[events["event_type"].isin(codes).fillna(False).astype(bool)]
    keys = ["gmt_create", "event_id"] if "event_id" in state.columns else ["gmt_create"]
    state = state.sort_values(keys, kind="stable")
    return pd.DataFrame(
        {
            "device_id": state["device_id"].astype("string"),
            "gmt_create": state["gmt_create"],
            "down": state["event_type"].isin(sorted(known.offline)).astype("int64"),
        }
    ).dropna(subset=["device_id", "gmt_create"])


def start_states(
    moment: pd.Timestamp,
    *,
    before: pd.DataFrame | None = None,
    after: pd.DataFrame | None = None,
    devices: pd.DataFrame | None = None,
    kinds: EventKinds | None = None,
) -> pd.DataFrame:
    """Each device's state at ``moment``, from what is known, best first.

    1. Its last online/offline event before ``moment`` (in ``before``).
    2. Else its first one from ``moment`` on (in ``after``): an online event means it was
       down until then, an offline event that it was up.
    3. Else the listing (``devices``): a device whose ``status_name`` is ``offline`` and
       whose last report (``gmt_last_seen``) is before ``moment`` has been offline since.

    A device none of these names was up (or never online): it has no downtime.

    Parameters
    ----------
    moment
        The window's start.
    before, after
        Event frames before and from ``moment`` (any types; the window's events as
        ``after``).
    devices
        A device frame (``client.devices.list()``).
    kinds
        The platform's event kinds (default: the frames' own).

    Returns
    -------
    pandas.DataFrame
        ``device_id``, ``state`` (``offline`` or ``online``) and ``since`` (when it went
        into that state, or its last report for a device offline by the listing; NaT when
        only a later event tells).

    Examples
    --------
    >>> states = analysis.start_states(window[0], after=events, devices=devices)  # doctest: +SKIP
    """
    known = event_kinds(after if after is not None else before, kinds)
    moment = pd.Timestamp(moment).tz_convert("UTC")
    frames = []
    prior = _state_events(before, known)
    prior = prior[prior["gmt_create"] < moment]
    last = prior.groupby("device_id", sort=False).tail(1)
    frames.append(
        pd.DataFrame(
            {
                "device_id": last["device_id"],
                "state": np.where(last["down"] == 1, "offline", "online"),
                "since": last["gmt_create"],
            }
        )
    )
    later = _state_events(after, known)
    later = later[later["gmt_create"] >= moment]
    first = later.groupby("device_id", sort=False).head(1)
    frames.append(
        pd.DataFrame(
            {
                "device_id": first["device_id"],
                "state": np.where(first["down"] == 1, "online", "offline"),
                "since": pd.Series(pd.NaT, index=first.index, dtype="datetime64[ns, UTC]"),
            }
        )
    )
    if devices is not None and not devices.empty and known.has_outages:
        require_columns(devices, ["device_id", "status_name", "gmt_last_seen"], "start_states")
        seen = devices["gmt_last_seen"]
        off = (devices["status_name"].astype("string") == "offline") & (seen < moment)
        quiet = devices[off.fillna(False).astype(bool)]
        frames.append(
            pd.DataFrame(
                {
                    "device_id": quiet["device_id"].astype("string"),
                    "state": "offline",
                    "since": quiet["gmt_last_seen"],
                }
            )
        )
    out = (
        pd.concat([f for f in frames if len(f)], ignore_index=True)
        if any(len(f) for f in frames)
        else pd.DataFrame({c: pd.Series([], dtype=d) for c, d in _STATE_COLUMNS.items()})
    )
    out = out.drop_duplicates("device_id", keep="first")
    out["since"] = pd.to_datetime(out["since"], utc=True)
    return out.astype(_STATE_COLUMNS).reset_index(drop=True)


def outages(
    events: pd.DataFrame,
    *,
    end: pd.Timestamp | None = None,
    kinds: EventKinds | None = None,
    start: pd.Timestamp | None = None,
    down: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Offline periods: from an offline event to the device's next online event.

    Repeated offline events count from the first. A device in ``down`` (offline at
    ``start``, see :func:`start_states`) is offline from ``start``; without it, an online
    event with no offline event before it is ignored. A device still offline at the end has
    an outage that runs to ``end`` (default: the frame's last event) and is ``ongoing``.

    Returns
    -------
    pandas.DataFrame
        ``device_id``, ``offline_at``, ``online_at`` (NaT while ongoing), ``duration``
        (Timedelta), ``ongoing``, ``before_window`` (already offline at ``start``) and
        ``since`` (for those, when they went offline or last reported, when known).

    Examples
    --------
    >>> analysis.outages(events, end=pd.Timestamp("2024-05-08", tz="UTC"))  # doctest: +SKIP
    """
    require_columns(events, ["device_id", "event_type", "gmt_create"], "outages")
    known = event_kinds(events, kinds)
    state = _state_events(events, known)
    if start is not None:
        state = state[state["gmt_create"] >= start]
    seeded = 0
    if start is not None and down is not None and len(down):
        first = pd.DataFrame(
            {
                "device_id": down["device_id"].astype("string"),
                "gmt_create": pd.Series(pd.Timestamp(start), index=down.index).dt.tz_convert("UTC"),
                "down": 1,
            }
        )
        seeded = len(first)
        state = pd.concat([first, state], ignore_index=True)
    devices, device_ids = pd.factorize(state["device_id"], sort=True)
    times = pd.to_datetime(state["gmt_create"], utc=True).to_numpy(dtype="datetime64[ns]")
    times = times.view("int64")
    order_in = np.arange(len(state))  # the seeded rows first, then the events' own order
    order = np.lexsort([order_in, times, devices])
    kind = state["down"].to_numpy(dtype="int64")
    seed_flag = order_in < seeded
    dev, kind, moment, seeded_row = devices[order], kind[order], times[order], seed_flag[order]
    # Keep only state changes: the first of each run of equal events per device.
    keep = np.ones(len(dev), dtype=bool)
    keep[1:] = (dev[1:] != dev[:-1]) | (kind[1:] != kind[:-1])
    dev, kind, moment, seeded_row = dev[keep], kind[keep], moment[keep], seeded_row[keep]
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
            "before_window": pd.array(seeded_row[is_off], dtype="boolean"),
        }
    )
    out["ongoing"] = out["online_at"].isna()
    stop = out["online_at"].fillna(closing) if len(out) else out["online_at"]
    out["duration"] = _non_negative(stop - out["offline_at"])
    since = pd.Series(pd.NaT, index=out.index, dtype="datetime64[ns, UTC]")
    if seeded:
        assert down is not None
        known_since = dict(zip(down["device_id"].astype(str), down["since"], strict=True))
        flagged = out["before_window"].fillna(False).astype(bool)
        found = out["device_id"].astype(str).map(known_since)
        since = pd.to_datetime(found, utc=True).where(flagged.to_numpy())
    out["since"] = pd.to_datetime(since, utc=True)
    zone = getattr(end if end is not None else start, "tzinfo", None)
    for column in ("offline_at", "online_at", "since"):
        out[column] = out[column].astype("datetime64[ns, UTC]")
        if zone is not None:
            out[column] = out[column].dt.tz_convert(zone)
    out["duration"] = out["duration"].astype("timedelta64[ns]")
    out["ongoing"] = out["ongoing"].astype("boolean")
    columns = ["device_id", "offline_at", "online_at", "duration", "ongoing"]
    return out[[*columns, "before_window", "since"]]


def _non_negative(durations: pd.Series) -> pd.Series:
    return durations.where(durations > pd.Timedelta(0), pd.Timedelta(0))


def downtime(
    events: pd.DataFrame,
    *,
    window: Window | None = None,
    kinds: EventKinds | None = None,
    devices: pd.DataFrame | None = None,
    before: pd.DataFrame | None = None,
    states: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Downtime per device from its outages, and its availability over the window.

    Parameters
    ----------
    events
        An event frame.
    window
        ``(start, end)`` the events cover; ongoing outages run to ``end``, availability
        is measured over the window (default: first to last event of the frame).
    kinds
        The platform's event kinds (default: the frame's own); without online and offline
        events the result is empty: ask :func:`downtime_not_computed` before showing it.
    devices, before, states
        What tells each device's state at the window's start (:func:`start_states`): the
        listing, the events before the window (e.g. the previous period's), or the states
        themselves. Without any, a device already offline when the window began is missed.

    Returns
    -------
    pandas.DataFrame
        ``device_id``, ``outages``, ``downtime_hours``, ``longest_hours``, ``ongoing``,
        ``since_before`` (offline when the window began) and ``availability`` (0..1);
        most downtime first.

    Examples
    --------
    >>> analysis.downtime(events, window=window, devices=devices).head()  # doctest: +SKIP
    """
    start, end = (window[0], window[1]) if window is not None else (None, None)
    if states is None and start is not None and (devices is not None or before is not None):
        states = start_states(start, before=before, after=events, devices=devices, kinds=kinds)
    down = states[states["state"] == "offline"] if states is not None else None
    gaps = outages(events, end=end, kinds=kinds, start=start if down is not None else None,
                   down=down)  # fmt: skip
    columns = {
        "device_id": "string",
        "outages": "Int64",
        "downtime_hours": "Float64",
        "longest_hours": "Float64",
        "ongoing": "boolean",
        "since_before": "boolean",
        "availability": "Float64",
    }
    if gaps.empty:
        return pd.DataFrame({c: pd.Series([], dtype=d) for c, d in columns.items()})
    hours = gaps["duration"].dt.total_seconds() / 3600
    frame = gaps.assign(hours=hours, before=gaps["before_window"].fillna(False).astype(bool))
    out = frame.groupby("device_id", sort=True).agg(
        outages=("hours", "size"),
        downtime_hours=("hours", "sum"),
        longest_hours=("hours", "max"),
        ongoing=("ongoing", "any"),
        since_before=("before", "any"),
    )
    if window is not None:
        span_hours = (window[1] - window[0]) / pd.Timedelta(hours=1)
    else:
        span = events["gmt_create"].max() - events["gmt_create"].min()
        span_hours = max(span / pd.Timedelta(hours=1), 1e-9)
    out["availability"] = (1 - out["downtime_hours"] / span_hours).clip(lower=0.0, upper=1.0)
    out = out.reset_index().astype(columns)[list(columns)]
    return out.sort_values(["downtime_hours", "device_id"], ascending=[False, True]).reset_index(
        drop=True
    )


def downtime_not_computed(events: pd.DataFrame | None, kinds: EventKinds | None = None) -> str:
    """Why downtime cannot be computed from ``events``, in one sentence; "" when it can.

    Either the platform reports no online/offline events, or a filter on event types (kept
    in ``events.attrs["event_types"]`` by :func:`opslib.analysis.filter_events`) left them
    out: then there is no measure, and a zero would be false.

    Examples
    --------
    >>> analysis.downtime_not_computed(analysis.filter_events(events, event_types=["alarm"]))
    ...  # doctest: +SKIP
    'Downtime not computed: the event types chosen (alarm) leave out the online and ...'
    """
    from opslib.analysis.kinds import not_computable

    known = event_kinds(events, kinds)
    said = not_computable(known, "outages")
    if said:
        return said["outages"]
    kept: Sequence[int] | None = None if events is None else events.attrs.get(FILTER_ATTR)
    needed = set(known.online) | set(known.offline)
    if kept is not None and not needed <= {int(k) for k in kept}:
        assert events is not None
        names = _type_names(kept, type_labels(events))
        return (
            f"Downtime not computed: the event types chosen ({names}) leave out the online "
            "and offline events it is measured from; choose them too, or no event type."
        )
    return ""


def _type_names(codes: Sequence[int], labels: Mapping[int, str]) -> str:
    return ", ".join(labels.get(int(c), str(c)) for c in codes) or "none"
