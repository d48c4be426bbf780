"""Limits the report runner, the analysis package, the charts and the tables hold to, in
one light module (no pandas: the runner's checks import it before any kernel starts)."""

from __future__ import annotations

import numbers

__all__ = ["MAX_BUCKETS", "check_count"]

MAX_BUCKETS = 20_000
"""The most time buckets a window is cut into for a chart: more points than a screen has
pixels across (``freq`` 1s over 7 days made an 87 MB page, three minutes to write)."""


def check_count(name: str, value: object, what: str) -> int:
    """How many of ``what`` to show: 1 or more, Python's or numpy's integer (a frame's cell),
    never a bool; ``head(-1)`` would be every one but the last, under a title saying none
    was left out.

    Examples
    --------
    >>> check_count("top", 0, "bars")
    Traceback (most recent call last):
    ...
    ValueError: top: give a number of bars of 1 or more, got 0
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) >= 1:
        return int(value)
    raise ValueError(f"{name}: give a number of {what} of 1 or more, got {value!r}")
