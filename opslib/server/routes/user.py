"""HTTP glue of the ``/user/*`` operations: validated params in, service call, data out."""

from __future__ import annotations

from typing import Any

from opslib.enums import AuthModel
from opslib.server.context import Context
from opslib.server.models import (
    AuthCodeParams,
    LoginParams,
    QuerySysSettingParams,
    RegisterParams,
    UpdatePwdParams,
    UpdateSysSettingParams,
    UpdateUserInfoParams,
    UserQueryParams,
)
from opslib.server.services import auth, codes, users


def auth_code(ctx: Context, p: AuthCodeParams) -> dict[str, Any]:
    """``/user/auth_code``: send (1) or verify (2) an SMS code; a verification without
    ``code_model`` checks any live code of the phone."""
    auth.require_client(ctx.conn, client_id=p.client_id)
    if p.auth_model == AuthModel.SEND:
        assert p.code_model is not None
        codes.send_code(ctx, area_code=p.area_code, phone=p.phone, purpose=p.code_model)
    elif p.code_model is None:
        assert p.auth_code is not None
        codes.check_any_code(ctx, area_code=p.area_code, phone=p.phone, code=p.auth_code)
    else:
        assert p.auth_code is not None
        codes.check_code(
            ctx,
            area_code=p.area_code,
            phone=p.phone,
            purpose=p.code_model,
            code=p.auth_code,
            consume=False,
        )
    return {"public_key": ""}


def login(ctx: Context, p: LoginParams) -> dict[str, Any]:
    """``/user/login``: by password (1) or SMS code (2); answers an authorization code."""
    return auth.login(ctx, p)


def register(ctx: Context, p: RegisterParams) -> dict[str, Any]:
    """``/user/register``: a new user from a register code."""
    return auth.register(ctx, p)


def register_precheck(ctx: Context, p: RegisterParams) -> None:
    """Before the password is hashed: a registered client and a usable register code."""
    auth.register_precheck(ctx, p)


def update_pwd_precheck(ctx: Context, p: UpdatePwdParams) -> None:
    """Before the new password is hashed: the old password (throttled) or the reset code."""
    auth.update_password_precheck(ctx, p)


def register_replay_guard(ctx: Context, p: RegisterParams, same: bool) -> None:
    """A repeated register: throttled, and counted as a failed login of the phone when
    its password or code differs from the first request's."""
    auth.guard_replay(ctx, area_code=p.area_code, phone=p.phone, same=same)


def update_pwd_replay_guard(ctx: Context, p: UpdatePwdParams, same: bool) -> None:
    """A repeated password change or reset, likewise."""
    area_code, phone = auth.replayed_phone(ctx, p)
    auth.guard_replay(ctx, area_code=area_code, phone=phone, same=same)


def query(ctx: Context, p: UserQueryParams) -> dict[str, Any]:
    """``/user/query``: one user by user_id, phone or identity_id."""
    return users.query_user(ctx, p)


def query_sys_setting(ctx: Context, p: QuerySysSettingParams) -> dict[str, Any]:
    """``/user/query_sys_setting``."""
    return users.query_settings(ctx, p.query_model)


def update_sys_setting(ctx: Context, p: UpdateSysSettingParams) -> dict[str, Any]:
    """``/user/update_sys_setting``."""
    return users.update_settings(ctx, p)


def update_pwd(ctx: Context, p: UpdatePwdParams) -> dict[str, Any]:
    """``/user/update_pwd``: change (1, token) or reset (2, SMS code)."""
    return auth.update_password(ctx, p)


def update_user_info(ctx: Context, p: UpdateUserInfoParams) -> dict[str, Any]:
    """``/user/update_user_info``."""
    return users.update_user_info(ctx, p)
