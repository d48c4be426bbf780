"""A figure, and a change between two, as people read them, in one light module (no
pandas: the runner's "since the last run" lines use it as the reports' headlines do).

Examples
--------
>>> figure_text(152_423.34, "h"), figure_text(147_536.5, "h"), figure_text(12.46, "h")
('152,423 h', '147,537 h', '12.5 h')
>>> figure_text(99.96), figure_text(0.0421, "h"), figure_text(3.5e-13, "h")
('100', '0.042 h', '<0.001 h')
>>> step_text(80, 120, ""), step_text(52_103, 52_096, ""), step_text(3, 40, "")
('+50%', '-0.01%', '+37')
>>> step_text(9.1, 12.4, "%"), step_text(10, 12.5, "h")
('+3.3 pts', '+2.5 h')
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

__all__ = ["MIN_PERCENT_BASE", "figure_text", "percent_text", "step_text"]

MIN_PERCENT_BASE = 20.0
"""A change is given in percent only when the previous value is at least this: on a
smaller base (3 alarms before, 40 now) a percentage reads as a drama; the two numbers are
shown instead."""


DECIMALS_BELOW = 100.0
"""A figure of this size or more is shown whole (``152,423 h``: a tenth of it is noise);
below it, with one decimal where it has one (``12.5 h``)."""


def figure_text(value: float, unit: str = "") -> str:
    """A figure as people read it: thousands separated, one decimal below
    :data:`DECIMALS_BELOW`, two significant digits under 1 (``0.042 h``); a share (``%``)
    with one decimal, two significant digits under 1%.
    """
    if not math.isfinite(value):  # NaN: a figure that could not be computed
        return "not computed"
    if unit == "%":
        return f"{value:.1f}%" if abs(value) >= 1 or value == 0 else f"{value:.2g}%"
    if 0 < abs(value) < 0.001:  # a sum's rounding error, not "1e-13 h"
        text = "<0.001" if value > 0 else ">-0.001"
    elif 0 < abs(value) < 1:  # 0.042 h, not 0.0 h
        text = f"{value:.2g}"
    else:
        tenths = _half_up(value, 1)
        whole = tenths == tenths.to_integral_value() or abs(tenths) >= DECIMALS_BELOW
        text = f"{_half_up(value, 0):,.0f}" if whole else f"{tenths:,.1f}"  # 99.96: 100
    return f"{text} {unit}" if unit else text


def _half_up(value: float, places: int) -> Decimal:
    """``value`` rounded as people round, a half up (147,536.5 is 147,537, where Python's
    format rounds to even), so that a figure kept to one decimal (status.json) is shown
    whole as the same figure unrounded is."""
    return Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def percent_text(pct: float, *, signed: bool = True) -> str:
    """A percentage as people read it: whole percents, and under 1% as many decimals as
    its first significant digit needs (so 0.4% is not "0%", nor 0.004% "0.00%").

    Examples
    --------
    >>> percent_text(12.3), percent_text(0.42), percent_text(-0.04, signed=False)
    ('+12%', '+0.4%', '-0.04%')
    >>> percent_text(-9 / 230_252 * 100)
    '-0.004%'
    """
    size = abs(pct)
    digits = 0 if size >= 1 or size == 0 else max(1, -math.floor(math.log10(size)))
    return f"{pct:{'+' if signed else ''}.{digits}f}%"


def step_text(before: float, now: float, unit: str) -> str:
    """From ``before`` to ``now``: in percent on a base of :data:`MIN_PERCENT_BASE` or
    more, else the difference in the unit (points for a share, which is already one)."""
    if unit != "%" and abs(before) >= MIN_PERCENT_BASE:
        return percent_text((now - before) / abs(before) * 100)
    diff = now - before
    text = ("+" if diff >= 0 else "") + figure_text(diff)
    return text + (" pts" if unit == "%" else (f" {unit}" if unit else ""))
