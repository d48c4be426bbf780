"""Limits on what callers may cost the platform (protocol §8).

- :class:`RateLimiter`: requests per access token (a token bucket);
- :class:`FailureWindow`: failures (or sends) per key in a sliding window, a hard limit
  (wrong secrets, passwords and codes per client address; SMS sends per address);
- :class:`Backstop`: failures per key from anywhere, beyond a free number of them a delay
  that doubles after each further failure (a phone's, a device's, a client's): slower and
  slower guessing, never a lockout the owner cannot wait out in a minute;
- :class:`Quota`: amounts per key in fixed windows (the events a user's devices report);
- :class:`HashGate`: how many argon2id hashes run at once (each takes 64 MiB and most of
  a core for ~50 ms), in all and per client address; beyond it a request is refused at
  once with a 503, never queued.
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

__all__ = ["Backstop", "FailureWindow", "HashGate", "Quota", "RateLimiter", "doubling_delay_ms"]

BUSY_HASHING = "server busy: too many password checks at once; retry later"
BUSY_ADDRESS = "server busy: a password check from this address is running; retry later"
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

    def undo(self, key: str, *, now_ms: int) -> None:
        """Take back one failure counted at ``now_ms`` (counted before a slow check that
        then found the secret right)."""
        with self._lock:
            times = self._failures.get(key)
            if times is not None and now_ms in times:
                times.remove(now_ms)

    def clear(self, key: str) -> None:
        """Forget ``key``'s failures (its secret was right)."""
        with self._lock:
            self._failures.pop(key, None)


def doubling_delay_ms(failures: int, *, free: int, base_ms: int, max_ms: int) -> int:
    """How long after its latest failure a key with ``failures`` in the window waits.

    Examples
    --------
    >>> [doubling_delay_ms(n, free=2, base_ms=1000, max_ms=5000) for n in range(2, 7)]
    [0, 1000, 2000, 4000, 5000]
    """
    excess = failures - free
    if excess <= 0:
        return 0
    return min(max_ms, base_ms << min(excess - 1, 40))


class Backstop(FailureWindow):
    """Failures per key within ``window_ms``; beyond ``free`` of them an attempt waits
    :func:`doubling_delay_ms` after the latest failure.

    A backstop behind the hard per-address limits: guesses spread over many addresses
    slow down to one per ``max_ms``, while the key's owner is held back at most that long.

    Examples
    --------
    >>> backstop = Backstop(free=1, window_ms=60_000, base_ms=1000, max_ms=8000)
    >>> backstop.add("p", now_ms=0); backstop.wait_ms("p", now_ms=0)
    0
    >>> backstop.add("p", now_ms=0); backstop.wait_ms("p", now_ms=400)
    600
    """

    def __init__(self, *, free: int, window_ms: int, base_ms: int, max_ms: int) -> None:
        super().__init__(limit=free, window_ms=window_ms)
        self.base_ms = base_ms
        self.max_ms = max_ms

    def wait_ms(self, key: str, *, now_ms: int) -> int:
        """0 while ``key`` may try, else ms until it may."""
        with self._lock:
            times = self._recent(key, now_ms)
            delay = doubling_delay_ms(
                len(times), free=self.limit, base_ms=self.base_ms, max_ms=self.max_ms
            )
            if not delay:
                return 0
            return max(0, times[-1] + delay - now_ms)


class Quota:
    """Amounts per key in fixed windows of ``window_ms``: at most ``limit`` in each.

    Examples
    --------
    >>> quota = Quota(limit=10, window_ms=1000)
    >>> quota.take("u", 8, now_ms=100), quota.take("u", 3, now_ms=200)
    (0, 800)
    >>> quota.take("u", 3, now_ms=1000)
    0
    """

    _MAX_KEYS = 100_000

    def __init__(self, *, limit: int, window_ms: int) -> None:
        self.limit = limit
        self.window_ms = max(1, window_ms)
        self._used: dict[str, tuple[int, int]] = {}
        self._lock = threading.Lock()

    def take(self, key: str, amount: int, *, now_ms: int) -> int:
        """Count ``amount`` for ``key`` if it fits this window (0), else ms until the next."""
        window = now_ms // self.window_ms
        with self._lock:
            start, used = self._used.get(key, (window, 0))
            if start != window:
                used = 0
            if used + amount > self.limit:
                return max(1, (window + 1) * self.window_ms - now_ms)
            self._used[key] = (window, used + amount)
            if len(self._used) > self._MAX_KEYS:
                self._used = {k: v for k, v in self._used.items() if v[0] == window}
            return 0


class HashGate:
    """At most ``slots`` password hashes at a time, and ``per_key`` of them for one key (a
    client address); a caller beyond either gets a 503 at once.

    Refusing rather than queueing keeps memory bounded (each argon2id hash holds 64 MiB)
    and keeps the worker threads free for other requests; clients retry a 503 after
    ``Retry-After``. The per-key bound is the fairness: an address flooding logins holds
    at most ``per_key`` slots, so another address always finds one.

    Examples
    --------
    >>> gate = HashGate(slots=2, per_key=1)
    >>> with gate.slot("127.0.0.2"):
    ...     gate.busy
    False
    """

    def __init__(self, *, slots: int, per_key: int | None = None) -> None:
        self.slots = max(1, slots)
        self.per_key = self.slots if per_key is None else max(1, per_key)
        self._lock = threading.Lock()
        self._used = 0
        self._by_key: dict[str, int] = {}

    @property
    def busy(self) -> bool:
        """Whether every slot is taken."""
        return self._used >= self.slots

    def compute(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a hashing thread (lower CPU priority); call it holding a slot."""
        return _hashing_pool().submit(fn, *args).result()

    @contextmanager
    def slot(self, key: str = "") -> Iterator[None]:
        """Hold one slot for ``key`` for the duration; 503 with ``Retry-After: 1`` when none
        is free, or when ``key`` holds its share already."""
        with self._lock:
            if self._used >= self.slots:
                raise ApiError(503, BUSY_HASHING, headers={"Retry-After": "1"})
            held = self._by_key.get(key, 0)
            if held >= self.per_key:
                raise ApiError(503, BUSY_ADDRESS, headers={"Retry-After": "1"})
            self._used += 1
            self._by_key[key] = held + 1
        try:
            yield
        finally:
            with self._lock:
                self._used -= 1
                left = self._by_key[key] - 1
                if left:
                    self._by_key[key] = left
                else:
                    del self._by_key[key]
