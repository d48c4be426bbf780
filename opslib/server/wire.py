"""The platform's one edge: a request in its dialect read into the core's terms, and the
core's answers written back in it, through the codec's serving half
(:class:`~opslib.protocol.codec.Codec`, :mod:`opslib.protocol.serving`).

Every dialect goes through here, behind the core's own guards and before its validation
(:mod:`opslib.server.pipeline`): the body is read up to the size limit (413 past it,
before anything is parsed), parsed by the JSON parser the core's answers use (orjson: a
body it refuses, ``NaN`` included, is a 400), decoded by the codec (a parameter the
dialect does not allow is a 400 naming it), then encoded again and validated by the
route's model exactly as a reference request's bytes are: booleans are not integers,
a page past the dialect's cap is refused or cut by the dialect's rule, nothing reaches
the core untranslated. Answers and failures are encoded by the codec in the worker
thread, before compression.

Under the reference dialect (``codec.plain``) the pipeline does none of this: the body is
validated as it came and the core's bytes are sent.

>>> from opslib.dialects import Dialect
>>> from opslib.protocol import Codec, operations as ops
>>> body, served = decode_body(Codec(Dialect.named("vendor")), ops.QUERY_RECORD,
...     b'{"message_id": "m", "user_id": "u", "params": {"query_model": 2, "start": 1,'
...     b' "end": 2, "page_size": 500}}')
>>> body
b'{"message_id":"m","user_id":"u","params":{"query_model":2,"start":1000,"end":2000,"page_size":100}}'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import orjson

from opslib.protocol.codec import Codec
from opslib.protocol.meanings import Refused
from opslib.protocol.operations import Operation
from opslib.protocol.serving import Served
from opslib.server.errors import ApiError
from opslib.server.fields import UUID_PATTERN

__all__ = ["decode_body", "encode_failure", "encode_success", "encode_token_failure"]

_UUID = re.compile(UUID_PATTERN)


def _echo(doc: Any) -> str:
    """The message_id to answer a refused request with ("" unless a UUID, as the core)."""
    value = doc.get("message_id") if isinstance(doc, dict) else None
    return value if isinstance(value, str) and _UUID.match(value) else ""


def decode_body(codec: Codec, op: Operation, body: bytes) -> tuple[bytes, Served]:
    """A request body of the dialect as the core's bytes, and what its answer needs.

    Raises
    ------
    ApiError
        400: a body orjson does not parse, a parameter the dialect does not allow (named),
        or a document nested too deeply to encode again; ``echo`` is its message_id.
    """
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise ApiError(400, f"body: malformed JSON ({exc})") from None
    try:
        decoded, served = codec.decode_request(op, doc)
        return orjson.dumps(decoded), served
    except Refused as exc:
        refusal = ApiError(400, exc.message)
    except orjson.JSONEncodeError:  # deeper than the encoder goes (the core's parser neither)
        refusal = ApiError(400, "body: malformed JSON (nested too deeply)")
    refusal.echo = _echo(doc)
    raise refusal


def encode_success(codec: Codec, op: Operation, body: bytes, served: Served) -> bytes:
    """The core's success answer (its bytes) as the dialect writes it."""
    return orjson.dumps(codec.encode_answer(op, orjson.loads(body), served))


def encode_failure(
    codec: Codec,
    path: str,
    exc: ApiError,
    served: Served,
    *,
    op: Operation | None = None,
) -> tuple[int, bytes, dict[str, str]]:
    """A failure of the core as the dialect answers it: (HTTP status, body, headers).

    ``op`` is the operation when the request reached one (a bare write may fail with a bare
    string; a paged read's fleet refusal may be an empty page); ``served`` carries the
    message_id to answer with.
    """
    answer = None
    if op is not None and op.answer == "bare":
        answer = codec.encode_bare_failure(exc.status, exc.message)
    if answer is None:
        paged = op if op is not None and op.paged is not None else None
        answer = codec.encode_failure(path, exc.status, exc.message, served, paged=paged)
    status, doc = answer
    # the core's headers pass, WWW-Authenticate included: a refusal still says how to
    # authenticate when the dialect answers it with HTTP 200
    return status, orjson.dumps(doc), dict(exc.headers)


def encode_token_failure(
    codec: Codec,
    status: int,
    oauth: str | None,
    message: str,
    grant_type: str,
    headers: Mapping[str, str],
) -> tuple[int, bytes, dict[str, str]]:
    """A refused token call as the dialect answers it: (HTTP status, body, headers)."""
    status, doc = codec.encode_token_failure(status, oauth, message, grant_type)
    return status, orjson.dumps(doc), dict(headers)
