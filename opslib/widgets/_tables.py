"""Tables as people read them: dates in words, percentages, ids on one line, no raw index.

:func:`readable` turns an analysis frame into display text (the frame itself keeps its
types: this is for showing only); :func:`table_html` renders the first rows with a
sentence saying how many of how many, where the whole table is, and why a table is empty.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

import pandas as pd

__all__ = ["PERCENT_COLUMNS", "Table", "readable", "table_html", "time_text"]

PERCENT_COLUMNS = frozenset({"share", "availability", "online_share"})
"""Columns holding a fraction 0..1, shown as a percentage."""

_MONTH_COLUMNS = frozenset({"cohort"})
_STYLE = (
    "border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:0.9em;margin:4px 0 8px 0"
)


def time_text(moment: pd.Timestamp) -> str:
    """A UTC moment as people write it: ``2026-11-24 06:00 UTC`` (seconds when there are).

    Examples
    --------
    >>> time_text(pd.Timestamp("2026-11-24 06:00", tz="UTC"))
    '2026-11-24 06:00 UTC'
    """
    moment = pd.Timestamp(moment)
    if moment.tzinfo is not None:
        moment = moment.tz_convert("UTC")
    fmt = "%Y-%m-%d %H:%M:%S" if moment.second else "%Y-%m-%d %H:%M"
    return f"{moment.strftime(fmt)} UTC"


def _times(values: pd.Series, name: str) -> pd.Series:
    if name in _MONTH_COLUMNS:
        return values.map(lambda v: "" if pd.isna(v) else pd.Timestamp(v).strftime("%b %Y"))
    present = values.dropna()
    if len(present) and (present == present.dt.normalize()).all() and name.startswith("gmt_bind"):
        return values.map(lambda v: "" if pd.isna(v) else pd.Timestamp(v).strftime("%Y-%m-%d"))
    return values.map(lambda v: "" if pd.isna(v) else time_text(v))


def readable(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as display text: times as ``2026-11-24 06:00 UTC`` (months ``Nov 2025``),
    fractions of :data:`PERCENT_COLUMNS` as ``4.1%``, counts as ``39,898``, yes/no,
    durations in hours, missing as "".

    Examples
    --------
    >>> readable(pd.DataFrame({"share": [0.041]}))["share"].tolist()
    ['4.1%']
    """
    out = pd.DataFrame(index=frame.index)
    for name in frame.columns:
        values = frame[name]
        key = str(name)
        if isinstance(values.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_any_dtype(
            values.dtype
        ):
            out[name] = _times(values, key)
        elif pd.api.types.is_bool_dtype(values.dtype):
            out[name] = values.map(lambda v: "" if pd.isna(v) else ("yes" if v else "no"))
        elif key in PERCENT_COLUMNS and pd.api.types.is_numeric_dtype(values.dtype):
            out[name] = values.map(lambda v: "" if pd.isna(v) else f"{float(v):.1%}")
        elif pd.api.types.is_timedelta64_dtype(values.dtype):
            out[name] = values.map(
                lambda v: "" if pd.isna(v) else f"{v / pd.Timedelta(hours=1):.1f} h"
            )
        elif pd.api.types.is_float_dtype(values.dtype):
            out[name] = values.map(lambda v: "" if pd.isna(v) else _number(float(v)))
        elif pd.api.types.is_integer_dtype(values.dtype) and not key.endswith("_id"):
            out[name] = values.map(lambda v: "" if pd.isna(v) else f"{int(v):,}")
        else:
            out[name] = values.astype("object").map(lambda v: "" if _missing(v) else str(v))
    return out


def _number(value: float) -> str:
    """A measurement to read, not to parse: ``1,330``, ``12.5``, ``0.0421``."""
    size = abs(value)
    if size >= 100:
        return f"{value:,.0f}"
    if size >= 1 or value == 0:
        return f"{value:,.1f}"
    return f"{value:.3g}"


def _missing(value: object) -> bool:
    return value is None or (not isinstance(value, str) and bool(pd.isna(value)))  # type: ignore[call-overload]


def table_html(
    frame: pd.DataFrame,
    max_rows: int,
    *,
    empty: str = "No rows.",
    full: Iterable[str] = (),
    whole: str = "",
) -> str:
    """The first ``max_rows`` rows as an HTML table (no index, ids on one line), then a
    sentence: "N of M rows shown" with links to the ``full`` files when it is cut, or
    ``empty`` in place of a table with no rows. Without files, ``whole`` says where the
    whole table is (e.g. a variable of the notebook).

    Examples
    --------
    >>> table_html(pd.DataFrame({"a": []}), 5, empty="No alarms in this selection.")
    '<p class="opslib-empty"><em>No alarms in this selection.</em></p>'
    """
    if frame.empty:
        return f'<p class="opslib-empty"><em>{html.escape(empty)}</em></p>'
    shown = readable(frame.head(max_rows))
    body = shown.to_html(index=False, na_rep="", border=0, escape=True)
    body = body.replace(
        '<table class="dataframe">',
        f'<table class="dataframe opslib-table" style="{_STYLE}">',
        1,
    )
    # no cell wraps: ids, times and labels stay on one line; a wide table scrolls
    body = body.replace("<td>", '<td style="white-space:nowrap">').replace(
        "<th>", '<th style="white-space:nowrap">'
    )
    body = f'<div style="overflow-x:auto">{body}</div>'
    if len(frame) > max_rows:
        links = ", ".join(f'<a href="{html.escape(name)}">{html.escape(name)}</a>' for name in full)
        where = f" The whole table: {links}." if links else ""
        if not links and whole:
            where = f" The whole table: <code>{html.escape(whole)}</code>."
        body += f"<p><em>{max_rows} of {len(frame):,} rows shown.{where}</em></p>"
    return body


class Table:
    """A frame shown as :func:`table_html` (a notebook cell's last line).

    Examples
    --------
    >>> Table(pd.DataFrame({"share": [0.5]}))._repr_html_()[:5]
    '<div '
    """

    def __init__(self, frame: pd.DataFrame, *, max_rows: int = 50, empty: str = "No rows.") -> None:
        self.frame = frame
        self.max_rows = max_rows
        self.empty = empty

    def _repr_html_(self) -> str:
        return table_html(self.frame, self.max_rows, empty=self.empty)

    def __repr__(self) -> str:
        return repr(self.frame.head(self.max_rows)) if not self.frame.empty else self.empty
