"""SMS codes, for each operation that consumes one (register, login by code, reset).

A code dies after 5 wrong attempts, at 10 minutes, once used, and when a resend replaces it;
sends are throttled per phone and a throttled send never reaches the gateway. The codes are
made predictable (patched generator) so "replaced" is never a coincidence of equal codes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from server.helpers import Api

from opslib.server import FakeClock, security

from .flows import (
    UNREGISTERED,
    login_code,
    other_code,
    register,
    reset_password,
    send_code,
    verify_code,
)


@dataclass(frozen=True)
class Consumer:
    name: str
    code_model: int
    phone: Callable[[Api], str]
    use: Callable[[Api, str, str], Any]  # (api, phone, code) -> response


CONSUMERS = [
    Consumer("register", 1, lambda api: UNREGISTERED, lambda api, ph, c: register(api, ph, c)),
    Consumer(
        "login", 2, lambda api: api.world["alice"].phone, lambda api, ph, c: login_code(api, ph, c)
    ),
    Consumer(
        "reset",
        3,
        lambda api: api.world["bob"].phone,
        lambda api, ph, c: reset_password(api, ph, c, "reset-password-1"),
    ),
]
IDS = [c.name for c in CONSUMERS]


@pytest.fixture(autouse=True)
def predictable_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = iter(range(1, 1000))
    monkeypatch.setattr(security, "new_sms_code", lambda: f"{next(counter) * 111_111 % 10**6:06d}")


def fresh_code(api: Api, consumer: Consumer) -> str:
    phone = consumer.phone(api)
    before = len(api.sms(phone))
    r = send_code(api, phone, consumer.code_model)
    assert r.status_code == 200, r.text
    assert len(api.sms(phone)) == before + 1
    return api.last_code(phone)


def assert_wrong_code(r: Any) -> None:
    assert r.status_code == 422, r.text
    assert r.json()["error_msg"].startswith("params.auth_code:")


@pytest.mark.parametrize("consumer", CONSUMERS, ids=IDS)
def test_the_right_code_works_once(api: Api, consumer: Consumer) -> None:
    phone = consumer.phone(api)
    code = fresh_code(api, consumer)
    assert consumer.use(api, phone, code).status_code == 200
    assert_wrong_code(consumer.use(api, phone, code))  # used
    assert_wrong_code(verify_code(api, phone, consumer.code_model, code))


@pytest.mark.parametrize("consumer", CONSUMERS, ids=IDS)
def test_five_wrong_attempts_kill_the_code(api: Api, consumer: Consumer) -> None:
    phone = consumer.phone(api)
    code = fresh_code(api, consumer)
    for _ in range(5):
        assert_wrong_code(verify_code(api, phone, consumer.code_model, other_code(code)))
    assert_wrong_code(consumer.use(api, phone, code))  # the 6th attempt, with the right code


def test_wrong_register_and_reset_attempts_count_too(api: Api) -> None:
    for consumer in (CONSUMERS[0], CONSUMERS[2]):
        phone = consumer.phone(api)
        code = fresh_code(api, consumer)
        for _ in range(4):
            assert_wrong_code(consumer.use(api, phone, other_code(code)))
        assert verify_code(api, phone, consumer.code_model, code).status_code == 200
        assert_wrong_code(consumer.use(api, phone, other_code(code)))  # the 5th wrong one
        assert_wrong_code(consumer.use(api, phone, code))


@pytest.mark.parametrize("consumer", CONSUMERS, ids=IDS)
def test_a_code_lives_ten_minutes(api: Api, clock: FakeClock, consumer: Consumer) -> None:
    phone = consumer.phone(api)
    code = fresh_code(api, consumer)
    clock.advance(ms=10 * 60_000 - 1)
    assert verify_code(api, phone, consumer.code_model, code).status_code == 200
    clock.advance(ms=1)
    assert_wrong_code(verify_code(api, phone, consumer.code_model, code))
    api.__dict__.pop("_tokens", None)
    assert_wrong_code(consumer.use(api, phone, code))


@pytest.mark.parametrize("consumer", CONSUMERS, ids=IDS)
def test_a_resend_replaces_the_code(api: Api, clock: FakeClock, consumer: Consumer) -> None:
    phone = consumer.phone(api)
    first = fresh_code(api, consumer)
    clock.advance(seconds=61)
    second = fresh_code(api, consumer)
    assert first != second
    assert_wrong_code(consumer.use(api, phone, first))
    assert consumer.use(api, phone, second).status_code == 200


def test_codes_of_other_purposes_do_not_mix(api: Api, clock: FakeClock) -> None:
    alice = api.world["alice"].phone
    send_code(api, alice, 3)  # a reset code
    reset = api.last_code(alice)
    assert_wrong_code(login_code(api, alice, reset))
    clock.advance(seconds=61)
    send_code(api, alice, 2)
    login = api.last_code(alice)
    assert_wrong_code(reset_password(api, alice, login, "reset-password-1"))
    assert login_code(api, alice, login).status_code == 200


def test_throttled_sends_never_reach_the_gateway(api: Api, clock: FakeClock) -> None:
    clock.set(1_714_521_600_000 + 3600_000)  # 01:00 UTC
    phone = api.world["alice"].phone
    sent = 0
    for minute in range(12):
        for attempt in range(3):  # three tries a minute: only the first may go out
            r = send_code(api, phone, 2)
            if attempt == 0 and minute < 10:
                assert r.status_code == 200, r.text
                sent += 1
            else:
                assert r.status_code == 429
                assert int(r.headers["Retry-After"]) >= 1
                assert r.json()["data"]["retry_after"] == int(r.headers["Retry-After"])
            assert len(api.sms(phone)) == sent
            clock.advance(seconds=1)
        clock.advance(seconds=57)
    assert sent == 10
