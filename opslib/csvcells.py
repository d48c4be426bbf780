"""CSV cells a spreadsheet will show, never run (OWASP "CSV Injection").

A cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is taken
for a formula by Excel, LibreOffice and Google Sheets, which may then fetch a URL or run
a command. Every CSV opslib writes (report exports, product files, the product audit log)
goes through :func:`write_csv` (or :func:`neutralise` for a ``csv.writer``): such a text
cell gets a leading ``'``, the spreadsheets' "this is text" mark. Lines end in CRLF (RFC
4180), so that a carriage return inside a cell is quoted and never ends a row (pandas'
own line end, ``\n``, leaves it bare: the rest of the cell began a row of its own).

What is left alone: numbers, booleans and moments (cells of numeric, boolean or datetime
columns, and numbers in mixed columns), so a negative number stays a number; and text
that is a plain number (``-12.5``, ``+3``, ``-1e5``), which no spreadsheet runs and which
reads back as the same text. A text cell that already begins with ``'`` followed by a
trigger or another ``'`` gets one more, so that :func:`restore` gives back exactly what
was written (``read_product_file`` restores the cells it reads: export then plan changes
nothing).

Examples
--------
>>> [neutralise(t) for t in ("=1+1", "-2+3", "-12.5", "@SUM(A1)", "plain", "'=x")]
["'=1+1", "'-2+3", '-12.5', "'@SUM(A1)", 'plain', "''=x"]
>>> restore("'=1+1"), restore("''=x"), restore("'Tis")
('=1+1', "'=x", "'Tis")
"""

from __future__ import annotations

import os
import re
from typing import Any

import pandas as pd

__all__ = ["TRIGGERS", "neutralise", "neutralise_frame", "restore", "restore_frame", "write_csv"]

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _runs(text: str) -> bool:
    return text.startswith(TRIGGERS) and not _PLAIN_NUMBER.fullmatch(text)


def neutralise(text: str) -> str:
    """``text`` as a cell no spreadsheet runs; see the module's rules.

    Examples
    --------
    >>> neutralise("=HYPERLINK(\\"http://x\\")")
    '\\'=HYPERLINK("http://x")'
    """
    if _runs(text) or (text[:1] == "'" and (_runs(text[1:]) or text[1:2] == "'")):
        return "'" + text
    return text


def restore(text: str) -> str:
    """The text a :func:`neutralise` d cell holds.

    Examples
    --------
    >>> restore(neutralise("+49 30 1234"))
    '+49 30 1234'
    """
    if text[:1] == "'" and (_runs(text[1:]) or text[1:2] == "'"):
        return text[1:]
    return text


def _cells(value: Any, change: Any) -> Any:
    return change(value) if isinstance(value, str) else value


def _text_columns(frame: pd.DataFrame) -> list[Any]:
    return [
        name
        for name, dtype in frame.dtypes.items()
        if isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_object_dtype(dtype)
        or pd.api.types.is_string_dtype(dtype)
    ]


def neutralise_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells and column names are :func:`neutralise` d.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"name": ["=cmd", "lamp"], "rssi": [-70, -41]})
    >>> neutralise_frame(df).to_csv(index=False).splitlines()
    ['name,rssi', "'=cmd,-70", 'lamp,-41']
    """
    out = frame.copy()
    for name in _text_columns(out):
        out[name] = out[name].map(lambda v: _cells(v, neutralise))
    out.columns = [neutralise(c) if isinstance(c, str) else c for c in out.columns]
    return out


def restore_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` (read from a CSV) whose text cells and names are :func:`restore` d.

    Examples
    --------
    >>> import io, pandas as pd
    >>> raw = pd.read_csv(io.StringIO("name\\n'=cmd\\n"), dtype=str)
    >>> restore_frame(raw)["name"].tolist()
    ['=cmd']
    """
    out = frame.copy()
    for name in _text_columns(out):
        out[name] = out[name].map(lambda v: _cells(v, restore))
    out.columns = [restore(c) if isinstance(c, str) else c for c in out.columns]
    return out


def write_csv(frame: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write ``frame`` (without its index) as a CSV no spreadsheet runs a cell of.

    Examples
    --------
    >>> write_csv(devices, "inventory.csv")  # doctest: +SKIP
    """
    neutralise_frame(frame).to_csv(path, index=False, lineterminator="\r\n")
