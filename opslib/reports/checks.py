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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opslib import enums
from opslib.dialects import Dialect
from opslib.reports._times import epoch_ms
from opslib.reports.params import ParameterError, ReportParameter

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

_TIME_FORMS = (
    "an ISO 8601 time ('2026-02-28', '2026-02-28T06:00:00Z'), epoch seconds, 'now', or an "
    "offset from now such as '-7d', '-36h', '-15m'"
)


@dataclass(frozen=True)
class ReportChecks:
    """The ``opslib`` metadata of a notebook: what its parameters mean."""

    kinds: dict[str, str] = field(default_factory=dict)
    window: tuple[str, str] | None = None
    together: list[list[str]] = field(default_factory=list)
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
        needs_role={str(k): str(v) for k, v in (meta.get("needs_role") or {}).items()},
    )


def _refuse(name: str, value: Any, problem: str, accepted: str) -> ParameterError:
    return ParameterError(f"parameter {name!r} = {value!r}: {problem}; accepted: {accepted}")


def _time(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    try:
        epoch_ms(value, 0)
    except ValueError as exc:
        raise _refuse(name, value, str(exc), _TIME_FORMS) from None
    return value


def _event_types(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    from opslib.reports._suggest import did_you_mean

    labels = enums.labels(enums.EventType)
    known = {label.lower() for label in labels.values()}
    for item in value or []:
        text = str(item).strip().lower().replace("_", " ")
        if text in known or (text.isdigit() and int(text) in labels):
            continue
        allowed = ", ".join(labels.values())
        raise _refuse(
            name, item, f"not an event type{did_you_mean(item, labels.values())}",
            f"{allowed} (or the numbers {min(labels)}-{max(labels)}); several as a,b or a "
            "JSON list",
        )  # fmt: skip
    return value


def _freq(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    from pandas.tseries.frequencies import to_offset

    accepted = "a pandas frequency such as 15min, 1h, 6h, 1D, 1W"
    try:
        offset = to_offset(str(value))
    except ValueError:
        raise _refuse(name, value, "not a time bucket", accepted) from None
    if offset.n <= 0:
        raise _refuse(name, value, "a bucket must be longer than zero", accepted)
    return value


def _device_status(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    from opslib.enums import DeviceStatus
    from opslib.protocol import Codec

    codec = Codec(dialect)
    labels = codec.labels("device_status", DeviceStatus)
    text = str(value).strip().lower()
    known = {label.lower() for label in labels.values()}
    if text == "" or text in known or (text.isdigit() and int(text) in labels):
        return value
    from opslib.reports._suggest import did_you_mean

    allowed = ", ".join(f"{label} ({number})" for number, label in labels.items())
    where = "" if codec.plain else f" on the {codec.name} platform"
    near = did_you_mean(value, labels.values())
    raise _refuse(name, value, f"not a device status{where}{near}", f"{allowed}, or empty for all")


def _input_file(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    if not value:
        return value
    path = (base / Path(str(value)).expanduser()).resolve()
    if not path.is_file():
        raise _refuse(
            name, value, f"no such file ({path})",
            f"a path to an existing file, relative to {base}",
        )  # fmt: skip
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise _refuse(
            name, value, f"cannot read {path}: {exc.strerror}", "a readable file"
        ) from None
    except UnicodeDecodeError as exc:
        raise _refuse(
            name, value, f"{path} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at "
            f"offset {exc.start})", "a UTF-8 text file (a CSV saved as CSV UTF-8)",
        ) from None  # fmt: skip
    if not text.strip():
        raise _refuse(name, value, f"{path} is empty", "a file that starts with its header line")
    return str(path)


def _output_file(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    if not value:
        return value
    path = (base / Path(str(value)).expanduser()).resolve()
    if not path.parent.is_dir():
        raise _refuse(
            name, value, f"its directory {path.parent} does not exist",
            f"a file path in an existing directory, relative to {base}",
        )  # fmt: skip
    if path.is_dir():
        raise _refuse(name, value, f"{path} is a directory", "a file path")
    return str(path)


def _users(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    """User ids, or CSV files of them (resolved against the caller's directory), read here
    so that a bad file is refused before a kernel starts."""
    from opslib.reports.notebook import read_users

    out: list[str] = []
    for item in value or []:
        text = str(item).strip()
        if text.lower().endswith(".csv"):
            path = (base / Path(text).expanduser()).resolve()
            try:
                read_users(str(path))
            except (OSError, ValueError) as exc:
                raise _refuse(
                    name, item, str(exc),
                    "user ids, or a CSV file with a user_id column (or one column of ids)",
                ) from None  # fmt: skip
            out.append(str(path))
        elif text:
            out.append(text)
    return out


def _zone(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    from opslib.reports.zones import ZoneError, check_zone

    if not str(value).strip():
        return value
    try:
        return check_zone(str(value))
    except ZoneError as exc:
        raise ParameterError(f"parameter {name!r} = {value!r}: {exc}") from None


def _platform_checked(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    """Checked against the platform by the platform check (:mod:`._preflight`)."""
    return value


def _positive(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    if value <= 0:
        raise _refuse(name, value, "must be above zero", "a number above zero")
    return value


def _days(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    """A number of days back from now: above zero, and not reaching before 1970, where the
    platform's times begin (a window that did ended in an OverflowError in the kernel)."""
    _positive(name, value, base, dialect)
    most = int(time.time() // 86_400)
    if value > most:
        raise _refuse(name, value, "reaches back before 1970", f"a number of days, 1 to {most:,}")
    return value


def _source(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    from opslib.store._layout import SOURCES

    if value not in SOURCES:
        raise _refuse(name, value, "not a source of events", " or ".join(SOURCES))
    return value


def _digits(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    """A phone number or area code as the platform takes it: digits only."""
    text = str(value).strip()
    if text and not text.isdecimal():
        plain = "".join(c for c in text if c.isdecimal())
        hint = f" ({plain!r})" if plain else ""
        raise _refuse(name, value, "not digits only", f"digits only{hint}, no spaces or dashes")
    return text


def _non_negative(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    if value < 0:
        raise _refuse(name, value, "must not be negative", "zero or more")
    return value


KINDS: dict[str, Callable[[str, Any, Path, Dialect], Any]] = {
    "time": _time,
    "event_types": _event_types,
    "freq": _freq,
    "device_status": _device_status,
    "input_file": _input_file,
    "users": _users,
    "output_file": _output_file,
    "positive": _positive,
    "days": _days,
    "source": _source,
    "digits": _digits,
    "non_negative": _non_negative,
    "tz": _zone,
    "product": _platform_checked,
    "device": _platform_checked,
    "user": _platform_checked,
}
"""Each kind of parameter a notebook may declare, and its check (returns the value to use);
labels such as device statuses are the platform's dialect's. ``product``, ``device`` and
``user`` (ids the platform must know) are checked by the platform check, which logs in."""

PLATFORM_KINDS = frozenset({"product", "device", "user"})
"""The kinds whose values only the platform can check (:func:`platform_filters`)."""


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
    return out


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


MAX_BUCKETS = 20_000
"""The most time buckets of a window a chart is drawn with: more points than a screen has
pixels across (``freq`` 1s over 7 days made an 87 MB page, three minutes to write)."""

_BUCKETS = ("1min", "5min", "15min", "1h", "6h", "1D", "1W")


def _check_buckets(checks: ReportChecks, values: Mapping[str, Any]) -> None:
    """A ``freq`` of fixed length that cuts the window into more than :data:`MAX_BUCKETS`."""
    assert checks.window is not None
    names = [name for name, kind in checks.kinds.items() if kind == "freq" and name in values]
    if not names:
        return
    from pandas.tseries.frequencies import to_offset
    from pandas.tseries.offsets import Tick

    start, end = checks.window
    now = int(time.time() * 1000)
    try:
        span_ns = (
            epoch_ms(values.get(end, ""), now) - epoch_ms(values.get(start, ""), now)
        ) * 10**6
    except ValueError:
        return  # refused by its own kind
    for name in names:
        try:
            offset = to_offset(str(values[name]))
        except ValueError:
            continue
        if not isinstance(offset, Tick) or offset.nanos <= 0:
            continue  # weeks, months: never many
        buckets = span_ns // offset.nanos
        if buckets > MAX_BUCKETS:
            fits = next((f for f in _BUCKETS if span_ns // to_offset(f).nanos <= MAX_BUCKETS), "1W")
            raise _refuse(
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


def dialect_of(
    *, profile: str | None = None, demo: bool = False, env: Mapping[str, str] | None = None
) -> Dialect | None:
    """The dialect a run's platform speaks, as its client would resolve it (nothing is
    started): ``env``'s ``OPSLIB_DIALECT``, else the profile's and the environment's; None
    for the demo platform, or when the settings do not resolve (the platform check then
    says why).

    Examples
    --------
    >>> dialect_of(env={"OPSLIB_DIALECT": "chint"}).name
    'chint'
    """
    from opslib import ConfigError
    from opslib.client import resolve_settings
    from opslib.protocol.tables import resolve_dialect

    if demo:
        return None
    try:
        if env and env.get("OPSLIB_DIALECT"):
            return resolve_dialect(env["OPSLIB_DIALECT"])
        return resolve_settings(profile=profile).dialect
    except (ConfigError, ValueError):
        return None


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
