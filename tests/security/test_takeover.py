"""Account takeover paths: an authorization code kept past a password change, and the
idempotent replay of a write that carries a password.

Before: a code issued before ``update_pwd`` (either mode) still exchanged afterwards for
a 30-day token family; and a repeat of ``/user/register`` or a reset with the same
message_id re-checked the password with argon2id, counted no failure, accepted any SMS
code and, on the right guess, issued a fresh authorization code, for 24 hours. Now a new
password removes every code not exchanged yet, and a repeat answers the first answer
byte for byte (no password checked, no code issued) or, when its body differs, a 409
that counts as a failed login of the phone.
"""

from __future__ import annotations

import sqlite3
import uuid
from typing import Any

from server.helpers import Api, TestClient

from opslib.server import create_app

from .addresses import from_address
from .flows import UNREGISTERED, login_password, register, reset_password, send_code
from .test_costs import CountingHasher, hashes

__all__ = ["hashes"]


def _codes(api: Api) -> int:
    conn = sqlite3.connect(api.world.db)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM auth_codes").fetchone()[0])
    finally:
        conn.close()


def _login_code(api: Api, name: str = "alice") -> str:
    account = api.world[name]
    r = login_password(api, account.phone, account.password)
    assert r.status_code == 200, r.text
    return str(r.json()["data"]["code"])


def test_a_password_change_revokes_outstanding_codes(api: Api) -> None:
    stolen = _login_code(api)  # kept by whoever logged in with a stolen password
    bobs = _login_code(api, "bob")
    change = {
        "update_model": 1,
        "old_password": api.world["alice"].password,
        "new_password": "changed-password-1",
    }
    assert api.as_user("alice", "/user/update_pwd", change).status_code == 200
    r = api.exchange(stolen)
    assert (r.status_code, r.json()["error"]) == (400, "invalid_grant"), r.text
    assert api.exchange(bobs).status_code == 200  # other users' codes live on
    r = login_password(api, api.world["alice"].phone, "changed-password-1")
    assert api.exchange(r.json()["data"]["code"]).status_code == 200  # new codes work


def test_a_password_reset_revokes_outstanding_codes(api: Api) -> None:
    stolen = _login_code(api)
    phone = api.world["alice"].phone
    send_code(api, phone, 3)
    assert reset_password(api, phone, api.last_code(phone), "reset-password-1").status_code == 200
    r = api.exchange(stolen)
    assert (r.status_code, r.json()["error"]) == (400, "invalid_grant"), r.text


def _registered(api: Api) -> tuple[str, str, Any]:
    send_code(api, UNREGISTERED, 1)
    code, mid = api.last_code(UNREGISTERED), str(uuid.uuid4())
    first = register(api, UNREGISTERED, code, "register-pass-1", message_id=mid)
    assert first.status_code == 200, first.text
    return code, mid, first


def test_a_repeated_register_answers_the_first_answer_and_checks_nothing(
    api: Api, hashes: CountingHasher
) -> None:
    code, mid, first = _registered(api)
    before, hashes.calls = _codes(api), 0
    again = register(api, UNREGISTERED, code, "register-pass-1", message_id=mid)
    assert (again.status_code, again.content) == (200, first.content)
    assert (hashes.calls, _codes(api)) == (0, before)  # no argon2id, no new code
    assert again.headers["Cache-Control"] == "no-store"


def test_a_repeat_with_another_body_is_refused_and_issues_nothing(
    api: Api, hashes: CountingHasher
) -> None:
    code, mid, _ = _registered(api)
    before, hashes.calls = _codes(api), 0
    for password, sms_code in (("register-pass-2", code), ("register-pass-1", "000000")):
        r = register(api, UNREGISTERED, sms_code, password, message_id=mid)
        assert r.status_code == 409, r.text
        assert r.json()["error_msg"].startswith("message_id: already used")
        assert "code" not in r.json()["data"]
    assert (hashes.calls, _codes(api)) == (0, before)


def test_repeats_with_other_passwords_are_throttled_like_logins(api: Api) -> None:
    """Each repeat with another password counts as a failed login of the phone from its
    address: the sixth is a 429, the right body included, while the owner's own address
    still logs in."""
    code, mid, _ = _registered(api)
    statuses = [
        register(api, UNREGISTERED, code, f"guess-password-{n}", message_id=mid).status_code
        for n in range(6)
    ]
    assert statuses == [409] * 5 + [429]
    r = register(api, UNREGISTERED, code, "register-pass-1", message_id=mid)
    assert r.status_code == 429
    owner = from_address(api, "127.0.0.3")
    assert login_password(owner, UNREGISTERED, "register-pass-1").status_code == 200


def test_a_repeated_reset_answers_the_first_answer(api: Api, hashes: CountingHasher) -> None:
    phone = api.world["bob"].phone
    send_code(api, phone, 3)
    code, mid = api.last_code(phone), str(uuid.uuid4())
    first = reset_password(api, phone, code, "reset-password-1", message_id=mid)
    assert first.status_code == 200, first.text
    hashes.calls = 0
    again = reset_password(api, phone, code, "reset-password-1", message_id=mid)
    assert (again.status_code, again.content, hashes.calls) == (200, first.content, 0)
    r = reset_password(api, phone, "000000", "reset-password-1", message_id=mid)
    assert r.status_code == 409, r.text


def test_after_a_restart_a_repeat_with_a_password_is_a_409_that_says_why(api: Api) -> None:
    code, mid, _ = _registered(api)
    with TestClient(create_app(api.world.db, clock=api.clock)) as restarted:
        again = Api(restarted, api.world, api.clock)
        r = register(again, UNREGISTERED, code, "register-pass-1", message_id=mid)
    assert r.status_code == 409, r.text
    assert "restarted" in r.json()["error_msg"]
