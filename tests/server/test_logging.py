"""Logs never hold passwords, SMS codes, authorization codes, tokens or client secrets."""

from __future__ import annotations

import logging

import pytest

from opslib.server import FakeClock

from .helpers import Api


def test_no_secret_reaches_the_logs(
    api: Api, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    world = api.world
    phone, password = "5559990005", "logged-password"
    api.post(
        "/user/auth_code",
        {
            "client_id": world.client_id,
            "auth_model": 1,
            "code_model": 1,
            "area_code": "1",
            "phone": phone,
        },
    )
    sms_code = api.last_code(phone)
    r = api.post(
        "/user/register",
        {
            "client_id": world.client_id,
            "auth_code": sms_code,
            "area_code": "1",
            "phone": phone,
            "password": password,
        },
    )
    auth_code = r.json()["data"]["code"]
    first = api.exchange(auth_code).json()
    r = api.post(
        "/user/login",
        {
            "client_id": world.client_id,
            "login_model": 1,
            "area_code": "1",
            "phone": phone,
            "password": "wrong-password",
        },
    )
    assert r.status_code == 422
    pair = api.login(phone, password)
    refreshed = api.refresh(pair["refresh_token"]).json()
    api.refresh(pair["refresh_token"])  # a replay
    r = api.post(
        "/user/update_pwd",
        {"update_model": 1, "old_password": password, "new_password": "logged-password-2"},
        token=refreshed["access_token"],
        user_id=first["openid"],
    )
    assert r.status_code == 200
    secrets = [
        password,
        "logged-password-2",
        "wrong-password",
        sms_code,
        auth_code,
        first["access_token"],
        first["refresh_token"],
        pair["access_token"],
        pair["refresh_token"],
        refreshed["access_token"],
        refreshed["refresh_token"],
        world.client_secret,
    ]
    # The test's own HTTP client (httpx) logs request URLs; only the server's logs count.
    server_records = [r for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]
    text = "\n".join(f"{r.name} {r.getMessage()} {r.args!r}" for r in server_records)
    assert server_records, "the flow logged nothing at all"
    for secret in secrets:
        assert secret not in text
