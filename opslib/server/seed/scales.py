"""How much data a seed generates, over which window, from which random generator.

Time is in epoch milliseconds throughout the package; the units and the fleet's local time
zone are named here once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "BUCKET_MS",
    "DAY_MS",
    "HISTORY_DAYS",
    "HOUR_MS",
    "LOCAL_UTC_OFFSET_H",
    "MINUTE_MS",
    "SCALES",
    "Run",
    "Scale",
]

DAY_MS = 86_400_000
HOUR_MS = 3_600_000
MINUTE_MS = 60_000
BUCKET_MS = 600_000
LOCAL_UTC_OFFSET_H = -5  # the fleet lives mostly in UTC-5 (area code 1)


@dataclass(frozen=True)
class Scale:
    """How much data a scale generates.

    Attributes
    ----------
    name
        ``small``, ``demo`` or ``large``.
    categories, products, users, devices, events
        Row counts (``users`` includes the ops, admin and demo accounts).
    days
        Length of the event window ending at ``until``.
    """

    name: str
    categories: int
    products: int
    users: int
    devices: int
    events: int
    days: int


HISTORY_DAYS = 1000
"""Nothing a seed writes is older than this before ``until`` (products are created 400 to
1000 days before it; users register up to 900)."""

SCALES: dict[str, Scale] = {
    "small": Scale("small", 3, 8, 20, 60, 400, 3),
    "demo": Scale("demo", 6, 40, 500, 5_000, 1_000_000, 30),
    "large": Scale("large", 6, 60, 5_000, 50_000, 20_000_000, 30),
    # benchmarks: the fleet of 50,000 devices with demo's million events (seeds in seconds)
    "bench": Scale("bench", 6, 60, 5_000, 50_000, 1_000_000, 30),
    # the local store's benchmarks: the demo fleet over a year (about 12M events)
    "year": Scale("year", 6, 40, 500, 5_000, 12_000_000, 365),
}


@dataclass(frozen=True)
class Run:
    """What every stage of one seed shares: the scale, the window and the one generator.

    Every stage draws from ``rng`` in a fixed order, so the stages must run in the order
    :func:`opslib.server.seed.seed_database` calls them.

    Attributes
    ----------
    scale
        The :class:`Scale` being generated.
    rng
        ``numpy.random.default_rng(seed_value)``, the only source of randomness.
    until
        End of the event window (epoch ms).
    window
        Length of the event window (ms), ``scale.days`` days.
    start
        Start of the event window, ``until - window``.
    """

    scale: Scale
    rng: np.random.Generator
    until: int
    window: int
    start: int

    @classmethod
    def create(cls, scale: Scale, seed_value: int, until_ms: int) -> Run:
        """A run of ``scale`` seeded with ``seed_value``, its window ending at ``until_ms``.

        Parameters
        ----------
        scale
            How much data to generate.
        seed_value
            Seed of the random generator.
        until_ms
            End of the event window (epoch ms).

        Returns
        -------
        Run
            The shared state of the stages.

        Raises
        ------
        ValueError
            The window is 34 years or longer (search keys pack its offsets into 40 bits).

        Examples
        --------
        >>> Run.create(SCALES["small"], 42, 1_800_000_000_000).start
        1799740800000
        """
        window = scale.days * DAY_MS
        if window >= 1 << 40:
            raise ValueError("the event window must be shorter than 34 years")
        return cls(
            scale=scale,
            rng=np.random.default_rng(seed_value),
            until=until_ms,
            window=window,
            start=until_ms - window,
        )
