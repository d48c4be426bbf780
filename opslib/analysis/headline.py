"""The few figures a report opens with, one function per report.

Each returns a list of :class:`Figure`: a name (``key``, what status.json and an alert
call it: ``fleet.online_share``), a label, a value (None when it could not be computed,
and ``note`` says why), a unit, the previous value and the change in words. The reports
show them as their first screen, and the runner records the same figures as the report's
metrics (:mod:`opslib.reports.metrics`): a figure may also carry the ids it counts
(:class:`Members`, a named set: the silent devices) or a value per product (``parts``),
and a few are published without a card (``shown=False``).

>>> Figure("events.alarms", "alarms", 7, previous=5).change_text()
'+2 (previous 5)'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from opslib._percent import figure_text, step_text
from opslib.analysis._common import Window
from opslib.analysis.compare import top_offender
from opslib.analysis.downtime import downtime, downtime_not_computed
from opslib.analysis.kinds import event_kinds
from opslib.analysis.names import product_names

__all__ = [
    "Figure",
    "Members",
    "event_headline",
    "fleet_headline",
    "product_headline",
    "user_headline",
]


@dataclass(frozen=True)
class Members:
    """The ids a figure counts, published as a set of the figure's name.

    ``noun`` names one member; ``joined`` and ``left`` say what a member added to or
    removed from the set since the last run did ("12 devices went silent, 3 came back").

    Examples
    --------
    >>> Members(("d1", "d2"), joined="went silent", left="came back").ids
    ('d1', 'd2')
    """

    ids: tuple[str, ...]
    noun: str = "device"
    joined: str = "joined"
    left: str = "left"
    names: dict[str, str] | None = None
    """How people know each id (a device's name), where known."""


@dataclass(frozen=True)
class Figure:
    """One headline figure.

    Attributes
    ----------
    key
        Its name as a metric, the report's scope first (``events.downtime_hours``).
    label
        How the report names it (``downtime``).
    value
        A number, a text (a name, a time), or None when it could not be computed.
    unit
        ``h``, ``%``... ("" for a count).
    previous
        The value of the period before, when there is one.
    change
        The change in words when it is not from ``previous`` (``3 bound in the last 7
        days``).
    note
        A few words under it: why it was not computed, whose it is.
    members
        The ids it counts, published as a set of the same name.
    parts
        Its value per product (or other key), published as ``key[part]``.
    part_names
        How people know each part (a product's name), shown beside its id.
    shown
        False for a figure published as a metric without a card on the first screen.
    """

    key: str
    label: str
    value: float | int | str | None
    unit: str = ""
    previous: float | int | None = None
    change: str = ""
    note: str = ""
    members: Members | None = None
    parts: dict[str, float] | None = None
    part_names: dict[str, str] | None = None
    shown: bool = True

    def value_text(self) -> str:
        """The value as shown: ``1,234``, ``95.1%``, ``12.5 h``, or ``not computed``.

        Examples
        --------
        >>> Figure("online", "online", 95.12, "%").value_text()
        '95.1%'
        """
        if self.value is None:
            return "not computed"
        if isinstance(self.value, str):
            return self.value
        return figure_text(float(self.value), self.unit)

    def change_text(self) -> str:
        """The change against the previous value, or ``change`` as given.

        Examples
        --------
        >>> Figure("events", "events", 120, previous=100).change_text()
        '+20% (previous 100)'
        """
        if self.change or self.previous is None or not isinstance(self.value, int | float):
            return self.change
        before, now = float(self.previous), float(self.value)
        shown = figure_text(before, self.unit)
        if before == now:
            return f"no change (previous {shown})"
        return f"{step_text(before, now, self.unit)} (previous {shown})"

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON: every field, plus ``value_text`` and ``change_text``."""
        out = asdict(self)
        out["value_text"], out["change_text"] = self.value_text(), self.change_text()
        return out


def _share(part: int, whole: int) -> float | None:
    return part / whole * 100 if whole else None


def _ids(devices: pd.DataFrame, mask: pd.Series) -> tuple[str, ...]:
    return tuple(sorted(devices.loc[mask.fillna(False).astype(bool), "device_id"].astype(str)))


def _members(
    ids: tuple[str, ...], names: Mapping[str, str] | None, *, joined: str, left: str
) -> Members:
    """Devices as a set, each with its name where ``names`` knows it."""
    known = {i: str(names[i]) for i in ids if i in names} if names else {}
    return Members(ids, joined=joined, left=left, names=known or None)


def _faulty(devices: pd.DataFrame, status: pd.Series, names: Mapping[str, str] | None) -> Figure:
    """Devices of status fault now; not computed where the platform's statuses have no
    fault (its devices frame lists them all as the categories of ``status_name``)."""
    dtype = devices["status_name"].dtype
    if isinstance(dtype, pd.CategoricalDtype) and "fault" not in set(dtype.categories):
        shown = ", ".join(str(c) for c in dtype.categories)
        why = f"this platform has no fault status (its statuses: {shown})"
        return Figure("fleet.faulty_devices", "faulty", None, note=why)
    faulty = status == "fault"
    return Figure(
        "fleet.faulty_devices",
        "faulty",
        int(faulty.sum()),
        change="status fault now",
        members=_members(_ids(devices, faulty), names, joined="became faulty", left="recovered"),
    )


def fleet_headline(
    devices: pd.DataFrame,
    *,
    silent_days: float = 7,
    now: pd.Timestamp | None = None,
    names: Mapping[str, str] | None = None,
) -> list[Figure]:
    """Devices, % online, faulty, silent for ``silent_days`` days or more, never online;
    published without a card: the offline share and the offline devices.

    The faulty, silent, never-online and offline figures carry their devices' ids (sets of
    the same name), each with its name where ``names`` (device id → name,
    :func:`~opslib.analysis.device_names`) knows it.

    Examples
    --------
    >>> [f.key for f in fleet_headline(devices) if f.shown]  # doctest: +SKIP
    ['fleet.devices', 'fleet.online_share', 'fleet.faulty_devices', 'fleet.silent_devices',
     'fleet.never_online']
    """
    reference = pd.Timestamp.now(tz="UTC") if now is None else pd.Timestamp(now)
    week = reference - pd.Timedelta(days=7)
    total = len(devices)
    status = devices["status_name"].astype("string")
    seen = devices["gmt_last_seen"]
    cutoff = reference - pd.Timedelta(days=silent_days)
    silent = seen.notna() & (seen < cutoff)
    newly_silent = silent & (seen >= cutoff - pd.Timedelta(days=7))
    never = seen.isna()
    bound_lately = devices["gmt_bind"] >= week
    online = int((status == "online").sum())
    offline = status == "offline"
    return [
        Figure(
            "fleet.devices", "devices", total,
            change=f"{int(bound_lately.sum()):,} bound in the last 7 days",
        ),
        Figure(
            "fleet.online_share", "online now", _share(online, total), "%",
            change=f"{online:,} of {total:,} devices", note="" if total else "no device",
        ),
        _faulty(devices, status, names),
        Figure(
            "fleet.silent_devices", f"silent {silent_days:g}+ days", int(silent.sum()),
            change=f"{int(newly_silent.sum()):,} went silent in the last 7 days",
            members=_members(_ids(devices, silent), names, joined="went silent", left="came back"),
        ),
        Figure(
            "fleet.never_online", "never online", int(never.sum()),
            change=f"{int((never & bound_lately).sum()):,} of them bound in the last 7 days",
            members=_members(
                _ids(devices, never), names, joined="bound but never online", left="came online"
            ),
        ),
        Figure(
            "fleet.offline_share", "offline now", _share(int(offline.sum()), total), "%",
            shown=False,
        ),
        Figure(
            "fleet.offline_devices", "offline", int(offline.sum()), shown=False,
            members=_members(
                _ids(devices, offline), names, joined="went offline", left="came back online"
            ),
        ),
    ]  # fmt: skip


def event_headline(
    events: pd.DataFrame,
    earlier: pd.DataFrame,
    *,
    window: Window,
    previous_window: Window,
    devices: pd.DataFrame | None = None,
    names: Mapping[str, str] | None = None,
    products: pd.DataFrame | None = None,
) -> list[Figure]:
    """Events, alarms, devices with alarms and downtime (each with the previous period's),
    and the top offender when one device sent a large share of the alarms; published
    without a card: the fault codes seen and the fault rate by product (each product by
    its name in ``products``, when given).

    A fault is an alarm whose code starts with F (as :func:`~opslib.analysis.alarm_codes`
    tells them); a product's fault rate is the share of its devices (of ``devices``, else
    of those that sent events) that sent one in the period.

    Examples
    --------
    >>> [f.key for f in event_headline(events, earlier, window=w, previous_window=p)]
    ...  # doctest: +SKIP
    ['events.total', 'events.alarms', 'events.devices_with_alarms', 'events.downtime_hours',
     'events.fault_codes', 'events.fault_rate_by_product']
    """
    from opslib.analysis.compare import period_states

    known = event_kinds(events)
    faults = known.codes("fault")
    figures = [Figure("events.total", "events", len(events), previous=len(earlier))]

    def alarms(frame: pd.DataFrame) -> pd.DataFrame:
        return frame[frame["event_type"].isin(faults).fillna(False).astype(bool)]

    if known.reports("fault"):
        now, before = alarms(events), alarms(earlier)
        figures.append(Figure("events.alarms", "alarms", len(now), previous=len(before)))
        alarming = tuple(sorted(now["device_id"].dropna().astype(str).unique()))
        figures.append(
            Figure(
                "events.devices_with_alarms", "devices with alarms", len(alarming),
                previous=int(before["device_id"].nunique()),
                members=_members(alarming, names, joined="started raising alarms", left="stopped"),
            )
        )  # fmt: skip
    else:
        why = "this platform reports no alarms"
        figures.append(Figure("events.alarms", "alarms", None, note=why))
    why = downtime_not_computed(events)
    if why:
        figures.append(Figure("events.downtime_hours", "downtime", None, "h", note=why))
    else:
        now_states, before_states = period_states(
            events, earlier, current_window=window, previous_window=previous_window,
            devices=devices,
        )  # fmt: skip
        hours = downtime(events, window=window, states=now_states)["downtime_hours"].sum()
        previous = downtime(earlier, window=previous_window, states=before_states)
        figures.append(
            Figure(
                "events.downtime_hours", "downtime", round(float(hours), 1), "h",
                previous=round(float(previous["downtime_hours"].sum()), 1),
            )
        )  # fmt: skip
    found = top_offender(events, names=names)
    if found is not None:
        figures.append(
            Figure(
                "events.top_offender_share", "of the alarms from one device",
                round(found["share"] * 100, 1), "%",
                change=f"{found['alarms']:,} of {found['total']:,}", note=str(found["name"]),
            )
        )  # fmt: skip
    if known.reports("fault"):
        figures.extend(_fault_figures(alarms(events), events, devices, products))
    return figures


def _fault_figures(
    alarms: pd.DataFrame,
    events: pd.DataFrame,
    devices: pd.DataFrame | None,
    products: pd.DataFrame | None,
) -> list[Figure]:
    """The fault codes seen (a set) and the share of each product's devices with a fault."""
    codes = alarms["code"].astype("string").fillna("").str.strip()
    fault = codes.str.upper().str.startswith("F").fillna(False).astype(bool)
    seen = tuple(sorted(str(code) for code in codes[fault].unique()))
    figures = [
        Figure(
            "events.fault_codes", "fault codes seen", len(seen), shown=False,
            members=Members(seen, noun="fault code", joined="appeared", left="disappeared"),
        )
    ]  # fmt: skip
    if devices is None or "product_id" not in devices.columns:
        if "product_id" not in events.columns:
            return figures
        devices = events[["device_id", "product_id"]].drop_duplicates("device_id")
    fleet = devices[["device_id", "product_id"]].dropna().astype(str).drop_duplicates("device_id")
    faulty = set(alarms.loc[fault, "device_id"].dropna().astype(str))
    hit = fleet["device_id"].isin(faulty)
    rates = (hit.groupby(fleet["product_id"]).mean() * 100).round(1)
    catalogue = product_names(products)
    figures.append(
        Figure(
            "events.fault_rate_by_product", "devices with a fault",
            _share(int(hit.sum()), len(fleet)), "%", shown=False,
            parts={str(product): float(rate) for product, rate in rates.items()},
            part_names={str(p): catalogue[str(p)] for p in rates.index if str(p) in catalogue},
        )
    )  # fmt: skip
    return figures


def user_headline(
    user: pd.DataFrame,
    devices: pd.DataFrame,
    events: pd.DataFrame,
    *,
    days: int,
    masked: str = "",
    earlier: pd.DataFrame | None = None,
) -> list[Figure]:
    """The user, their devices (how many online), their last activity and their events
    (against the ``days`` before, ``earlier``).

    ``masked`` is the phone as shown (masked in unattended reports).

    Examples
    --------
    >>> [f.key for f in user_headline(user, devices, events, days=7)]  # doctest: +SKIP
    ['user.user', 'user.devices', 'user.last_activity', 'user.events']
    """
    row = user.iloc[0]
    nick = "" if pd.isna(row.get("nick_name")) else str(row.get("nick_name") or "")
    who = nick or str(row["user_id"])
    online = int((devices["status_name"].astype("string") == "online").sum())
    moments = [events["gmt_create"].max()] if len(events) else []
    last_login = row.get("gmt_last_login")
    if last_login is not None and not pd.isna(last_login):
        moments.append(pd.Timestamp(last_login))
    zone = events["gmt_create"].dt.tz if len(events) else None
    latest = max(moments) if moments else None
    when = "none" if latest is None else _moment(latest, zone)
    return [
        Figure(
            "user.user", "user", who,
            note=" ".join(p for p in (str(row["user_id"]), masked) if p),
        ),
        Figure("user.devices", "devices", len(devices), change=f"{online:,} online now"),
        Figure(
            "user.last_activity", "last activity", when,
            change="latest event or login" if latest is not None else "no event, no login",
        ),
        Figure(
            "user.events", f"events in {days} days", len(events),
            previous=None if earlier is None else len(earlier),
        ),
    ]  # fmt: skip


def _moment(moment: pd.Timestamp, zone: Any) -> str:
    from opslib.analysis.zones import zone_label

    if zone is not None and moment.tzinfo is not None:
        moment = moment.tz_convert(zone)
    return f"{moment:%Y-%m-%d %H:%M} {zone_label(moment.tzinfo)}"


def product_headline(
    check: Any, plan: pd.DataFrame, outcome: pd.DataFrame | None, *, apply: bool
) -> list[Figure]:
    """The plan's counts (to add, to change, to delete, blocked, problems in the file), or
    the apply's result (done, failed, skipped).

    Examples
    --------
    >>> [f.key for f in product_headline(check, plan, None, apply=False)]  # doctest: +SKIP
    ['products.add', 'products.replace', 'products.delete', 'products.blocked',
     'products.problems']
    """
    if apply and outcome is not None and len(outcome):
        counts = outcome["result"].value_counts()
        return [
            Figure("products.done", "changes done", int(counts.get("done", 0))),
            Figure("products.failed", "failed", int(counts.get("failed", 0))),
            Figure("products.skipped", "skipped", int(counts.get("skipped", 0))),
        ]
    counts = plan["action"].value_counts() if len(plan) else pd.Series(dtype="int64")
    problems = 0 if check is None else len(check.problems)
    unchanged = int(counts.get("unchanged", 0))
    return [
        Figure("products.add", "to add", int(counts.get("add", 0))),
        Figure("products.replace", "to delete and add again", int(counts.get("replace", 0))),
        Figure("products.delete", "to delete", int(counts.get("delete", 0))),
        Figure(
            "products.blocked", "blocked", int(plan["blocked"].sum()) if len(plan) else 0,
            change=f"{unchanged:,} unchanged",
        ),
        Figure(
            "products.problems", "problems in the file", problems,
            note="no file given" if check is None else "",
        ),
    ]  # fmt: skip
