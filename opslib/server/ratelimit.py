"""Per-token request rate: a token bucket per access token (protocol §8)."""

from __future__ import annotations

import math
import threading

__all__ = ["RateLimiter"]


class RateLimiter:
    """Token buckets keyed by an access token's hash.

    Parameters
    ----------
    rate
        Requests per second refilled; 0 or less turns the limit off.
    burst
        Bucket size.

    Examples
    --------
    >>> limiter = RateLimiter(rate=1, burst=2)
    >>> [limiter.acquire("t", now_ms=0) for _ in range(3)]
    [0, 0, 1000]
    """

    _MAX_KEYS = 100_000  # forget idle buckets beyond this many tokens

    def __init__(self, *, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = max(burst, 1.0)
        self._buckets: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def acquire(self, key: str, *, now_ms: int) -> int:
        """Take one request from ``key``'s bucket; 0 if allowed, else ms until one is."""
        if self.rate <= 0:
            return 0
        with self._lock:
            tokens, last = self._buckets.get(key, (self.burst, now_ms))
            tokens = min(self.burst, tokens + max(0, now_ms - last) * self.rate / 1000)
            if tokens >= 1:
                self._buckets[key] = (tokens - 1, now_ms)
                if len(self._buckets) > self._MAX_KEYS:
                    self._prune(now_ms)
                return 0
            self._buckets[key] = (tokens, now_ms)
            return max(1, math.ceil((1 - tokens) * 1000 / self.rate))

    def _prune(self, now_ms: int) -> None:
        full_after_ms = self.burst * 1000 / self.rate
        self._buckets = {k: v for k, v in self._buckets.items() if now_ms - v[1] < full_after_ms}
