"""Limits on what callers may cost the platform (protocol §8).

- :class:`RateLimiter`: requests per access token (a token bucket);
- :class:`FailureWindow`: failed secret checks per key in a sliding window (device secrets
  per device and per client address);
- :class:`HashGate`: how many argon2id hashes run at once (each takes 64 MiB and most of
  a core for ~50 ms); beyond it a request is refused at once with a 503, never queued.
  The hashes themselves run in threads of lower CPU priority (nice 10 on Linux, which
  argon2's own threads inherit), so a flood of password guesses slows other requests
  less than it slows itself.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from opslib.server.errors import ApiError

__all__ = ["FailureWindow", "HashGate", "RateLimiter"]

BUSY_HASHING = "server busy: too many password checks at once; retry later"
HASH_NICE = 10  # CPU priority of the hashing threads: below requests' (0)
T = TypeVar("T")


def _lower_priority() -> None:
    if hasattr(os, "setpriority") and hasattr(threading, "get_native_id"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASH_NICE)


_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _hashing_pool() -> ThreadPoolExecutor:
    """One pool per process (every platform's gate bounds what it submits)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(
                max_workers=32, thread_name_prefix="opslib-hash", initializer=_lower_priority
            )
        return _pool


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


class FailureWindow:
    """Failures per key within ``window_ms``; at ``limit`` the key waits until the oldest
    one leaves the window.

    Kept in memory: a restart forgets them (the platform is one process).

    Examples
    --------
    >>> failures = FailureWindow(limit=2, window_ms=1000)
    >>> failures.add("d", now_ms=0); failures.add("d", now_ms=10)
    >>> failures.wait_ms("d", now_ms=500), failures.wait_ms("d", now_ms=1000)
    (500, 0)
    """

    _MAX_KEYS = 100_000  # beyond this many keys, those without a failure in the window go

    def __init__(self, *, limit: int, window_ms: int) -> None:
        self.limit = limit
        self.window_ms = window_ms
        self._failures: dict[str, deque[int]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now_ms: int) -> deque[int]:
        times = self._failures.get(key, deque())
        while times and times[0] <= now_ms - self.window_ms:
            times.popleft()
        return times

    def wait_ms(self, key: str, *, now_ms: int) -> int:
        """0 while ``key`` is under the limit, else ms until its oldest failure expires."""
        with self._lock:
            times = self._recent(key, now_ms)
            if len(times) < self.limit:
                return 0
            return max(1, times[0] + self.window_ms - now_ms)

    def add(self, key: str, *, now_ms: int) -> None:
        """Count one failure of ``key``."""
        with self._lock:
            times = self._recent(key, now_ms)
            times.append(now_ms)
            self._failures[key] = times
            if len(self._failures) > self._MAX_KEYS:
                self._failures = {
                    k: t for k, t in self._failures.items() if self._recent(k, now_ms)
                }

    def clear(self, key: str) -> None:
        """Forget ``key``'s failures (its secret was right)."""
        with self._lock:
            self._failures.pop(key, None)


class HashGate:
    """At most ``slots`` password hashes at a time; a caller beyond them gets a 503 at once.

    Refusing rather than queueing keeps memory bounded (each argon2id hash holds 64 MiB)
    and keeps the worker threads free for other requests; clients retry a 503 after
    ``Retry-After``.

    Examples
    --------
    >>> gate = HashGate(slots=1)
    >>> with gate.slot():
    ...     gate.busy
    True
    """

    def __init__(self, *, slots: int) -> None:
        self.slots = max(1, slots)
        self._free = threading.BoundedSemaphore(self.slots)
        self._lock = threading.Lock()
        self._used = 0

    @property
    def busy(self) -> bool:
        """Whether every slot is taken."""
        return self._used >= self.slots

    def compute(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a hashing thread (lower CPU priority); call it holding a slot."""
        return _hashing_pool().submit(fn, *args).result()

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one slot for the duration; 503 with ``Retry-After: 1`` when none is free."""
        if not self._free.acquire(blocking=False):
            raise ApiError(503, BUSY_HASHING, headers={"Retry-After": "1"})
        with self._lock:
            self._used += 1
        try:
            yield
        finally:
            with self._lock:
                self._used -= 1
            self._free.release()
