"""What a report reads and how it says what it read: the selection in words, the period,
and why a read came back empty (naming the window and where the data is).

The notebooks call these through :mod:`opslib.reports.notebook` (``nb.load_events``...).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from opslib import analysis
from opslib._limits import MAX_BUCKETS
from opslib.analysis._common import parquet_ready
from opslib.analysis._markup import markdown_text
from opslib.analysis.downtime import FILTER_ATTR
from opslib.analysis.zones import zone_label
from opslib.csvcells import write_csv
from opslib.csvfile import is_csv_name, read_table

__all__ = [
    "empty_window_reason",
    "export_frame",
    "fleet_devices",
    "fleet_selection",
    "load_devices",
    "load_events",
    "markdown",
    "period_text",
    "read_users",
    "section",
    "selection_text",
    "settings_for",
]


def markdown(text: str) -> None:
    """Show Markdown text (a written finding) as a cell output.

    ``text`` is read as Markdown, raw HTML included: any platform string in it must be
    escaped first (``opslib.analysis._markup.markdown_text``).
    """
    from IPython.display import Markdown, display

    display(Markdown(text))


def section(heading: str, text: str = "") -> None:
    """A section heading (and a paragraph) shown only where this is called: a section
    that exists in one mode only leaves no empty heading in the other."""
    markdown(f"## {heading}" + (f"\n\n{text}" if text else ""))


def volume_bucket(window: analysis.Window) -> str:
    """The bucket of an event volume chart over ``window`` when the reader chose none:
    hours over a month or less, else days, else weeks (at most ``MAX_BUCKETS`` of them).

    Examples
    --------
    >>> [volume_bucket(analysis.resolve_window(start)) for start in ("-7d", "-90d")]
    ['1h', '1D']
    """
    days = (window[1] - window[0]) / pd.Timedelta(days=1)
    return "1h" if days <= 31 else "1D" if days <= MAX_BUCKETS else "1W"


def read_users(users: str | Sequence[str] | None) -> list[str]:
    """User ids from a report's ``users`` parameter: ids, CSV files of ids (a ``user_id``
    column, or the first column), or both; duplicates dropped, order kept.

    Raises
    ------
    ValueError
        A CSV file without ids, or one that is not a table
        (:func:`opslib.csvfile.read_table`), naming the file.

    Examples
    --------
    >>> read_users(["u1", "u2", "u1"])
    ['u1', 'u2']
    """
    items = [users] if isinstance(users, str) else list(users or [])
    out: list[str] = []
    for item in items:
        text = str(item).strip()
        if not text:
            continue
        if is_csv_name(text):
            header, rows = read_table(text, header_hint="user_id")
            column = "user_id" if "user_id" in header else header[0]
            at = header.index(column)
            ids = [row[at].strip() for row in rows if row[at].strip()]
            if not ids:
                raise ValueError(f"{text}: no user ids in column {column!r}")
        else:
            ids = [text]
        out.extend(i for i in ids if i not in out)
    return out


def load_devices(
    client: Any, *, user_id: str = "", users: Sequence[str] = (), device_id: str = ""
) -> pd.DataFrame:
    """The devices of a user, of the ``users`` (ids or CSV files, see :func:`read_users`),
    or of the fleet, narrowed to ``device_id`` when given; on a platform without a fleet
    listing, ``users`` is the way to a fleet.

    Examples
    --------
    >>> devices = nb.load_devices(client, users=["users.csv"])  # doctest: +SKIP
    """
    ids = read_users(users)
    if device_id and not (user_id or ids):  # one device: no fleet listing (chint has none)
        return client.devices.get(device_id)
    if ids and not user_id:
        devices = client.devices.list(users=ids, progress=False)
    else:
        devices = client.devices.list(user_id or None, progress=False)
    if device_id:
        devices = devices[devices["device_id"] == device_id].reset_index(drop=True)
    return devices


def fleet_devices(client: Any, *, users: Sequence[str] = ()) -> pd.DataFrame | None:
    """The fleet's devices (or the ``users``'), or None where the platform lists devices per
    user only and no users were given: then one sentence says what is not counted.

    Examples
    --------
    >>> devices = nb.fleet_devices(client, users=users)  # doctest: +SKIP
    """
    from opslib.exceptions import Unsupported

    try:
        return load_devices(client, users=users)
    except Unsupported:
        markdown(
            "This platform lists devices per user only, so devices per product are not "
            "counted (give `users` to count them); a delete it refuses is reported below."
        )
        return None


def load_events(
    client: Any,
    window: analysis.Window,
    *,
    device_id: str = "",
    user_id: str = "",
    users: Sequence[str] = (),
    event_types: Sequence[int | str] = (),
) -> pd.DataFrame:
    """Events of ``window`` for a device, a user, several ``users`` (ids or CSV files, see
    :func:`read_users`) or the fleet, of the given types.

    The platform filters by one event type at a time: one type is asked of it, several
    are filtered here after one read. On a platform without a fleet query, ``users`` is
    the way to read a fleet (without it, :class:`opslib.Unsupported` says so).

    Examples
    --------
    >>> events = nb.load_events(client, analysis.resolve_window("-7d"))  # doctest: +SKIP
    """
    types = list(event_types)  # the platform's labels or codes: its client reads them
    ids = read_users(users) if not (device_id or user_id) else []
    events = client.events.list(
        window[0],
        window[1],
        device_id=device_id or None,
        user_id=user_id or None,
        users=ids or None,
        event_type=types[0] if len(types) == 1 else None,
        progress=False,
    )
    if len(types) > 1:
        events = analysis.filter_events(events, event_types=types)
    elif types:  # one type asked of the platform: the frame holds only it
        events.attrs[FILTER_ATTR] = analysis.event_type_values(types, analysis.type_labels(events))
    return events


def selection_text(
    *,
    device_id: str = "",
    user_id: str = "",
    event_types: Sequence[str] = (),
    users: Sequence[str] = (),
    names: Mapping[str, str] | None = None,
) -> str:
    """What the parameters select, in words: ``all event types, whole fleet``; a device or
    a user by its name when ``names`` knows it.

    Examples
    --------
    >>> selection_text(event_types=["alarm"], device_id="d1", names={"d1": "Kitchen lamp"})
    'event types alarm, device Kitchen lamp (d1)'
    """
    known = names or {}

    def named(kind: str, key: str) -> str:
        name = known.get(key, "")
        return f"{kind} {name} ({key})" if name and name != key else f"{kind} {key}"

    types = "event types " + ", ".join(event_types) if event_types else "all event types"
    who = [named("device", device_id)] if device_id else []
    who += [named("user", user_id)] if user_id else []
    ids = read_users(users) if not (device_id or user_id) else []
    who += [f"{len(ids)} users' devices"] if ids else []
    return ", ".join([types, *who] if who else [types, "whole fleet"])


def fleet_selection(
    *,
    user_id: str = "",
    users: Sequence[str] = (),
    category_id: int | str = 0,
    product_id: str = "",
    status: str = "",
    categories: pd.DataFrame | None = None,
    products: pd.DataFrame | None = None,
) -> str:
    """The devices a fleet report selects, in words, by names: ``product Door & Window
    Sensor (p-sensor-02), status fault``; ``all devices`` without a filter.

    Examples
    --------
    >>> fleet_selection(status="fault")
    'status fault'
    """
    parts = [f"user {user_id}"] if user_id else []
    ids = read_users(users) if not user_id else []
    parts += [f"{len(ids)} users' devices"] if ids else []
    if str(category_id) not in ("", "0"):
        name = _lookup(categories, "category_id", "category_name", category_id)
        parts.append(f"category {name} ({category_id})" if name else f"category {category_id}")
    if product_id:
        name = _lookup(products, "product_id", "product_name", product_id)
        parts.append(f"product {name} ({product_id})" if name else f"product {product_id}")
    if status:
        parts.append(f"status {status}")
    return ", ".join(parts) or "all devices"


def _lookup(frame: pd.DataFrame | None, key: str, value: str, wanted: object) -> str:
    if frame is None or frame.empty:
        return ""
    match = frame[frame[key].astype("string") == str(wanted)]
    return "" if match.empty else str(match[value].iloc[0])


def period_text(
    window: analysis.Window,
    events: pd.DataFrame,
    earlier: pd.DataFrame,
    *,
    device_id: str = "",
    user_id: str = "",
    event_types: Sequence[str] = (),
    users: Sequence[str] = (),
    names: Mapping[str, str] | None = None,
) -> str:
    """The period's first line: how many events, when (in the window's zone), of what
    (escaped Markdown).

    Examples
    --------
    >>> nb.markdown(nb.period_text(window, events, earlier))  # doctest: +SKIP
    """
    fmt = "%Y-%m-%d %H:%M"
    selection = selection_text(
        device_id=device_id, user_id=user_id, event_types=event_types, users=users, names=names
    )
    zone = zone_label(window[0].tzinfo)
    return (
        f"**{len(events):,} events** from {window[0]:{fmt}} to {window[1]:{fmt}} {zone}, "
        f"{markdown_text(selection)} ({len(earlier):,} in the previous period of equal length)."
    )


def empty_window_reason(
    window: analysis.Window, selection: str, devices: pd.DataFrame | None = None
) -> str:
    """Why an event read came back empty, in one sentence: the window, the selection, and
    where the data is (the latest report of the devices).

    Examples
    --------
    >>> empty_window_reason(window, "all event types, whole fleet", devices)  # doctest: +SKIP
    'No events from 2020-01-01 00:00 to 2020-01-02 00:00 UTC (all event types, whole
    fleet); the latest report of these devices is at 2026-11-26 15:24 UTC.'
    """
    fmt = "%Y-%m-%d %H:%M"
    zone = window[0].tzinfo
    text = f"No events from {window[0]:{fmt}} to {window[1]:{fmt}} {zone_label(zone)} ({selection})"
    seen = None if devices is None or devices.empty else devices["gmt_last_seen"].dropna()
    if seen is None or seen.empty:
        return text + "; none of the devices has ever reported."
    latest = seen.max().tz_convert(zone) if zone is not None else seen.max()
    where = "after" if latest >= window[1] else "before"
    return (
        f"{text}; the latest report of these devices is at {latest:{fmt}} "
        f"{zone_label(zone)}, {where} the window."
    )


def export_frame(
    frame: pd.DataFrame, output_dir: str | os.PathLike[str], stem: str
) -> pd.DataFrame:
    """Write ``frame`` as ``<stem>.csv`` and ``<stem>.parquet`` in ``output_dir``.

    Returns
    -------
    pandas.DataFrame
        One row per file written: ``file``, ``rows``, ``columns`` (empty when
        ``output_dir`` is empty: nothing is written then).

    Examples
    --------
    >>> nb.export_frame(devices, output_dir, "inventory")  # doctest: +SKIP
    """
    columns = {"file": "string", "rows": "Int64", "columns": "Int64"}
    if not str(output_dir):
        markdown("No `output_dir` given: nothing exported (the report runner sets it).")
        return pd.DataFrame({c: pd.Series([], dtype=d) for c, d in columns.items()})
    directory = Path(output_dir)
    directory.mkdir(parents=True, exist_ok=True)
    csv, parquet = directory / f"{stem}.csv", directory / f"{stem}.parquet"
    write_csv(frame, csv)  # no cell a spreadsheet would run
    parquet_ready(frame).to_parquet(parquet, index=False)
    rows = [(p.name, len(frame), len(frame.columns)) for p in (csv, parquet)]
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)


def settings_for(client: Any, user: pd.DataFrame, zone: str = "") -> Any:
    """The user's notification settings as a section (times in ``zone``), or one sentence
    saying precisely why the interface does not show them.

    ``/user/query_sys_setting`` answers for the caller only (it has no user parameter):
    another user's settings are not available to anyone, ops and admin included. The
    profile, devices and events are.

    Examples
    --------
    >>> nb.settings_for(client, client.users.get("u-1"))  # doctest: +SKIP
    """
    row = user.iloc[0]
    uid = str(row["user_id"])
    if uid == str(client.user_id):
        section("Notification settings")
        from opslib.widgets import Table

        return Table(analysis.settings_table(analysis.in_zone(client.users.settings(), zone)))
    nick = str(row.get("nick_name") or "") if not pd.isna(row.get("nick_name")) else ""
    who = f"{nick} ({uid})" if nick else uid
    markdown(
        f"Notification settings of {markdown_text(who)} are not shown: the interface gives "
        "them only to the user themselves (`/user/query_sys_setting` reads the settings of "
        "the connected account and takes no user), so no account, ops or admin, can read "
        "another user's. The profile above and the devices and events below are what it "
        "allows."
    )
    return None
