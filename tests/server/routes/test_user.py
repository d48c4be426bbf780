"""``/user/*``: SMS codes, register, login, passwords, profile, settings."""

from __future__ import annotations

from typing import Any

import pytest

from opslib.server import FakeClock
from opslib.server.store import connect, transaction
from opslib.server.store import users as users_store

from ..helpers import Api

NEW_PHONE = "5559990001"


def send_code(api: Api, phone: str, code_model: int | None, **kw: Any) -> Any:
    return api.post(
        "/user/auth_code",
        {
            "client_id": api.world.client_id,
            "auth_model": 1,
            "code_model": code_model,
            "area_code": api.world.area_code,
            "phone": phone,
        },
        **kw,
    )


def verify_code(api: Api, phone: str, code_model: int, code: str) -> Any:
    return api.post(
        "/user/auth_code",
        {
            "client_id": api.world.client_id,
            "auth_model": 2,
            "code_model": code_model,
            "area_code": api.world.area_code,
            "phone": phone,
            "auth_code": code,
        },
    )


def register(api: Api, phone: str, code: str, password: str = "new-password-1") -> Any:
    return api.post(
        "/user/register",
        {
            "client_id": api.world.client_id,
            "auth_code": code,
            "area_code": api.world.area_code,
            "phone": phone,
            "password": password,
        },
    )


def test_send_code_writes_the_outbox_only(api: Api) -> None:
    r = send_code(api, NEW_PHONE, 1)
    assert r.status_code == 200
    assert r.json()["data"] == {"public_key": ""}
    [message] = api.sms(NEW_PHONE)
    assert message["purpose"] == 1
    assert message["area_code"] == api.world.area_code
    assert len(message["code"]) == 6
    assert message["code"] not in r.text


def test_code_is_sent_only_when_usable_but_answer_is_the_same(api: Api, clock: FakeClock) -> None:
    registered = api.world["alice"].phone
    assert send_code(api, registered, 1).json()["data"] == {"public_key": ""}
    assert api.sms(registered) == []  # register code for a registered phone: not sent
    clock.advance(seconds=61)
    assert send_code(api, NEW_PHONE, 2).status_code == 200
    assert api.sms(NEW_PHONE) == []  # login code for an unknown phone: not sent
    clock.advance(seconds=61)
    assert send_code(api, registered, 2).status_code == 200
    assert len(api.sms(registered)) == 1


def test_verify_code_does_not_consume_it(api: Api) -> None:
    send_code(api, NEW_PHONE, 1)
    code = api.last_code(NEW_PHONE)
    assert verify_code(api, NEW_PHONE, 1, code).status_code == 200
    assert verify_code(api, NEW_PHONE, 1, code).status_code == 200
    assert register(api, NEW_PHONE, code).status_code == 200
    assert verify_code(api, NEW_PHONE, 1, code).status_code == 422  # now used


def test_five_wrong_attempts_kill_the_code(api: Api) -> None:
    send_code(api, NEW_PHONE, 1)
    code = api.last_code(NEW_PHONE)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for _ in range(5):
        r = verify_code(api, NEW_PHONE, 1, wrong)
        assert r.status_code == 422
        assert r.json()["error_msg"].startswith("params.auth_code:")
    assert verify_code(api, NEW_PHONE, 1, code).status_code == 422
    assert register(api, NEW_PHONE, code).status_code == 422


def test_a_verify_without_code_model_checks_any_live_code(api: Api, clock: FakeClock) -> None:
    """protocol §6.1: no ``code_model`` on a verify means any live code of the phone (a
    platform whose verify names no purpose); a wrong code counts on every live one."""
    phone = api.world["alice"].phone
    send_code(api, phone, 3)  # reset password
    reset = api.last_code(phone)
    clock.advance(seconds=61)
    send_code(api, phone, 2)  # login
    login = api.last_code(phone)
    params = {"client_id": api.world.client_id, "auth_model": 2,
              "area_code": api.world.area_code, "phone": phone}  # fmt: skip
    for code in (reset, login):
        assert api.post("/user/auth_code", {**params, "auth_code": code}).status_code == 200
    wrong = next(f"{n:06d}" for n in range(10) if f"{n:06d}" not in (reset, login))
    for _ in range(5):
        answer = api.post("/user/auth_code", {**params, "auth_code": wrong})
        assert answer.status_code == 422
    for code_model, code in ((3, reset), (2, login)):  # both dead of wrong attempts
        assert verify_code(api, phone, code_model, code).status_code == 422
    sent = send_code(api, NEW_PHONE, None)  # a send still names its purpose
    assert sent.status_code == 400
    assert sent.json()["error_msg"] == "params.code_model: required when auth_model is 1"


def test_code_expires_after_ten_minutes(api: Api, clock: FakeClock) -> None:
    send_code(api, NEW_PHONE, 1)
    code = api.last_code(NEW_PHONE)
    clock.advance(seconds=600)
    assert verify_code(api, NEW_PHONE, 1, code).status_code == 422


def test_resend_replaces_the_code(api: Api, clock: FakeClock) -> None:
    send_code(api, NEW_PHONE, 1)
    first = api.last_code(NEW_PHONE)
    clock.advance(seconds=61)
    send_code(api, NEW_PHONE, 1)
    second = api.last_code(NEW_PHONE)
    if first != second:
        assert verify_code(api, NEW_PHONE, 1, first).status_code == 422
    assert verify_code(api, NEW_PHONE, 1, second).status_code == 200


def test_sms_throttle_per_minute_and_per_day(api: Api, clock: FakeClock) -> None:
    clock.set(1_714_521_600_000 + 3600_000)  # 01:00 UTC
    assert send_code(api, NEW_PHONE, 1).status_code == 200
    r = send_code(api, NEW_PHONE, 2)  # across code_models
    assert r.status_code == 429
    assert r.headers["Retry-After"] == "60"
    assert r.json()["data"] == {"retry_after": 60}
    assert len(api.sms(NEW_PHONE)) == 1  # the gateway was not called
    for _ in range(9):
        clock.advance(seconds=60)
        assert send_code(api, NEW_PHONE, 1).status_code == 200
    clock.advance(seconds=60)
    r = send_code(api, NEW_PHONE, 1)
    assert r.status_code == 429
    assert int(r.headers["Retry-After"]) > 3600
    assert len(api.sms(NEW_PHONE)) == 10
    assert send_code(api, "5559990002", 1).status_code == 200  # other phones unaffected
    clock.set(1_714_521_600_000 + 86_400_000)  # next UTC day
    assert send_code(api, NEW_PHONE, 1).status_code == 200


def test_unknown_client_is_refused(api: Api) -> None:
    r = api.post(
        "/user/auth_code",
        {
            "client_id": "nope",
            "auth_model": 1,
            "code_model": 1,
            "area_code": "1",
            "phone": NEW_PHONE,
        },
    )
    assert r.status_code == 401
    assert r.json()["error_msg"].startswith("params.client_id:")


def test_end_to_end_register_login_refresh_and_passwords(api: Api, clock: FakeClock) -> None:
    world = api.world
    send_code(api, NEW_PHONE, 1)
    r = register(api, NEW_PHONE, api.last_code(NEW_PHONE), "first-password")
    assert r.status_code == 200
    user_id, code = r.json()["data"]["user_id"], r.json()["data"]["code"]
    t = api.exchange(code).json()
    assert t["openid"] == user_id
    assert t["expires_in"] == 7200
    me = api.post(
        "/user/query",
        {"query_model": 1, "user_id": user_id},
        token=t["access_token"],
        user_id=user_id,
    )
    assert me.status_code == 200
    assert me.json()["data"]["phone"] == NEW_PHONE

    # login by password
    pair = api.login(NEW_PHONE, "first-password")
    assert pair["openid"] == user_id
    # login by SMS code
    clock.advance(seconds=61)
    send_code(api, NEW_PHONE, 2)
    r = api.post(
        "/user/login",
        {
            "client_id": world.client_id,
            "login_model": 2,
            "area_code": world.area_code,
            "phone": NEW_PHONE,
            "auth_code": api.last_code(NEW_PHONE),
        },
    )
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    assert data["user_id"] == user_id
    assert data["gmt_last_login"] == "2024-05-01 00:01:01"
    assert data["network"] == {"ssid": "", "pw": ""}
    sms_pair = api.exchange(data["code"]).json()

    # refresh
    refreshed = api.refresh(sms_pair["refresh_token"]).json()
    assert refreshed["access_token"] != sms_pair["access_token"]

    # change the password: every token of the user is revoked
    r = api.post(
        "/user/update_pwd",
        {"update_model": 1, "old_password": "first-password", "new_password": "second-password"},
        token=refreshed["access_token"],
        user_id=user_id,
    )
    assert r.status_code == 200, r.text
    for token in (refreshed["access_token"], pair["access_token"]):
        r = api.post("/user/query_sys_setting", {"query_model": 1}, token=token, user_id=user_id)
        assert r.status_code == 401
    assert api.refresh(refreshed["refresh_token"]).status_code == 400
    pair = api.login(NEW_PHONE, "second-password")

    # reset the forgotten password with a code_model 3 code
    clock.advance(seconds=61)
    send_code(api, NEW_PHONE, 3)
    r = api.post(
        "/user/update_pwd",
        {
            "update_model": 2,
            "area_code": world.area_code,
            "phone": NEW_PHONE,
            "auth_code": api.last_code(NEW_PHONE),
            "new_password": "third-password",
        },
    )
    assert r.status_code == 200, r.text
    r = api.post(
        "/user/query_sys_setting", {"query_model": 1}, token=pair["access_token"], user_id=user_id
    )
    assert r.status_code == 401
    api.login(NEW_PHONE, "third-password")


def test_register_checks_the_code_before_the_phone(api: Api) -> None:
    # A wrong code answers the same 422 for a registered and an unregistered phone.
    registered = register(api, api.world["alice"].phone, "123456")
    unknown = register(api, NEW_PHONE, "123456")
    assert registered.status_code == unknown.status_code == 422
    assert registered.json()["error_msg"] == unknown.json()["error_msg"]
    # Only a right register code of a phone registered meanwhile gives the 409.
    send_code(api, NEW_PHONE, 1)
    code = api.last_code(NEW_PHONE)
    conn = connect(api.world.db)
    try:
        with transaction(conn):
            users_store.insert_user(
                conn,
                user_id="u-late",
                area_code=api.world.area_code,
                phone=NEW_PHONE,
                password_hash="x",
                role=1,
                status=1,
                now=api.clock.now_ms(),
            )
    finally:
        conn.close()
    r = register(api, NEW_PHONE, code)
    assert r.status_code == 409
    assert r.json()["error_msg"] == "params.phone: already registered"


def test_login_same_message_for_unknown_phone_and_wrong_password(api: Api) -> None:
    world = api.world
    base = {"client_id": world.client_id, "login_model": 1, "area_code": world.area_code}
    wrong = api.post("/user/login", {**base, "phone": world["alice"].phone, "password": "x" * 8})
    unknown = api.post("/user/login", {**base, "phone": "5557777777", "password": "x" * 8})
    assert wrong.status_code == unknown.status_code == 422
    assert wrong.json()["error_msg"] == unknown.json()["error_msg"]


def test_login_failures_throttle_one_phone(api: Api, clock: FakeClock) -> None:
    world = api.world
    base = {"client_id": world.client_id, "login_model": 1, "area_code": world.area_code}
    for _ in range(5):
        r = api.post("/user/login", {**base, "phone": world["bob"].phone, "password": "x" * 8})
        assert r.status_code == 422
    r = api.post(
        "/user/login", {**base, "phone": world["bob"].phone, "password": world["bob"].password}
    )
    assert r.status_code == 429
    assert r.json()["data"]["retry_after"] == 900
    assert "Retry-After" in r.headers
    api.login(world["alice"].phone, world["alice"].password)  # other phones unaffected
    clock.advance(seconds=15 * 60)
    api.login(world["bob"].phone, world["bob"].password)


def test_locked_user_cannot_log_in(api: Api) -> None:
    world = api.world
    r = api.post(
        "/user/login",
        {
            "client_id": world.client_id,
            "login_model": 1,
            "area_code": world.area_code,
            "phone": world["locked"].phone,
            "password": world["locked"].password,
        },
    )
    assert r.status_code == 403


def test_change_password_with_wrong_old_password(api: Api) -> None:
    r = api.as_user(
        "alice",
        "/user/update_pwd",
        {"update_model": 1, "old_password": "wrong-password", "new_password": "another-password"},
    )
    assert r.status_code == 422
    assert r.json()["error_msg"].startswith("params.old_password:")


def test_reset_for_unknown_phone_is_like_a_wrong_code(api: Api) -> None:
    r = api.post(
        "/user/update_pwd",
        {
            "update_model": 2,
            "area_code": "1",
            "phone": "5558888888",
            "auth_code": "123456",
            "new_password": "another-password",
        },
    )
    assert r.status_code == 422


def test_query_user_by_each_model(api: Api) -> None:
    alice = api.world["alice"]
    r = api.as_user("alice", "/user/update_user_info", {"identity_id": "alice.id"})
    assert r.status_code == 200
    for params in (
        {"query_model": 1, "user_id": alice.user_id},
        {"query_model": 2, "area_code": "1", "phone": alice.phone},
        {"query_model": 3, "identity_id": "alice.id"},
    ):
        r = api.as_user("alice", "/user/query", params)
        assert r.status_code == 200, r.text
        data = r.json()["data"]
        assert data["user_id"] == alice.user_id
        assert data["identity_id"] == "alice.id"
        assert data["network"] == {"ssid": ""}
        assert data["gmt_register"] == "2024-05-01 00:00:00"
        assert data["gmt_logout"] is None
        assert set(data) == {
            "user_id",
            "identity_id",
            "area_code",
            "phone",
            "nick_name",
            "avatar",
            "status",
            "network",
            "gmt_register",
            "gmt_modified",
            "gmt_last_login",
            "gmt_logout",
            "role",
        }
        assert data["role"] == "user"


@pytest.mark.parametrize(("name", "role"), [("alice", "user"), ("ops", "ops"), ("admin", "admin")])
def test_query_user_tells_the_role(api: Api, name: str, role: str) -> None:
    me = api.world[name]
    r = api.as_user(name, "/user/query", {"query_model": 1, "user_id": me.user_id})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["role"] == role
    # ops reading another user sees that user's role
    r = api.as_user("ops", "/user/query", {"query_model": 1, "user_id": "u-admin"})
    assert r.json()["data"]["role"] == "admin"


@pytest.mark.parametrize(
    "params",
    [
        {"query_model": 1, "user_id": "u-bob"},
        {"query_model": 2, "area_code": "1", "phone": "5550000004"},
    ],
)
def test_user_sees_only_itself(api: Api, params: dict[str, Any]) -> None:
    other = api.as_user("alice", "/user/query", params)
    missing_params = (
        {**params, "user_id": "u-none"}
        if "user_id" in params
        else {**params, "phone": "5550999999"}
    )
    missing = api.as_user("alice", "/user/query", missing_params)
    assert other.status_code == missing.status_code == 404
    assert other.json()["error_msg"] == missing.json()["error_msg"]
    assert api.as_user("ops", "/user/query", params).status_code == 200


def test_update_user_info_and_identity_conflict(api: Api) -> None:
    r = api.as_user(
        "alice",
        "/user/update_user_info",
        {
            "nick_name": "Alice",
            "avatar": "https://x/a.png",
            "identity_id": "taken",
            "network": {"ssid": "home", "pw": "wifi-pass"},
        },
    )
    assert r.status_code == 200
    assert r.json()["data"] == {}
    data = api.as_user("alice", "/user/query", {"query_model": 1, "user_id": "u-alice"}).json()
    assert data["data"]["nick_name"] == "Alice"
    assert data["data"]["network"] == {"ssid": "home"}  # never the Wi-Fi password
    r = api.as_user("bob", "/user/update_user_info", {"identity_id": "taken"})
    assert r.status_code == 409
    r = api.as_user("alice", "/user/update_user_info", {})
    assert r.status_code == 400


def test_sys_settings_read_and_update(api: Api) -> None:
    r = api.as_user("alice", "/user/query_sys_setting", {"query_model": 1})
    assert r.status_code == 200
    data = r.json()["data"]
    assert data["dev_config"] == {"page_size": 20}
    assert data["message_config"] == {
        "recv_sys_notice": True,
        "recv_device_notice": True,
        "no_disturbing": False,
        "start": 1320,
        "end": 420,
        "unread_notice_num": 0,
    }
    r = api.as_user(
        "alice",
        "/user/update_sys_setting",
        {"message_config": {"no_disturbing": True, "start": 60}},
    )
    assert r.status_code == 200
    assert r.json()["data"] == {}
    data = api.as_user("alice", "/user/query_sys_setting", {"query_model": 2}).json()["data"]
    assert "dev_config" not in data
    assert data["message_config"]["no_disturbing"] is True
    assert data["message_config"]["start"] == 60
    data = api.as_user("alice", "/user/query_sys_setting", {"query_model": 3}).json()["data"]
    assert set(data) == {"dev_config", "gmt_modified"}
