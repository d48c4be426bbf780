"""The dialect at the client's edge: requests written and answers read by it.

One :class:`Edge` per client holds its :class:`~opslib.dialects.Dialect` and is the only
place that knows how the platform encodes what the spec leaves open:

- :meth:`Edge.params` writes a request's params (``start``/``end`` in the platform's unit,
  the do-not-disturb ``message_config.start``/``end`` too);
- :meth:`Edge.data` reads an envelope answer: its ``data`` on a success, else raises the
  exception the dialect maps the platform's code to, with the platform's own code and
  message (an error body is never data; a success is a success code *and* HTTP 200);
- :meth:`Edge.bare` reads the bare-string answers of ``/product/add`` and ``/product/delete``;
- :meth:`Edge.token_body` reads the ``/token/access`` answer;
- :meth:`Edge.times` turns the platform's ``gmt_*`` values into the reference platform's
  ``YYYY-MM-DD HH:MM:SS`` in UTC, so frames are built one way whatever the platform; a
  page's records are read key by key, epoch integers and ISO 8601 text by a short path
  (:meth:`Edge.gmts`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

from opslib.dialects import Dialect, Times, zone_of
from opslib.exceptions import APIError, ServerError, error_class, make_status_error
from opslib.protocol.times import dnd_from_epoch_s, dnd_to_epoch_s
from opslib.timeutil import GMT_FORMAT

__all__ = ["Edge"]

_DIGITS = re.compile(r"^-?\d+(\.\d+)?$")
# Epoch numbers below this are seconds, above it milliseconds (as opslib.timeutil reads).
_SECONDS_LIMIT = 100_000_000_000
_RANGE_PATH = "/device/query_record"
_DND_PATH = "/user/update_sys_setting"
_DND_FIELDS = ("start", "end")
_CONTAINERS = (dict, list)  # what JSON nests
_TWO_DIGITS = tuple(f"{i:02d}" for i in range(60))


class Edge:
    """Reads and writes the wire by one dialect; immutable, shared by every thread."""

    def __init__(self, dialect: Dialect | None = None) -> None:
        self.dialect = dialect if dialect is not None else Dialect()
        d = self.dialect
        self._plain_times = d.times == Times()
        self._zone = zone_of(d.times.zone)
        self._seconds = d.times.range_unit == "s"
        self._dnd_epoch = d.times.dnd_unit == "epoch_s"

    # -- requests ------------------------------------------------------------------------

    def params(self, path: str, params: dict[str, Any]) -> dict[str, Any]:
        """A request's params as the platform reads them (``params`` is not changed).

        With ``start``/``end`` in seconds the window is widened to whole seconds (start
        rounded down, end up): no requested record is left out.
        """
        if self._dnd_epoch and path == _DND_PATH:
            return self._dnd_out(params)
        if not self._seconds or path != _RANGE_PATH:
            return params
        out = dict(params)
        if isinstance(out.get("start"), int):
            out["start"] = out["start"] // 1000
        if isinstance(out.get("end"), int):
            out["end"] = -(-out["end"] // 1000)
        return out

    def _dnd_out(self, params: dict[str, Any]) -> dict[str, Any]:
        config = params.get("message_config")
        if not isinstance(config, dict):
            return params
        zone = self.dialect.times.zone
        config = {
            k: dnd_to_epoch_s(v, zone) if k in _DND_FIELDS and isinstance(v, int) else v
            for k, v in config.items()
        }
        return {**params, "message_config": config}

    def _dnd_in(self, data: Any) -> None:
        config = data.get("message_config") if isinstance(data, dict) else None
        if not isinstance(config, dict):
            return
        for key in _DND_FIELDS:
            value = config.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                config[key] = dnd_from_epoch_s(value, self.dialect.times.zone)

    # -- answers -------------------------------------------------------------------------

    def message(self, body: Mapping[str, Any], default: str) -> str:
        """The platform's sentence: the first message field the dialect names."""
        for name in self.dialect.errors.message_fields:
            value = body.get(name)
            if isinstance(value, str) and value:
                return value
        return default

    def is_success(self, status: int, body: Any) -> bool:
        """An envelope success: HTTP 200 and a success ``error_code`` in a JSON object."""
        return (
            status == 200
            and isinstance(body, dict)
            and body.get("error_code") in self.dialect.errors.success_codes
        )

    def error(
        self,
        status: int,
        body: Any,
        *,
        operation: str,
        message_id: str = "",
        retry_after: float | None = None,
        response: Any = None,
    ) -> APIError:
        """The exception for a failed answer: the platform's code mapped by the dialect,
        else by the HTTP status; the platform's message."""
        code = status
        msg = f"HTTP {status} with a body that is not platform JSON"
        oauth = None
        cls: type[APIError] | None = None
        if isinstance(body, dict):
            raw = body.get("error_code")
            if isinstance(raw, int) and not isinstance(raw, bool):
                if raw in self.dialect.errors.success_codes:
                    raw = status  # a success code on a failed status: the status says
                code = raw
            elif raw is None and status == 200:
                msg = "the answer has no error_code"
            msg = self.message(body, msg if raw is None else f"error_code {code}")
            oauth = body.get("error") if isinstance(body.get("error"), str) else None
            message_id = str(body.get("message_id") or message_id)
        name = self.dialect.errors.codes.get(code)
        if name is not None:
            cls = error_class(name)
        elif code == 200 or (status == 200 and code not in _STATUS_CODES):
            # HTTP 200 with an answer that is not a success and a code the dialect does
            # not know: the platform failed to say what went wrong.
            cls = ServerError if code == 200 or 500 <= code <= 599 else APIError
        return make_status_error(
            code,
            msg,
            message_id=message_id,
            operation=operation,
            error=oauth,
            retry_after=retry_after,
            response=response,
            cls=cls,
        )

    def data(self, status: int, body: Any) -> Any:
        """The ``data`` of a success answer (``null`` is ``{}``), times made UTC and the
        do-not-disturb window minutes after midnight; None when the answer is not a success
        (the caller raises :meth:`error`)."""
        if not self.is_success(status, body):
            return None
        data = body.get("data")
        if data is None:
            return {}
        if self._dnd_epoch:
            self._dnd_in(data)
        return self.times(data)

    def bare(self, path: str, params: Mapping[str, Any], text: str, status: int) -> str:
        """A bare-string answer of add/delete: the text on success, else raises."""
        errors = self.dialect.errors
        expected = errors.write_success.get(path)
        if expected is not None:
            try:
                wanted = expected.format(**{k: str(v) for k, v in params.items()})
            except (KeyError, IndexError, ValueError):
                wanted = expected
            if text == wanted:
                return text
        lowered = text.lower()
        cls: type[APIError] = APIError
        code = status
        for needle, name in errors.write_failures.items():
            if needle.lower() in lowered:
                cls = error_class(name)
                # the platform's own code for that failure, where its dialect has one
                code = next((c for c, n in errors.codes.items() if n == name), status)
                break
        raise make_status_error(code, text, operation=path, cls=cls)

    def token_body(self, status: int, body: Any) -> dict[str, Any] | None:
        """The token answer's fields (flat, or inside ``data``), ``expires_in`` in seconds;
        None when it is not a success."""
        if status != 200 or not isinstance(body, dict):
            return None
        code = body.get("error_code")
        fields = body
        if isinstance(body.get("data"), dict) and "access_token" not in body:
            fields = {**body, **body["data"]}
        if code not in self.dialect.errors.success_codes and not (
            code is None and "access_token" in fields
        ):
            return None
        if "access_token" not in fields:
            return None
        out = dict(fields)
        expires = out.get("expires_in")
        if (
            isinstance(expires, int | float)
            and not isinstance(expires, bool)
            and self.dialect.token.expires_in_unit == "ms"
        ):
            out["expires_in"] = int(expires // 1000)
        return out

    def refused_refresh(self, exc: APIError) -> bool:
        """Whether a failed refresh means "this refresh token is no good": log in afresh."""
        return exc.error == "invalid_grant" or exc.code in self.dialect.errors.token_refused_codes

    def token_expired(self, exc: APIError) -> bool:
        """Whether a failed call means "the access token expired": refresh, retry once."""
        return exc.code in self.dialect.errors.token_expired_codes

    # -- times ---------------------------------------------------------------------------

    def times(self, data: Any) -> Any:
        """``data`` with every ``gmt_*`` value as ``YYYY-MM-DD HH:MM:SS`` in UTC (changed in
        place; nothing to do under the reference platform's times)."""
        if self._plain_times:
            return data
        self._walk(data)
        return data

    def _walk(self, node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(key, str) and key.startswith("gmt_"):
                    node[key] = self.gmt(value, key)
                elif isinstance(value, dict):
                    self._walk(value)
                elif isinstance(value, list):
                    self._walk_list(value)
        elif isinstance(node, list):
            self._walk_list(node)

    def _walk_list(self, items: list[Any]) -> None:
        """A list's objects (a page's records) key by key: each ``gmt_*`` key's values
        converted at once (:meth:`gmts`), and the objects and lists inside them walked as
        one list."""
        records: list[dict[Any, Any]] = []
        for item in items:
            if isinstance(item, dict):
                records.append(item)
            elif isinstance(item, list):
                self._walk_list(item)
        if not records:
            return
        for key in set().union(*records):
            if isinstance(key, str) and key.startswith("gmt_"):
                holders = [r for r in records if key in r]
                texts = self.gmts([r[key] for r in holders], key)
                for record, text in zip(holders, texts, strict=True):
                    record[key] = text
        inner = [v for r in records for v in r.values() if isinstance(v, _CONTAINERS)]
        if inner:
            self._walk_list(inner)

    def gmts(self, values: list[Any], field: str = "gmt") -> list[str | None]:
        """Many ``gmt_*`` values of the platform (one key of a page's records), each as
        :meth:`gmt` reads it: epoch integers and ISO 8601 text by a short path (no
        pattern, no ``strftime``), any other value by :meth:`gmt` itself."""
        quick = self._quick_gmt
        return [quick(value, field) for value in values]

    def _quick_gmt(self, value: Any, field: str) -> str | None:
        kind = type(value)
        try:
            if kind is int or (kind is str and value.isdigit()):
                moment = dt.datetime.fromtimestamp(self._epoch_seconds(float(value)), dt.UTC)
            elif kind is str and len(value) >= 19 and value[4] == "-" and value[:4].isdigit():
                moment = dt.datetime.fromisoformat(value)
                if moment.tzinfo is None:
                    moment = moment.replace(tzinfo=self._zone)
                moment = moment.astimezone(dt.UTC)
            else:
                return self.gmt(value, field)
        except (ValueError, OverflowError, OSError):
            return self.gmt(value, field)  # its own way (Z in lower case...), or it raises
        if moment.year < 1000:  # strftime's %Y differs by platform below 1000
            return self.gmt(value, field)
        # GMT_FORMAT, written without strftime (a third of its time)
        two = _TWO_DIGITS
        return (
            f"{moment.year}-{two[moment.month]}-{two[moment.day]} "
            f"{two[moment.hour]}:{two[moment.minute]}:{two[moment.second]}"
        )

    def _epoch_seconds(self, number: float) -> float:
        """An epoch number as seconds: by the dialect's format, else by its magnitude."""
        fmt = self.dialect.times.gmt_format
        if fmt == "epoch_s" or (fmt != "epoch_ms" and abs(number) < _SECONDS_LIMIT):
            return number
        return number / 1000

    def gmt(self, value: Any, field: str = "gmt") -> str | None:
        """One ``gmt_*`` value of the platform as ``YYYY-MM-DD HH:MM:SS`` UTC (None stays)."""
        if value is None or value == "":
            return None
        fmt = self.dialect.times.gmt_format
        number: float | None = None
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value)
        elif isinstance(value, str) and _DIGITS.match(value.strip()):
            number = float(value.strip())
        if number is not None:
            moment = dt.datetime.fromtimestamp(self._epoch_seconds(number), dt.UTC)
            return moment.strftime(GMT_FORMAT)
        if not isinstance(value, str):
            raise ValueError(f"{field}: cannot read {value!r} as a moment")
        text = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
        try:
            moment = dt.datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(
                f"{field}: cannot read {value!r} as a moment (the dialect says "
                f"times.gmt_format = {fmt!r})"
            ) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=self._zone)
        return moment.astimezone(dt.UTC).strftime(GMT_FORMAT)


# The HTTP statuses the reference platform signals with (protocol §3).
_STATUS_CODES = frozenset({400, 401, 403, 404, 405, 409, 413, 422, 429, 500, 502, 503, 504})
