"""Fault injection around the real transport: the platform stays real, the network misbehaves.

``Faults`` is an httpx transport (``handle_request``, nothing more) that forwards every
request to the real platform through httpx's own transport (or the one given) and records
it, except where a planned fault says otherwise:

- ``status(code, headers)``: answer this status instead of forwarding (a proxy's 503, a 429);
- ``error_in_200(code)``: answer HTTP 200 with the error code inside the envelope (as some
  platforms do);
- ``drop_response()``: forward the request, let the platform do the work, then lose the
  answer (``httpx.RemoteProtocolError``), as when a connection dies mid-response;
- ``refuse()``: fail to connect (``httpx.ConnectError``), nothing is sent;
- ``rewrite(fn)``: forward, then answer ``fn(body)`` instead of the platform's JSON body (a
  platform that sends more, or otherwise, than ours).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson


@dataclass
class Sent:
    """One request as it went out: its path, its decoded JSON body (if any), its form (the
    query parameters and a form body's fields)."""

    path: str
    body: dict[str, Any] | None
    form: dict[str, str]
    fault: str = ""
    timeout: dict[str, float | None] = field(default_factory=dict)  # httpx's, per request
    query: dict[str, str] = field(default_factory=dict)  # the URL's query parameters
    in_flight: int = 0  # requests whose answers were not back yet, this one included

    @property
    def message_id(self) -> str | None:
        return (self.body or {}).get("message_id")


@dataclass
class _Plan:
    path: str
    fault: Callable[[httpx.Request], httpx.Response]
    name: str
    times: int | None  # None: every time
    when: Callable[[Sent], bool] = field(default=lambda sent: True)


class Faults(httpx.BaseTransport):
    """Records every request and applies planned faults, in order, per path."""

    def __init__(self, inner: httpx.BaseTransport | None = None) -> None:
        self.inner = inner if inner is not None else httpx.HTTPTransport()
        self.sent: list[Sent] = []
        self._plans: list[_Plan] = []
        self._lock = threading.Lock()
        self.before: Callable[[Sent], None] | None = None  # a hook run before forwarding
        self.in_flight = 0  # requests whose answers are not back yet

    # -- planning ----------------------------------------------------------------------

    def _add(self, path: str, name: str, fault: Any, times: int | None, when: Any) -> Faults:
        self._plans.append(_Plan(path, fault, name, times, when or (lambda sent: True)))
        return self

    def status(
        self,
        path: str,
        code: int,
        *,
        headers: dict[str, str] | None = None,
        times: int | None = 1,
        when: Callable[[Sent], bool] | None = None,
    ) -> Faults:
        def answer(request: httpx.Request) -> httpx.Response:
            body = {"error_code": code, "message_id": "", "error_msg": "injected", "data": {}}
            return httpx.Response(code, headers=headers or {}, content=orjson.dumps(body))

        return self._add(path, f"status {code}", answer, times, when)

    def error_in_200(
        self,
        path: str,
        code: int,
        *,
        times: int | None = 1,
        when: Callable[[Sent], bool] | None = None,
    ) -> Faults:
        def answer(request: httpx.Request) -> httpx.Response:
            body = {"error_code": code, "message_id": "", "error_msg": "injected", "data": {}}
            return httpx.Response(200, content=orjson.dumps(body))

        return self._add(path, f"{code} in 200", answer, times, when)

    def drop_response(
        self, path: str, *, times: int | None = 1, when: Callable[[Sent], bool] | None = None
    ) -> Faults:
        def drop(request: httpx.Request) -> httpx.Response:
            response = self.inner.handle_request(request)
            response.read()
            response.close()
            raise httpx.RemoteProtocolError(
                "injected: connection lost mid-response", request=request
            )

        return self._add(path, "drop", drop, times, when)

    def refuse(
        self, path: str, *, times: int | None = 1, when: Callable[[Sent], bool] | None = None
    ) -> Faults:
        def refuse(request: httpx.Request) -> httpx.Response:
            raise httpx.ConnectError("injected: connection refused", request=request)

        return self._add(path, "refuse", refuse, times, when)

    def rewrite(
        self,
        path: str,
        fn: Callable[[Any], Any],
        *,
        times: int | None = None,
        when: Callable[[Sent], bool] | None = None,
    ) -> Faults:
        def answer(request: httpx.Request) -> httpx.Response:
            response = self.inner.handle_request(request)
            body = orjson.loads(response.read())
            response.close()
            return httpx.Response(response.status_code, content=orjson.dumps(fn(body)))

        return self._add(path, "rewrite", answer, times, when)

    def clear(self) -> None:
        with self._lock:
            self._plans.clear()

    # -- reading -----------------------------------------------------------------------

    def paths(self) -> list[str]:
        return [s.path for s in self.sent]

    def count(self, path: str) -> int:
        return sum(1 for s in self.sent if s.path == path)

    def to(self, path: str) -> list[Sent]:
        return [s for s in self.sent if s.path == path]

    # -- transport ---------------------------------------------------------------------

    def _plan(self, request: httpx.Request) -> tuple[Sent, _Plan | None]:
        """Record ``request`` and take the first plan that applies to it."""
        content = request.read()
        body = None
        form: dict[str, str] = dict(request.url.params)  # the token call's query parameters
        if request.headers.get("content-type", "").startswith("application/json"):
            body = orjson.loads(content)
        elif content:
            form.update(httpx.QueryParams(content.decode()))
        timeout = request.extensions.get("timeout", {})
        query = dict(request.url.params)
        sent = Sent(request.url.path, body, form, timeout=timeout, query=query)
        with self._lock:
            self.sent.append(sent)
            self.in_flight += 1
            sent.in_flight = self.in_flight
            plan = next(
                (p for p in self._plans if p.path == sent.path and p.times != 0 and p.when(sent)),
                None,
            )
            if plan is not None and plan.times is not None:
                plan.times -= 1
        if self.before is not None:
            self.before(sent)
        if plan is not None:
            sent.fault = plan.name
        return sent, plan

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        _, plan = self._plan(request)
        try:
            if plan is None:
                response = self.inner.handle_request(request)
                response.read()  # the whole answer, so that in_flight counts until it is back
                return response
            return plan.fault(request)
        finally:
            with self._lock:
                self.in_flight -= 1

    def close(self) -> None:
        self.inner.close()
