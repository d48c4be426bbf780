"""Hashing and token primitives of the reference platform.

Passwords: argon2id with argon2-cffi's defaults (RFC 9106 low-memory profile, within OWASP's
recommendations). Everything else secret (SMS codes, authorization codes, tokens, client,
device and product secrets) is a high-entropy value stored as its SHA-256.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()  # argon2id


def hash_password(password: str) -> str:
    """Return an argon2id hash of ``password``."""
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    """True when ``password`` matches ``password_hash`` (constant time inside argon2)."""
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def sha256_hex(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def matches(value: str, expected_hash: str) -> bool:
    """Constant-time check that ``sha256_hex(value) == expected_hash``."""
    return hmac.compare_digest(sha256_hex(value), expected_hash)


def new_token() -> str:
    """A 256-bit random token, URL-safe base64."""
    return secrets.token_urlsafe(32)


def new_sms_code() -> str:
    """A 6-digit SMS code from the OS's CSPRNG."""
    return f"{secrets.randbelow(1_000_000):06d}"


def demo_device_secret(device_id: str) -> str:
    """The secret of a *seeded* demo device, derivable so the simulator can report for it.

    Only seeded demo data uses this; devices bound through the API bring their own secret.
    """
    return hashlib.sha256(f"opslib-demo-device:{device_id}".encode()).hexdigest()[:32]
