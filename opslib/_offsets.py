"""A moment given relative to now, as people type it: ``-7d``, ``-36h``, ``-15m`` or
``-15min``, ``+1w``, ``-500ms``: the pattern and the units, read by :mod:`opslib.timeutil`
and, without pandas, by the checks before a report run (:mod:`opslib.reports._times`).

Data only (no function runs here), so a read that takes ``"-7d"`` runs no code of this
module: the read path stays as short as tests/client/test_read_path.py counts it.

>>> sign, amount, unit = OFFSET.match("-15min").groups()
>>> sign, float(amount) * UNIT_MS[unit]
('-', 900000.0)
"""

from __future__ import annotations

import re

__all__ = ["OFFSET", "UNITS", "UNIT_MS"]

UNIT_MS = {
    "ms": 1,
    "s": 1000,
    "m": 60_000,
    "min": 60_000,
    "h": 3_600_000,
    "d": 86_400_000,
    "D": 86_400_000,  # as pandas writes a day ("1D")
    "w": 604_800_000,
}
"""Milliseconds in each unit an offset takes."""

OFFSET = re.compile(
    r"^\s*([+-])\s*(\d+(?:\.\d+)?)\s*("
    + "|".join(sorted(UNIT_MS, key=len, reverse=True))
    + r")\s*$"
)
"""An offset: its sign, its amount and its unit (a key of :data:`UNIT_MS`)."""

UNITS = "ms, s, m or min, h, d, w"
"""The units an offset takes, as error messages list them."""
