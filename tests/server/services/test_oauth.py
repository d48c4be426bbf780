"""opslib.server.services.oauth: client credentials, code exchange, refresh rotation."""

from __future__ import annotations

import pytest

from opslib.server import FakeClock, security
from opslib.server.errors import OAuthError
from opslib.server.services import auth, oauth
from opslib.server.store import tokens as tokens_store

from ..factories import World
from .conftest import MakeContext


def test_client_credentials_are_checked(ctx: MakeContext, world: World) -> None:
    oauth.check_client(ctx(), client_id=world.client_id, client_secret=world.client_secret)
    for client_id, secret in ((world.client_id, "wrong"), ("nobody", world.client_secret)):
        with pytest.raises(OAuthError) as refused:
            oauth.check_client(ctx(), client_id=client_id, client_secret=secret)
        assert (refused.value.status, refused.value.error) == (401, "invalid_client")


def test_a_code_gives_one_pair_and_its_second_use_revokes_it(
    ctx: MakeContext, world: World
) -> None:
    code = auth.issue_auth_code(ctx(), user_id="u-alice", client_id=world.client_id)
    pair = oauth.exchange_code(ctx(), client_id=world.client_id, code=code)
    assert pair["openid"] == "u-alice"
    assert pair["expires_in"] == 7200
    request = ctx()
    access = tokens_store.get_token(
        request.conn, token_hash=security.sha256_hex(pair["access_token"]), kind="access"
    )
    assert access is not None
    assert access["revoked_at"] is None
    with pytest.raises(OAuthError, match="already used; its tokens are revoked") as again:
        oauth.exchange_code(ctx(), client_id=world.client_id, code=code)
    assert (again.value.error, again.value.persist) == ("invalid_grant", True)
    revoked = tokens_store.get_token(
        request.conn, token_hash=security.sha256_hex(pair["access_token"]), kind="access"
    )
    assert revoked is not None
    assert revoked["revoked_at"] is not None


def test_an_expired_or_foreign_code_is_refused(
    ctx: MakeContext, world: World, clock: FakeClock
) -> None:
    code = auth.issue_auth_code(ctx(), user_id="u-alice", client_id=world.client_id)
    with pytest.raises(OAuthError, match="unknown authorization code"):
        oauth.exchange_code(ctx(), client_id="other-client", code=code)
    clock.advance(ms=ctx().settings.auth_code_ttl_ms)
    with pytest.raises(OAuthError, match="authorization code expired"):
        oauth.exchange_code(ctx(), client_id=world.client_id, code=code)


def test_a_refresh_rotates_the_pair(ctx: MakeContext, world: World) -> None:
    code = auth.issue_auth_code(ctx(), user_id="u-bob", client_id=world.client_id)
    first = oauth.exchange_code(ctx(), client_id=world.client_id, code=code)
    second = oauth.refresh(ctx(), client_id=world.client_id, refresh_token=first["refresh_token"])
    assert second["openid"] == "u-bob"
    assert second["refresh_token"] != first["refresh_token"]
    with pytest.raises(OAuthError, match="unknown refresh token"):
        oauth.refresh(ctx(), client_id=world.client_id, refresh_token="r" * 43)
