"""Phone numbers shown with their middle digits hidden, without pandas: the platform check
of a report run masks the account's number before any frame is made."""

from __future__ import annotations

import sys

__all__ = ["mask_phone"]

_MASK = "*"


def mask_phone(phone: object, *, keep_start: int = 3, keep_end: int = 2) -> str:
    """Hide the middle digits of a phone number.

    Parameters
    ----------
    phone
        The number (any value; missing gives ``""``).
    keep_start, keep_end
        Digits left visible at each end; short numbers keep only the last ``keep_end``
        and at least half of the digits are always hidden.

    Returns
    -------
    str
        The masked number, same length.

    Examples
    --------
    >>> mask_phone("5550000001")
    '555*****01'
    >>> mask_phone("1234")
    '**34'
    >>> mask_phone(None)
    ''
    """
    pandas = sys.modules.get("pandas")  # pd.NA exists only where pandas is loaded
    if phone is None or (isinstance(phone, float) and phone != phone):
        return ""
    if pandas is not None and phone is pandas.NA:
        return ""
    text = str(phone)
    if not text:
        return ""
    n = len(text)
    end = min(keep_end, n // 2)
    start = keep_start if keep_start + end <= n // 2 else 0
    hidden = n - start - end
    return text[:start] + _MASK * hidden + (text[n - end :] if end else "")
