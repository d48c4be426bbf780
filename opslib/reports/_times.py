"""Moments as people type them, read without pandas: a refused time is refused at once.

The checks before a run (:mod:`opslib.reports.checks`) read ``now``, ``-7d``, epoch seconds
and ISO times here; only an unusual form that pandas may still read (``2026/02/28``) loads
it.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from opslib._offsets import OFFSET, UNIT_MS, UNITS

__all__ = ["epoch_ms"]


def epoch_ms(value: Any, now_ms: int) -> int:
    """A moment as epoch ms by the forms people type, without pandas (a refusal stays
    fast); naive ISO times as UTC (the window check only compares the two ends).

    Raises
    ------
    ValueError
        Not one of those forms, or not a calendar date (the message says which).
    """
    if isinstance(value, bool):
        raise ValueError("not a time")
    if isinstance(value, int | float):
        return round(value * 1000) if abs(value) < 100_000_000_000 else round(value)
    text = str(value).strip()
    if text.lower() == "now":
        return now_ms
    match = OFFSET.match(text)
    if match:
        sign, amount, unit = match.groups()
        offset = round(float(amount) * UNIT_MS[unit])
        return now_ms - offset if sign == "-" else now_ms + offset
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return epoch_ms(float(text), now_ms)
    if text[:1] in "+-":
        raise ValueError(f"not a time (an offset is a number and a unit: {UNITS})")
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError as exc:
        detail = str(exc)
        if "out of range" in detail or "must be in" in detail:
            raise ValueError(f"not a calendar date ({detail})") from None
        return _pandas_epoch_ms(text, now_ms)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return int(moment.timestamp() * 1000)


def _pandas_epoch_ms(text: str, now_ms: int) -> int:
    """The forms pandas also reads (``2026/02/28``...), as the notebook will read them."""
    from opslib.timeutil import to_epoch_ms

    try:
        return to_epoch_ms(text, now_ms=now_ms)
    except (ValueError, TypeError):
        raise ValueError(_time_problem(text)) from None


def _time_problem(value: Any) -> str:
    """Why a time was refused, in pandas' words when it looks like a date (``2026-02-30``)."""
    import pandas as pd

    try:
        pd.Timestamp(str(value).strip())
    except ValueError as exc:
        detail = str(exc).split(":")[0].strip()
        if "out of range" in detail or "must be in" in detail:
            return f"not a calendar date ({detail})"
    return "not a time"
