"""opslib.server.services.auth: who an access token belongs to, and authorization codes."""

from __future__ import annotations

import pytest

from opslib.server import FakeClock, security
from opslib.server.errors import ApiError
from opslib.server.services import auth
from opslib.server.store import tokens as tokens_store

from ..factories import World
from .conftest import MakeContext


def _access(ctx: MakeContext, world: World, name: str, ttl_ms: int) -> str:
    request = ctx()
    token = security.new_token()
    tokens_store.insert_token(
        request.conn,
        token_hash=security.sha256_hex(token),
        kind="access",
        user_id=world[name].user_id,
        client_id=world.client_id,
        family_id=f"family-{name}",
        now=request.now,
        expires_at=request.now + ttl_ms,
    )
    return token


def test_a_token_names_its_caller_until_it_expires(
    ctx: MakeContext, world: World, clock: FakeClock
) -> None:
    token = _access(ctx, world, "ops", ttl_ms=60_000)
    caller = auth.authenticate(ctx().conn, access_token=token, now=clock.now_ms())
    assert (caller.user_id, caller.is_ops, caller.is_admin) == ("u-ops", True, False)
    clock.advance(seconds=60)
    with pytest.raises(ApiError, match=r"params\.access_token: invalid, expired") as expired:
        auth.authenticate(ctx().conn, access_token=token, now=clock.now_ms())
    assert expired.value.status == 401
    with pytest.raises(ApiError) as unknown:
        auth.authenticate(ctx().conn, access_token="not-a-token", now=clock.now_ms())
    assert unknown.value.status == 401


def test_a_locked_account_is_refused_with_403(ctx: MakeContext, world: World) -> None:
    token = _access(ctx, world, "locked", ttl_ms=60_000)
    request = ctx()
    with pytest.raises(ApiError, match="the account is locked or disabled") as refused:
        auth.authenticate(request.conn, access_token=token, now=request.now)
    assert refused.value.status == 403


def test_only_a_registered_client_passes(ctx: MakeContext, world: World) -> None:
    auth.require_client(ctx().conn, client_id=world.client_id)
    with pytest.raises(ApiError, match=r"params\.client_id: unknown client") as unknown:
        auth.require_client(ctx().conn, client_id="someone-else")
    assert unknown.value.status == 401


def test_an_authorization_code_is_stored_hashed_with_its_lifetime(
    ctx: MakeContext, world: World
) -> None:
    request = ctx()
    code = auth.issue_auth_code(request, user_id="u-alice", client_id=world.client_id)
    row = tokens_store.get_auth_code(request.conn, code_hash=security.sha256_hex(code))
    assert row is not None
    assert (row["user_id"], row["used_at"]) == ("u-alice", None)
    assert row["expires_at"] == request.now + request.settings.auth_code_ttl_ms
