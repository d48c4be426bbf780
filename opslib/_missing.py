"""What counts as a missing cell: one rule for every module that reads a frame's cells.

>>> import pandas as pd
>>> [is_missing(v) for v in (None, pd.NA, float("nan"), pd.NaT, "", "NaN", 0, {"a": None})]
[True, True, True, True, False, False, False, False]
"""

from __future__ import annotations

import pandas as pd

__all__ = ["is_missing"]


def is_missing(value: object) -> bool:
    """None, ``pd.NA``, NaN or NaT: a scalar pandas counts as missing. Text (even empty),
    numbers, lists and dicts are values."""
    if value is None:
        return True
    if isinstance(value, str | bytes) or not pd.api.types.is_scalar(value):
        return False
    return bool(pd.isna(value))  # type: ignore[call-overload]
