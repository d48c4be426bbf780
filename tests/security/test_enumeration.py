"""Pre-login operations do not tell which phones are registered.

Every step runs for a registered and an unregistered phone with the same message_id, at the
same moment of the FakeClock, and the two answers must be byte-identical (status, body,
Retry-After): send-code of every code_model, verification, login by password and by SMS
code, register and reset with a wrong code, and the throttles that follow.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from server.helpers import Api

from opslib.server import FakeClock

from .flows import (
    UNREGISTERED,
    login_code,
    login_password,
    register,
    reset_password,
    send_code,
    verify_code,
)

Step = Callable[[str, str], Any]  # (phone, message_id) -> response


def same_answer(api: Api, step: Step, registered: str, status: int) -> None:
    message_id = str(uuid.uuid4())
    a = step(registered, message_id)
    b = step(UNREGISTERED, message_id)
    assert a.status_code == status, a.text
    assert (a.status_code, a.content) == (b.status_code, b.content)
    assert a.headers.get("Retry-After") == b.headers.get("Retry-After")


def test_send_verify_login_register_reset_answer_the_same(api: Api, clock: FakeClock) -> None:
    alice = api.world["alice"].phone
    wrong = "000000"

    def send(code_model: int) -> Step:
        return lambda phone, mid: send_code(api, phone, code_model, message_id=mid)

    for code_model in (1, 2, 3):
        same_answer(api, send(code_model), alice, 200)
        # a second send within 60 s is throttled alike (and no SMS goes out)
        same_answer(api, send(code_model), alice, 429)
        clock.advance(seconds=61)
    # Only usable codes went out: login and reset to alice, register to the new phone.
    assert [m["purpose"] for m in api.sms(alice)] == [2, 3]
    assert [m["purpose"] for m in api.sms(UNREGISTERED)] == [1]
    assert wrong not in {m["code"] for m in api.sms()}

    for code_model in (1, 2, 3):
        same_answer(
            api,
            lambda phone, mid, cm=code_model: verify_code(api, phone, cm, wrong, message_id=mid),
            alice,
            422,
        )
    same_answer(api, lambda phone, mid: register(api, phone, wrong, message_id=mid), alice, 422)
    same_answer(
        api,
        lambda phone, mid: reset_password(api, phone, wrong, "another-password", message_id=mid),
        alice,
        422,
    )
    # Logins: a wrong code (held back by the code's own limits only), then wrong passwords,
    # which count towards the phone's limit of 5 from this address.
    same_answer(api, lambda phone, mid: login_code(api, phone, wrong, message_id=mid), alice, 422)
    for _ in range(5):
        same_answer(
            api,
            lambda phone, mid: login_password(api, phone, "wrong-password", message_id=mid),
            alice,
            422,
        )
    # the 6th attempt is throttled for both, even with alice's right password
    right = api.world["alice"].password
    same_answer(
        api, lambda phone, mid: login_password(api, phone, right, message_id=mid), alice, 429
    )


def test_the_daily_send_limit_is_the_same(api: Api, clock: FakeClock) -> None:
    bob = api.world["bob"].phone
    clock.set(1_714_521_600_000 + 3600_000)  # 01:00 UTC: ten sends fit in the day
    for n in range(10):
        same_answer(
            api, lambda phone, mid, n=n: send_code(api, phone, 1 + n % 3, message_id=mid), bob, 200
        )
        clock.advance(seconds=60)
    same_answer(api, lambda phone, mid: send_code(api, phone, 2, message_id=mid), bob, 429)
