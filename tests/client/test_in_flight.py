"""The controller of pages in flight, driven by a fake clock and a modelled link.

The link: a page takes ``latency`` seconds from its start to its answer, and the link (or
the platform, or the reading thread) passes at most ``bandwidth`` pages a second. With
``n`` pages in flight the reader then takes ``min(n / latency, bandwidth)`` pages a second.
"""

from __future__ import annotations

import threading

import pytest

from opslib.client import _constants as C
from opslib.client._pager import InFlight


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def window(cap: int = 32, latency: float = 0.04) -> tuple[InFlight, Clock]:
    clock = Clock()
    return InFlight(cap, latency=latency, clock=clock), clock


def take(flight: InFlight, clock: Clock, pages: int, *, latency: float, bandwidth: float) -> None:
    """``pages`` taken, each at the pace the modelled link allows at the current limit."""
    for _ in range(pages):
        clock.now += 1 / min(flight.limit / latency, bandwidth)
        flight.taken()


def test_a_read_starts_with_a_few_pages_in_flight_within_the_cap() -> None:
    assert window()[0].limit == C.INITIAL_IN_FLIGHT
    assert window(cap=2)[0].limit == 2
    assert window(cap=0)[0].limit == 1


@pytest.mark.parametrize(
    ("latency", "per_page", "cap", "start"),
    [
        (0.004, 0.002, 32, C.INITIAL_IN_FLIGHT),  # loopback: the fewest
        (0.040, 0.003, 32, 14),  # 40 ms: the reader busy for one round trip
        (0.150, 0.003, 32, 32),  # 150 ms: the cap
        (0.150, 0.003, 8, 8),
        (0.040, 0.0, 32, C.INITIAL_IN_FLIGHT),  # nothing known
    ],
)
def test_a_far_platform_starts_with_a_round_trip_of_pages(
    latency: float, per_page: float, cap: int, start: int
) -> None:
    assert InFlight(cap, latency=latency, per_page=per_page).limit == start


def test_a_far_link_with_room_grows_to_the_cap() -> None:
    # 40 ms a page and no bandwidth limit: throughput grows with every page in flight
    flight, clock = window()
    limits = []
    for _ in range(8):
        take(flight, clock, flight.limit, latency=0.04, bandwidth=1e9)
        limits.append(flight.limit)
    assert limits[:3] == [8, 16, 32]  # slow start doubles each round
    assert limits[-1] == 32  # and never past the cap


def test_a_full_link_settles_just_above_its_bandwidth_delay_product() -> None:
    # 40 ms, 250 pages/s: 10 pages fill the link; more only queue
    flight, clock = window()
    for _ in range(60):
        take(flight, clock, flight.limit, latency=0.04, bandwidth=250)
    assert not flight.slow_start
    assert 10 + C.QUEUE_LOW <= flight.limit <= 10 + C.QUEUE_HIGH + 1


def test_smaller_pages_let_as_many_rows_queue_as_the_largest() -> None:
    # the same link, 100-row pages: 10 pages fill it, and ten times the pages may queue
    clock = Clock()
    flight = InFlight(32, latency=0.04, rows=100, clock=clock)
    for _ in range(60):
        take(flight, clock, flight.limit, latency=0.04, bandwidth=250)
    assert 10 + 10 * C.QUEUE_LOW <= flight.limit <= 32


def test_rising_latency_shrinks_the_window() -> None:
    flight, clock = window(latency=0.04)
    for _ in range(20):
        take(flight, clock, flight.limit, latency=0.04, bandwidth=250)
    settled = flight.limit
    # the link's queue grows: each page now waits 10 pages' time besides the 40 ms, while
    # the throughput stays at 250 pages a second
    for _ in range(10):
        take(flight, clock, flight.limit, latency=0.08, bandwidth=250 * settled / (settled + 10))
    assert flight.limit < settled


@pytest.mark.parametrize("start", [32, 5, 1])
def test_a_throttle_halves_at_the_next_page_never_below_one(start: int) -> None:
    flight, clock = window()
    flight.limit = start
    flight.throttled()
    assert flight.limit == start  # the reading thread applies it ...
    clock.now += 0.01
    flight.taken()
    assert flight.limit == max(1, start // 2)  # ... at the next page it takes
    assert not flight.slow_start


def test_throttles_from_other_threads_between_two_pages_halve_once() -> None:
    flight, clock = window()
    flight.limit = 16
    threads = [threading.Thread(target=flight.throttled) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    clock.now += 0.01
    flight.taken()
    assert flight.limit == 8
    flight.taken()
    assert flight.limit == 8  # nothing new since


def test_after_a_throttle_growth_is_one_page_a_round() -> None:
    flight, clock = window()
    flight.limit = 16
    flight.throttled()
    clock.now += 0.01
    flight.taken()
    assert flight.limit == 8
    take(flight, clock, 8, latency=0.04, bandwidth=1e9)
    assert flight.limit == 9  # no more slow start


def test_pages_start_no_faster_than_the_platform_s_rate() -> None:
    flight, clock = window()
    started = 0
    while flight.start():
        started += 1
    assert started == C.PAGE_RATE_BURST  # a burst, then ...
    assert flight.wait() == pytest.approx(1 / C.MAX_PAGE_RATE)
    clock.now += 10.5 / C.MAX_PAGE_RATE  # ... the rate
    assert sum(flight.start() for _ in range(20)) == 10
