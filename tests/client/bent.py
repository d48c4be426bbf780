"""A platform that bends the rules: the real server's answers, rewritten on their way.

:func:`bend` plans a rewrite on a :class:`~client.faults.Faults` transport in front of the
real platform, in any dialect: the request goes to the server (rewritten first, where
asked), the server does the work and answers, and the client reads what a platform that
breaks one rule would have sent. The rules broken here are those a platform was found to
break (or may): ``total`` missing, null, negative or counting pages; ``page_no`` ignored;
``data`` null, empty or a word where a page or an id is due. For instance
``bend(faults, "/device/query_by_user", total(None))``: every page says ``total: null``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import httpx
import orjson

from client.faults import Faults, Sent

__all__ = [
    "DROP",
    "bare",
    "bend",
    "data",
    "first_page_always",
    "total",
    "total_counts_pages",
    "understated",
]

Answer = Callable[[Any, dict[str, Any]], Any]
"""``answer(body, params)``: the answer body to send instead, from the server's body and
the request's params as the client sent them."""


class _Drop:
    def __repr__(self) -> str:
        return "DROP"  # the same in every process: a test id of pytest-xdist's workers


DROP = _Drop()
"""A field left out of the answer."""


def bend(
    faults: Faults,
    path: str,
    answer: Answer | None = None,
    *,
    request: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    times: int | None = None,
    when: Callable[[Sent], bool] | None = None,
) -> Faults:
    """Requests to ``path`` go to the server with their params rewritten by ``request``;
    its answers reach the client rewritten by ``answer``.
    """

    def fault(sent: httpx.Request) -> httpx.Response:
        body = orjson.loads(sent.content) if sent.content else {}
        params = dict(body.get("params") or {}) if isinstance(body, dict) else {}
        if request is not None:
            content = orjson.dumps({**body, "params": request(dict(params))})
            headers = [(k, v) for k, v in sent.headers.items() if k.lower() != "content-length"]
            sent = httpx.Request(
                sent.method, sent.url, headers=headers, content=content, extensions=sent.extensions
            )
        response = faults.inner.handle_request(sent)
        answered = orjson.loads(response.read())
        response.close()
        if answer is not None:
            answered = answer(answered, params)
        return httpx.Response(response.status_code, content=orjson.dumps(answered))

    return faults._add(path, "bent", fault, times, when)


def _data(body: Any) -> dict[str, Any] | None:
    """The ``data`` object of a success answer (None for an error or a bare answer)."""
    inner = body.get("data") if isinstance(body, dict) else None
    return inner if isinstance(inner, dict) and "total" in inner else None


def total(value: Any) -> Answer:
    """``data.total`` replaced by ``value`` (:data:`DROP`: left out)."""

    def answer(body: Any, params: dict[str, Any]) -> Any:
        page = _data(body)
        if page is not None:
            if value is DROP:
                del page["total"]
            else:
                page["total"] = value
        return body

    return answer


def total_counts_pages() -> Answer:
    """``total`` counts pages of the size asked, where the dialect says records (the page
    the client read from it says 2 where 13 records exist)."""

    def answer(body: Any, params: dict[str, Any]) -> Any:
        page = _data(body)
        if page is not None:
            page["total"] = math.ceil(page["total"] / int(params["page_size"]))
        return body

    return answer


def understated(by: int) -> Answer:
    """``total`` ``by`` lower than the server's."""

    def answer(body: Any, params: dict[str, Any]) -> Any:
        page = _data(body)
        if page is not None:
            page["total"] = max(0, page["total"] - by)
        return body

    return answer


def data(value: Any, *, success: int = 200) -> Answer:
    """A success (code ``success``) whose ``data`` is ``value`` (null, ``[]``, ``""``,
    ``"ok"``...), whatever the server answered."""

    def answer(body: Any, params: dict[str, Any]) -> Any:
        message_id = body.get("message_id", "") if isinstance(body, dict) else ""
        return {"error_code": success, "message_id": message_id, "data": value}

    return answer


def bare(text: str) -> Answer:
    """A bare JSON string for an answer (as ``/product/add`` answers on our platform)."""
    return lambda body, params: text


def first_page_always() -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A request rewrite: the server is asked for page 1 whatever ``page_no`` the client
    sent (a platform that ignores ``page_no``)."""

    def request(params: dict[str, Any]) -> dict[str, Any]:
        return {**params, "page_no": 1}

    return request
