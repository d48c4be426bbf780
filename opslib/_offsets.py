"""A moment given relative to now, as people type it: ``-7d``, ``-36h``, ``-15m`` or
``-15min``, ``+1w``, ``-500ms``. Read without pandas: the checks before a report run use
it in a process that never loads pandas, and :mod:`opslib.timeutil` uses it in every other.
"""

from __future__ import annotations

import re

__all__ = ["UNITS", "offset_ms"]

_UNIT_MS = {
    "ms": 1,
    "s": 1000,
    "m": 60_000,
    "min": 60_000,
    "h": 3_600_000,
    "d": 86_400_000,
    "D": 86_400_000,  # as pandas writes a day ("1D")
    "w": 604_800_000,
}
_RELATIVE = re.compile(
    r"^\s*([+-])\s*(\d+(?:\.\d+)?)\s*("
    + "|".join(sorted(_UNIT_MS, key=len, reverse=True))
    + r")\s*$"
)
UNITS = "ms, s, m or min, h, d, w"
"""The units an offset takes, as error messages list them."""


def offset_ms(text: str, now_ms: int) -> int | None:
    """``text`` as epoch ms when it is an offset from ``now_ms``, else None.

    Examples
    --------
    >>> offset_ms("-15min", 3_600_000), offset_ms("+1D", 0), offset_ms("2026-11-24", 0)
    (2700000, 86400000, None)
    """
    match = _RELATIVE.match(text)
    if match is None:
        return None
    sign, amount, unit = match.groups()
    offset = round(float(amount) * _UNIT_MS[unit])
    return now_ms - offset if sign == "-" else now_ms + offset
