"""Moments and times of day on the wire, by a platform's :class:`~opslib.dialects.Times`.

Inside opslib a moment is integer epoch milliseconds (UTC) and a do-not-disturb time is
minutes after midnight. On the wire a platform writes ``gmt_*`` as text (ours:
``YYYY-MM-DD HH:MM:SS`` in UTC), ISO 8601, or epoch seconds or milliseconds; the record
query's ``start``/``end`` in milliseconds or seconds; do-not-disturb times as minutes or
as epoch seconds. :class:`TimeCodec` reads and writes each, both ways.

Reading is strict where a wrong unit would give a plausible-looking wrong date: a number
where the dialect says milliseconds must be one (``1700000000`` seconds is not a moment
of January 1970), a number where it says seconds must not be milliseconds, and every
moment a number stands for lies between 2000 and 9999 (:data:`EARLIEST_MS`,
:data:`LATEST_MS`). A ``0`` is "never" (``None``).

>>> from opslib.dialects import Dialect
>>> codec = TimeCodec(Dialect.named("chint").times)
>>> codec.ms(1714521600000, field="gmt_bind")
1714521600000
>>> codec.ms(1714521600, field="gmt_bind")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
opslib.exceptions.ProtocolError: ...: gmt_bind is 1714521600; expected epoch milliseconds ...
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Any

from opslib.dialects import Times, zone_of
from opslib.exceptions import ProtocolError

__all__ = [
    "DECODED",
    "EARLIEST_MS",
    "EXPIRES_MS_FROM",
    "GMT_FORMAT",
    "LATEST_MS",
    "SECONDS_LIMIT",
    "TimeCodec",
    "dnd_from_epoch_s",
    "dnd_to_epoch_s",
    "text_of_ms",
]

EARLIEST_MS = 946_684_800_000
"""2000-01-01 UTC: a platform's moment before it is a unit mistake, not a date."""
LATEST_MS = 253_402_300_799_999
"""9999-12-31 23:59:59.999 UTC: the last moment the interface's text can show."""
MINUTES_PER_DAY = 1440
GMT_FORMAT = "%Y-%m-%d %H:%M:%S"
"""The interface's text moments (in UTC on our platform)."""
# Epoch numbers below this are seconds, above it milliseconds. 1e11 s is the year 5138;
# 1e11 ms is 1973-03-03, so only millisecond moments before March 1973 are misread. The one
# statement of this rule: a platform's numbers here, user input in opslib.timeutil.
SECONDS_LIMIT = 100_000_000_000
EXPIRES_MS_FROM = 3_000_000
"""A token lifetime from this on is milliseconds: 3,000,000 s would be 35 days, and the
7,200,000 of a two-hour token in ms 83 days, longer than any access token we know."""

_DIGITS = re.compile(r"^-?\d+(\.\d+)?$")
_GMT_TEXT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\Z")  # GMT_FORMAT
_TWO = tuple(f"{i:02d}" for i in range(60))
# The day a do-not-disturb time of day is written on, where a platform wants epoch seconds:
# a fixed day (the platform reads only the time of day), the second so no zone goes negative.
_DND_DAY = dt.date(1970, 1, 2)
_UTC = dt.UTC


def text_of_ms(ms: int) -> str:
    """Epoch milliseconds as the reference platform's ``YYYY-MM-DD HH:MM:SS`` (UTC).

    >>> text_of_ms(1714521600000)
    '2024-05-01 00:00:00'
    """
    moment = dt.datetime.fromtimestamp(ms // 1000, _UTC)
    two = _TWO
    return (
        f"{moment.year:04d}-{two[moment.month]}-{two[moment.day]} "
        f"{two[moment.hour]}:{two[moment.minute]}:{two[moment.second]}"
    )


def dnd_to_epoch_s(minutes: int, zone: str) -> int:
    """A do-not-disturb time, minutes after midnight, as the epoch seconds of that time of
    day in ``zone`` on a fixed day (1970-01-02).

    >>> dnd_to_epoch_s(22 * 60, "+08:00")
    136800
    """
    hours, mins = divmod(int(minutes), 60)
    moment = dt.datetime.combine(_DND_DAY, dt.time(hours, mins), tzinfo=zone_of(zone))
    return int(moment.timestamp())


def dnd_from_epoch_s(seconds: float, zone: str) -> int:
    """Epoch seconds as a do-not-disturb time: minutes after midnight in ``zone`` (the day
    is ignored; seconds are dropped).

    >>> dnd_from_epoch_s(1609509600, "Asia/Shanghai")  # 2021-01-01 22:00 there
    1320
    """
    moment = dt.datetime.fromtimestamp(float(seconds), zone_of(zone))
    return moment.hour * 60 + moment.minute


class TimeCodec:
    """A dialect's moments, both ways; immutable, shared by every thread.

    Parameters
    ----------
    times
        The dialect's :class:`~opslib.dialects.Times`.
    """

    def __init__(self, times: Times) -> None:
        self.times = times
        self.format = times.gmt_format
        self.zone = zone_of(times.zone)
        self.plain = times == Times()
        """The reference platform's own: nothing to translate on the wire."""

    # -- gmt_*: the platform's value -> epoch ms ---------------------------------------

    def ms(self, value: Any, *, field: str, operation: str = "") -> int | None:
        """One ``gmt_*`` value of the platform as epoch milliseconds (``None``, ``""`` and
        ``0`` are None: never happened).

        Raises
        ------
        opslib.ProtocolError
            A number in the wrong unit, a moment outside 2000..9999, or a value that is no
            moment, naming the operation, the field and the value.
        """
        if isinstance(value, bool):
            raise ProtocolError(
                operation=operation, field=field, value=value, expected=self._expected()
            )
        if value is None or value == "" or value == 0:
            return None
        number: float | None = None
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value)
        elif isinstance(value, str) and _DIGITS.match(value.strip()):
            number = float(value.strip())
        if number is not None:
            return self._number_ms(number, value, field, operation)
        if isinstance(value, dt.datetime):  # a moment made in Python (a Timestamp too)
            moment = value if value.tzinfo is not None else value.replace(tzinfo=self.zone)
            return int(moment.timestamp() * 1000)
        if not isinstance(value, str):
            raise ProtocolError(
                operation=operation, field=field, value=value, expected=self._expected()
            )
        text = value.strip()
        try:
            moment = dt.datetime.fromisoformat(text.replace("z", "Z"))
        except ValueError:
            raise ProtocolError(
                operation=operation, field=field, value=value, expected=self._expected()
            ) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=self.zone)
        return int(moment.timestamp() * 1000)

    def _number_ms(self, number: float, value: Any, field: str, operation: str) -> int:
        fmt = self.format
        if fmt == "epoch_ms" or (fmt != "epoch_s" and abs(number) >= SECONDS_LIMIT):
            ms = round(number)
            unit = "epoch milliseconds"
        else:
            ms = round(number * 1000)
            unit = "epoch seconds"
        if not EARLIEST_MS <= ms <= LATEST_MS:
            raise ProtocolError(
                operation=operation,
                field=field,
                value=value,
                expected=f"{unit} of a moment from 2000 to 9999 (times.gmt_format = {fmt!r})",
            )
        return ms

    def _expected(self) -> str:
        return f"a moment as the dialect writes it (times.gmt_format = {self.format!r})"

    def column_ms(
        self, values: Sequence[Any], *, field: str, operation: str = ""
    ) -> list[int | None]:
        """Many values of one ``gmt_*`` key (a page's records), each as :meth:`ms` reads
        it, epoch integers and ISO 8601 text by a short path."""
        if self.format == "epoch_ms":
            out: list[int | None] = []
            append = out.append
            for value in values:
                if type(value) is int and EARLIEST_MS <= value <= LATEST_MS:
                    append(value)
                else:
                    append(self.ms(value, field=field, operation=operation))
            return out
        return [self.ms(value, field=field, operation=operation) for value in values]

    # -- gmt_*: epoch ms -> the platform's value (the server, the simulator) ------------

    def write(self, ms: int | None) -> Any:
        """Epoch milliseconds as the platform writes a ``gmt_*`` value (None stays None).

        >>> from opslib.dialects import Dialect
        >>> TimeCodec(Dialect.named("vendor").times).write(1714521600000)
        '2024-05-01T08:00:00+08:00'
        """
        if ms is None:
            return None
        fmt = self.format
        if fmt in ("epoch_ms", "epoch_s"):
            number = int(ms) if fmt == "epoch_ms" else int(ms) // 1000
            return str(number) if self.times.epoch_text else number
        if fmt == "datetime" and self.zone is _UTC:
            return text_of_ms(ms)
        local = dt.datetime.fromtimestamp(ms // 1000, _UTC).astimezone(self.zone)
        return local.isoformat() if fmt == "iso" else local.strftime(GMT_FORMAT)

    def rewrite_text(self, text: Any) -> Any:
        """The reference platform's ``gmt_*`` text as the platform writes it (anything else
        is left as it is): what the server's edge does to each moment of an answer.

        >>> from opslib.dialects import Dialect
        >>> TimeCodec(Dialect.named("chint").times).rewrite_text("2024-05-01 00:00:00")
        1714521600000
        """
        # read by slices, not strptime (most of an answer's cost on a page of 100)
        if not isinstance(text, str) or _GMT_TEXT.match(text) is None:
            return text
        try:
            moment = dt.datetime(
                int(text[0:4]),
                int(text[5:7]),
                int(text[8:10]),
                int(text[11:13]),
                int(text[14:16]),
                int(text[17:19]),
                tzinfo=_UTC,
            )
        except ValueError:  # no such day or time
            return text
        return self.write(int(moment.timestamp()) * 1000)

    # -- start/end of a time window ------------------------------------------------------

    def window_out(self, start_ms: int, end_ms: int) -> tuple[int, int]:
        """A window ``[start_ms, end_ms)`` in the platform's unit; in seconds it is widened
        to whole seconds (start down, end up), so no record asked for is left out.

        >>> from opslib.dialects import Dialect
        >>> TimeCodec(Dialect.named("vendor").times).window_out(1500, 2500)
        (1, 3)
        """
        if self.times.range_unit == "s":
            return start_ms // 1000, -(-end_ms // 1000)
        return start_ms, end_ms

    def window_in(self, value: int) -> int:
        """One end of a window as the platform wrote it, in epoch milliseconds."""
        return value * 1000 if self.times.range_unit == "s" else value

    # -- do-not-disturb times of day -----------------------------------------------------

    def day_minutes_out(self, minutes: int) -> int:
        """A do-not-disturb time (minutes after midnight) as the platform writes it."""
        if self.times.dnd_unit == "epoch_s":
            return dnd_to_epoch_s(minutes, self.times.zone)
        return minutes

    def day_minutes_in(self, value: Any, *, field: str, operation: str = "") -> int:
        """A do-not-disturb time as the platform wrote it, in minutes after midnight.

        Raises
        ------
        opslib.ProtocolError
            A value in another unit than the dialect's: minutes (0..1439) or milliseconds
            where epoch seconds are due, a number past a day's minutes where minutes are.
        """
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ProtocolError(
                operation=operation, field=field, value=value, expected=self._dnd_expected()
            )
        if self.times.dnd_unit == "minutes":
            if not 0 <= value < MINUTES_PER_DAY:
                raise ProtocolError(
                    operation=operation, field=field, value=value, expected=self._dnd_expected()
                )
            return int(value)
        # epoch seconds: written on a day from 1970-01-02 on (ours) or a real date (the
        # published examples), never minutes (under a day's seconds once the zone is
        # taken off) and never milliseconds
        if not MINUTES_PER_DAY <= value < SECONDS_LIMIT:
            raise ProtocolError(
                operation=operation, field=field, value=value, expected=self._dnd_expected()
            )
        return dnd_from_epoch_s(value, self.times.zone)

    def _dnd_expected(self) -> str:
        if self.times.dnd_unit == "minutes":
            return "minutes after midnight, 0..1439 (times.dnd_unit = 'minutes')"
        return (
            "epoch seconds whose time of day is meant (times.dnd_unit = 'epoch_s'), "
            "not minutes and not milliseconds"
        )


DECODED = TimeCodec(Times(gmt_format="epoch_ms"))
"""The moments of a decoded answer: epoch milliseconds (:meth:`Codec.decode_answer
<opslib.protocol.codec.Codec.decode_answer>`)."""
