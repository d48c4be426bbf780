"""How many pages a paged read keeps in flight: as many as the link and the platform use.

A far platform needs many requests in flight to keep its link busy (40 ms of round trip
and 4 ms of a page on the wire: about 11), a near one few (the reading thread is then the
limit, and more only wait in socket buffers). :class:`InFlight` finds the number as the read
goes, from what the reading thread sees, between 1 and the cap (``connect(concurrency=)``,
at most :data:`~opslib.client._constants.MAX_CONCURRENCY`):

- **rounds**: every ``limit`` pages taken end a round; its throughput is pages taken per
  second. The first page's latency (fetched alone, nothing queued) is the link's and the
  platform's own; by Little's law ``throughput × that latency`` pages are all the link and
  the platform hold at that throughput, and ``limit`` minus that is the pages waiting in a
  queue somewhere (socket buffers, the link, the platform), buying nothing. (A round's own
  ``limit / throughput`` is no measure of it: pages that had arrived while the reader
  typed others are taken in a burst, and such a round's latency looks near zero.)
- **the start**: enough pages to keep the reading thread busy for one round trip, the
  first page's latency over the time the reader took to type it (at least
  :data:`~opslib.client._constants.INITIAL_IN_FLIGHT`): a few on loopback, the cap across
  an ocean, so that a far read does not spend its first round trips growing;
- **slow start**: from there the limit doubles each round while throughput grows by an
  eighth or more and nothing queues;
- **additive increase**: then it grows by one a round while fewer than
  :data:`~opslib.client._constants.QUEUE_LOW` pages queue, and **shrinks by one** when more
  than :data:`~opslib.client._constants.QUEUE_HIGH` do (rising latency);
- **multiplicative decrease**: a 429 or a 503 (the platform throttles or is overloaded)
  halves the limit at once and ends slow start;
- **the platform's rate**: pages are started no faster than
  :data:`~opslib.client._constants.MAX_PAGE_RATE` a second (protocol §8's per-token bucket),
  with a burst of :data:`~opslib.client._constants.PAGE_RATE_BURST`.

This is TCP Vegas's rule on whole requests, with TCP's slow start and its halving on loss;
docs/performance.md has the figures on shaped links.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from opslib.client import _constants as C

__all__ = ["InFlight"]


class InFlight:
    """The number of pages a read keeps in flight (:attr:`limit`), fed by the reading thread.

    Parameters
    ----------
    cap
        The most pages in flight.
    latency
        Seconds the first page took alone (its request sent, its answer read).
    per_page
        Seconds the reading thread took to type the first page (None: unknown, start at
        :data:`~opslib.client._constants.INITIAL_IN_FLIGHT`).
    clock
        Seconds, monotonic (tests pass a fake one).
    """

    def __init__(
        self,
        cap: int,
        *,
        latency: float,
        per_page: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cap = max(1, cap)
        start = C.INITIAL_IN_FLIGHT
        if per_page is not None and per_page > 0:
            start = max(start, math.ceil(latency / per_page))
        self.limit = min(start, self.cap)
        self.base_latency = max(latency, 1e-6)
        self.slow_start = True
        self._clock = clock
        self._round_start = clock()
        self._round_pages = 0
        self._last_rate = 0.0
        # throttles reported from any thread (a pool thread's retry), applied by the reader
        self._lock = threading.Lock()
        self._throttles = 0
        self._throttles_seen = 0
        # starts allowed by the platform's rate: a token bucket
        self._tokens = float(C.PAGE_RATE_BURST)
        self._refilled = self._round_start

    # -- signals -------------------------------------------------------------------------

    def taken(self) -> None:
        """One page taken by the reading thread (a clean answer, typed)."""
        self._apply_throttles()
        self._round_pages += 1
        if self._round_pages < self.limit:
            return
        now = self._clock()
        elapsed = now - self._round_start
        if elapsed > 0:
            self._end_round(self._round_pages / elapsed)
        self._round_start = now
        self._round_pages = 0

    def throttled(self) -> None:
        """The platform answered 429 or 503 (from any thread): halve at the next page."""
        with self._lock:
            self._throttles += 1

    def _apply_throttles(self) -> None:
        with self._lock:
            new = self._throttles != self._throttles_seen
            self._throttles_seen = self._throttles
        if new:
            self.limit = max(1, self.limit // 2)
            self.slow_start = False
            self._round_start = self._clock()
            self._round_pages = 0

    def _end_round(self, rate: float) -> None:
        queued = self.limit - rate * self.base_latency
        grew = rate >= self._last_rate * C.SLOW_START_GROWTH
        self._last_rate = rate
        if self.slow_start and grew and queued < C.QUEUE_LOW:
            self.limit = min(self.cap, self.limit * 2)
            return
        self.slow_start = False
        if queued < C.QUEUE_LOW:
            self.limit = min(self.cap, self.limit + 1)
        elif queued > C.QUEUE_HIGH:
            self.limit = max(1, self.limit - 1)

    # -- the platform's rate -------------------------------------------------------------

    def start(self) -> bool:
        """Take leave to start one page now (False: the rate's bucket is empty)."""
        self._refill()
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    def wait(self) -> float:
        """Seconds until a page may start."""
        self._refill()
        return max(0.0, (1 - self._tokens) / C.MAX_PAGE_RATE)

    def _refill(self) -> None:
        now = self._clock()
        refill = (now - self._refilled) * C.MAX_PAGE_RATE
        self._tokens = min(float(C.PAGE_RATE_BURST), self._tokens + refill)
        self._refilled = now
