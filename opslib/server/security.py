"""Hashing and token primitives of the reference platform.

Passwords: argon2id with argon2-cffi's defaults (RFC 9106 low-memory profile, within OWASP's
recommendations). Everything else secret (SMS codes, authorization codes, tokens, client,
device and product secrets) is a high-entropy value stored as its SHA-256.

A secret travels through the platform as a :class:`Secret`, whose ``repr`` hides it, from
the request models to the hash here (and, for what the platform issues, to the wire): a
traceback's frames, which error reporters such as Sentry or rich record with their locals,
then hold no password, code or token (protocol §11).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

_hasher = PasswordHasher()  # argon2id


class Secret:
    """A secret string whose ``repr`` and ``str`` never show it.

    Examples
    --------
    >>> s = Secret("hunter22")
    >>> s, f"{s}", s.reveal()
    (Secret('***'), "Secret('***')", 'hunter22')
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The secret itself: only for hashing it or writing it to the wire."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __len__(self) -> int:
        return len(self._value)

    def __bool__(self) -> bool:
        return bool(self._value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and hmac.compare_digest(
            self._value.encode(), other._value.encode()
        )

    def __hash__(self) -> int:
        return hash(sha256_hex(self))

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        # validated as the string it annotates (lengths, patterns: SecretText), then wrapped;
        # serialised as that string (idempotency fingerprints of device/product secrets)
        return core_schema.no_info_after_validator_function(
            cls,
            handler(str),
            serialization=core_schema.plain_serializer_function_ser_schema(
                reveal, when_used="json"
            ),
        )


class SecretText:
    """``Annotated[Secret, SecretText(...)]``: a string of these lengths or this pattern,
    validated (and described in JSON Schema) as a string, then held as a :class:`Secret`."""

    def __init__(
        self, min_length: int | None = None, max_length: int | None = None, pattern: str = ""
    ) -> None:
        self.min_length = min_length
        self.max_length = max_length
        self.pattern = pattern or None

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        text = core_schema.str_schema(
            min_length=self.min_length, max_length=self.max_length, pattern=self.pattern
        )
        return core_schema.no_info_after_validator_function(
            Secret,
            text,
            serialization=core_schema.plain_serializer_function_ser_schema(
                reveal, when_used="json"
            ),
        )


def reveal(value: str | Secret) -> str:
    """The plain text of ``value`` (a :class:`Secret` or a str)."""
    return value.reveal() if isinstance(value, Secret) else value


def wire_default(value: Any) -> str:
    """orjson's ``default``: a :class:`Secret` the platform issued is revealed on the wire."""
    if isinstance(value, Secret):
        return value.reveal()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def hash_password(password: str | Secret) -> str:
    """Return an argon2id hash of ``password``."""
    return _hasher.hash(reveal(password))


def verify_password(password_hash: str, password: str | Secret) -> bool:
    """True when ``password`` matches ``password_hash`` (constant time inside argon2)."""
    try:
        return _hasher.verify(password_hash, reveal(password))
    except (VerificationError, InvalidHashError):
        return False


def sha256_hex(value: str | Secret) -> str:
    return hashlib.sha256(reveal(value).encode("utf-8")).hexdigest()


def matches(value: str | Secret, expected_hash: str) -> bool:
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
