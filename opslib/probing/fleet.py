"""Steps 6 and 7: what the caller may read beyond its own, and the event kinds.

- the fleet: a device listing of the whole fleet (the operation's fleet selection, sent as
  a dialect that does not require the caller's ``user_id`` there would), answered with
  devices, an empty success or an error;
- event kinds: each ``event_type`` code's total against the total of all, so every event
  the platform holds has a code the dialect gives a kind.
"""

from __future__ import annotations

from opslib.exceptions import Unsupported
from opslib.probing.state import Probe
from opslib.protocol import Codec
from opslib.protocol import operations as ops

__all__ = ["event_kinds", "fleet_check"]


def _fleet_codec(probe: Probe) -> tuple[Codec, dict[str, str]]:
    """The whole fleet's device listing, and a candidate codec that sends it as it is
    (the base dialect may require the parameter that selects it, filling in the caller)."""
    op = ops.QUERY_BY_USER
    fleet = op.fleet
    assert len(fleet) == 2
    param, value = fleet
    required = dict(probe.base.required)
    wanted = required.get(op.path, ())
    required[op.path] = tuple(name for name in wanted if name != param)
    return probe.codec(required=required), {param: value}


def fleet_check(probe: Probe) -> None:
    """Learn whether the caller reads the whole fleet, else ``capabilities.fleet_refusal``."""
    op = ops.QUERY_BY_USER
    codec, selection = _fleet_codec(probe)
    answer = probe.call(op, {**selection, "page_no": 1, "page_size": 1}, codec=codec)
    rows = answer.data.get(op.list_key) if probe.ok(answer) else None
    probe.fleet = bool(rows)
    shown = ", ".join(f"{k} {v!r}" for k, v in selection.items())
    if probe.fleet:
        probe.seen("fleet", "readable", "high", f"{shown} answered with devices")
        return
    own = probe.page(op, {"user_id": probe.user_id}, 1)
    if rows is not None and own is not None and own[1] > 0:
        probe.note(
            "capabilities",
            "fleet_refusal",
            "empty",
            "high",
            f"{shown} answered an empty success while the caller has devices",
        )
    elif rows is None:
        probe.note(
            "capabilities",
            "fleet_refusal",
            "error",
            "high",
            f"{shown} refused (HTTP {answer.status}, {answer.brief()})",
        )
    else:
        probe.seen(
            "fleet", "not proven", "low", "an empty answer and no devices of the caller's own"
        )


def event_kinds(probe: Probe) -> None:
    """Whether every event the platform holds has a code the base gives a kind: the total
    of each code's events against the total of all (30 days; a read). A code the dialect
    does not let a read filter by is not asked; its kind is the dialect's."""
    params = probe.event_params()
    codes = sorted(probe.base.event_kinds)
    if not codes:
        return
    codec = probe.codec()
    totals: dict[int, int] = {}
    unasked: list[int] = []
    for code in codes:
        try:
            total = probe.event_total({**params, "event_type": code}, codec=codec)
        except (ValueError, Unsupported):
            unasked.append(code)  # the platform takes no such filter
            continue
        if total is None:
            probe.seen("event_kinds", None, "low", f"event_type {code}: refused")
            return
        totals[code] = total
    every = probe.event_total(params, codec=codec)
    seen = {c: n for c, n in totals.items() if n}
    kinds = {c: probe.base.event_kinds.get(c) for c in sorted([*seen, *unasked])}
    evidence = f"the last 30 days: {every} events; by event_type {seen}"
    if unasked:
        evidence += f"; not a filter there: {unasked}"
    if not every:
        probe.seen("event_kinds", kinds, "low", evidence)
    elif sum(seen.values()) < every:
        rest = every - sum(seen.values())
        if unasked:
            probe.seen(
                "event_kinds",
                kinds,
                "medium",
                f"{evidence}: {rest} events of the codes not asked or of a code "
                f"{probe.base.name} does not name",
            )
        else:
            probe.seen(
                "event_kinds",
                kinds,
                "high",
                f"{evidence}: {rest} events of a code {probe.base.name} does not name; "
                "say their kind in the profile",
            )
    else:
        probe.seen("event_kinds", kinds, "medium", f"{evidence}: each code has a kind")
