"""Idempotent writes (protocol §10): replay, 409 on different params, one write at once."""

from __future__ import annotations

import sqlite3
import threading
import uuid
from typing import Any

from opslib.server import FakeClock

from .helpers import Api


def count(api: Api, sql: str) -> int:
    conn = sqlite3.connect(api.world.db)
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()


BIND = {"device_id": "dev-idem", "device_secret": "idem-device-secret", "product_id": "p-lamp"}


def test_replay_returns_the_first_response_without_writing(api: Api) -> None:
    message_id = str(uuid.uuid4())
    first = api.as_user(
        "admin",
        "/product/add",
        {
            "product_id": "p-idem",
            "product_secret": "secret-idem",
            "product_name": "Idem",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
        message_id=message_id,
    )
    assert first.status_code == 200
    again = api.as_user(
        "admin",
        "/product/add",
        {
            "product_id": "p-idem",
            "product_secret": "secret-idem",
            "product_name": "Idem",
            "category_id": 1,
            "net_type": 1,
            "node_type": 1,
        },
        message_id=message_id,
    )
    assert (again.status_code, again.content) == (200, first.content)  # not a 409 "exists"


def test_access_token_is_not_part_of_the_fingerprint(api: Api) -> None:
    message_id = str(uuid.uuid4())
    first = api.as_user("alice", "/device/bind", BIND, message_id=message_id)
    other_token = api.login(api.world["alice"].phone, api.world["alice"].password)["access_token"]
    again = api.post(
        "/device/bind", BIND, token=other_token, user_id="u-alice", message_id=message_id
    )
    assert again.content == first.content


def test_same_message_id_different_params_is_409(api: Api) -> None:
    message_id = str(uuid.uuid4())
    assert api.as_user("alice", "/device/bind", BIND, message_id=message_id).status_code == 200
    r = api.as_user("alice", "/device/bind", {**BIND, "group_id": 3}, message_id=message_id)
    assert r.status_code == 409
    assert r.json()["error_msg"].startswith("message_id:")
    assert r.json()["message_id"] == message_id


def test_same_message_id_for_another_caller_or_operation_is_independent(api: Api) -> None:
    message_id = str(uuid.uuid4())
    assert (
        api.as_user(
            "alice", "/user/update_user_info", {"nick_name": "A"}, message_id=message_id
        ).status_code
        == 200
    )
    assert (
        api.as_user(
            "bob", "/user/update_user_info", {"nick_name": "B"}, message_id=message_id
        ).status_code
        == 200
    )
    assert (
        api.as_user(
            "alice",
            "/user/update_sys_setting",
            {"message_config": {"start": 5}},
            message_id=message_id,
        ).status_code
        == 200
    )


def test_failures_are_not_recorded(api: Api) -> None:
    message_id = str(uuid.uuid4())
    params = {**BIND, "product_id": "p-none"}
    assert api.as_user("alice", "/device/bind", params, message_id=message_id).status_code == 404
    assert api.as_user("alice", "/device/bind", BIND, message_id=message_id).status_code == 200


def test_window_is_24_hours(api: Api, clock: FakeClock) -> None:
    message_id = str(uuid.uuid4())
    api.as_user("alice", "/user/update_user_info", {"nick_name": "A"}, message_id=message_id)
    clock.advance(seconds=86_401)
    api.__dict__.pop("_tokens")  # the test tokens expired; issue fresh ones
    r = api.as_user("alice", "/user/update_user_info", {"nick_name": "B"}, message_id=message_id)
    assert r.status_code == 200


def test_register_replays_its_first_answer(api: Api) -> None:
    """A repeat answers the first answer byte for byte, its authorization code included:
    no code is issued again, and the kept answer holds the code only sealed."""
    phone = "5559990003"
    api.post(
        "/user/auth_code",
        {
            "client_id": api.world.client_id,
            "auth_model": 1,
            "code_model": 1,
            "area_code": "1",
            "phone": phone,
        },
    )
    params = {
        "client_id": api.world.client_id,
        "auth_code": api.last_code(phone),
        "area_code": "1",
        "phone": phone,
        "password": "register-pass",
    }
    message_id = str(uuid.uuid4())
    first = api.post("/user/register", params, message_id=message_id)
    codes = count(api, "SELECT COUNT(*) FROM auth_codes")
    again = api.post("/user/register", params, message_id=message_id)
    assert (again.status_code, again.content) == (200, first.content)
    assert count(api, "SELECT COUNT(*) FROM auth_codes") == codes
    assert api.exchange(again.json()["data"]["code"]).status_code == 200
    assert count(api, f"SELECT COUNT(*) FROM users WHERE phone = '{phone}'") == 1
    stored = (
        sqlite3.connect(api.world.db)
        .execute("SELECT body FROM idempotency WHERE operation = '/user/register'")
        .fetchone()[0]
    )
    assert first.json()["data"]["code"].encode() not in bytes(stored)
    assert first.json()["data"]["user_id"].encode() not in bytes(stored)  # sealed whole


def test_sms_send_replay_does_not_send_again(api: Api) -> None:
    phone = "5559990004"
    params = {
        "client_id": api.world.client_id,
        "auth_model": 1,
        "code_model": 1,
        "area_code": "1",
        "phone": phone,
    }
    message_id = str(uuid.uuid4())
    assert api.post("/user/auth_code", params, message_id=message_id).status_code == 200
    assert api.post("/user/auth_code", params, message_id=message_id).status_code == 200
    assert len(api.sms(phone)) == 1


def test_identical_concurrent_requests_write_once(api: Api) -> None:
    message_id = str(uuid.uuid4())
    token = api.token("alice")
    results: list[Any] = []
    barrier = threading.Barrier(6)

    def run() -> None:
        barrier.wait()
        r = api.post(
            "/device/bind",
            {**BIND, "device_id": "dev-race"},
            token=token,
            user_id="u-alice",
            message_id=message_id,
        )
        results.append((r.status_code, r.content))

    threads = [threading.Thread(target=run) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {status for status, _ in results} == {200}
    assert len({content for _, content in results}) == 1
    assert count(api, "SELECT COUNT(*) FROM idempotency WHERE operation = '/device/bind'") == 1
    assert count(api, "SELECT COUNT(*) FROM bindings WHERE device_id = 'dev-race'") == 1
