"""Secrets at rest and in logs, after a full flow through every secret-bearing operation.

The flow registers, logs in by password and by SMS code, exchanges, refreshes and replays,
changes and resets the password, adds a product and binds a device with their secrets, and
reports as the device. Afterwards:

- every stored password is an argon2id hash, and the one the platform wrote (register, then
  two changes) has at least OWASP's parameters (the world's accounts were stored at the
  cheapest ones: tests/cheap_passwords.py);
- no password, SMS code, authorization code, token or client/product/device secret appears
  in any text or blob column of any table, nor anywhere in the bytes of the database file
  after a WAL checkpoint (free pages included), nor in the WAL before it;
- no server log line (root logger at DEBUG) holds one.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from server.helpers import Api

from opslib.server import FakeClock

from .flows import UNREGISTERED, login_code, login_password, register, reset_password, send_code

# OWASP (2023): argon2id with at least m=19 MiB, t=2, p=1.
ARGON2ID = re.compile(
    r"^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$"
)
HEXISH = set(b"0123456789abcdefABCDEF-")


@dataclass
class Secrets:
    long: list[str] = field(default_factory=list)  # passwords, tokens, codes, secrets
    sms: list[str] = field(default_factory=list)  # 6-digit SMS codes

    def add(self, *values: str) -> None:
        self.long.extend(v for v in values if v)


def full_flow(api: Api, clock: FakeClock) -> Secrets:
    s = Secrets()
    world = api.world
    s.add(world.client_secret, world.device_secret)
    phone = UNREGISTERED
    p1, p2, p3, wrong = "first-password-1", "second-password-2", "third-password-3", "wrong-pw-123"
    s.add(p1, p2, p3, wrong)

    send_code(api, phone, 1)
    r = register(api, phone, api.last_code(phone), p1)
    assert r.status_code == 200, r.text
    user_id, code = r.json()["data"]["user_id"], r.json()["data"]["code"]
    s.add(code)
    first = api.exchange(code).json()
    s.add(first["access_token"], first["refresh_token"])

    assert login_password(api, phone, wrong).status_code == 422
    r = login_password(api, phone, p1)
    code = r.json()["data"]["code"]
    s.add(code)
    pair = api.exchange(code).json()
    assert api.exchange(code).status_code == 400  # a second exchange, revoking the pair
    pair = api.exchange(login_password(api, phone, p1).json()["data"]["code"]).json()
    s.add(pair["access_token"], pair["refresh_token"])
    clock.advance(seconds=1)
    rotated = api.refresh(pair["refresh_token"]).json()
    assert api.refresh(pair["refresh_token"]).json() == rotated  # replay within the grace
    s.add(rotated["access_token"], rotated["refresh_token"])

    clock.advance(seconds=61)
    send_code(api, phone, 2)
    r = login_code(api, phone, api.last_code(phone))
    assert r.status_code == 200, r.text
    sms_pair = api.exchange(r.json()["data"]["code"]).json()
    s.add(r.json()["data"]["code"], sms_pair["access_token"], sms_pair["refresh_token"])

    r = api.post(
        "/user/update_pwd",
        {"update_model": 1, "old_password": p1, "new_password": p2},
        token=sms_pair["access_token"],
        user_id=user_id,
    )
    assert r.status_code == 200, r.text
    clock.advance(seconds=61)
    send_code(api, phone, 3)
    assert reset_password(api, phone, api.last_code(phone), p3).status_code == 200
    final = api.exchange(login_password(api, phone, p3).json()["data"]["code"]).json()
    s.add(final["access_token"], final["refresh_token"])

    product_secret, device_secret = "product-secret-at-rest", "device-secret-at-rest"
    s.add(product_secret, device_secret)
    r = api.as_user(
        "admin",
        "/product/add",
        {
            "product_id": "p-secret",
            "product_secret": product_secret,
            "product_name": "Secret",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
    )
    assert r.status_code == 200, r.text
    r = api.post(
        "/device/bind",
        {"device_id": "dev-secret", "device_secret": device_secret, "product_id": "p-secret"},
        token=final["access_token"],
        user_id=user_id,
    )
    assert r.status_code == 200, r.text
    r = api.client.post(
        "/device/report",
        json={
            "message_id": str(uuid.uuid4()),
            "device_id": "dev-secret",
            "device_secret": device_secret,
            "events": [{"event_type": 1}],
        },
    )
    assert r.status_code == 200, r.text
    s.add(*api.__dict__.get("_tokens", {}).values())  # the tokens of api.as_user
    s.sms = [m["code"] for m in api.sms()]
    assert len(s.sms) == 3
    return s


def text_values(db: Path) -> list[tuple[str, str, bytes]]:
    """Every text and blob value of every table: (table, column, bytes)."""
    conn = sqlite3.connect(db)
    try:
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        out = []
        for table in tables:
            cursor = conn.execute(f"SELECT * FROM {table}")
            columns = [d[0] for d in cursor.description]  # stored generated columns too
            for row in cursor:
                for column, value in zip(columns, row, strict=True):
                    if isinstance(value, str):
                        out.append((table, column, value.encode()))
                    elif isinstance(value, bytes):
                        out.append((table, column, value))
        return out
    finally:
        conn.close()


def plain_sms_code(data: bytes, code: str) -> bool:
    """Whether ``code`` occurs in ``data`` other than inside a hex hash or a UUID.

    A 6-digit string may occur by chance inside a 64-character SHA-256 or a UUID; a stored
    code would sit among other fields, not inside a run of 32 or more hex characters.
    """
    needle = code.encode()
    start = data.find(needle)
    while start != -1:
        left, right = start, start + len(needle)
        while left > 0 and data[left - 1] in HEXISH:
            left -= 1
        while right < len(data) and data[right] in HEXISH:
            right += 1
        if right - left < 32:
            return True
        start = data.find(needle, start + 1)
    return False


@pytest.fixture
def flow(api: Api, clock: FakeClock, caplog: pytest.LogCaptureFixture) -> Secrets:
    caplog.set_level(logging.DEBUG)
    return full_flow(api, clock)


def test_passwords_are_argon2id(api: Api, flow: Secrets) -> None:
    conn = sqlite3.connect(api.world.db)
    rows = dict(conn.execute("SELECT user_id, password_hash FROM users").fetchall())
    conn.close()
    assert len(rows) == len(api.world.accounts) + 1
    for value in rows.values():
        assert ARGON2ID.match(value), value[:20]
    world = {account.user_id for account in api.world.accounts.values()}
    (written,) = (value for user_id, value in rows.items() if user_id not in world)
    match = ARGON2ID.match(written)
    assert match
    m, t, p = map(int, match.groups())
    assert m >= 19 * 1024
    assert t >= 2
    assert p >= 1


def test_no_secret_in_any_column(api: Api, flow: Secrets) -> None:
    values = text_values(api.world.db)
    assert values
    for table, column, data in values:
        for secret in flow.long:
            assert secret.encode() not in data, f"{table}.{column} holds a secret"
        for code in flow.sms:
            assert not plain_sms_code(data, code), f"{table}.{column} holds an SMS code"


def test_no_secret_in_the_database_bytes(api: Api, flow: Secrets) -> None:
    db = api.world.db
    wal = Path(f"{db}.wal") if Path(f"{db}.wal").exists() else Path(f"{db}-wal")
    files = [wal.read_bytes()] if wal.exists() else []
    conn = sqlite3.connect(db)
    try:
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    finally:
        conn.close()
    assert busy == 0
    files.append(db.read_bytes())
    assert len(files[-1]) > 4096
    for data in files:
        for secret in flow.long:
            assert secret.encode() not in data
        for code in flow.sms:
            assert not plain_sms_code(data, code)


def test_no_secret_in_the_server_logs(flow: Secrets, caplog: pytest.LogCaptureFixture) -> None:
    # The test's own HTTP client (httpx) logs its request URLs, /token/access query
    # strings included; those lines are the test's, not the server's.
    logged = caplog.get_records("setup")  # the flow ran as a fixture
    records = [r for r in logged if not r.name.startswith(("httpx", "httpcore"))]
    assert any(r.name.startswith("opslib.server") for r in records), "the server logged nothing"
    text = "\n".join(f"{r.name} {r.getMessage()} {r.args!r} {r.exc_text or ''}" for r in records)
    for secret in flow.long + flow.sms:
        assert secret not in text


def test_idempotency_fingerprints_hold_no_password_or_code(api: Api, clock: FakeClock) -> None:
    """A fingerprint with the password in it under the key in ``meta`` would be a fast
    (HMAC-SHA256) hash of that password beside its key: an offline guess would cost a
    hash, not an argon2id verification. The part under that key is the same for two
    resets of one phone with different codes and passwords, so neither is in it; the part
    that covers them is under a key only the server process holds (another process over
    the same database makes another one). A repeat with the same body is replayed, one with
    another password is a 409."""
    phone = api.world["bob"].phone
    mids, codes = [], []
    for password in ("reset-password-1", "reset-password-2"):
        send_code(api, phone, 3)
        mids.append(str(uuid.uuid4()))
        codes.append(api.last_code(phone))
        r = reset_password(api, phone, codes[-1], password, message_id=mids[-1])
        assert r.status_code == 200, r.text
        clock.advance(seconds=61)
    conn = sqlite3.connect(api.world.db)
    prints = [
        conn.execute("SELECT fingerprint FROM idempotency WHERE message_id = ?", (m,)).fetchone()[0]
        for m in mids
    ]
    key = conn.execute("SELECT value FROM meta WHERE key = 'idempotency_key'").fetchone()[0]
    conn.close()
    public = [p.split(".") for p in prints]
    assert public[0][0] == public[1][0]  # under the database's key: no password, no code
    assert public[0][2] != public[1][2]
    platform = api.client.app.state.platform  # type: ignore[attr-defined]
    assert platform.process_key.hex() not in key
    assert key.encode() != platform.process_key
    # the latest reset replays with its own body, refuses another password
    same = reset_password(api, phone, codes[1], "reset-password-2", message_id=mids[1])
    assert same.status_code == 200, same.text
    other = reset_password(api, phone, codes[1], "reset-password-3", message_id=mids[1])
    assert other.status_code == 409
    assert other.json()["error_msg"].startswith("message_id:")
    # a register repeated with another password is a 409 too
    send_code(api, UNREGISTERED, 1)
    code, mid = api.last_code(UNREGISTERED), str(uuid.uuid4())
    assert register(api, UNREGISTERED, code, "register-pass-1", message_id=mid).status_code == 200
    assert register(api, UNREGISTERED, code, "register-pass-1", message_id=mid).status_code == 200
    r = register(api, UNREGISTERED, code, "register-pass-2", message_id=mid)
    assert r.status_code == 409
