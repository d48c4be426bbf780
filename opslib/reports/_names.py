"""What a report and its files are called: the report a name or path stands for, and text
made safe for a file name (run directories, locks, alert state)."""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["file_safe", "report_name"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def report_name(reference: str | os.PathLike[str]) -> str:
    """The report a name or a notebook's path stands for: its file name without
    ``.ipynb`` (a name may hold dots).

    >>> report_name("fleet_inventory"), report_name("notebooks/fleet.v2.ipynb")
    ('fleet_inventory', 'fleet.v2')
    """
    return Path(os.fspath(reference)).name.removesuffix(".ipynb")


def file_safe(text: str) -> str:
    """``text`` with every character but ``A-Za-z0-9_.-`` replaced by ``_``.

    >>> file_safe("event_analysis--last week/é")
    'event_analysis--last_week__'
    """
    return _UNSAFE.sub("_", text)
