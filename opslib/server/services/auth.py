"""Who is calling, and how users prove it: tokens, logins, registration, passwords."""

from __future__ import annotations

import functools
import sqlite3
import uuid
from typing import Any

from opslib.enums import CodeModel, LoginModel, Role, UpdateModel, UserStatus
from opslib.server import security
from opslib.server.context import Caller, Context, gmt
from opslib.server.errors import (
    BASIC_CHALLENGE,
    INVALID_TOKEN_CHALLENGE,
    ApiError,
)
from opslib.server.models import LoginParams, RegisterParams, UpdatePwdParams
from opslib.server.security import Secret
from opslib.server.services import throttles
from opslib.server.services.codes import check_code
from opslib.server.store import tokens as tokens_store
from opslib.server.store import users as users_store

BAD_TOKEN = "params.access_token: invalid, expired or revoked access token"  # noqa: S105
BAD_LOGIN = "params.password: unknown phone number or wrong password"
INACTIVE = "user_id: the account is locked or disabled"


@functools.cache
def _dummy_hash() -> str:
    """A password hash to verify against for unknown phones, so timing does not tell."""
    return security.hash_password(uuid.uuid4().hex)


def authenticate(conn: sqlite3.Connection, *, access_token: Secret, now: int) -> Caller:
    """The caller behind ``access_token`` (401 if invalid/expired/revoked, 403 if inactive)."""
    row = tokens_store.get_access_caller(conn, token_hash=security.sha256_hex(access_token))
    if row is None or row["revoked_at"] is not None or row["expires_at"] <= now:
        raise ApiError(401, BAD_TOKEN, headers={"WWW-Authenticate": INVALID_TOKEN_CHALLENGE})
    if row["status"] != UserStatus.ACTIVE:
        raise ApiError(403, INACTIVE)
    return Caller(user_id=row["user_id"], role=int(row["role"]), client_id=row["client_id"])


def require_client(conn: sqlite3.Connection, *, client_id: str) -> None:
    """401 unless ``client_id`` is a registered client."""
    if tokens_store.get_client(conn, client_id=client_id) is None:
        raise ApiError(
            401, "params.client_id: unknown client", headers={"WWW-Authenticate": BASIC_CHALLENGE}
        )


def issue_auth_code(ctx: Context, *, user_id: str, client_id: str) -> Secret:
    """A new single-use authorization code for ``/token/access`` (stored hashed; revealed
    only when the answer is written)."""
    code = Secret(security.new_token())
    tokens_store.insert_auth_code(
        ctx.conn,
        code_hash=security.sha256_hex(code),
        client_id=client_id,
        user_id=user_id,
        family_id=uuid.uuid4().hex,
        now=ctx.now,
        expires_at=ctx.now + ctx.settings.auth_code_ttl_ms,
    )
    return code


def _finish_login(
    ctx: Context, user: dict[str, Any], *, client_id: str, counted: bool
) -> dict[str, Any]:
    if user["status"] != UserStatus.ACTIVE:
        raise ApiError(403, INACTIVE)
    throttles.password_right(ctx, area_code=user["area_code"], phone=user["phone"], counted=counted)
    users_store.set_last_login(ctx.conn, user_id=user["user_id"], now=ctx.now)
    code = issue_auth_code(ctx, user_id=user["user_id"], client_id=client_id)
    return {
        "user_id": user["user_id"],
        "code": code,
        "gmt_last_login": gmt(ctx.now),
        "nick_name": user["nick_name"],
        "network": {"ssid": user["network_ssid"], "pw": user["network_pw"]},
    }


def login(ctx: Context, p: LoginParams) -> dict[str, Any]:
    """Log in by password or SMS code; manages its own transactions.

    A password attempt is counted as a failure *before* the (slow) password check and
    taken back on success, so concurrent guesses cannot outrun the failure limits
    (:mod:`opslib.server.services.throttles`). An SMS-code login is held back only by the
    code's own limits, never by wrong passwords.
    """
    area_code, phone = p.area_code, p.phone
    require_client(ctx.conn, client_id=p.client_id)
    if p.login_model == LoginModel.SMS_CODE:
        assert p.auth_code is not None
        with ctx.db.write():
            user = users_store.get_user_by_phone(ctx.conn, area_code=area_code, phone=phone)
            check_code(
                ctx,
                area_code=area_code,
                phone=phone,
                purpose=CodeModel.LOGIN,
                code=p.auth_code,
                consume=True,
            )
            assert user is not None  # a login code is only ever sent to a registered phone
            return _finish_login(ctx, user, client_id=p.client_id, counted=False)
    assert p.password is not None
    with ctx.db.read():  # cheap: a throttled phone costs no hash slot
        throttles.check_password(ctx, area_code=area_code, phone=phone)
    with ctx.guards.hashes.slot(ctx.client):
        with ctx.db.write():
            throttles.check_password(ctx, area_code=area_code, phone=phone)
            throttles.password_failed(ctx, area_code=area_code, phone=phone)
        user = users_store.get_user_by_phone(ctx.conn, area_code=area_code, phone=phone)
        password_hash = user["password_hash"] if user else _dummy_hash()
        right = ctx.guards.hashes.compute(security.verify_password, password_hash, p.password)
    if not right or user is None:
        raise ApiError(422, BAD_LOGIN)
    with ctx.db.write():
        return _finish_login(ctx, user, client_id=p.client_id, counted=True)


def register_precheck(ctx: Context, p: RegisterParams) -> None:
    """What register checks before hashing the password: the client, then the code
    (a wrong one counts an attempt, §6.1); the handler checks both again and consumes it."""
    require_client(ctx.conn, client_id=p.client_id)
    with ctx.db.write():
        check_code(
            ctx,
            area_code=p.area_code,
            phone=p.phone,
            purpose=CodeModel.REGISTER,
            code=p.auth_code,
            consume=False,
        )


def register(ctx: Context, p: RegisterParams) -> dict[str, Any]:
    """Create a user from a register code; ``ctx.prepared`` is the password's hash."""
    require_client(ctx.conn, client_id=p.client_id)
    # The code first: a wrong code answers the same 422 for any phone, so register does not
    # tell which phones are registered (a register code is only sent to unregistered ones).
    check_code(
        ctx,
        area_code=p.area_code,
        phone=p.phone,
        purpose=CodeModel.REGISTER,
        code=p.auth_code,
        consume=True,
    )
    if users_store.get_user_by_phone(ctx.conn, area_code=p.area_code, phone=p.phone):
        raise ApiError(409, "params.phone: already registered")
    user_id = uuid.uuid4().hex
    users_store.insert_user(
        ctx.conn,
        user_id=user_id,
        area_code=p.area_code,
        phone=p.phone,
        password_hash=ctx.prepared,
        role=Role.USER,
        status=UserStatus.ACTIVE,
        now=ctx.now,
    )
    return {
        "user_id": user_id,
        "code": issue_auth_code(ctx, user_id=user_id, client_id=p.client_id),
    }


REUSED_MESSAGE_ID = "message_id: already used with different params"


def guard_replay(ctx: Context, *, area_code: str, phone: str, same: bool) -> None:
    """A repeat of a write that carries a password (register, update_pwd) whose secrets
    are compared by the idempotency record (``same``): throttled like the logins of the
    phone it names, and a repeat with other secrets counts as a failed login.

    The comparison is an HMAC under a key that lives only in the server's memory
    (:class:`~opslib.server.pipeline.PlatformState`), so the database offers no fast test of a
    password guess; a repeat answers the stored answer and never checks a password again.
    """
    throttles.check_password(ctx, area_code=area_code, phone=phone)
    if not same:
        throttles.password_failed(ctx, area_code=area_code, phone=phone)
        raise ApiError(409, REUSED_MESSAGE_ID, persist=True)


def replayed_phone(ctx: Context, p: UpdatePwdParams) -> tuple[str, str]:
    """The phone whose password a repeated update_pwd set: the caller's (change) or the
    one it names (reset)."""
    if p.update_model == UpdateModel.CHANGE:
        user = users_store.get_user(ctx.conn, user_id=ctx.user.user_id)
        assert user is not None
        return str(user["area_code"]), str(user["phone"])
    assert p.area_code is not None
    assert p.phone is not None
    return p.area_code, p.phone


def _own_user(ctx: Context, p: UpdatePwdParams) -> dict[str, Any]:
    """The caller's user row; 403 if the params name another phone."""
    user = users_store.get_user(ctx.conn, user_id=ctx.user.user_id)
    assert user is not None
    for name in ("area_code", "phone"):
        given = getattr(p, name)
        if given is not None and given != user[name]:
            raise ApiError(403, f"params.{name}: must be the caller's own")
    return user


def update_password_precheck(ctx: Context, p: UpdatePwdParams) -> None:
    """What update_pwd checks before hashing the new password.

    Change (1): the old password, throttled with the failed logins of the user's phone
    (§6.3): counted as a failure before the check and taken back when right, like a login.
    Reset (2): the reset code (a wrong one counts an attempt).
    """
    if p.update_model == UpdateModel.CHANGE:
        assert p.old_password is not None
        user = _own_user(ctx, p)
        phone = {"area_code": user["area_code"], "phone": user["phone"]}
        with ctx.db.read():
            throttles.check_password(ctx, **phone)
        with ctx.guards.hashes.slot(ctx.client):
            with ctx.db.write():
                throttles.check_password(ctx, **phone)
                throttles.password_failed(ctx, **phone)
            right = ctx.guards.hashes.compute(
                security.verify_password, user["password_hash"], p.old_password
            )
        if not right:
            raise ApiError(422, "params.old_password: wrong password")
        with ctx.db.write():
            throttles.password_right(ctx, **phone)
        return
    assert p.area_code is not None
    assert p.phone is not None
    assert p.auth_code is not None
    with ctx.db.write():
        check_code(
            ctx,
            area_code=p.area_code,
            phone=p.phone,
            purpose=CodeModel.RESET_PASSWORD,
            code=p.auth_code,
            consume=False,
        )


def update_password(ctx: Context, p: UpdatePwdParams) -> dict[str, Any]:
    """Change (model 1) or reset (model 2) a password; revokes every token and every
    authorization code not yet exchanged of the user, and forgets the phone's failed logins.

    The old password or the reset code was checked by :func:`update_password_precheck`
    before the new one was hashed; a reset code is checked again and consumed here.
    """
    if p.update_model == UpdateModel.CHANGE:
        user = _own_user(ctx, p)
    else:
        assert p.area_code is not None
        assert p.phone is not None
        assert p.auth_code is not None
        check_code(
            ctx,
            area_code=p.area_code,
            phone=p.phone,
            purpose=CodeModel.RESET_PASSWORD,
            code=p.auth_code,
            consume=True,
        )
        found = users_store.get_user_by_phone(ctx.conn, area_code=p.area_code, phone=p.phone)
        if found is None:  # no reset code is ever sent to an unknown phone
            raise ApiError(
                422, "params.auth_code: wrong, expired or already used verification code"
            )
        user = found
    users_store.set_password(
        ctx.conn, user_id=user["user_id"], password_hash=ctx.prepared, now=ctx.now
    )
    tokens_store.revoke_user(ctx.conn, user_id=user["user_id"], now=ctx.now)
    tokens_store.revoke_user_codes(ctx.conn, user_id=user["user_id"])
    throttles.password_replaced(ctx, area_code=user["area_code"], phone=user["phone"])
    return {}
