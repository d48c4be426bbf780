"""``/token/access``: authorization-code exchange and refresh-token rotation (protocol §6.2).

A refresh token is exchanged once. Its successor pair is kept for the replay grace period
in ``tokens.replay_blob``, encrypted with a keystream derived from the old refresh token
itself, so the database never holds a usable token in plain text: only whoever presents
the old token again can read the pair back.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

import orjson

from opslib.enums import UserStatus
from opslib.server import security
from opslib.server.context import Context
from opslib.server.errors import OAuthError
from opslib.server.security import Secret, reveal, wire_default
from opslib.server.store import tokens as tokens_store
from opslib.server.store import users as users_store


def _keystream(token: str | Secret, size: int) -> bytes:
    return hashlib.shake_256(b"opslib-refresh-replay\x00" + reveal(token).encode()).digest(size)


def seal(token: str | Secret, payload: bytes) -> bytes:
    """Encrypt ``payload`` with a keystream derived from ``token`` (XOR; also decrypts).

    Examples
    --------
    >>> seal("t", seal("t", b"pair")) == b"pair"
    True
    """
    return bytes(a ^ b for a, b in zip(payload, _keystream(token, len(payload)), strict=True))


def check_client(ctx: Context, *, client_id: str, client_secret: Secret) -> None:
    """401 ``invalid_client`` unless the credentials match (constant-time compare)."""
    row = tokens_store.get_client(ctx.conn, client_id=client_id)
    expected = row["secret_hash"] if row else security.sha256_hex(uuid.uuid4().hex)
    if not security.matches(client_secret, expected) or row is None:
        raise OAuthError(401, "invalid_client", "unknown client or wrong client_secret")


def _issue_pair(ctx: Context, *, user_id: str, client_id: str, family_id: str) -> dict[str, Any]:
    s = ctx.settings
    access, refresh = Secret(security.new_token()), Secret(security.new_token())
    for token, kind, ttl_s in (
        (access, "access", s.access_token_ttl_s),
        (refresh, "refresh", s.refresh_token_ttl_s),
    ):
        tokens_store.insert_token(
            ctx.conn,
            token_hash=security.sha256_hex(token),
            kind=kind,
            user_id=user_id,
            client_id=client_id,
            family_id=family_id,
            now=ctx.now,
            expires_at=ctx.now + ttl_s * 1000,
        )
    return {
        "error_code": 200,
        "access_token": access,
        "refresh_token": refresh,
        "expires_in": s.access_token_ttl_s,
        "openid": user_id,
    }


def _require_active(ctx: Context, user_id: str) -> None:
    user = users_store.get_user(ctx.conn, user_id=user_id)
    if user is None or user["status"] != UserStatus.ACTIVE:
        raise OAuthError(400, "invalid_grant", "the user is unknown, locked or disabled")


def exchange_code(ctx: Context, *, client_id: str, code: Secret) -> dict[str, Any]:
    """Trade an authorization code for a token pair; a second use revokes the first's."""
    code_hash = security.sha256_hex(code)
    row = tokens_store.get_auth_code(ctx.conn, code_hash=code_hash)
    if row is None or row["client_id"] != client_id:
        raise OAuthError(400, "invalid_grant", "unknown authorization code")
    if row["used_at"] is not None:
        tokens_store.revoke_family(ctx.conn, family_id=row["family_id"], now=ctx.now)
        raise OAuthError(
            400,
            "invalid_grant",
            "authorization code already used; its tokens are revoked",
            persist=True,
        )
    if row["expires_at"] <= ctx.now:
        raise OAuthError(400, "invalid_grant", "authorization code expired")
    _require_active(ctx, row["user_id"])
    tokens_store.use_auth_code(ctx.conn, code_hash=code_hash, now=ctx.now)
    return _issue_pair(ctx, user_id=row["user_id"], client_id=client_id, family_id=row["family_id"])


def _replayed(ctx: Context, row: Any, refresh_token: Secret) -> dict[str, Any] | None:
    """The pair a rotated refresh token was exchanged for, if within the grace and alive."""
    within_grace = ctx.now - row["rotated_at"] <= ctx.settings.refresh_replay_grace_ms
    if not within_grace or row["replay_blob"] is None:
        return None
    pair = orjson.loads(seal(refresh_token, bytes(row["replay_blob"])))
    answer = {
        "access_token": Secret(pair["access_token"]),
        "refresh_token": Secret(pair["refresh_token"]),
    }
    del pair
    access = tokens_store.get_token(
        ctx.conn, token_hash=security.sha256_hex(answer["access_token"]), kind="access"
    )
    if access is None or access["revoked_at"] is not None:
        return None
    return {
        "error_code": 200,
        **answer,
        "expires_in": max(0, (access["expires_at"] - ctx.now) // 1000),
        "openid": row["user_id"],
    }


def refresh(ctx: Context, *, client_id: str, refresh_token: Secret) -> dict[str, Any]:
    """Rotate a refresh token; replaying the old one within the grace returns the same pair."""
    token_hash = security.sha256_hex(refresh_token)
    row = tokens_store.get_token(ctx.conn, token_hash=token_hash, kind="refresh")
    if row is None or row["client_id"] != client_id:
        raise OAuthError(400, "invalid_grant", "unknown refresh token")
    if row["revoked_at"] is not None:
        raise OAuthError(400, "invalid_grant", "refresh token revoked")
    if row["expires_at"] <= ctx.now:
        raise OAuthError(400, "invalid_grant", "refresh token expired")
    _require_active(ctx, row["user_id"])
    if row["rotated_at"] is not None:
        replayed = _replayed(ctx, row, refresh_token)
        if replayed is not None:
            return replayed
        tokens_store.revoke_family(ctx.conn, family_id=row["family_id"], now=ctx.now)
        raise OAuthError(
            400, "invalid_grant", "refresh token already used; its family is revoked", persist=True
        )
    answer = _issue_pair(
        ctx, user_id=row["user_id"], client_id=client_id, family_id=row["family_id"]
    )
    tokens_store.mark_rotated(
        ctx.conn,
        token_hash=token_hash,
        now=ctx.now,
        # sealed in one expression: the pair in plain text is never a local
        replay_blob=seal(
            refresh_token,
            orjson.dumps(
                {"access_token": answer["access_token"], "refresh_token": answer["refresh_token"]},
                default=wire_default,
            ),
        ),
    )
    return answer
