"""What a repeated idempotent write is compared by, and what is kept of its first answer
(protocol §10).

A repeat (same caller, operation and message_id within the window) gets the first answer
back, byte for byte, when its params are the first request's; otherwise a 409. Nothing is
checked again and nothing is issued again: a repeat of ``/user/register`` answers the
authorization code the first one issued.

The fingerprint has two parts:

- the params that are not secret: HMAC-SHA256 under the database's key (``meta``), so a
  repeat after a restart is still recognised;
- the secret params (passwords, SMS codes) of the writes that carry them: HMAC-SHA256 under
  a key that exists only in this server process's memory, over the record's key and those
  params. A copy of the database then holds no fast test of a password guess (argon2id
  stays the only one). The first answer of such a write is kept sealed with a keystream
  derived from the same key, since it may hold what the write issued (an authorization
  code). After a restart the key is another: such a record can no longer be compared or
  read, and a repeat of it is a 409 that says so.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
from collections.abc import Mapping

import orjson
from pydantic import BaseModel

__all__ = ["Verdict", "compare", "fingerprint", "process_id", "seal"]


class Verdict(enum.Enum):
    """How a repeat's params relate to the first request's."""

    SAME = "same"
    DIFFERENT = "different"  # params that are not secret differ
    SECRETS_DIFFER = "secrets differ"  # same params, another password or code
    UNCOMPARABLE = "uncomparable"  # recorded by an earlier server process


def process_id(process_key: bytes) -> str:
    """A short public name of the process key (which key a fingerprint was made with).

    Examples
    --------
    >>> len(process_id(b"k" * 32))
    16
    """
    return hashlib.sha256(b"opslib-replay-key\x00" + process_key).hexdigest()[:16]


def _record(key: Mapping[str, str]) -> bytes:
    return orjson.dumps([key["caller"], key["operation"], key["message_id"]])


def fingerprint(
    params: BaseModel,
    *,
    database_key: bytes,
    process_key: bytes,
    key: Mapping[str, str],
    exclude: set[str],
    secret: tuple[str, ...],
) -> str:
    """The fingerprint of ``params`` for the record ``key`` (caller, operation, message_id).

    Examples
    --------
    >>> from pydantic import BaseModel
    >>> class P(BaseModel):
    ...     a: int
    ...     pw: str
    >>> key = {"caller": "c", "operation": "o", "message_id": "m"}
    >>> f = fingerprint(P(a=1, pw="x"), database_key=b"d", process_key=b"p", key=key,
    ...                 exclude=set(), secret=("pw",))
    >>> f.count(".")
    2
    """
    option = orjson.OPT_SORT_KEYS
    # each in one expression: the canonical params may hold a password or a secret
    public = hmac.new(
        database_key,
        orjson.dumps(params.model_dump(mode="json", exclude=exclude | set(secret)), option=option),
        hashlib.sha256,
    ).hexdigest()
    if not secret:
        return public
    hidden = hmac.new(
        process_key,
        _record(key)
        + orjson.dumps(params.model_dump(mode="json", include=set(secret)), option=option),
        hashlib.sha256,
    ).hexdigest()
    return f"{public}.{process_id(process_key)}.{hidden}"


def compare(stored: str, fresh: str) -> Verdict:
    """How the fingerprint ``fresh`` of a repeat relates to the recorded ``stored`` one.

    Examples
    --------
    >>> [compare("a.k.s", f).value for f in ("a.k.s", "b.k.s", "a.k.t", "a.j.s")]
    ['same', 'different', 'secrets differ', 'uncomparable']
    """
    stored_public, _, stored_rest = stored.partition(".")
    fresh_public, _, fresh_rest = fresh.partition(".")
    if not hmac.compare_digest(stored_public, fresh_public):
        return Verdict.DIFFERENT
    if not fresh_rest:
        return Verdict.SAME
    stored_id, _, stored_hidden = stored_rest.partition(".")
    fresh_id, _, fresh_hidden = fresh_rest.partition(".")
    if stored_id != fresh_id:
        return Verdict.UNCOMPARABLE
    if hmac.compare_digest(stored_hidden, fresh_hidden):
        return Verdict.SAME
    return Verdict.SECRETS_DIFFER


def seal(process_key: bytes, key: Mapping[str, str], body: bytes) -> bytes:
    """Encrypt (or decrypt) a kept answer with a keystream of the process key and the
    record's key (XOR; each record has its own keystream).

    Examples
    --------
    >>> key = {"caller": "c", "operation": "o", "message_id": "m"}
    >>> seal(b"p", key, seal(b"p", key, b"answer")) == b"answer"
    True
    """
    stream = hashlib.shake_256(b"opslib-replay-seal\x00" + process_key + _record(key))
    return bytes(a ^ b for a, b in zip(body, stream.digest(len(body)), strict=True))
