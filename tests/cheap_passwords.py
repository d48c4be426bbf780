"""The test worlds' accounts have argon2id hashes at argon2's cheapest parameters.

A login verifies the password against the stored hash with that hash's own parameters. At
argon2-cffi's defaults (what the platform writes: m=64 MiB, t=3) one verification costs
about 0.16 s of CPU, and the suite logs in about a thousand times. So the accounts the tests
start with (the seeded template of tests/conftest.py, the worlds of
tests/server/factories.py) store hashes at ``CHEAP``'s parameters: the same server code
verifies them, at a thousandth of the cost.

What the platform itself writes keeps the defaults: register and update_pwd (checked by
tests/security/test_storage.py) and ``opslib server --seed`` (tests/server/seed). A test
that needs logins to cost what they cost in production (the hash slots under a flood)
calls :func:`strengthen` on its database.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

from argon2 import PasswordHasher

from opslib.server import security

CHEAP = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)


@functools.cache
def cheap_hash(password: str) -> str:
    """An argon2id hash of ``password`` at ``CHEAP``'s parameters (one per password)."""
    return CHEAP.hash(password)


def cheapen(db: Path, passwords: Iterable[str]) -> int:
    """Rewrite every stored hash of one of ``passwords`` at ``CHEAP``'s parameters.

    Returns the number of users rewritten. Each distinct stored hash is verified against
    the candidates once (the seed shares one hash among the users of a password).
    """
    candidates = list(passwords)
    conn = sqlite3.connect(db)
    try:
        with conn:
            stored = [h for (h,) in conn.execute("SELECT DISTINCT password_hash FROM users")]
            rewritten = 0
            for value in stored:
                password = next((p for p in candidates if security.verify_password(value, p)), None)
                if password is not None:
                    cursor = conn.execute(
                        "UPDATE users SET password_hash = ? WHERE password_hash = ?",
                        (cheap_hash(password), value),
                    )
                    rewritten += cursor.rowcount
        return rewritten
    finally:
        conn.close()


def strengthen(db: Path, accounts: Mapping[str, str]) -> None:
    """Store the platform's own hash (argon2-cffi's defaults) for ``{phone: password}``."""
    conn = sqlite3.connect(db)
    try:
        with conn:
            for phone, password in accounts.items():
                cursor = conn.execute(
                    "UPDATE users SET password_hash = ? WHERE phone = ?",
                    (security.hash_password(password), phone),
                )
                assert cursor.rowcount == 1, phone
    finally:
        conn.close()
