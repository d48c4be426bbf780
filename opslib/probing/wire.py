"""The probe's wire: one operation sent, its answer returned as it came.

The probe learns from what a client never looks at (an error's HTTP status beside its
``error_code``, the ``Date`` header, a ``gmt_*`` value before it is read), so it reads
answers raw. Its requests are not its own: the envelope and its params are a candidate
dialect's :class:`~opslib.protocol.Codec`'s, the path and the answer's shape the table of
operations' (:mod:`opslib.protocol.operations`).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import orjson

from opslib.protocol import Codec
from opslib.protocol import operations as ops

__all__ = ["Answer", "Wire", "brief"]


@dataclass(frozen=True)
class Answer:
    """One answer as it came: HTTP status, headers and the JSON body (None if not JSON)."""

    status: int
    headers: httpx.Headers
    body: Any

    @property
    def code(self) -> Any:
        """The body's ``error_code`` (None without one)."""
        return self.body.get("error_code") if isinstance(self.body, dict) else None

    @property
    def data(self) -> dict[str, Any]:
        """A copy of the body's ``data`` object (empty when it is not one)."""
        if isinstance(self.body, dict) and isinstance(self.body.get("data"), dict):
            return dict(self.body["data"])
        return {}

    def brief(self) -> str:
        """The body in one short line, for evidence and errors."""
        return brief(self.body)


def brief(body: Any) -> str:
    """A body as at most 160 characters of JSON.

    >>> brief({"error_code": 404})
    '{"error_code":404}'
    """
    text = orjson.dumps(body).decode() if body is not None else "no JSON"
    return text if len(text) <= 160 else text[:157] + "..."


class Wire:
    """Raw requests to one platform: the probe wants statuses, headers and bodies as they
    come, with no retry and no reading of its own.

    Parameters
    ----------
    base_url
        The platform.
    client_id
        The application, sent where an operation carries ``client_id``.
    timeout
        Seconds per request.
    """

    def __init__(self, base_url: str, client_id: str, timeout: float) -> None:
        self.client_id = client_id
        self.http = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout)

    def call(
        self,
        op: ops.Operation,
        params: Mapping[str, Any],
        *,
        codec: Codec,
        user_id: str = "",
        token: str | None = None,
    ) -> Answer:
        """Send ``op`` with ``params`` (ours: the reference platform's selectors, epoch ms)
        as ``codec``'s dialect writes them.

        Raises
        ------
        ValueError, opslib.Unsupported
            The dialect cannot write this request (a filter or a selector's meaning it does
            not have); nothing is sent.
        """
        body = codec.envelope(
            op,
            params,
            message_id=str(uuid.uuid4()),
            user_id=user_id,
            access_token=token if op.token else None,
            client_id=self.client_id,
        )
        response = self.http.post(
            op.path, content=orjson.dumps(body), headers={"Content-Type": "application/json"}
        )
        return Answer(response.status_code, response.headers, _json(response))

    def token(self, form: Mapping[str, str], *, in_query: bool) -> Answer:
        """The token call (``ops.TOKEN``), its fields in the query string or a form body."""
        if in_query:
            response = self.http.post(ops.TOKEN.path, params=dict(form))
        else:
            response = self.http.post(ops.TOKEN.path, data=dict(form))
        return Answer(response.status_code, response.headers, _json(response))

    def close(self) -> None:
        """Close the connection pool."""
        self.http.close()


def _json(response: httpx.Response) -> Any:
    try:
        return orjson.loads(response.content)
    except orjson.JSONDecodeError:
        return None
