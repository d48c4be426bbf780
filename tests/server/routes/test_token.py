"""``/token/access``: code exchange, refresh rotation and replay grace, client auth, errors."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from opslib.server import FakeClock

from ..helpers import Api


def login_code(api: Api, name: str = "alice") -> str:
    account = api.world[name]
    r = api.post(
        "/user/login",
        {
            "client_id": api.world.client_id,
            "login_model": 1,
            "area_code": api.world.area_code,
            "phone": account.phone,
            "password": account.password,
        },
    )
    assert r.status_code == 200, r.text
    return str(r.json()["data"]["code"])


def works(api: Api, token: str, user_id: str = "u-alice") -> bool:
    r = api.post("/user/query_sys_setting", {"query_model": 1}, token=token, user_id=user_id)
    assert r.status_code in (200, 401), r.text
    return r.status_code == 200


def test_exchange_answers_flat_json_with_no_store(api: Api) -> None:
    r = api.exchange(login_code(api))
    assert r.status_code == 200
    assert r.headers["Cache-Control"] == "no-store"
    assert r.headers["Pragma"] == "no-cache"
    body = r.json()
    assert set(body) == {"error_code", "access_token", "refresh_token", "expires_in", "openid"}
    assert body["error_code"] == 200
    assert body["expires_in"] == 7200
    assert body["openid"] == "u-alice"
    assert works(api, body["access_token"])


def test_second_exchange_fails_and_revokes_the_first(api: Api) -> None:
    code = login_code(api)
    first = api.exchange(code).json()
    again = api.exchange(code)
    assert again.status_code == 400
    assert again.json()["error"] == "invalid_grant"
    assert not works(api, first["access_token"])
    assert api.refresh(first["refresh_token"]).status_code == 400


def test_code_expires_and_is_bound_to_its_client(api: Api, clock: FakeClock) -> None:
    code = login_code(api)
    clock.advance(seconds=600)
    assert api.exchange(code).json()["error"] == "invalid_grant"


def test_access_token_expires_after_expires_in(api: Api, clock: FakeClock) -> None:
    pair = api.exchange(login_code(api)).json()
    clock.advance(seconds=pair["expires_in"] - 1)
    assert works(api, pair["access_token"])
    clock.advance(seconds=1)
    r = api.post(
        "/user/query_sys_setting", {"query_model": 1}, token=pair["access_token"], user_id="u-alice"
    )
    assert r.status_code == 401
    assert r.json()["error_msg"].startswith("params.access_token:")


def test_refresh_rotates_and_replay_within_grace_returns_the_same_pair(
    api: Api, clock: FakeClock
) -> None:
    pair = api.exchange(login_code(api)).json()
    clock.advance(seconds=10)
    new = api.refresh(pair["refresh_token"]).json()
    assert new["refresh_token"] != pair["refresh_token"]
    clock.advance(seconds=30)
    replay = api.refresh(pair["refresh_token"]).json()
    assert (replay["access_token"], replay["refresh_token"]) == (
        new["access_token"],
        new["refresh_token"],
    )
    assert replay["expires_in"] == 7200 - 30
    assert works(api, new["access_token"])
    newer = api.refresh(new["refresh_token"]).json()
    assert works(api, newer["access_token"])


def test_replay_after_grace_revokes_the_family(api: Api, clock: FakeClock) -> None:
    pair = api.exchange(login_code(api)).json()
    new = api.refresh(pair["refresh_token"]).json()
    other = api.exchange(login_code(api)).json()  # another login: another family
    clock.advance(seconds=61)
    r = api.refresh(pair["refresh_token"])
    assert r.status_code == 400
    assert r.json()["error"] == "invalid_grant"
    assert not works(api, new["access_token"])
    assert api.refresh(new["refresh_token"]).status_code == 400
    assert works(api, other["access_token"])


def test_refresh_token_expires_after_30_days(api: Api, clock: FakeClock) -> None:
    pair = api.exchange(login_code(api)).json()
    clock.advance(seconds=30 * 86400)
    assert api.refresh(pair["refresh_token"]).json()["error"] == "invalid_grant"


def test_replay_blob_holds_no_token_in_plain_text(api: Api) -> None:
    import sqlite3

    pair = api.exchange(login_code(api)).json()
    new = api.refresh(pair["refresh_token"]).json()
    conn = sqlite3.connect(api.world.db)
    blobs = [
        bytes(b)
        for (b,) in conn.execute("SELECT replay_blob FROM tokens WHERE replay_blob IS NOT NULL")
    ]
    hashes = [h for (h,) in conn.execute("SELECT token_hash FROM tokens")]
    conn.close()
    assert blobs
    for token in (new["access_token"], new["refresh_token"], pair["refresh_token"]):
        assert all(token.encode() not in blob for blob in blobs)
        assert token not in hashes


def test_form_fields_and_http_basic(api: Api) -> None:
    world = api.world
    r = api.client.post(
        "/token/access",
        data={
            "grant_type": "authorization_code",
            "client_id": world.client_id,
            "client_secret": world.client_secret,
            "code": login_code(api),
            "redirect_uri": "none",
        },
    )
    assert r.status_code == 200, r.text
    basic = base64.b64encode(f"{world.client_id}:{world.client_secret}".encode()).decode()
    r = api.client.post(
        "/token/access",
        params={"grant_type": "refresh_token", "refresh_token": r.json()["refresh_token"]},
        headers={"Authorization": f"Basic {basic}"},
    )
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    ("change", "status", "error"),
    [
        ({"grant_type": None}, 400, "invalid_request"),
        ({"grant_type": "password"}, 400, "unsupported_grant_type"),
        ({"client_id": None}, 400, "invalid_request"),
        ({"client_secret": None}, 400, "invalid_request"),
        ({"client_secret": "wrong-secret"}, 401, "invalid_client"),
        ({"client_id": "other-client"}, 401, "invalid_client"),
        ({"code": None}, 400, "invalid_request"),
        ({"redirect_uri": None}, 400, "invalid_request"),
        ({"code": "not-a-code"}, 400, "invalid_grant"),
        ({"code": "x" * 257}, 400, "invalid_request"),
    ],
)
def test_exchange_errors(api: Api, change: dict[str, Any], status: int, error: str) -> None:
    params = {
        "grant_type": "authorization_code",
        "client_id": api.world.client_id,
        "client_secret": api.world.client_secret,
        "code": login_code(api),
        "redirect_uri": "none",
    }
    for name, value in change.items():
        if value is None:
            params.pop(name)
        else:
            params[name] = value
    r = api.client.post("/token/access", params=params)
    assert r.status_code == status
    body = r.json()
    assert body == {
        "error_code": status,
        "error": error,
        "error_description": body["error_description"],
    }
    assert r.headers["Cache-Control"] == "no-store"


def test_parameter_given_twice_is_invalid_request(api: Api) -> None:
    r = api.client.post(
        "/token/access?grant_type=refresh_token&grant_type=refresh_token"
        "&client_id=a&client_secret=b&refresh_token=c"
    )
    assert r.status_code == 400
    assert r.json()["error"] == "invalid_request"


def test_refresh_needs_refresh_token(api: Api) -> None:
    r = api.token_access(
        grant_type="refresh_token",
        client_id=api.world.client_id,
        client_secret=api.world.client_secret,
    )
    assert r.status_code == 400
    assert r.json()["error_description"].startswith("refresh_token:")
