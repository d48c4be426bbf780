"""Throttles by client address and in all, beside the per-phone ones.

Before: 100 codes to 100 numbers left one address in 0.8 s (SMS pumping, OWASP
API6:2023); 5,000 wrong client secrets in 9.5 s were all 401, never 429 (RFC 6749 §2.3.1);
128 wrong logins over 32 phones and 200 code guesses over 40 phones from one address
never met a 429. Now each has a limit per address (and SMS sends per destination prefix
and in all per UTC day, client secrets per client): a 429 with ``Retry-After``, while
another address is not affected. Requests come from 127.0.0.0/8 addresses in-process.
"""

from __future__ import annotations

from typing import Any

import pytest
from cheap_passwords import cheap_hash
from server.helpers import Api

from opslib.server import FakeClock
from opslib.server.services import auth

from .addresses import from_address
from .flows import login_password, send_code, verify_code

DAY_MS = 86_400_000


def _throttled(r: Any, field: str) -> int:
    assert r.status_code == 429, r.text
    assert r.json()["error_msg"].startswith(f"{field}:"), r.text
    retry = int(r.headers["Retry-After"])
    assert retry >= 1
    return retry


def _phones(n: int, first: int = 5_551_000_000) -> list[str]:
    return [str(first + i * 7) for i in range(n)]


def test_sms_sends_from_one_address_are_limited(api: Api) -> None:
    pump = from_address(api, "127.0.0.2")
    statuses = [send_code(pump, phone, 1).status_code for phone in _phones(31)]
    assert statuses == [200] * 30 + [429]
    retry = _throttled(send_code(pump, "5552000000", 1), "params.phone")
    assert retry <= 3600
    assert len(api.sms()) == 30  # the gateway was not called
    assert send_code(from_address(api, "127.0.0.3"), "5552000000", 1).status_code == 200


@pytest.fixture
def cheap_unknown_phones(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unknown phones' logins verify against a cheap argon2id hash (the limit, not the
    hash, is under test: 20 full hashes would take seconds)."""
    cheap = cheap_hash("no-such-password")
    monkeypatch.setattr(auth, "_dummy_hash", lambda: cheap)


@pytest.mark.usefixtures("cheap_unknown_phones")
def test_wrong_passwords_from_one_address_across_phones_are_limited(api: Api) -> None:
    guesser = from_address(api, "127.0.0.2")
    phones = _phones(21)
    statuses = [login_password(guesser, phone, "wrong-password").status_code for phone in phones]
    assert statuses == [422] * 20 + [429]
    alice = api.world["alice"]
    _throttled(login_password(guesser, alice.phone, alice.password), "params.password")
    owner = from_address(api, "127.0.0.3")
    assert login_password(owner, alice.phone, alice.password).status_code == 200


def test_wrong_codes_from_one_address_across_phones_are_limited(api: Api) -> None:
    guesser = from_address(api, "127.0.0.2")
    phones = _phones(10)
    for phone in phones:
        assert send_code(api, phone, 1).status_code == 200
    statuses = [
        verify_code(guesser, phone, 1, f"{n:06d}").status_code for phone in phones for n in range(2)
    ]
    assert statuses == [422] * 20
    code = api.last_code(phones[-1])
    _throttled(verify_code(guesser, phones[-1], 1, code), "params.auth_code")  # right one too
    assert verify_code(from_address(api, "127.0.0.3"), phones[-1], 1, code).status_code == 200


def _token(api: Api, secret: str, client_id: str | None = None) -> Any:
    return api.token_access(
        grant_type="refresh_token",
        client_id=client_id or api.world.client_id,
        client_secret=secret,
        refresh_token="not-a-refresh-token",
    )


def _slowed(r: Any) -> int:
    assert r.status_code == 429, r.text
    assert r.json()["error"] == "slow_down"
    assert r.headers["Cache-Control"] == "no-store"
    return int(r.headers["Retry-After"])


def test_wrong_client_secrets_from_one_address_are_a_hard_limit(api: Api, clock: FakeClock) -> None:
    guesser = from_address(api, "127.0.0.2")
    statuses = []
    for n in range(11):
        statuses.append(_token(guesser, f"wrong-secret-{n}", client_id=f"client-{n}").status_code)
    assert statuses == [401] * 10 + [429]
    retry = _slowed(_token(guesser, api.world.client_secret))
    assert 60 < retry <= 15 * 60
    other = from_address(api, "127.0.0.3")
    assert _token(other, api.world.client_secret).json()["error"] == "invalid_grant"
