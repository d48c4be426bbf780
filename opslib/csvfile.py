"""Read a CSV file a person wrote or a spreadsheet saved: every cell as text, or an error
that names the file and the line.

pandas' reader guesses where a file is not a table: a line with one field more than the
header makes the first column the index and shifts the rest one column to the left, with
no error. Here a line whose fields do not match the header's, a header that names a
column twice, a file separated by ``;`` (what spreadsheets in many locales save), an empty
file and a file that is not UTF-8 are each a ``ValueError`` naming it. A byte order mark
goes; blank lines are skipped; a space after a comma goes; a carriage return inside a
quoted cell stays.

Examples
--------
>>> import io
>>> read_table(io.StringIO("user_id,name\\nu-1,Ada\\n"))
(['user_id', 'name'], [['u-1', 'Ada']])
>>> read_table(io.StringIO("user_id,name\\nu-1,Lovelace, Ada\\n"))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: the file: line 2 has 3 fields where the header has 2 (a comma in a cell needs...
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import IO

__all__ = ["is_csv_name", "read_table"]


def is_csv_name(text: str) -> bool:
    """Whether ``text`` names a CSV file (it ends in ``.csv``, in any case), as a list of
    ids mixed with files tells them apart.

    >>> is_csv_name("north.CSV"), is_csv_name("u-1")
    (True, False)
    """
    return text.strip().lower().endswith(".csv")


def read_table(
    source: str | os.PathLike[str] | IO[str], *, header_hint: str = ""
) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of a CSV file, each cell as written.

    Parameters
    ----------
    source
        A path, or a file object open for text (as pandas takes).
    header_hint
        What the header holds, said when the file is empty (``product_id,product_name``).

    Raises
    ------
    ValueError
        The file is empty, not UTF-8 text, separated by ``;``, names a column twice, or has
        a line whose fields do not match the header's; the message names the file and the
        line.
    """
    where = str(getattr(source, "name", "the file")) if hasattr(source, "read") else str(source)
    try:
        if hasattr(source, "read"):
            text = source.read().removeprefix("\ufeff")
        else:
            with open(Path(source), encoding="utf-8-sig", newline="") as handle:
                text = handle.read()
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{where} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset "
            f"{exc.start}): save it as CSV UTF-8"
        ) from None
    reader = csv.reader(io.StringIO(text, newline=""), skipinitialspace=True)
    header = next(reader, None)
    while header == []:  # blank lines before the header
        header = next(reader, None)
    if not header:
        hint = f" ({header_hint})" if header_hint else ""
        raise ValueError(f"{where} is empty: a CSV file starts with its header line{hint}")
    if len(header) == 1 and ";" in header[0]:
        raise ValueError(f"{where}: fields separated by ';'; save it with commas (CSV UTF-8)")
    twice = sorted({name for name in header if header.count(name) > 1})
    if twice:
        raise ValueError(f"{where}: the header names {', '.join(twice)} more than once")
    rows = []
    for row in reader:
        if not row:
            continue  # a blank line
        if len(row) != len(header):
            why = "a comma in a cell needs the cell in double quotes"
            if len(row) < len(header):
                why = "each line gives every column, an empty cell too"
            raise ValueError(
                f"{where}: line {reader.line_num} has {len(row)} fields where the header has "
                f"{len(header)} ({why})"
            )
        rows.append(row)
    return header, rows
