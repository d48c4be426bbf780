"""Lockouts a stranger cannot cause (NIST SP 800-63B §5.2.2).

Before: five wrong passwords from any address blocked the right password, the SMS-code
login and the login after a reset for 15 minutes; ten wrong device secrets from another
address blocked the real device's reports and its owner's re-bind for 900 s. Now wrong
passwords count per (phone, address), with a per-phone backstop that only delays (a few
seconds, at most a minute); an SMS-code login and a login after a reset are not held back
by wrong passwords; wrong device secrets count per (device, address), and the owner's
re-bind is never held back by others' failures. Requests come from 127.0.0.0/8 addresses.
"""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path
from typing import Any

from server.factories import build_world
from server.helpers import Api, TestClient

from opslib.server import FakeClock, create_app
from opslib.server.store import SCHEMA_VERSION

from .addresses import from_address, http_from
from .flows import login_code, login_password, reset_password, send_code


def _locked_out(r: Any) -> int:
    assert r.status_code == 429, r.text
    return int(r.headers["Retry-After"])


def test_a_strangers_failures_do_not_lock_the_owner_out(api: Api) -> None:
    alice = api.world["alice"]
    stranger = from_address(api, "127.0.0.2")
    statuses = [
        login_password(stranger, alice.phone, f"guess-{n}-pw").status_code for n in range(6)
    ]
    assert statuses == [422] * 5 + [429]
    assert _locked_out(login_password(stranger, alice.phone, alice.password)) > 60
    owner = from_address(api, "127.0.0.3")
    assert login_password(owner, alice.phone, alice.password).status_code == 200


def test_failures_from_many_addresses_only_delay_the_owner(api: Api, clock: FakeClock) -> None:
    """The per-phone backstop: beyond 10 failures from anywhere, a delay after the latest
    that doubles with each further one (1 s, 2 s, ... at most 60 s), not a 15-minute block."""
    alice = api.world["alice"]
    for n in range(12):  # 12 addresses, one guess each, a minute apart (each delay passes)
        guesser = from_address(api, f"127.0.3.{n + 1}")
        assert login_password(guesser, alice.phone, "wrong-password").status_code == 422
        clock.advance(seconds=60 if n < 11 else 0)
    owner = from_address(api, "127.0.0.3")
    retry = _locked_out(login_password(owner, alice.phone, alice.password))
    assert retry == 2  # 12 failures: 2 beyond the free 10
    clock.advance(seconds=retry)
    assert login_password(owner, alice.phone, alice.password).status_code == 200


def test_an_sms_code_login_is_not_held_back_by_wrong_passwords(api: Api) -> None:
    alice = api.world["alice"]
    owner = from_address(api, "127.0.0.3")
    for n in range(5):  # the owner's own mistakes, even
        assert login_password(owner, alice.phone, f"forgotten-{n}").status_code == 422
    _locked_out(login_password(owner, alice.phone, alice.password))
    send_code(owner, alice.phone, 2)
    r = login_code(owner, alice.phone, api.last_code(alice.phone))
    assert r.status_code == 200, r.text


def test_a_login_after_a_reset_is_not_held_back_by_earlier_failures(api: Api) -> None:
    alice = api.world["alice"]
    owner = from_address(api, "127.0.0.3")
    for n in range(5):
        assert login_password(owner, alice.phone, f"forgotten-{n}").status_code == 422
    send_code(owner, alice.phone, 3)
    r = reset_password(owner, alice.phone, api.last_code(alice.phone), "reset-password-1")
    assert r.status_code == 200, r.text
    assert login_password(owner, alice.phone, "reset-password-1").status_code == 200


def _report(api: Api, device_id: str, secret: str) -> Any:
    body = {
        "message_id": str(uuid.uuid4()),
        "device_id": device_id,
        "device_secret": secret,
        "events": [{"event_type": 1}],
    }
    return api.client.post("/device/report", json=body)


def test_wrong_device_secrets_from_a_stranger_block_neither_device_nor_owner(api: Api) -> None:
    right = api.world.device_secret
    stranger = from_address(api, "127.0.0.2")
    statuses = [_report(stranger, "dev-a1", f"wrong-secret-{n}").status_code for n in range(11)]
    assert statuses == [401] * 10 + [429]
    assert _report(from_address(api, "127.0.0.3"), "dev-a1", right).status_code == 200
    bind = {"device_id": "dev-a1", "device_secret": right, "product_id": "p-lamp"}
    # the owner re-binds, from the stranger's very address (one NAT): never held back
    assert stranger.as_user("alice", "/device/bind", bind).status_code == 200
    # someone else's bind from there is still held back, the right secret included
    r = stranger.as_user("bob", "/device/bind", bind)
    assert r.status_code == 429, r.text


def test_a_schema_3_database_is_converted_and_its_failures_kept(tmp_path: Path) -> None:
    """A database of the previous schema (failed logins without an address) opens."""
    db, now = tmp_path / "v3.db", 1_714_521_600_000
    world = build_world(db, now=now)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("DROP TABLE login_failures")
        conn.execute(
            "CREATE TABLE login_failures (area_code TEXT NOT NULL, phone TEXT NOT NULL,"
            " at INTEGER NOT NULL)"
        )
        conn.execute("CREATE INDEX login_failures_phone ON login_failures (area_code, phone, at)")
        for name in ("login_failures_address", "login_failures_at", "sms_sends_time"):
            conn.execute(f"DROP INDEX IF EXISTS {name}")
        for _ in range(5):
            conn.execute("INSERT INTO login_failures VALUES ('1', ?, ?)", (world["bob"].phone, now))
        conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    conn.close()
    with TestClient(create_app(db, clock=FakeClock(now + 1000))) as client:
        api = Api(client, world, FakeClock(now + 1000))
        alice = world["alice"]
        assert login_password(api, alice.phone, alice.password).status_code == 200
        # bob's five earlier failures hold back no address: they came from none
        bob = world["bob"]
        assert login_password(api, bob.phone, bob.password).status_code == 200
    conn = sqlite3.connect(db)
    version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    columns = [r[1] for r in conn.execute("PRAGMA table_info(login_failures)")]
    conn.close()
    assert (int(version), columns) == (SCHEMA_VERSION, ["area_code", "phone", "at", "address"])


def _login_over(http: Any, p: Any, password: str, forwarded: str = "") -> int:
    params = {
        "client_id": p.client_id,
        "login_model": 1,
        "area_code": p.area_code,
        "phone": p.user_phone,
        "password": password,
    }
    envelope = {"message_id": str(uuid.uuid4()), "user_id": "", "params": params}
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    return int(http.post("/user/login", json=envelope, headers=headers).status_code)


def test_over_loopback_the_owner_logs_in_from_another_address(fresh_platform: Any) -> None:
    """The same against a real server: 127.0.0.2 locks itself out of the demo user's phone,
    127.0.0.3 logs in."""
    p = fresh_platform
    with http_from(p.base_url, "127.0.0.2") as stranger:
        statuses = [_login_over(stranger, p, f"guess-{n}-password") for n in range(6)]
        assert statuses == [422] * 5 + [429]
        assert _login_over(stranger, p, p.user_password) == 429
    with http_from(p.base_url, "127.0.0.3") as owner:
        assert _login_over(owner, p, p.user_password) == 200


def test_a_forwarded_address_counts_only_from_a_trusted_proxy(fresh_platform: Any) -> None:
    """uvicorn takes ``X-Forwarded-For`` only from the addresses in ``FORWARDED_ALLOW_IPS``
    (default 127.0.0.1 and ::1): from 127.0.0.2 the header changes nothing, so a client
    cannot step round the per-address limits with it; from 127.0.0.1, a proxy, each client
    behind it counts on its own."""
    p = fresh_platform
    with http_from(p.base_url, "127.0.0.2") as stranger:
        statuses = [_login_over(stranger, p, "guess-password", f"10.0.0.{n}") for n in range(6)]
        assert statuses == [422] * 5 + [429]
    with http_from(p.base_url, "127.0.0.1") as proxy:
        statuses = [_login_over(proxy, p, "guess-password", "10.9.9.9") for _ in range(6)]
        assert statuses == [422] * 5 + [429]
        assert _login_over(proxy, p, p.user_password, "10.9.9.8") == 200
