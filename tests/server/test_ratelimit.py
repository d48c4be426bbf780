"""Per-token rate limit: a token bucket, 429 with Retry-After and data.retry_after."""

from __future__ import annotations

from dataclasses import replace

import pytest

from opslib.server import FakeClock, Settings
from opslib.server.ratelimit import RateLimiter

from .helpers import Api


@pytest.fixture
def settings() -> Settings:
    return replace(Settings(), rate_limit_per_s=2, rate_limit_burst=3)


def test_bucket_refills() -> None:
    limiter = RateLimiter(rate=10, burst=2)
    assert limiter.acquire("a", now_ms=0) == 0
    assert limiter.acquire("a", now_ms=0) == 0
    assert limiter.acquire("a", now_ms=0) == 100
    assert limiter.acquire("b", now_ms=0) == 0
    assert limiter.acquire("a", now_ms=100) == 0


def test_zero_rate_turns_it_off() -> None:
    limiter = RateLimiter(rate=0, burst=1)
    assert all(limiter.acquire("a", now_ms=0) == 0 for _ in range(10_000))


def test_api_answers_429_per_token(api: Api, clock: FakeClock) -> None:
    for _ in range(3):
        assert (
            api.as_user("alice", "/user/query_sys_setting", {"query_model": 1}).status_code == 200
        )
    r = api.as_user("alice", "/user/query_sys_setting", {"query_model": 1})
    assert r.status_code == 429
    assert r.headers["Retry-After"] == "1"
    assert r.json()["data"] == {"retry_after": 1}
    assert api.as_user("bob", "/user/query_sys_setting", {"query_model": 1}).status_code == 200
    clock.advance(seconds=1)
    assert api.as_user("alice", "/user/query_sys_setting", {"query_model": 1}).status_code == 200
