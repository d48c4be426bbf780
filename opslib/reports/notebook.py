"""Helpers the report notebooks call, so that each notebook cell stays one line or two.

>>> from opslib.reports import notebook as nb
>>> nb.setup(interactive=False)  # doctest: +SKIP
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from opslib import analysis, plots
from opslib.analysis._common import parquet_ready
from opslib.analysis._markup import markdown_text
from opslib.csvcells import write_csv
from opslib.reports.status import RUNNER_ENV

__all__ = [
    "connect",
    "declare_outcome",
    "export_frame",
    "fleet_devices",
    "load_devices",
    "load_events",
    "markdown",
    "needs_kinds",
    "parquet_ready",
    "period_text",
    "person",
    "platform",
    "read_users",
    "require_rows",
    "section",
    "selection_text",
    "settings_for",
    "setup",
]


def setup(*, interactive: bool) -> None:
    """The first code cell of every report: offline plotly and readable tables.

    plotly.js is embedded once here, except under the runner (``OPSLIB_REPORT_RUN``), whose
    exporter adds it to the HTML (shared beside the reports, or inline): the executed
    notebook then stays small.

    Parameters
    ----------
    interactive
        Also emit plotly's own mimetype for JupyterLab (widgets are created by the panels).
    """
    plots.use_offline_renderer(
        interactive=interactive, embed_plotlyjs=not os.environ.get(RUNNER_ENV)
    )
    pd.set_option("display.max_columns", 40)
    pd.set_option("display.max_colwidth", 80)
    pd.set_option("display.width", 200)
    pd.set_option("display.precision", 3)


def markdown(text: str) -> None:
    """Show Markdown text (a written finding) as a cell output.

    ``text`` is read as Markdown, raw HTML included: any platform string in it must be
    escaped first (``opslib.analysis._markup.markdown_text``).
    """
    from IPython.display import Markdown, display

    display(Markdown(text))


def connect() -> Any:
    """``opslib.connect()`` from the environment, a profile or the embedded platform;
    shows the platform and the account (never a secret), and a DEMO DATA banner on the
    embedded demo platform.
    """
    import opslib
    from opslib.reports.platform import describe, uses_demo

    global _PLATFORM
    demo = uses_demo()
    client = opslib.connect()
    platform = describe(client, demo=demo)
    _PLATFORM = platform
    _show_html(platform_html(platform))
    return client


_PLATFORM: Any = None


def platform() -> Any:
    """The platform and account of the last :func:`connect` (``Platform``), or None."""
    return _PLATFORM


def person() -> str:
    """Who is connected, as an audit log names them: nick name and masked phone."""
    if _PLATFORM is None:
        return ""
    who = _PLATFORM.nick_name or _PLATFORM.user_id
    return f"{who} ({_PLATFORM.phone})" if _PLATFORM.phone else str(who)


def section(heading: str, text: str = "") -> None:
    """A section heading (and a paragraph) shown only where this is called: a section
    that exists in one mode only leaves no empty heading in the other."""
    markdown(f"## {heading}" + (f"\n\n{text}" if text else ""))


def platform_html(platform: Any) -> str:
    """The platform and account as one HTML line; on demo data, a banner."""
    line = (
        f'<p class="opslib-platform">Platform: {html.escape(platform.name)}. '
        f"Account: {html.escape(platform.account)}.</p>"
    )
    if not platform.demo:
        return line
    from opslib.reports.platform import DEMO_BANNER

    banner = (
        '<div class="opslib-demo" style="background:#b00020;color:#fff;font-weight:bold;'
        f'padding:6px 12px;margin:4px 0;">{html.escape(DEMO_BANNER)}</div>'
    )
    return banner + line


def declare_outcome(outcome: str, reason: str) -> None:
    """Say that the report, though every cell ran, is ``partial`` or ``failed``, and why.

    Shown where it is called (a warning line) and read by the runner, which makes it the
    run's outcome (exit status 1) with ``reason`` in status.json.

    Examples
    --------
    >>> nb.declare_outcome("partial", "2 of 5 product writes failed")  # doctest: +SKIP
    """
    from IPython.display import display

    from opslib.reports.status import OUTCOME_MIMETYPE

    if outcome not in ("partial", "failed"):
        raise ValueError(f"outcome must be 'partial' or 'failed', got {outcome!r}")
    bundle = {
        OUTCOME_MIMETYPE: {"outcome": outcome, "reason": reason},
        "text/html": f'<p class="opslib-outcome"><strong>{outcome.capitalize()}:</strong> '
        f"{html.escape(reason)}</p>",
        "text/plain": f"{outcome}: {reason}",
    }
    display(bundle, raw=True)


def needs_kinds(events: pd.DataFrame | None, *needed: str, kinds: Any = None) -> bool:
    """Whether the section below can be computed from the platform's event kinds.

    ``needed`` are event kinds (``"fault"``) or ``"outages"`` (online and offline events
    both). When the platform does not report one, the section says so in one sentence
    instead of showing an analysis built on events that do not exist, and the report's
    outcome becomes ``partial`` with that sentence as the reason, under the section's
    heading (status.json ``reason`` lists every section not computable).

    Examples
    --------
    >>> if nb.needs_kinds(events, "outages"):  # doctest: +SKIP
    ...     panel.table(analysis.downtime)
    """
    known = analysis.event_kinds(events, kinds)
    said = analysis.not_computable(known, *needed)
    for sentence in said.values():
        markdown(sentence)
        declare_outcome("partial", f"not computable on this platform: {sentence}")
    return not said


def require_rows(frame: pd.DataFrame, what: str, *, expected: bool = True) -> pd.DataFrame:
    """``frame``, after saying so in words when it is empty.

    Empty where data was expected (``expected``, e.g. the whole fleet with no filter) makes
    the report ``failed`` (:func:`declare_outcome`); otherwise a note says nothing matched.

    Examples
    --------
    >>> devices = nb.require_rows(devices, "devices of the fleet")  # doctest: +SKIP
    """
    if not frame.empty:
        return frame
    if expected:
        declare_outcome("failed", f"the platform returned no {what}, where data was expected")
    else:
        markdown(f"No {what} match the parameters: the tables and figures below are empty.")
    return frame


def _show_html(text: str) -> None:
    from IPython.display import HTML, display

    display(HTML(text))


def read_users(users: str | Sequence[str] | None) -> list[str]:
    """User ids from a report's ``users`` parameter: ids, CSV files of ids (a ``user_id``
    column, or the first column), or both; duplicates dropped, order kept.

    Raises
    ------
    ValueError
        A CSV file without ids, naming the file.

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
        if text.lower().endswith(".csv"):
            frame = pd.read_csv(text, dtype="string")
            column = "user_id" if "user_id" in frame.columns else frame.columns[0]
            ids = [str(v).strip() for v in frame[column].dropna() if str(v).strip()]
            if not ids:
                raise ValueError(f"{text}: no user ids in column {column!r}")
        else:
            ids = [text]
        out.extend(i for i in ids if i not in out)
    return out


def load_devices(client: Any, *, user_id: str = "", users: Sequence[str] = ()) -> pd.DataFrame:
    """The devices of a user, of the ``users`` (ids or CSV files, see :func:`read_users`),
    or of the fleet; on a platform without a fleet listing, ``users`` is the way to a fleet.

    Examples
    --------
    >>> devices = nb.load_devices(client, users=["users.csv"])  # doctest: +SKIP
    """
    ids = read_users(users)
    if ids and not user_id:
        return client.devices.list(users=ids, progress=False)
    return client.devices.list(user_id or None, progress=False)


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
    types = analysis.event_type_values(list(event_types))
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
    return events


def selection_text(
    *,
    device_id: str = "",
    user_id: str = "",
    event_types: Sequence[str] = (),
    users: Sequence[str] = (),
) -> str:
    """What the parameters select, in words: ``all event types, whole fleet``.

    Examples
    --------
    >>> selection_text(event_types=["alarm"], device_id="d1")
    'event types alarm, device d1'
    """
    types = "event types " + ", ".join(event_types) if event_types else "all event types"
    who = [f"device {device_id}"] if device_id else []
    who += [f"user {user_id}"] if user_id else []
    ids = read_users(users) if not (device_id or user_id) else []
    who += [f"{len(ids)} users' devices"] if ids else []
    return ", ".join([types, *who] if who else [types, "whole fleet"])


def period_text(
    window: analysis.Window,
    events: pd.DataFrame,
    earlier: pd.DataFrame,
    *,
    device_id: str = "",
    user_id: str = "",
    event_types: Sequence[str] = (),
    users: Sequence[str] = (),
) -> str:
    """The period's first line: how many events, when, of what (escaped Markdown).

    Examples
    --------
    >>> nb.markdown(nb.period_text(window, events, earlier))  # doctest: +SKIP
    """
    fmt = "%Y-%m-%d %H:%M"
    selection = selection_text(
        device_id=device_id, user_id=user_id, event_types=event_types, users=users
    )
    return (
        f"**{len(events):,} events** from {window[0]:{fmt}} to {window[1]:{fmt}} UTC, "
        f"{markdown_text(selection)} ({len(earlier):,} in the previous period of equal length)."
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


def settings_for(client: Any, user: pd.DataFrame) -> Any:
    """The user's notification settings as a section, or one sentence saying precisely
    why the interface does not show them.

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

        return Table(analysis.settings_table(client.users.settings()))
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
