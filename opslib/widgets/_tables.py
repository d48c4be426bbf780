"""Tables as people read them: human column titles, names and labels instead of codes,
times in the reader's zone (named in the column title), percentages, no raw index.

:func:`readable` turns an analysis frame into display text (the frame itself keeps its
types and ids: this is for showing only, and the exported CSV/Parquet keep the ids);
:func:`table_html` renders the first rows with a sentence saying how many of how many,
where the whole table is, and why a table is empty.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

import pandas as pd

from opslib import enums
from opslib._limits import check_count
from opslib._missing import is_missing

__all__ = [
    "COLUMN_TITLES",
    "PERCENT_COLUMNS",
    "Table",
    "check_rows",
    "column_title",
    "readable",
    "table_html",
    "time_text",
]

PERCENT_COLUMNS = frozenset({"share", "availability", "online_share"})
"""Columns holding a fraction 0..1, shown as a percentage."""

COLUMN_TITLES = {
    "device_id": "device id",
    "device_name": "device",
    "nick_name": "name",
    "user_id": "owner id",
    "owner": "owner",
    "product_id": "product id",
    "product_name": "product",
    "category_id": "category id",
    "category_name": "category",
    "status": "status",
    "status_name": "status",
    "owned_name": "held as",
    "group_id": "group",
    "is_sub_device": "sub-device",
    "version": "firmware",
    "sdk_version": "SDK",
    "gmt_bind": "bound",
    "gmt_last_seen": "last seen",
    "gmt_create": "time",
    "days_silent": "days silent",
    "events_per_day": "events a day",
    "event_type_name": "event type",
    "top_type": "commonest type",
    "downtime_hours": "hours offline",
    "longest_hours": "longest (h)",
    "since_before": "offline when it began",
    "first_seen": "first seen",
    "last_seen": "last seen",
    "online_share": "online now",
    "never_online": "never online",
    "net_type_name": "network",
    "node_type_name": "node type",
    "encrypt_type_name": "encryption",
    "vendor_type": "vendor type",
    "popular": "popular",
    "popular_name": "popular",
    "sub_devices": "sub-devices",
    "error_msg": "error",
    "p05": "5th pct",
    "p95": "95th pct",
}
"""The title each column is shown under; other names lose their underscores."""

# Codes shown by their label where the frame has no label column beside them (ours).
_CODE_LABELS = {"popular": enums.labels(enums.Popular)}
_MONTH_COLUMNS = frozenset({"cohort"})
_STYLE = (
    "border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:0.9em;margin:4px 0 8px 0"
)


def column_title(name: object, values: pd.Series | None = None) -> str:
    """The title of a column, with the zone of its times when it holds times.

    Examples
    --------
    >>> column_title("gmt_last_seen", pd.Series(pd.to_datetime(["2026-01-01"], utc=True)))
    'last seen (UTC)'
    """
    key = str(name)
    title = COLUMN_TITLES.get(key) or key.removeprefix("gmt_").replace("_", " ")
    if values is not None and isinstance(values.dtype, pd.DatetimeTZDtype):
        from opslib.analysis.zones import zone_label

        if key not in _MONTH_COLUMNS:
            title += f" ({zone_label(values.dt.tz)})"
    return title


def time_text(moment: pd.Timestamp, *, seconds: bool | None = None) -> str:
    """A moment as people write it, in its own zone: ``2026-11-24 06:00`` (with seconds
    when ``seconds``, or when it has some and ``seconds`` is None).

    Examples
    --------
    >>> time_text(pd.Timestamp("2026-11-24 06:00", tz="UTC"))
    '2026-11-24 06:00'
    """
    moment = pd.Timestamp(moment)
    show = bool(moment.second) if seconds is None else seconds
    return moment.strftime("%Y-%m-%d %H:%M:%S" if show else "%Y-%m-%d %H:%M")


def _times(values: pd.Series, name: str) -> pd.Series:
    if name in _MONTH_COLUMNS:
        return values.map(lambda v: "" if pd.isna(v) else pd.Timestamp(v).strftime("%b %Y"))
    present = values.dropna()
    if len(present) and (present == present.dt.normalize()).all() and name.startswith("gmt_bind"):
        return values.map(lambda v: "" if pd.isna(v) else pd.Timestamp(v).strftime("%Y-%m-%d"))
    # one format per column: seconds for every time when any has them
    seconds = bool(len(present)) and bool((present.dt.second != 0).any())
    return values.map(lambda v: "" if pd.isna(v) else time_text(v, seconds=seconds))


def _labelled(frame: pd.DataFrame) -> pd.DataFrame:
    """A coded column beside its label (``status`` and ``status_name``): the label only."""
    drop = [c for c in frame.columns if f"{c}_name" in frame.columns]
    return frame.drop(columns=drop)


def readable(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as display text: times in their own zone (months ``Nov 2025``), fractions
    of :data:`PERCENT_COLUMNS` as ``4.1%`` (``0.4%``, never ``0%``), counts as ``39,898``,
    yes/no, durations in hours, codes by their labels (group 0 as "no group"), missing as
    "".

    Examples
    --------
    >>> readable(pd.DataFrame({"share": [0.041]}))["share"].tolist()
    ['4.1%']
    """
    frame = _labelled(frame)
    out = pd.DataFrame(index=frame.index)
    for name in frame.columns:
        values = frame[name]
        key = str(name)
        if isinstance(values.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_any_dtype(
            values.dtype
        ):
            out[name] = _times(values, key)
        elif key in _CODE_LABELS:
            out[name] = values.map(
                lambda v, k=key: "" if pd.isna(v) else str(_CODE_LABELS[k].get(v, v))
            )
        elif key == "group_id":
            out[name] = values.map(
                lambda v: "" if pd.isna(v) else ("no group" if v == 0 else str(v))
            )
        elif pd.api.types.is_bool_dtype(values.dtype):
            out[name] = values.map(lambda v: "" if pd.isna(v) else ("yes" if v else "no"))
        elif key in PERCENT_COLUMNS and pd.api.types.is_numeric_dtype(values.dtype):
            out[name] = values.map(lambda v: "" if pd.isna(v) else _percent(float(v)))
        elif pd.api.types.is_timedelta64_dtype(values.dtype):
            out[name] = values.map(
                lambda v: "" if pd.isna(v) else f"{v / pd.Timedelta(hours=1):.1f} h"
            )
        elif pd.api.types.is_float_dtype(values.dtype):
            out[name] = values.map(lambda v: "" if pd.isna(v) else _number(float(v)))
        elif pd.api.types.is_integer_dtype(values.dtype) and not key.endswith("_id"):
            out[name] = values.map(lambda v: "" if pd.isna(v) else f"{int(v):,}")
        else:
            out[name] = values.astype("object").map(lambda v: "" if is_missing(v) else str(v))
    return out


def _percent(share: float) -> str:
    """``4.1%``; under 0.1% as ``<0.1%`` rather than a zero that is not one."""
    if share == 0 or abs(share) >= 0.001:
        return f"{share:.1%}"
    return "<0.1%"


def _number(value: float) -> str:
    """A measurement to read, not to parse: ``1,330``, ``12.5``, ``0.0421``."""
    size = abs(value)
    if size >= 100:
        return f"{value:,.0f}"
    if size >= 1 or value == 0:
        return f"{value:,.1f}"
    return f"{value:.3g}"


def _numeric(values: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(
        values.dtype
    )


# Text longer than this wraps in its cell (a plan's changes, an error), so that a table
# fits the page; ids, times and short labels stay on one line.
_WRAP_FROM = 40


def _html_table(frame: pd.DataFrame) -> str:
    """The rows as an HTML table: text left, numbers right; ids and short text on one line,
    long text wrapped so that the table fits the page."""
    shown = readable(frame)
    source = _labelled(frame)
    right = {c for c in source.columns if _numeric(source[c]) and c not in _CODE_LABELS}
    right -= {"group_id"}
    wrap = {c for c in shown.columns if c not in right and shown[c].str.len().max() > _WRAP_FROM}
    pad = "padding:2px 10px 2px 0;vertical-align:top;"

    def style(column: object) -> str:
        flow = "white-space:normal;min-width:14em" if column in wrap else "white-space:nowrap"
        return f"{flow};{pad}text-align:{'right' if column in right else 'left'}"

    head = "".join(
        f'<th style="{style(c)}">{html.escape(column_title(c, source[c]))}</th>'
        for c in shown.columns
    )
    rows = []
    for values in shown.itertuples(index=False):
        row = "".join(
            f'<td style="{style(c)}">{html.escape(str(v))}</td>'
            for c, v in zip(shown.columns, values, strict=True)
        )
        rows.append(f"<tr>{row}</tr>")
    return (
        f'<table class="dataframe opslib-table" style="{_STYLE}"><thead><tr>{head}</tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def check_rows(max_rows: int) -> int:
    """A number of rows to show, 1 or more (``head(-1)`` is every row but the last)."""
    return check_count("max_rows", max_rows, "rows")


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
    # a wide table scrolls inside its box: the page never does
    body = f'<div style="overflow-x:auto;max-width:100%">{_html_table(frame.head(max_rows))}</div>'
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
        self.max_rows = check_rows(max_rows)
        self.empty = empty

    def _repr_html_(self) -> str:
        return table_html(self.frame, self.max_rows, empty=self.empty)

    def __repr__(self) -> str:
        return repr(self.frame.head(self.max_rows)) if not self.frame.empty else self.empty
