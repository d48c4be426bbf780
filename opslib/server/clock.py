"""Where the platform reads the time: injectable so tests expire tokens without sleeping."""

from __future__ import annotations

import threading
import time
from typing import Protocol

__all__ = ["Clock", "FakeClock", "SystemClock"]


class Clock(Protocol):
    """Anything with ``now_ms()``: integer epoch milliseconds, UTC."""

    def now_ms(self) -> int: ...


class SystemClock:
    """The real time.

    Examples
    --------
    >>> SystemClock().now_ms() > 1_700_000_000_000
    True
    """

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


class FakeClock:
    """A clock that moves only when told to.

    Parameters
    ----------
    start_ms
        The initial moment (default 2024-05-01 00:00:00 UTC).

    Examples
    --------
    >>> clock = FakeClock(1_000)
    >>> clock.advance(seconds=2)
    >>> clock.now_ms()
    3000
    """

    def __init__(self, start_ms: int = 1_714_521_600_000) -> None:
        self._now = start_ms
        self._lock = threading.Lock()

    def now_ms(self) -> int:
        with self._lock:
            return self._now

    def set(self, now_ms: int) -> None:
        """Jump to ``now_ms``."""
        with self._lock:
            self._now = now_ms

    def advance(self, *, seconds: float = 0.0, ms: int = 0) -> None:
        """Move forward by ``seconds`` plus ``ms``."""
        with self._lock:
            self._now += int(seconds * 1000) + ms
