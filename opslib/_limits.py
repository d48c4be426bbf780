"""Limits the report runner and the analysis package both hold to, in one light module
(no pandas: the runner's checks import it before any kernel starts)."""

from __future__ import annotations

__all__ = ["MAX_BUCKETS"]

MAX_BUCKETS = 20_000
"""The most time buckets a window is cut into for a chart: more points than a screen has
pixels across (``freq`` 1s over 7 days made an 87 MB page, three minutes to write)."""
