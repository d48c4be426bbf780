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
from opslib.reports.status import RUNNER_ENV

__all__ = [
    "connect",
    "declare_outcome",
    "export_frame",
    "load_events",
    "markdown",
    "parquet_ready",
    "require_rows",
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

    demo = uses_demo()
    client = opslib.connect()
    platform = describe(client, demo=demo)
    _show_html(platform_html(platform))
    return client


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


def load_events(
    client: Any,
    window: analysis.Window,
    *,
    device_id: str = "",
    user_id: str = "",
    event_types: Sequence[int | str] = (),
) -> pd.DataFrame:
    """Events of ``window`` for a device, a user or the fleet, of the given types.

    The platform filters by one event type at a time: one type is asked of it, several
    are filtered here after one read.

    Examples
    --------
    >>> events = nb.load_events(client, analysis.resolve_window("-7d"))  # doctest: +SKIP
    """
    types = analysis.event_type_values(list(event_types))
    events = client.events.list(
        window[0],
        window[1],
        device_id=device_id or None,
        user_id=user_id or None,
        event_type=types[0] if len(types) == 1 else None,
        progress=False,
    )
    if len(types) > 1:
        events = analysis.filter_events(events, event_types=types)
    return events


def parquet_ready(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every column Parquet can store: mixed object columns become text.

    Open-ended ``properties.<key>`` columns may hold numbers for one device and text for
    another; Arrow refuses such a column, so it is written as strings.
    """
    import pyarrow as pa

    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object:
            try:
                pa.array(out[column], from_pandas=True)
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                out[column] = (
                    out[column].map(lambda v: None if v is None else str(v)).astype("string")
                )
    return out


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
    frame.to_csv(csv, index=False)
    parquet_ready(frame).to_parquet(parquet, index=False)
    rows = [(p.name, len(frame), len(frame.columns)) for p in (csv, parquet)]
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)


def settings_for(client: Any, user_id: str) -> pd.DataFrame | None:
    """The user's notification settings as a field/value table, when the platform shows them.

    ``/user/query_sys_setting`` answers only for the caller: another user's settings are
    not available to anyone, ops included; a note says so and None is returned.
    """
    if user_id != client.user_id:
        markdown(
            "The platform shows notification settings only to the user themselves "
            "(`/user/query_sys_setting` has no user parameter): not available here."
        )
        return None
    return analysis.settings_table(client.users.settings())
