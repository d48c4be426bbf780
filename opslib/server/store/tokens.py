"""OAuth clients, authorization codes and access/refresh tokens (all secrets hashed)."""

from __future__ import annotations

import sqlite3

from opslib.server.store._rows import Row, one


def get_client(conn: sqlite3.Connection, *, client_id: str) -> Row | None:
    return one(conn, "SELECT * FROM clients WHERE client_id = ?", (client_id,))


def insert_client(
    conn: sqlite3.Connection, *, client_id: str, secret_hash: str, name: str, now: int
) -> None:
    conn.execute(
        "INSERT INTO clients (client_id, secret_hash, name, gmt_create) VALUES (?, ?, ?, ?)",
        (client_id, secret_hash, name, now),
    )


def insert_auth_code(
    conn: sqlite3.Connection,
    *,
    code_hash: str,
    client_id: str,
    user_id: str,
    family_id: str,
    now: int,
    expires_at: int,
) -> None:
    conn.execute(
        "INSERT INTO auth_codes (code_hash, client_id, user_id, family_id, created_at,"
        " expires_at) VALUES (?, ?, ?, ?, ?, ?)",
        (code_hash, client_id, user_id, family_id, now, expires_at),
    )


def get_auth_code(conn: sqlite3.Connection, *, code_hash: str) -> Row | None:
    return one(conn, "SELECT * FROM auth_codes WHERE code_hash = ?", (code_hash,))


def use_auth_code(conn: sqlite3.Connection, *, code_hash: str, now: int) -> None:
    conn.execute("UPDATE auth_codes SET used_at = ? WHERE code_hash = ?", (now, code_hash))


def insert_token(
    conn: sqlite3.Connection,
    *,
    token_hash: str,
    kind: str,
    user_id: str,
    client_id: str,
    family_id: str,
    now: int,
    expires_at: int,
) -> None:
    conn.execute(
        "INSERT INTO tokens (token_hash, kind, user_id, client_id, family_id, created_at,"
        " expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (token_hash, kind, user_id, client_id, family_id, now, expires_at),
    )


def get_token(conn: sqlite3.Connection, *, token_hash: str, kind: str) -> Row | None:
    return one(conn, "SELECT * FROM tokens WHERE token_hash = ? AND kind = ?", (token_hash, kind))


def get_access_caller(conn: sqlite3.Connection, *, token_hash: str) -> Row | None:
    """The access token with its user's role and status, for authenticating a request."""
    return one(
        conn,
        "SELECT t.user_id, t.client_id, t.expires_at, t.revoked_at, u.role, u.status"
        " FROM tokens t JOIN users u ON u.user_id = t.user_id"
        " WHERE t.token_hash = ? AND t.kind = 'access'",
        (token_hash,),
    )


def mark_rotated(
    conn: sqlite3.Connection, *, token_hash: str, now: int, replay_blob: bytes
) -> None:
    conn.execute(
        "UPDATE tokens SET rotated_at = ?, replay_blob = ? WHERE token_hash = ?",
        (now, replay_blob, token_hash),
    )


def revoke_family(conn: sqlite3.Connection, *, family_id: str, now: int) -> None:
    conn.execute(
        "UPDATE tokens SET revoked_at = ?, replay_blob = NULL"
        " WHERE family_id = ? AND revoked_at IS NULL",
        (now, family_id),
    )


def revoke_user(conn: sqlite3.Connection, *, user_id: str, now: int) -> None:
    conn.execute(
        "UPDATE tokens SET revoked_at = ?, replay_blob = NULL"
        " WHERE user_id = ? AND revoked_at IS NULL",
        (now, user_id),
    )


def revoke_user_codes(conn: sqlite3.Connection, *, user_id: str) -> None:
    """Forget the user's authorization codes not exchanged yet (exchanged ones stay: a
    second exchange of one still revokes what the first issued)."""
    conn.execute("DELETE FROM auth_codes WHERE user_id = ? AND used_at IS NULL", (user_id,))
