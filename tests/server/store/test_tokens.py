"""opslib.server.store.tokens: clients, authorization codes and tokens on a real SQLite file."""

from __future__ import annotations

import sqlite3

from opslib.server import security
from opslib.server.store import tokens

from ..factories import World


def _token(conn: sqlite3.Connection, token_hash: str, kind: str, user: str, family: str) -> None:
    tokens.insert_token(
        conn,
        token_hash=token_hash,
        kind=kind,
        user_id=user,
        client_id="opslib-demo",
        family_id=family,
        now=100,
        expires_at=200,
    )


def test_the_client_is_stored_with_its_secret_hashed(
    conn: sqlite3.Connection, world: World
) -> None:
    client = tokens.get_client(conn, client_id=world.client_id)
    assert client is not None
    assert client["secret_hash"] == security.sha256_hex(world.client_secret)
    assert tokens.get_client(conn, client_id="nobody") is None


def test_an_access_token_names_its_caller(conn: sqlite3.Connection) -> None:
    _token(conn, "h-access", "access", "u-admin", "f1")
    caller = tokens.get_access_caller(conn, token_hash="h-access")
    assert caller == {
        "user_id": "u-admin",
        "client_id": "opslib-demo",
        "expires_at": 200,
        "revoked_at": None,
        "role": 3,
        "status": 1,
    }
    assert tokens.get_token(conn, token_hash="h-access", kind="refresh") is None
    _token(conn, "h-refresh", "refresh", "u-admin", "f1")
    assert tokens.get_access_caller(conn, token_hash="h-refresh") is None  # not an access token


def test_an_authorization_code_is_used_once(conn: sqlite3.Connection) -> None:
    tokens.insert_auth_code(
        conn,
        code_hash="h-code",
        client_id="opslib-demo",
        user_id="u-alice",
        family_id="f2",
        now=100,
        expires_at=400,
    )
    code = tokens.get_auth_code(conn, code_hash="h-code")
    assert code is not None
    assert (code["user_id"], code["used_at"]) == ("u-alice", None)
    tokens.use_auth_code(conn, code_hash="h-code", now=150)
    used = tokens.get_auth_code(conn, code_hash="h-code")
    assert used is not None
    assert used["used_at"] == 150


def test_rotation_then_revocation_of_a_family(conn: sqlite3.Connection) -> None:
    _token(conn, "h-r1", "refresh", "u-alice", "fam-a")
    _token(conn, "h-a1", "access", "u-alice", "fam-a")
    _token(conn, "h-b1", "access", "u-alice", "fam-b")
    tokens.mark_rotated(conn, token_hash="h-r1", now=120, replay_blob=b"sealed")
    rotated = tokens.get_token(conn, token_hash="h-r1", kind="refresh")
    assert rotated is not None
    assert (rotated["rotated_at"], rotated["replay_blob"]) == (120, b"sealed")
    tokens.revoke_family(conn, family_id="fam-a", now=130)
    revoked = tokens.get_token(conn, token_hash="h-r1", kind="refresh")
    assert revoked is not None
    assert (revoked["revoked_at"], revoked["replay_blob"]) == (130, None)
    other = tokens.get_token(conn, token_hash="h-b1", kind="access")
    assert other is not None
    assert other["revoked_at"] is None  # another family of the same user
    tokens.revoke_user(conn, user_id="u-alice", now=140)
    for token_hash, kind, when in (("h-r1", "refresh", 130), ("h-b1", "access", 140)):
        row = tokens.get_token(conn, token_hash=token_hash, kind=kind)
        assert row is not None
        assert row["revoked_at"] == when  # a revoked token keeps its first revocation
