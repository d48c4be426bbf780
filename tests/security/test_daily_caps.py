"""Caps that count from every address: SMS sends per destination prefix and in all per UTC
day, wrong client secrets per client (a delay that doubles, never a lockout).

Small caps here (``settings``); the defaults are 1,000 a day per prefix, 20,000 a day in
all, and 100 free wrong secrets per client. Requests come from 127.0.0.0/8 addresses.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from server.helpers import Api

from opslib.server import FakeClock, Settings

from .addresses import from_address
from .flows import send_code
from .test_throttles import DAY_MS, _phones, _slowed, _throttled, _token


@pytest.fixture
def settings() -> Settings:
    return replace(
        Settings(),
        sms_prefix_daily_limit=4,
        sms_global_daily_limit=7,
        client_backstop_free=3,
    )


def test_sms_sends_to_one_prefix_and_in_all_have_daily_caps(api: Api, clock: FakeClock) -> None:
    clock.set(1_714_521_600_000 + 3600_000)  # 01:00 UTC
    addresses = [from_address(api, f"127.0.1.{n}") for n in range(1, 9)]
    for n, phone in enumerate(_phones(4, 5_553_000_000)):  # one prefix: +1 555
        assert send_code(addresses[n], phone, 1).status_code == 200
    r = send_code(addresses[4], "5553999999", 1)
    retry = _throttled(r, "params.phone")
    assert "+1 555" in r.json()["error_msg"]
    assert 3600 < retry <= 23 * 3600
    for n, phone in enumerate(("6661000001", "7771000001", "8881000001")):  # other prefixes
        assert send_code(addresses[5 + n], phone, 1).status_code == 200
    r = send_code(addresses[0], "9991000001", 1)  # the platform's 7 of the day are gone
    _throttled(r, "params.phone")
    assert "daily limit" in r.json()["error_msg"]
    assert len(api.sms()) == 7
    clock.set(1_714_521_600_000 + DAY_MS)  # the next UTC day
    assert send_code(addresses[0], "9991000001", 1).status_code == 200


def test_wrong_client_secrets_of_one_client_slow_down_from_any_address(
    api: Api, clock: FakeClock
) -> None:
    """The client's backstop (3 free failures here, 100 by default): guesses spread over
    addresses wait a delay that doubles after each, never a lockout of the client."""
    guessers = [from_address(api, f"127.0.2.{n}") for n in range(1, 6)]
    assert [_token(g, "wrong-secret").status_code for g in guessers[:4]] == [401] * 4
    app = from_address(api, "127.0.0.4")  # the client's own requests
    assert _slowed(_token(app, api.world.client_secret)) == 1
    clock.advance(seconds=1)
    assert _token(app, api.world.client_secret).json()["error"] == "invalid_grant"  # passed
    assert _token(guessers[4], "wrong-secret").status_code == 401
    assert _slowed(_token(app, api.world.client_secret)) == 2  # doubled
    clock.advance(seconds=2)
    assert _token(app, api.world.client_secret).json()["error"] == "invalid_grant"
