"""``/token/access`` beyond tests/server/routes/test_token.py: client binding, every family
revoked by a password change or reset, and ``expires_in`` equal to what is enforced."""

from __future__ import annotations

from dataclasses import replace

import pytest
from server.helpers import Api

from opslib.server import FakeClock, Settings, security
from opslib.server.store import connect, transaction
from opslib.server.store import tokens as tokens_store

from .flows import login_password, reset_password, send_code

OTHER_CLIENT, OTHER_SECRET = "other-client", "other-client-secret"


@pytest.fixture(autouse=True)
def other_client(api: Api) -> None:
    conn = connect(api.world.db)
    try:
        with transaction(conn):
            tokens_store.insert_client(
                conn,
                client_id=OTHER_CLIENT,
                secret_hash=security.sha256_hex(OTHER_SECRET),
                name="other",
                now=api.clock.now_ms(),
            )
    finally:
        conn.close()


def code_for(api: Api, name: str = "alice") -> str:
    account = api.world[name]
    r = login_password(api, account.phone, account.password)
    assert r.status_code == 200, r.text
    return str(r.json()["data"]["code"])


def works(api: Api, token: str, user_id: str = "u-alice") -> bool:
    r = api.post("/user/query_sys_setting", {"query_model": 1}, token=token, user_id=user_id)
    assert r.status_code in (200, 401), r.text
    return r.status_code == 200


def exchange_as_other(api: Api, code: str) -> dict[str, object]:
    r = api.token_access(
        grant_type="authorization_code",
        client_id=OTHER_CLIENT,
        client_secret=OTHER_SECRET,
        code=code,
        redirect_uri="none",
    )
    return {"status": r.status_code, **r.json()}


def test_a_code_issued_to_another_client_is_refused(api: Api) -> None:
    code = code_for(api)
    answer = exchange_as_other(api, code)
    assert (answer["status"], answer["error"]) == (400, "invalid_grant")
    assert "access_token" not in answer
    # the client it was issued to may still use it (a stranger cannot burn it)
    assert api.exchange(code).status_code == 200


def test_a_refresh_token_of_another_client_is_refused(api: Api) -> None:
    pair = api.exchange(code_for(api)).json()
    r = api.token_access(
        grant_type="refresh_token",
        client_id=OTHER_CLIENT,
        client_secret=OTHER_SECRET,
        refresh_token=pair["refresh_token"],
    )
    assert (r.status_code, r.json()["error"]) == (400, "invalid_grant")
    assert works(api, pair["access_token"])
    assert api.refresh(pair["refresh_token"]).status_code == 200


def test_a_code_lives_ten_minutes(api: Api, clock: FakeClock) -> None:
    young, old = code_for(api), code_for(api)
    clock.advance(ms=10 * 60_000 - 1)
    assert api.exchange(young).status_code == 200
    clock.advance(ms=1)
    r = api.exchange(old)
    assert (r.status_code, r.json()["error"]) == (400, "invalid_grant")


@pytest.mark.parametrize(
    ("grant", "change", "status", "error"),
    [
        ("refresh_token", {"client_secret": "wrong-secret"}, 401, "invalid_client"),
        ("refresh_token", {"client_secret": OTHER_SECRET}, 401, "invalid_client"),
        ("refresh_token", {"grant_type": "client_credentials"}, 400, "unsupported_grant_type"),
        ("authorization_code", {"client_secret": OTHER_SECRET}, 401, "invalid_client"),
        ("authorization_code", {"grant_type": "implicit"}, 400, "unsupported_grant_type"),
    ],
)
def test_client_credentials_and_grant_type(
    api: Api, grant: str, change: dict[str, str], status: int, error: str
) -> None:
    if grant == "refresh_token":
        secret_field = {"refresh_token": api.exchange(code_for(api)).json()["refresh_token"]}
    else:
        secret_field = {"code": code_for(api), "redirect_uri": "none"}
    params = {
        "grant_type": grant,
        "client_id": api.world.client_id,
        "client_secret": api.world.client_secret,
        **secret_field,
        **change,
    }
    r = api.token_access(**params)
    assert r.status_code == status
    assert r.json()["error"] == error
    assert set(r.json()) == {"error_code", "error", "error_description"}
    # nothing was consumed: the right request still works
    right = {**params, "client_secret": api.world.client_secret, "grant_type": grant}
    assert api.token_access(**right).status_code == 200


def three_families(api: Api) -> list[dict[str, str]]:
    """Three logins of alice (three token families), one of them already rotated."""
    pairs = [api.exchange(code_for(api)).json() for _ in range(3)]
    pairs[0] = api.refresh(pairs[0]["refresh_token"]).json()
    for pair in pairs:
        assert works(api, pair["access_token"])
    return pairs


def assert_all_revoked(api: Api, pairs: list[dict[str, str]]) -> None:
    for pair in pairs:
        assert not works(api, pair["access_token"])
        r = api.refresh(pair["refresh_token"])
        assert (r.status_code, r.json()["error"]) == (400, "invalid_grant")


def test_a_password_change_revokes_every_family(api: Api) -> None:
    pairs = three_families(api)
    bob = api.exchange(code_for(api, "bob")).json()
    r = api.post(
        "/user/update_pwd",
        {"update_model": 1, "old_password": api.world["alice"].password, "new_password": "n" * 12},
        token=pairs[1]["access_token"],
        user_id="u-alice",
    )
    assert r.status_code == 200, r.text
    assert_all_revoked(api, pairs)
    assert works(api, bob["access_token"], "u-bob")  # other users keep theirs
    assert api.refresh(bob["refresh_token"]).status_code == 200


def test_a_password_reset_revokes_every_family(api: Api) -> None:
    pairs = three_families(api)
    alice = api.world["alice"].phone
    send_code(api, alice, 3)
    r = reset_password(api, alice, api.last_code(alice), "reset-password-1")
    assert r.status_code == 200, r.text
    assert_all_revoked(api, pairs)
    assert login_password(api, alice, api.world["alice"].password).status_code == 422
    assert login_password(api, alice, "reset-password-1").status_code == 200


@pytest.fixture
def settings() -> Settings:
    return replace(Settings(), access_token_ttl_s=90)


def assert_enforced(api: Api, clock: FakeClock, pair: dict[str, object]) -> None:
    """The access token works until ``expires_in`` seconds have passed, not a ms longer."""
    assert pair["expires_in"] == 90
    start = clock.now_ms()
    token = str(pair["access_token"])
    clock.set(start + 90_000 - 1)
    assert works(api, token)
    clock.set(start + 90_000)
    r = api.post("/user/query_sys_setting", {"query_model": 1}, token=token, user_id="u-alice")
    assert r.status_code == 401
    assert r.json()["error_msg"].startswith("params.access_token:")
    clock.set(start)


def test_expires_in_is_what_the_platform_enforces(api: Api, clock: FakeClock) -> None:
    first = api.exchange(code_for(api)).json()
    assert_enforced(api, clock, first)
    clock.advance(seconds=5)
    assert_enforced(api, clock, api.refresh(first["refresh_token"]).json())
