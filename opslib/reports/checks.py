"""What a report's parameters mean, declared in its notebook, and their checks before a run.

The types of the ``parameters`` cell (``int``, ``list[str]``...) are checked by
:mod:`opslib.reports.params`. What a value means is declared in the notebook's metadata,
under ``opslib``::

    "opslib": {
      "kinds": {"start": "time", "end": "time", "event_types": "event_types",
                "freq": "freq", "status": "device_status", "products_path": "input_file",
                "audit_log": "output_file", "days": "days", "users": "users"},
      "window": ["start", "end"],
      "together": [["area_code", "phone"]],
      "apart": [["device_id", "user_id", "users"]],
      "fleet": ["device_id", "user_id", "users"],
      "needs_role": {"apply": "admin"}
    }

Every check runs before a kernel starts; a refusal is one line naming the parameter, the
value and the accepted forms. Paths are resolved against the caller's directory (the
notebook runs in its run directory, where a relative path would point elsewhere).
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opslib import enums
from opslib._limits import MAX_BUCKETS
from opslib.dialects import Dialect
from opslib.reports._kinds import KINDS, PLATFORM_KINDS, refuse
from opslib.reports._times import epoch_ms
from opslib.reports.params import ParameterError, ReportParameter
from opslib.reports.platform import dialect_of

__all__ = [
    "KINDS",
    "PLATFORM_KINDS",
    "CheckedParameters",
    "ReportChecks",
    "check_label",
    "check_parameters",
    "check_timeout",
    "check_values",
    "dialect_of",
    "platform_filters",
    "read_checks",
]


@dataclass(frozen=True)
class ReportChecks:
    """The ``opslib`` metadata of a notebook: what its parameters mean."""

    kinds: dict[str, str] = field(default_factory=dict)
    window: tuple[str, str] | None = None
    together: list[list[str]] = field(default_factory=list)
    apart: list[list[str]] = field(default_factory=list)
    fleet: tuple[str, ...] = ()
    """The parameters that narrow the report's read; with none given it reads the fleet."""
    needs_role: dict[str, str] = field(default_factory=dict)

    def role_needed(self, values: Mapping[str, Any]) -> tuple[str, str] | None:
        """``(parameter, role)`` when a true-valued parameter needs a role, else None."""
        for name, role in self.needs_role.items():
            if values.get(name):
                return name, role
        return None


def read_checks(notebook: str | os.PathLike[str]) -> ReportChecks:
    """The checks a notebook declares (none when it declares nothing).

    Raises
    ------
    ParameterError
        When the metadata names a kind this runner does not know.
    """
    doc = json.loads(Path(notebook).read_text(encoding="utf-8"))
    meta = (doc.get("metadata") or {}).get("opslib") or {}
    kinds = {str(k): str(v) for k, v in (meta.get("kinds") or {}).items()}
    unknown = sorted(set(kinds.values()) - set(KINDS))
    if unknown:
        raise ParameterError(
            f"{Path(notebook).name}: metadata opslib.kinds names unknown kinds {unknown}; "
            f"known: {', '.join(KINDS)}"
        )
    window = meta.get("window")
    return ReportChecks(
        kinds=kinds,
        window=(str(window[0]), str(window[1])) if window else None,
        together=[[str(n) for n in group] for group in meta.get("together") or []],
        apart=[[str(n) for n in group] for group in meta.get("apart") or []],
        fleet=tuple(str(n) for n in meta.get("fleet") or ()),
        needs_role={str(k): str(v) for k, v in (meta.get("needs_role") or {}).items()},
    )


def check_values(
    checks: ReportChecks,
    declared: Mapping[str, ReportParameter],
    values: dict[str, Any],
    *,
    base: str | os.PathLike[str] | None = None,
    dialect: Dialect | None = None,
) -> dict[str, Any]:
    """Check the given ``values`` (already of their types) by kind, window and pairing.

    Parameters
    ----------
    checks
        :func:`read_checks` of the notebook.
    declared
        The notebook's parameters (their defaults complete the window and the pairs).
    values
        The given values, coerced by :func:`~opslib.reports.params.validate_parameters`.
    base
        The directory relative paths are resolved against (default: the current one).
    dialect
        The platform's dialect, whose labels (device statuses) a value must be one of
        (default: opslib's own, :func:`dialect_of` gives a run's).

    Returns
    -------
    dict
        ``values`` with paths made absolute.

    Raises
    ------
    ParameterError
        One line: the parameter, the value, the accepted forms.

    Examples
    --------
    >>> checks = ReportChecks(kinds={"freq": "freq"})
    >>> declared = {"freq": ReportParameter("freq", "str", "1h", "")}
    >>> check_values(checks, declared, {"freq": "15min"})
    {'freq': '15min'}
    >>> check_values(checks, declared, {"freq": "0h"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    opslib.reports.params.ParameterError: parameter 'freq' = '0h': a bucket must be ...
    """
    where = Path(base) if base is not None else Path.cwd()
    platform = dialect if dialect is not None else Dialect()
    out = dict(values)
    for name, value in values.items():
        kind = checks.kinds.get(name)
        if kind is not None:
            out[name] = KINDS[kind](name, value, where, platform)
    effective = {name: param.default for name, param in declared.items()} | out
    if checks.window:
        _check_window(*checks.window, effective)
        _check_buckets(checks, effective)
    for group in checks.together:
        given = [name for name in group if effective.get(name)]
        if given and len(given) != len(group):
            missing = [name for name in group if name not in given]
            shown = ", ".join(f"{n}={effective.get(n)!r}" for n in group)
            raise ParameterError(
                f"parameters {' and '.join(group)} go together ({shown}): give "
                f"{', '.join(missing)} as well, or none of them"
            )
    for group in checks.apart:  # ways to select that exclude each other: one is ignored
        given = [name for name in group if effective.get(name)]
        if len(given) > 1:
            shown = ", ".join(f"{n}={effective.get(n)!r}" for n in given)
            raise ParameterError(
                f"parameters {' and '.join(given)} each select what the report reads ({shown}): "
                f"give one of {', '.join(group)}"
            )
    # the store holds events only: a run from it still lists the devices on the platform
    if checks.fleet and not any(effective.get(n) for n in checks.fleet):
        _check_fleet_read(checks.fleet, platform)
    return out


def _check_fleet_read(names: tuple[str, ...], dialect: Dialect) -> None:
    """A report that reads the whole fleet, on a platform that reads users one at a time."""
    from opslib.protocol.codec import Codec

    codec = Codec(dialect)
    if codec.lists_fleet:
        return
    ways = {"device_id": "a device id", "user_id": "a user id", "users": _USERS_FORMS}
    shown = ", ".join(f"{name} ({ways.get(name, 'a value')})" for name in names)
    raise ParameterError(
        f"parameters {', '.join(names)} are all empty, so the report would read the whole "
        f"fleet, and the {codec.name} platform has no whole-fleet read; give one of {shown}"
    )


_USERS_FORMS = "user ids, or a CSV file with a user_id column"


def _check_window(start: str, end: str, values: Mapping[str, Any]) -> None:
    now = int(time.time() * 1000)
    try:
        first, last = epoch_ms(values.get(start, ""), now), epoch_ms(values.get(end, ""), now)
    except ValueError:
        return  # a bad end is refused by its own kind
    problem = ""
    if first < 0 or last < 0:
        problem = "before 1970"
    elif first >= last:
        problem = f"{start} is not before {end}"
    if problem:
        raise ParameterError(
            f"parameters {start!r} = {values.get(start)!r} and {end!r} = {values.get(end)!r}: "
            f"{problem}; accepted: a {start} before the {end}, both after 1970"
        )


_BUCKETS = (("1min", 60_000), ("5min", 300_000), ("15min", 900_000), ("1h", 3_600_000),
            ("6h", 21_600_000), ("1D", 86_400_000), ("1W", 604_800_000))  # fmt: skip
_FIXED = re.compile(r"\s*(\d*)\s*(ms|s|min|t|h|d)\s*", re.IGNORECASE)  # "15min", "1h", "2D"
_FIXED_MS = {"ms": 1, "s": 1000, "min": 60_000, "t": 60_000, "h": 3_600_000, "d": 86_400_000}


def _check_buckets(checks: ReportChecks, values: Mapping[str, Any]) -> None:
    """A ``freq`` of fixed length that cuts the window into more than :data:`MAX_BUCKETS`
    (read without pandas: the run's own process never loads it; weeks and months, never
    too many, are left to the ``freq`` kind)."""
    assert checks.window is not None
    start, end = checks.window
    now = int(time.time() * 1000)
    try:
        first, last = epoch_ms(values.get(start, ""), now), epoch_ms(values.get(end, ""), now)
    except ValueError:
        return  # refused by its own kind
    for name, kind in checks.kinds.items():
        fixed = _FIXED.fullmatch(str(values.get(name, ""))) if kind == "freq" else None
        if fixed is None:
            continue
        length = int(fixed.group(1) or 1) * _FIXED_MS[fixed.group(2).lower()]
        buckets = (last - first) // length if length else 0
        if buckets > MAX_BUCKETS:
            fits = next((f for f, ms in _BUCKETS if (last - first) // ms <= MAX_BUCKETS), "1W")
            raise refuse(
                name, values[name], f"{buckets:,} buckets from {start} to {end}",
                f"at most {MAX_BUCKETS:,} buckets: a longer one, such as {fits}",
            )  # fmt: skip


def platform_filters(checks: ReportChecks, values: Mapping[str, Any]) -> dict[str, str]:
    """The given values the platform must know, as ``NAME=KIND=VALUE`` by parameter: what
    the platform check looks up before a kernel starts.

    Examples
    --------
    >>> platform_filters(ReportChecks(kinds={"product_id": "product"}), {"product_id": "p-1"})
    {'product_id': 'product_id=product=p-1'}
    """
    return {
        name: f"{name}={checks.kinds[name]}={value}"
        for name, value in values.items()
        if checks.kinds.get(name) in PLATFORM_KINDS and str(value).strip()
    }


@dataclass(frozen=True)
class CheckedParameters:
    """A report's parameters after every check: what it declares, means and is given."""

    declared: dict[str, ReportParameter]
    checks: ReportChecks
    values: dict[str, Any]


def check_parameters(
    notebook: str | os.PathLike[str],
    given: Mapping[str, Any],
    *,
    base: str | os.PathLike[str] | None = None,
    dialect: Dialect | None = None,
) -> CheckedParameters:
    """Names, types, then meanings of the given values (labels by ``dialect``, default
    opslib's); nothing runs.

    Raises
    ------
    UnknownParameterError, ParameterError
        One line naming the parameter, the value and what is accepted.

    Examples
    --------
    >>> check_parameters(find_notebook("event_analysis"), {"freq": "banana"})  # doctest: +SKIP
    Traceback (most recent call last):
    ...
    ParameterError: parameter 'freq' = 'banana': not a time bucket; accepted: ...
    """
    from opslib.reports.params import inspect_report, validate_parameters

    declared = inspect_report(notebook)
    checks = read_checks(notebook)
    values = validate_parameters(declared, dict(given))
    return CheckedParameters(
        declared, checks, check_values(checks, declared, values, base=base, dialect=dialect)
    )


class RoleRefused(ParameterError):
    """A parameter needs a role the run's account does not have."""


def check_role(checked: CheckedParameters, platform: Any) -> None:
    """Refuse a run whose parameters need a role the account lacks (``apply`` needs admin).

    A platform that does not say the account's role (``platform.role`` empty) is not
    refused here; the platform then refuses the writes themselves.

    Raises
    ------
    RoleRefused
        Naming the parameter, the role, the account and the platform.
    """
    need = checked.checks.role_needed(checked.values)
    if need is None or not platform.role:
        return
    name, role = need
    rank = {label: value for value, label in enums.labels(enums.Role).items()}
    if rank.get(platform.role, 0) >= rank.get(role, 0):
        return
    how = (
        f"add --as {role} to --demo"
        if platform.demo and role in ("ops", "admin")
        else f"use the profile of an {role} account"
    )
    raise RoleRefused(
        f"parameter {name!r} = {checked.values[name]!r} needs the {role} role; the account "
        f"{platform.account} on {platform.name} has not: {how}"
    )


def check_timeout(name: str, value: object) -> float:
    """``value`` as the seconds of the timeout ``name`` (``cell_timeout``, ``--run-timeout``):
    a finite number above zero.

    Raises
    ------
    ParameterError
        Anything else (0, a negative, NaN, infinity, text, a boolean), naming ``name``,
        the value and what is accepted.

    Examples
    --------
    >>> check_timeout("run_timeout", 90)
    90.0
    """
    seconds = value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
    if math.isfinite(seconds) and seconds > 0:
        return float(seconds)
    raise ParameterError(
        f"{name} = {value!r}: not a timeout; accepted: seconds, a number above zero"
    )


def check_label(label: str) -> str:
    """A run's label (the suffix of its directory's name), or a :class:`ParameterError`
    naming it when it holds anything but A-Z a-z 0-9 _ . - (a ``/`` would put the run
    outside its report's directory).

    Examples
    --------
    >>> check_label("last-day-alarms")
    'last-day-alarms'
    """
    if not isinstance(label, str) or (label and not re.fullmatch(r"[A-Za-z0-9_.-]+", label)):
        raise ParameterError(f"label may hold only A-Z a-z 0-9 _ . -, got {label!r}")
    return label
