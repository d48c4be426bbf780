"""Each kind of parameter a report's notebook may declare (``opslib.kinds`` in its
metadata) and its check, before any kernel starts: :data:`KINDS`. A check returns the value
to use, or raises :class:`~opslib.reports.params.ParameterError` naming the parameter, the
value and what is accepted (:func:`refuse`). :mod:`opslib.reports.checks` applies them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from opslib import enums
from opslib.csvfile import is_csv_name
from opslib.dialects import Dialect
from opslib.reports._times import epoch_ms
from opslib.reports.params import ParameterError

__all__ = ["KINDS", "PLATFORM_KINDS", "refuse"]

_TIME_FORMS = (
    "an ISO 8601 time ('2026-02-28', '2026-02-28T06:00:00Z'), epoch seconds, 'now', or an "
    "offset from now such as '-7d', '-36h', '-15m'"
)


def refuse(name: str, value: Any, problem: str, accepted: str) -> ParameterError:
    return ParameterError(f"parameter {name!r} = {value!r}: {problem}; accepted: {accepted}")


def _time(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    try:
        epoch_ms(value, 0)
    except ValueError as exc:
        raise refuse(name, value, str(exc), _TIME_FORMS) from None
    return value


def _event_types(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    from opslib.protocol import Codec
    from opslib.reports._suggest import did_you_mean

    labels = Codec(dialect).labels("event_type", enums.EventType)  # the platform's
    known = {label.lower() for label in labels.values()}
    for item in value or []:
        text = str(item).strip().lower().replace("_", " ")
        if text in known or (text.isdigit() and int(text) in labels):
            continue
        allowed = ", ".join(labels.values())
        raise refuse(
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
        raise refuse(name, value, "not a time bucket", accepted) from None
    if offset.n <= 0:
        raise refuse(name, value, "a bucket must be longer than zero", accepted)
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
    raise refuse(name, value, f"not a device status{where}{near}", f"{allowed}, or empty for all")


def _input_file(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    if not value:
        return value
    path = (base / Path(str(value)).expanduser()).resolve()
    if not path.is_file():
        raise refuse(
            name, value, f"no such file ({path})",
            f"a path to an existing file, relative to {base}",
        )  # fmt: skip
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise refuse(
            name, value, f"cannot read {path}: {exc.strerror}", "a readable file"
        ) from None
    except UnicodeDecodeError as exc:
        raise refuse(
            name, value, f"{path} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at "
            f"offset {exc.start})", "a UTF-8 text file (a CSV saved as CSV UTF-8)",
        ) from None  # fmt: skip
    if not text.strip():
        raise refuse(name, value, f"{path} is empty", "a file that starts with its header line")
    return str(path)


def _output_file(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    if not value:
        return value
    path = (base / Path(str(value)).expanduser()).resolve()
    if not path.parent.is_dir():
        raise refuse(
            name, value, f"its directory {path.parent} does not exist",
            f"a file path in an existing directory, relative to {base}",
        )  # fmt: skip
    if path.is_dir():
        raise refuse(name, value, f"{path} is a directory", "a file path")
    return str(path)


def _users(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    """User ids, or CSV files of them (resolved against the caller's directory), read here
    so that a bad file is refused before a kernel starts."""
    from opslib.reports.notebook import read_users

    out: list[str] = []
    for item in value or []:
        text = str(item).strip()
        if is_csv_name(text):
            path = (base / Path(text).expanduser()).resolve()
            try:
                read_users(str(path))
            except (OSError, ValueError) as exc:
                raise refuse(
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


def _category(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    """A category id: 0 or more here, then known to the platform (its check logs in)."""
    return _non_negative(name, value, base, dialect)


def _positive(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    if value <= 0:
        raise refuse(name, value, "must be above zero", "a number above zero")
    return value


def _days(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    """A number of days back from now: above zero, and not reaching before 1970, where the
    platform's times begin (a window that did ended in an OverflowError in the kernel)."""
    _positive(name, value, base, dialect)
    most = int(time.time() // 86_400)
    if value > most:
        raise refuse(name, value, "reaches back before 1970", f"a number of days, 1 to {most:,}")
    return value


def _source(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    from opslib.store._layout import SOURCES

    if value not in SOURCES:
        raise refuse(name, value, "not a source of events", " or ".join(SOURCES))
    return value


def _digits(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    """A phone number or area code as the platform takes it: digits only."""
    text = str(value).strip()
    if text and not text.isdecimal():
        plain = "".join(c for c in text if c.isdecimal())
        hint = f" ({plain!r})" if plain else ""
        raise refuse(name, value, "not digits only", f"digits only{hint}, no spaces or dashes")
    return text


def _non_negative(name: str, value: Any, base: Path, dialect: Dialect) -> Any:
    if value < 0:
        raise refuse(name, value, "must not be negative", "zero or more")
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
    "category": _category,
    "product": _platform_checked,
    "device": _platform_checked,
    "user": _platform_checked,
    "identity": _platform_checked,
}
"""Each kind of parameter a notebook may declare, and its check (returns the value to use);
labels such as device statuses are the platform's dialect's. ``category``, ``product``,
``device``, ``user`` and ``identity`` (a user's identity id; ids the platform must know) are
checked by the platform check, which logs in."""

PLATFORM_KINDS = frozenset({"category", "product", "device", "user", "identity"})
"""The kinds whose values only the platform can check (:func:`platform_filters`)."""
