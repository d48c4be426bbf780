"""Steps 4 and 5: times.

- the ``gmt_*`` format, from device records and the login answer; epoch numbers are told
  seconds from milliseconds by the one rule (:data:`opslib.timeutil.SECONDS_LIMIT`) and
  must be moments :class:`~opslib.protocol.times.TimeCodec` reads;
- the zone of zone-less times, from ``gmt_last_login`` against the login answer's ``Date``
  header;
- the unit of ``start``/``end``: the same 30 days asked as a dialect writing milliseconds
  and as one writing seconds would.
"""

from __future__ import annotations

import email.utils
import re
from typing import Any

from opslib.dialects import Times
from opslib.exceptions import ProtocolError
from opslib.probing.state import Probe
from opslib.protocol import operations as ops
from opslib.protocol.times import SECONDS_LIMIT, TimeCodec

__all__ = ["gmt_format", "kind", "range_unit"]

_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?$")
_ISO_ZONED = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$")
_NUMBER = re.compile(r"^\d+(\.\d+)?$")
# Reads zone-less text as UTC: its difference from the Date header is the platform's zone.
_AS_UTC = TimeCodec(Times(gmt_format="datetime", zone="UTC"))
_QUARTER_S = 900  # zones are whole quarter hours
_SLACK_S = 120  # a login answered this close to its Date header is read as "high"


def kind(value: Any) -> str | None:
    """The ``times.gmt_format`` a ``gmt_*`` value is written in, None when it is none.

    >>> kind(1714521600000), kind("1714521600"), kind("2024-05-01T08:00:00+08:00")
    ('epoch_ms', 'epoch_s', 'iso')
    >>> kind("2024-05-01 00:00:00"), kind(12)
    ('datetime', None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) or (isinstance(value, str) and _NUMBER.match(value.strip())):
        fmt = "epoch_ms" if abs(float(value)) >= SECONDS_LIMIT else "epoch_s"
        try:
            moment = TimeCodec(Times(gmt_format=fmt)).ms(value, field="gmt_*")
        except ProtocolError:
            return None  # a number that is no moment of 2000..9999 in either unit
        return fmt if moment is not None else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if _ISO_ZONED.match(text):
        return "iso"
    if _DATETIME.match(text):
        return "datetime" if " " in text else "iso"
    return None


def gmt_format(probe: Probe) -> None:
    """Learn ``times.gmt_format`` and, for zone-less text, ``times.zone``."""
    values: list[Any] = []
    answer = probe.call(
        ops.QUERY_BY_USER, {"user_id": probe.fleet_user(), "page_no": 1, "page_size": 20}
    )
    for record in answer.data.get(ops.QUERY_BY_USER.list_key) or []:
        if isinstance(record, dict):
            values += [v for k, v in record.items() if k.startswith("gmt_") and v not in (None, "")]
    login = probe.login_answer.data if probe.login_answer else {}
    if login.get("gmt_last_login") not in (None, ""):
        values.append(login["gmt_last_login"])
    if not values:
        probe.note("times", "gmt_format", probe.base.times.gmt_format, "low", "no gmt_* seen")
        return
    kinds = {kind(v) for v in values}
    kinds.discard(None)
    if len(kinds) != 1:
        probe.note(
            "times",
            "gmt_format",
            probe.base.times.gmt_format,
            "low",
            f"mixed forms: {sorted(str(k) for k in kinds)}",
        )
        return
    found = kinds.pop()
    probe.note("times", "gmt_format", found, "high", f"{len(values)} values like {values[0]!r}")
    if found == "datetime":
        _zone(probe, login)
    else:
        probe.seen(
            "times.zone", "carried by each value", "high", f"{found} values name their moment"
        )


def _zone(probe: Probe, login: dict[str, Any]) -> None:
    base_zone = probe.base.times.zone
    if probe.login_answer is None or not login.get("gmt_last_login"):
        probe.note("times", "zone", base_zone, "low", "no login time to compare")
        return
    date = probe.login_answer.headers.get("date")
    when = email.utils.parsedate_to_datetime(date) if date else None
    if when is None:
        probe.note("times", "zone", base_zone, "low", "no Date header")
        return
    try:
        shown_ms = _AS_UTC.ms(login["gmt_last_login"], field="gmt_last_login")
    except ProtocolError:
        shown_ms = None
    if shown_ms is None:
        probe.note("times", "zone", base_zone, "low", "gmt_last_login is no moment")
        return
    offset_s = shown_ms / 1000 - when.timestamp()
    quarters = round(offset_s / _QUARTER_S)
    residual = abs(offset_s - quarters * _QUARTER_S)
    minutes = quarters * 15
    sign = "+" if minutes > 0 else "-"
    zone = "UTC" if minutes == 0 else f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    probe.note(
        "times",
        "zone",
        zone,
        "high" if residual <= _SLACK_S else "medium",
        f"gmt_last_login {login['gmt_last_login']} against Date {date}",
    )


def range_unit(probe: Probe) -> None:
    """Learn ``times.range_unit``: the last 30 days as written in each unit; only the
    right one finds events."""
    start, end = probe.event_window()
    query = {**probe.event_query(), "start": start, "end": end}
    counts = {
        unit: probe.event_total(query, codec=probe.codec(times={"range_unit": unit}))
        for unit in ("ms", "s")
    }
    evidence = f"the last 30 days: {counts['ms']} events in ms, {counts['s']} in s"
    ms, s = counts["ms"] or 0, counts["s"] or 0
    if ms > 0 and s == 0:
        probe.note("times", "range_unit", "ms", "high", evidence)
    elif s > 0 and ms == 0:
        probe.note("times", "range_unit", "s", "high", evidence)
    else:
        probe.note("times", "range_unit", probe.base.times.range_unit, "low", evidence)
