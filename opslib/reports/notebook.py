"""Helpers the report notebooks call, so that each notebook cell stays one line or two.

>>> from opslib.reports import notebook as nb
>>> nb.setup(interactive=False)  # doctest: +SKIP
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from opslib import analysis, plots
from opslib.analysis._common import parquet_ready
from opslib.reports._selection import (
    empty_window_reason,
    export_frame,
    fleet_devices,
    fleet_selection,
    load_devices,
    load_events,
    markdown,
    period_text,
    read_users,
    section,
    selection_text,
    settings_for,
    volume_bucket,
)
from opslib.reports.status import RUNNER_ENV

__all__ = [
    "connect",
    "declare_outcome",
    "empty_window_reason",
    "export_frame",
    "fleet_devices",
    "fleet_selection",
    "headline",
    "load_devices",
    "load_events",
    "markdown",
    "needs_kinds",
    "parquet_ready",
    "period_text",
    "person",
    "platform",
    "read_users",
    "require_events",
    "require_rows",
    "require_selection",
    "section",
    "selection_text",
    "sentence",
    "settings_for",
    "setup",
    "volume_bucket",
    "zone",
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
    """The platform line, marked: a report says the platform once, in its banner and
    footer, and leaves this line out."""
    from IPython.display import HTML, display

    from opslib.reports.export import PLATFORM_OUTPUT

    display(HTML(text), metadata={"opslib": PLATFORM_OUTPUT})


def zone(tz: str = "") -> str:
    """The zone the report shows its times in: ``tz``, else the profile's ``tz``, else the
    platform's (its dialect's zone), else UTC (:mod:`opslib.reports.zones`).

    Examples
    --------
    >>> nb.zone("Asia/Shanghai")  # doctest: +SKIP
    'Asia/Shanghai'
    """
    from opslib.reports.zones import check_zone, default_zone

    return (
        check_zone(tz) if str(tz).strip() else default_zone(demo=bool(_PLATFORM and _PLATFORM.demo))
    )


def sentence(
    parameters: Mapping[str, Any],
    *,
    window: analysis.Window | None = None,
    names: Mapping[str, str] | None = None,
) -> str:
    """The report's parameters as one sentence, ids by their names and the period's end in
    its zone: ``Last 7 days to 2026-11-24 14:00 Asia/Shanghai, all event types, whole
    fleet.``

    Examples
    --------
    >>> nb.sentence({"start": "-7d", "end": "now"}, window=window)  # doctest: +SKIP
    """
    from opslib.reports._describe import describe_parameters

    until = ""
    if window is not None:
        until = f"{window[1]:%Y-%m-%d %H:%M} {analysis.zones.zone_label(window[1].tzinfo)}"
    return describe_parameters(parameters, started=until, names=names)


def headline(figures: Sequence[Any], sentence: str) -> None:
    """Show the report's first screen: the parameters as a sentence and its headline
    figures (``analysis.fleet_headline``...), each with its change. The exported report
    opens with them, whichever cell shows them.

    Examples
    --------
    >>> nb.headline(analysis.fleet_headline(devices), nb.sentence(params))  # doctest: +SKIP
    """
    from IPython.display import display

    from opslib.reports._headline import HEADLINE_MIMETYPE, headline_html

    data = {"sentence": sentence, "figures": [figure.as_dict() for figure in figures]}
    text = (
        sentence
        + "\n"
        + "\n".join(
            f"{f['label']}: {f['value_text']} {f['change_text']}".rstrip()
            for f in data["figures"]
            if f.get("shown", True)
        )
    )
    display(
        {HEADLINE_MIMETYPE: data, "text/html": headline_html(sentence, data["figures"]),
         "text/plain": text},
        raw=True,
    )  # fmt: skip


def require_selection(
    frame: pd.DataFrame, what: str, selection: str, *, filtered: bool
) -> pd.DataFrame:
    """``frame``; when it is empty the report is ``failed``, with one sentence naming the
    selection (``No devices match the selection: product Door & Window Sensor
    (p-sensor-02), status fault.``), shown here too.

    Examples
    --------
    >>> devices = nb.require_selection(devices, "devices", selection, filtered=True)
    ...  # doctest: +SKIP
    """
    if not frame.empty:
        return frame
    if filtered:
        reason = f"No {what} match the selection: {selection}."
    else:
        reason = f"The platform returned no {what} ({selection}), where data was expected."
    declare_outcome("failed", reason)
    return frame


def require_events(
    events: pd.DataFrame,
    window: analysis.Window,
    selection: str,
    devices: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """``events``; when none came back the report is ``failed``, with one sentence naming
    the window, the selection and the latest report of the devices (where data is).

    Examples
    --------
    >>> events = nb.require_events(events, window, selection, devices)  # doctest: +SKIP
    """
    if events.empty:
        declare_outcome("failed", empty_window_reason(window, selection, devices))
    return events
