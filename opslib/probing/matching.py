"""The probe's conclusion: the built-in dialect every finding agrees with, else the base
dialect with what was learned; and, for each point that dialect's provenance marks
``assumed``, whether a finding checked it.

A finding agrees with a dialect when the dialect says what was seen, not all of it: the
codes seen are among the dialect's, its first message field is the one seen, a dialect
that reads errors both ways agrees with either, a zone agrees by its offset now. The
``serving`` section (what opslib's own server needs to speak a dialect) is nothing a
platform shows, and ``interpretations`` (how opslib reads a point its reference leaves
open: which ``auth_model`` a login code takes) would show only through a side effect the
probe does not cause (an SMS sent, another user's data read): their assumed points are not
the probe's to check.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from opslib.dialects import Dialect, zone_of
from opslib.probing.state import Probe

__all__ = ["agrees", "assumed", "conclude"]

# The sections a probe learns, in the order the dialect is read.
LEARNED = ("token", "errors", "times", "paging", "capabilities")
# What the probe does not check: opslib's own server's data, and readings of a reference
# that only a side effect would test.
NOT_OBSERVABLE = ("serving.", "interpretations.")
_REFERENCE_CODES = Dialect().errors.codes


def agrees(candidate: Dialect, section: str, name: str, value: Any) -> bool:
    """Whether ``candidate`` agrees with one finding (what was seen, not all of it).

    >>> agrees(Dialect.named("chint"), "errors", "signalling", "body")
    True
    """
    have = getattr(getattr(candidate, section), name)
    if name == "codes":
        seen = {c: n for c, n in value.items() if c not in _REFERENCE_CODES}
        return all(have.get(c) == n for c, n in seen.items()) and (
            bool(seen) or set(value) <= set(have)
        )
    if name in ("token_expired_codes", "token_refused_codes"):
        return set(value) <= set(have)
    if name == "message_fields":
        return bool(have) and have[0] == value[0]
    if name == "signalling" and have == "both":  # a dialect that reads either way
        return value in ("status", "body", "both")
    if name == "zone":
        now = dt.datetime.now(dt.UTC)
        return bool(zone_of(have).utcoffset(now) == zone_of(value).utcoffset(now))
    return bool(have == value)


def assumed(probe: Probe, dialect: Dialect) -> list[str]:
    """One finding per point ``dialect``'s provenance marks assumed and a platform shows:
    checked (a finding of that field that is not low) or not; the names of those not
    checked."""
    sure = {f.field for f in probe.findings if f.confidence != "low"}
    points = [
        k
        for k, v in dialect.provenance.items()
        if v.startswith("assumed") and not k.startswith(NOT_OBSERVABLE)
    ]
    unchecked = [k for k in points if k not in sure]
    for key in unchecked:
        reason = dialect.provenance[key].removeprefix("assumed:").strip()
        probe.seen(key, "not checked", "low", f"assumed by {dialect.name}: {reason}")
    if points:
        checked = len(points) - len(unchecked)
        probe.seen(
            "assumed",
            f"{checked} of {len(points)} checked",
            "high" if not unchecked else "low",
            f"{dialect.name}'s assumed points: {', '.join(points)}",
        )
    return unchecked


def conclude(probe: Probe) -> Dialect:
    """The built-in dialect every finding agrees with (``probe.matched``), else the base
    dialect with the findings that differ from it."""
    for name in Dialect.names():
        candidate = Dialect.named(name)
        if all(
            agrees(candidate, section, k, v)
            for section, fields in probe.changes.items()
            for k, v in fields.items()
        ):
            probe.matched = name
            probe.seen("dialect", name, "high", "every finding agrees with this built-in")
            probe.unchecked = assumed(probe, candidate)
            return candidate
    probe.matched = None
    probe.unchecked = assumed(probe, probe.base)
    changes: dict[str, dict[str, Any]] = {}
    for section in LEARNED:
        current = getattr(probe.base, section)
        differ = {
            k: v for k, v in probe.changes.get(section, {}).items() if v != getattr(current, k)
        }
        if differ:
            changes[section] = differ
    return probe.base.replace(**changes)
