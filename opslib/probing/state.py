"""One probe's state: the base dialect, what it has learned so far, and the calls every step
makes (a read as a candidate dialect writes it, a page, the events of the last 30 days).

Requests are written in the reference platform's terms (our selectors, epoch
milliseconds) and encoded by a candidate dialect's :class:`~opslib.protocol.Codec`: the base
dialect with what the probe has learned (:meth:`Probe.codec`), or with one hypothesis
changed (``range_unit`` seconds, a whole-fleet read without a ``user_id``) to see how the
platform answers it.
"""

from __future__ import annotations

import time
from typing import Any

from opslib.dialects import Dialect
from opslib.probing.result import Finding
from opslib.probing.wire import Answer, Wire
from opslib.protocol import Codec
from opslib.protocol import operations as ops

__all__ = ["DAY_MS", "Probe", "ours"]

DAY_MS = 86_400_000
WINDOW_DAYS = 30
_REFERENCE = Dialect()


def ours(table: str, meaning: str) -> int:
    """The reference platform's number for a selector's meaning (the codec writes it as
    the dialect's).

    >>> ours("record_query_model", "fleet")
    3
    """
    return _REFERENCE.selectors[table][meaning]


class Probe:
    """What one run of the probe holds, from a base dialect.

    Parameters
    ----------
    wire
        The platform.
    base
        The dialect the probe starts from and keeps where it cannot tell.
    credentials
        ``client_secret``, ``area_code``, ``phone``, ``password``.
    """

    def __init__(self, wire: Wire, base: Dialect, credentials: dict[str, str]) -> None:
        self.wire = wire
        self.base = base
        self.creds = credentials
        self.findings: list[Finding] = []
        self.changes: dict[str, dict[str, Any]] = {}
        self.success_code = 200
        self.user_id = ""
        self.token = ""
        self.refresh_token = ""
        self.login_answer: Answer | None = None
        self.fleet = False
        """A whole-fleet device read answered with devices."""
        self.matched: str | None = None
        """The built-in dialect every finding agrees with."""
        self.unchecked: list[str] = []
        """The dialect's assumed points no finding checked."""

    # -- findings -------------------------------------------------------------------------

    def note(self, section: str, name: str, value: Any, confidence: str, evidence: str) -> None:
        """A finding of ``section.name``; unless ``low``, the dialect takes its value."""
        where = f"{section}.{name}" if name else section
        self.findings.append(Finding(where, value, confidence, evidence))
        if name and confidence != "low":
            self.changes.setdefault(section, {})[name] = value

    def seen(self, field: str, value: Any, confidence: str, evidence: str) -> None:
        """A finding that changes nothing in the dialect."""
        self.findings.append(Finding(field, value, confidence, evidence))

    def learned(self, section: str, name: str) -> Any:
        """A section field as learned so far, else the base dialect's."""
        default = getattr(getattr(self.base, section), name)
        return self.changes.get(section, {}).get(name, default)

    # -- calls ----------------------------------------------------------------------------

    def codec(self, **changes: Any) -> Codec:
        """The codec of the base dialect with the range unit learned so far and ``changes``
        (a candidate: one hypothesis about the platform)."""
        unit = self.learned("times", "range_unit")
        times = {"range_unit": unit, **changes.pop("times", {})}
        return Codec(self.base.replace(times=times, **changes))

    def call(
        self,
        op: ops.Operation,
        params: dict[str, Any],
        *,
        codec: Codec | None = None,
        token: str | None = None,
    ) -> Answer:
        """``op`` as the caller, with the access token (or ``token``)."""
        return self.wire.call(
            op,
            params,
            codec=codec or self.codec(),
            user_id=self.user_id,
            token=token if token is not None else self.token,
        )

    def ok(self, answer: Answer) -> bool:
        """A success: HTTP 200 and the success code the login answered with."""
        return answer.status == 200 and answer.code == self.success_code

    def page(
        self, op: ops.Operation, params: dict[str, Any], size: int, *, codec: Codec | None = None
    ) -> tuple[int, int] | None:
        """Page 1 of ``size`` of a paged read: (rows served, ``total``); None when refused."""
        assert op.paged is not None
        answer = self.call(op, {**params, "page_no": 1, "page_size": size}, codec=codec)
        rows = answer.data.get(op.paged.list_key)
        if not self.ok(answer) or not isinstance(rows, list):
            return None
        return len(rows), _count(answer.data.get("total"))

    def fleet_user(self) -> str:
        """The device listing's ``user_id``: the whole fleet's where it reads, else ours."""
        return "" if self.fleet else self.user_id

    def event_query(self) -> dict[str, Any]:
        """``/device/query_record``'s selection: the whole fleet where the device listing
        read it and the dialect has a fleet mode, else the caller's devices."""
        fleet = ops.QUERY_RECORD.fleet
        assert len(fleet) == 2
        param, meaning = fleet
        table = ops.QUERY_RECORD.selectors[param]
        if self.fleet and meaning in self.base.selectors.get(table, {}):
            return {param: ours(table, meaning)}
        (user_param,) = ops.QUERY_RECORD.modes["user"]
        return {param: ours(table, "user"), user_param: self.user_id}

    def event_window(self, days: int = WINDOW_DAYS) -> tuple[int, int]:
        """The last ``days`` days, epoch milliseconds (the codec writes the dialect's unit)."""
        end_ms = int(time.time() * 1000)
        return end_ms - days * DAY_MS, end_ms

    def event_params(self) -> dict[str, Any]:
        """The last 30 days of events, as a query of ours."""
        start, end = self.event_window()
        return {**self.event_query(), "start": start, "end": end}

    def event_total(self, params: dict[str, Any], *, codec: Codec | None = None) -> int | None:
        """The ``total`` of a one-record page of events; None when refused."""
        found = self.page(ops.QUERY_RECORD, params, 1, codec=codec)
        return None if found is None else found[1]


def _count(value: Any) -> int:
    """A ``total`` as a count (anything else is 0: the probe compares totals, it does not
    read records)."""
    try:
        return max(int(value or 0), 0)
    except (TypeError, ValueError):
        return 0
