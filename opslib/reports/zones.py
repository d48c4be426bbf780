"""The zone a report shows its times in: its ``tz`` parameter, else the profile's, else the
platform's.

A report's ``tz`` is an IANA name (``Asia/Shanghai``, ``Europe/Berlin``). Left empty, it is
the profile's ``tz`` key::

    [profiles.prod]
    tz = "Asia/Shanghai"

else the zone of the platform's dialect (``dialect.times.zone``: the zone its zone-less
times are in), else UTC. The client and its cache stay in UTC; only what a report shows
is converted. Nothing here imports pandas, so a refused zone is refused at once.

>>> check_zone("Europe/Berlin")
'Europe/Berlin'
"""

from __future__ import annotations

import functools
import zoneinfo
from collections.abc import Mapping

__all__ = ["ZoneError", "check_zone", "default_zone", "profile_zone"]


class ZoneError(ValueError):
    """Not a zone this machine knows."""


@functools.cache
def _known() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def check_zone(name: str) -> str:
    """``name`` when it is a zone (an IANA name, ``UTC``, or a fixed offset such as
    ``+08:00`` or ``UTC+08:00``, as the reports name one), else a :class:`ZoneError` saying
    which names are near.

    Examples
    --------
    >>> check_zone("Asia/Shangai")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    opslib.reports.zones.ZoneError: unknown zone 'Asia/Shangai' (did you mean 'Asia/Shanghai'?)...
    """
    text = str(name).strip()
    if text.upper() == "UTC":
        return "UTC"
    offset = text[3:] if text.upper().startswith("UTC") else text
    if offset[:1] in ("+", "-"):
        from opslib.dialects import zone_of

        try:
            zone_of(offset)
        except ValueError:
            raise ZoneError(
                f"unknown zone {text!r}: an offset is written +HH:MM (+08:00, UTC+08:00, "
                "-05:30), under 24 hours; or give an IANA name such as Asia/Shanghai"
            ) from None
        return text
    try:
        zoneinfo.ZoneInfo(text)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, IsADirectoryError):
        from opslib.reports._suggest import did_you_mean

        raise ZoneError(
            f"unknown zone {text!r}{did_you_mean(text, _known(), cutoff=0.75)}; give an IANA "
            "name such as Asia/Shanghai, Europe/Berlin, America/New_York, or UTC"
        ) from None
    return text


def profile_zone(profile: str | None = None) -> str:
    """The ``tz`` key of the profile ``connect()`` would use here ("" when none, or when
    the profile cannot be read: connecting says why)."""
    from opslib.client import profile_table
    from opslib.exceptions import ConfigError

    try:
        _, table = profile_table(profile)
    except ConfigError:
        return ""
    return str(table.get("tz") or "")


def default_zone(
    *, profile: str | None = None, demo: bool = False, env: Mapping[str, str] | None = None
) -> str:
    """The zone of a report whose ``tz`` is empty: the profile's ``tz``, else the zone of the
    platform's dialect, else ``UTC`` (the demo platform's).

    Examples
    --------
    >>> default_zone(env={"OPSLIB_DIALECT": "chint"})
    'Asia/Shanghai'
    """
    from opslib.dialects import Dialect
    from opslib.reports.platform import dialect_of

    if demo:
        return "UTC"
    own = profile_zone(profile)
    if own:
        return own
    dialect = dialect_of(profile=profile, env=env) or Dialect()
    return str(dialect.times.zone or "UTC")
