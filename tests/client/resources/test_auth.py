"""client.auth on the real platform: codes from the SMS outbox, accounts, passwords, tokens."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import opslib
from client.resources.dialected import error_code, own_devices
from opslib.client.frames import schema as S

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

NEW_PHONE = "5559990001"
NEW_PASSWORD = "new-user-password"


def assert_schema(df: object, schema: S.FrameSchema) -> None:
    import pandas as pd

    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == list(schema.dtypes())
    assert df.dtypes.to_dict() == schema.empty().dtypes.to_dict()


def test_send_code_and_verify_it(fresh_platform: ServedPlatform) -> None:
    client = fresh_platform.connect()
    sent = client.auth.send_code("1", NEW_PHONE, code_model="register")
    assert_schema(sent, S.SEND_CODE_RESULT)
    assert sent["ok"].tolist() == [True]
    assert sent["code_model_name"].tolist() == ["register"]
    assert str(sent["code_model"].dtype) == "Int64"
    code = fresh_platform.last_code(NEW_PHONE)
    ok = client.auth.verify_code("1", NEW_PHONE, code, code_model=1)
    assert_schema(ok, S.SEND_CODE_RESULT)
    assert ok["ok"].item()
    wrong = "000000" if code != "000000" else "111111"
    with pytest.raises(opslib.VerificationFailed):
        client.auth.verify_code("1", NEW_PHONE, wrong, code_model=1)
    collected = client.auth.verify_code("1", NEW_PHONE, wrong, code_model=1, errors="collect")
    assert collected["ok"].tolist() == [False]
    assert collected["error_code"].tolist() == [error_code(fresh_platform, 422)]


def test_send_code_throttle_is_raised_not_waited(fresh_platform: ServedPlatform) -> None:
    client = fresh_platform.connect()
    client.auth.send_code("1", NEW_PHONE, code_model=1)
    with pytest.raises(opslib.RateLimited) as info:
        client.auth.send_code("1", NEW_PHONE, code_model=1)
    assert info.value.retry_after is not None
    assert info.value.retry_after > 0


def test_code_model_is_checked(platform: ServedPlatform) -> None:
    with pytest.raises(ValueError, match="code_model must be one of"):
        platform.connect().auth.send_code("1", NEW_PHONE, code_model="signup")


def test_a_missing_phone_or_password_is_refused_not_sent_as_none(
    fresh_platform: ServedPlatform,
) -> None:
    auth = fresh_platform.connect().auth
    sent = len(fresh_platform.sms())
    with pytest.raises(TypeError, match="phone must be a string, got NoneType"):
        auth.send_code("1", None, code_model="register")  # type: ignore[arg-type]
    assert len(fresh_platform.sms()) == sent
    # A password of None went out as "None": refused by the length rule only, by luck.
    for call, name in [
        (lambda: auth.register("1", NEW_PHONE, None, "123456"), "password"),  # type: ignore[arg-type]
        (lambda: auth.change_password(None, "a-new-password"), "old_password"),  # type: ignore[arg-type]
        (lambda: auth.login("1", NEW_PHONE, code=None, password=object()), "password"),  # type: ignore[arg-type]
    ]:
        with pytest.raises(TypeError, match=f"{name} must be a string"):
            call()


def assert_openid(platform: ServedPlatform, openid: str, user_id: str | None) -> None:
    """The reference platform's openid is the user_id, and chint's ("the unique id of a
    user"); vendor's is app-scoped: the client keeps it apart and never takes it for the
    user."""
    if platform.dialect in (None, "chint"):
        assert openid == user_id
    else:
        assert openid
        assert openid != user_id


def test_register_then_login_by_password(fresh_platform: ServedPlatform) -> None:
    client = fresh_platform.connect()
    ops_id = client.user_id
    client.auth.send_code("1", NEW_PHONE, code_model="register")
    code = fresh_platform.last_code(NEW_PHONE)
    df = client.auth.register("1", NEW_PHONE, NEW_PASSWORD, code)
    assert_schema(df, S.REGISTER_RESULT)
    new_id = df["user_id"].item()
    assert new_id
    assert df["phone"].item() == NEW_PHONE
    assert client.user_id == ops_id  # registering does not switch the client
    login = client.auth.login("1", NEW_PHONE, password=NEW_PASSWORD)
    assert_schema(login, S.LOGIN)
    assert login["user_id"].item() == new_id
    assert_openid(fresh_platform, login["openid"].item(), new_id)
    assert client.user_id == new_id
    assert client.users.get()["phone"].item() == NEW_PHONE


def test_register_with_login_switches(fresh_platform: ServedPlatform) -> None:
    client = fresh_platform.connect()
    client.auth.send_code("1", NEW_PHONE, code_model=1)
    df = client.auth.register(
        "1", NEW_PHONE, NEW_PASSWORD, fresh_platform.last_code(NEW_PHONE), login=True
    )
    assert client.user_id == df["user_id"].item()
    assert (
        own_devices(client, fresh_platform).shape[0] == 0
    )  # a new user has no devices: empty, typed
    # the account is remembered: a login needs only the password
    assert client.auth.login(password=NEW_PASSWORD)["user_id"].item() == client.user_id


def test_register_an_existing_phone_is_refused_like_any_wrong_code(
    fresh_platform: ServedPlatform,
) -> None:
    # protocol §6.4: the code is checked before the phone, so registration cannot be probed
    client = fresh_platform.connect()
    with pytest.raises(opslib.VerificationFailed) as registered:
        client.auth.register("1", fresh_platform.user_phone, NEW_PASSWORD, "123456")
    with pytest.raises(opslib.VerificationFailed) as unregistered:
        client.auth.register("1", "5559876543", NEW_PASSWORD, "123456")
    assert registered.value.code == unregistered.value.code == error_code(fresh_platform, 422)
    assert registered.value.error_msg == unregistered.value.error_msg


def test_login_by_sms_code(fresh_platform: ServedPlatform) -> None:
    client = fresh_platform.connect()
    client.auth.send_code("1", fresh_platform.user_phone, code_model="login")
    code = fresh_platform.last_code(fresh_platform.user_phone)
    df = client.auth.login("1", fresh_platform.user_phone, code=code)
    assert_schema(df, S.LOGIN)
    assert client.users.get()["phone"].item() == fresh_platform.user_phone
    assert str(df["expires_at"].dtype) == "datetime64[ns, UTC]"
    assert client._session.tokens.credentials is not None
    assert client._session.tokens.credentials.password is None  # no password was given
    # the account is remembered: a login needs only the password
    again = client.auth.login(password=fresh_platform.user_password)
    assert again["user_id"].item() == client.user_id


def test_login_needs_one_of_password_or_code(platform: ServedPlatform) -> None:
    client = platform.connect()
    with pytest.raises(ValueError, match="exactly one"):
        client.auth.login()
    with pytest.raises(ValueError, match="exactly one"):
        client.auth.login(password="x", code="y")


def test_wrong_password_is_verification_failed(platform: ServedPlatform) -> None:
    with pytest.raises(opslib.VerificationFailed):
        platform.connect().auth.login("1", platform.user_phone, password="not-the-password")


def test_change_password_logs_in_again(fresh_platform: ServedPlatform) -> None:
    user = fresh_platform.connect("user")
    df = user.auth.change_password(fresh_platform.user_password, "changed-password-1")
    assert_schema(df, S.PASSWORD_RESULT)
    assert df["ok"].item()
    assert df["user_id"].item() == user.user_id
    assert len(user.users.get()) == 1  # the old tokens were revoked; the client logged in again
    with pytest.raises(opslib.VerificationFailed):
        fresh_platform.connect("user")
    fresh_platform.connect("user", password="changed-password-1")


def test_change_password_with_a_wrong_old_one(fresh_platform: ServedPlatform) -> None:
    user = fresh_platform.connect("user")
    with pytest.raises(opslib.VerificationFailed):
        user.auth.change_password("wrong-old-password", "changed-password-1")
    df = user.auth.change_password("wrong-old-password", "changed-password-1", errors="collect")
    assert df["ok"].tolist() == [False]
    assert df["error_code"].tolist() == [error_code(fresh_platform, 422, "password")]


def test_reset_password(fresh_platform: ServedPlatform) -> None:
    client = fresh_platform.connect()
    phone = fresh_platform.user_phone
    client.auth.send_code("1", phone, code_model="reset password")
    df = client.auth.reset_password("1", phone, fresh_platform.last_code(phone), "reset-password-1")
    assert_schema(df, S.PASSWORD_RESULT)
    assert df["ok"].item()
    assert df["user_id"].isna().item()  # not the client's own account
    fresh_platform.connect("user", password="reset-password-1")


def test_exchange_code_switches_to_its_user(platform: ServedPlatform) -> None:
    client = platform.connect()
    data = client.call(
        "/user/login",
        {
            "login_model": 1,
            "area_code": "1",
            "phone": platform.user_phone,
            "password": platform.user_password,
        },
    )
    df = client.auth.exchange_code(data["code"], user_id=data["user_id"])
    assert_schema(df, S.TOKEN)
    assert_openid(platform, df["openid"].item(), data["user_id"])
    assert client.user_id == data["user_id"]
    with pytest.raises(opslib.APIError) as info:  # single use
        client.auth.exchange_code(data["code"])
    if platform.dialect is None:  # ours: the OAuth error
        assert isinstance(info.value, opslib.BadRequest)
        assert info.value.error == "invalid_grant"
    elif platform.dialect == "chint":  # 100002: the code's exchange failed
        assert isinstance(info.value, opslib.VerificationFailed)
        assert info.value.code == 100002
    else:  # vendor: refused codes and refresh tokens have a code of their own
        assert info.value.code in opslib.Dialect.named(platform.dialect).errors.token_refused_codes


def test_refresh(platform: ServedPlatform) -> None:
    client = platform.connect()
    before = client._session.tokens.tokens
    df = client.auth.refresh()
    assert_schema(df, S.TOKEN)
    assert df["expires_in"].item() == 7200
    assert_openid(platform, df["openid"].item(), client.user_id)
    assert client._session.tokens.tokens != before
    assert len(client.users.get()) == 1
