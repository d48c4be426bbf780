"""The sections of a :class:`~opslib.dialects.Dialect`, each one point of the spec a
platform decides: the token call, failures, times, paging, capabilities, and what opslib's
server needs to speak the dialect. Data only: :mod:`opslib.protocol` reads the wire by them.
"""

from __future__ import annotations

import datetime as dt
import re
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from opslib.exceptions import ConfigError

__all__ = [
    "ERROR_CLASSES",
    "EVENT_KINDS",
    "Capabilities",
    "Errors",
    "Paging",
    "Serving",
    "Times",
    "TokenCall",
    "zone_of",
]

ERROR_CLASSES = (
    "APIError",
    "AuthenticationError",
    "BadRequest",
    "Conflict",
    "NotFound",
    "PayloadTooLarge",
    "PermissionDenied",
    "RateLimited",
    "ServerError",
    "VerificationFailed",
)
# The kinds an event type belongs to: analyses ask kinds, never a platform's codes.
EVENT_KINDS = ("connectivity", "property", "fault", "system", "command", "firmware", "other")


_OFFSET = re.compile(r"^([+-])(\d{2}):?(\d{2})$")


def zone_of(name: str) -> dt.tzinfo:
    """The zone a platform's zone-less times are in: ``"UTC"``, an offset such as
    ``"+08:00"``, or an IANA name such as ``"Asia/Shanghai"``.

    Examples
    --------
    >>> zone_of("+08:00").utcoffset(None)
    datetime.timedelta(seconds=28800)
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a zone is 'UTC', an offset like '+08:00' or an IANA name, got {name!r}")
    text = name.strip()
    if text.upper() in ("UTC", "Z", "GMT"):
        return dt.UTC
    match = _OFFSET.match(text)
    if match:
        sign, hours, minutes = match.groups()
        delta = dt.timedelta(hours=int(hours), minutes=int(minutes))
        if delta >= dt.timedelta(hours=24):
            raise ValueError(f"zone offset {name!r} is 24 hours or more")
        return dt.timezone(-delta if sign == "-" else delta)
    import zoneinfo

    try:
        return zoneinfo.ZoneInfo(text)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"unknown zone {name!r}: give 'UTC', an offset like '+08:00' or an IANA name "
            "like 'Asia/Shanghai'"
        ) from None


def _frozen(mapping: Mapping[Any, Any]) -> Mapping[Any, Any]:
    """A read-only copy, nested mappings included (a dialect never changes once made)."""
    return types.MappingProxyType(
        {k: _frozen(v) if isinstance(v, Mapping) else v for k, v in mapping.items()}
    )


def _choice(section: str, name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"dialect {section}.{name}: {value!r} is not one of {list(allowed)}")


@dataclass(frozen=True)
class TokenCall:
    """The ``/token/access`` call and the login answer (spec §4.2, §5.3, §6.2)."""

    params: str = "query"
    """Where the token call's parameters go: ``"query"`` (the spec) or ``"form"`` (a body)."""
    user_id_field: str = "user_id"
    """The field of the login answer's ``data`` holding the user_id (``openid`` is kept apart)."""
    expires_in_unit: str = "s"
    """The unit of ``expires_in``: ``"s"`` or ``"ms"``."""

    def __post_init__(self) -> None:
        _choice("token", "params", self.params, ("query", "form"))
        _choice("token", "expires_in_unit", self.expires_in_unit, ("s", "ms"))


def _opslib_codes() -> Mapping[int, str]:
    return {
        400: "BadRequest",
        401: "AuthenticationError",
        403: "PermissionDenied",
        404: "NotFound",
        409: "Conflict",
        413: "PayloadTooLarge",
        422: "VerificationFailed",
        429: "RateLimited",
        500: "ServerError",
        503: "ServerError",
    }


@dataclass(frozen=True)
class Errors:
    """How the platform says a call failed (protocol §3)."""

    signalling: str = "status"
    """``"status"``: the HTTP status equals ``error_code``; ``"body"``: HTTP 200 and the
    failure only in the body's ``error_code``; ``"both"``: either."""
    message_fields: tuple[str, ...] = ("error_msg", "msg", "message", "error_description")
    """The body fields that may hold the platform's sentence, the first present wins."""
    codes: Mapping[int, str] = field(default_factory=_opslib_codes)
    """The platform's error codes -> opslib exception class names (``opslib.NotFound``...)."""
    success_codes: frozenset[int] = frozenset({200})
    """The ``error_code`` values that mean success."""
    token_expired_codes: frozenset[int] = frozenset({401})
    """Codes that mean "the access token expired or was refused": refresh, retry once."""
    token_refused_codes: frozenset[int] = frozenset()
    """Codes of the token call that mean "this refresh token is refused": log in afresh when
    the password is known (an OAuth ``error: invalid_grant`` always means it too)."""
    write_success: Mapping[str, str] = field(
        default_factory=lambda: {"/product/add": "{product_id}", "/product/delete": "success"}
    )
    """The bare-string answer of add and delete on success (``{product_id}`` is the one
    asked for); any other bare string is a failure."""
    write_failures: Mapping[str, str] = field(default_factory=dict)
    """Text found in a bare-string failure -> opslib exception class name
    (``{"already exists": "Conflict"}``); an unmatched failure is an ``APIError``."""
    retry_after: Mapping[int, float] = field(default_factory=dict)
    """A rate-limit code -> the seconds the platform documents before the next try (an
    SMS code at most once a minute: 60), for answers that carry no ``Retry-After``. A try
    is repeated only after that wait, and not at all when it is longer than the client
    waits (the error's ``retry_after`` says it)."""

    def __post_init__(self) -> None:
        _choice("errors", "signalling", self.signalling, ("status", "body", "both"))
        try:  # a TOML table has string keys and, read generically, string values
            waits = {int(k): float(v) for k, v in self.retry_after.items()}
        except (TypeError, ValueError):
            raise ConfigError(
                f"dialect errors.retry_after: {dict(self.retry_after)!r} is not a table of "
                "integer codes to seconds"
            ) from None
        if any(not 0 <= v < float("inf") for v in waits.values()):
            raise ConfigError(f"dialect errors.retry_after: {waits!r} holds a negative wait")
        object.__setattr__(self, "retry_after", waits)
        for name in ("codes", "write_success", "write_failures", "retry_after"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        for name in ("success_codes", "token_expired_codes", "token_refused_codes"):
            object.__setattr__(self, name, frozenset(getattr(self, name)))
        object.__setattr__(self, "message_fields", tuple(self.message_fields))
        for where, table in (("codes", self.codes), ("write_failures", self.write_failures)):
            for key, name in table.items():
                if name not in ERROR_CLASSES:
                    raise ConfigError(
                        f"dialect errors.{where}[{key!r}]: {name!r} is not one of "
                        f"{list(ERROR_CLASSES)}"
                    )


@dataclass(frozen=True)
class Times:
    """The ``gmt_*`` moments and the ``start``/``end`` of ``/device/query_record``."""

    gmt_format: str = "datetime"
    """``"datetime"`` (``YYYY-MM-DD HH:MM:SS``), ``"iso"`` (ISO 8601, offset or not),
    ``"epoch_s"`` or ``"epoch_ms"`` (a number or a string of digits). Reading accepts any of
    them; this is what the platform sends."""
    epoch_text: bool = False
    """Epoch moments (``gmt_format`` ``epoch_s``/``epoch_ms``) are written as text of
    digits (``"1714521600000"``), not numbers. Reading accepts either."""
    zone: str = "UTC"
    """The zone of a ``gmt_*`` string without an offset: ``"UTC"``, ``"+08:00"`` or an IANA
    name (``"Asia/Shanghai"``)."""
    range_unit: str = "ms"
    """The unit of ``start``/``end``: epoch ``"ms"`` or ``"s"``."""
    dnd_unit: str = "minutes"
    """The unit of the do-not-disturb ``message_config.start``/``end``: ``"minutes"`` after
    midnight, or ``"epoch_s"`` (a moment whose time of day in ``zone`` is meant). Callers
    always give and get minutes after midnight; the client converts."""

    def __post_init__(self) -> None:
        _choice("times", "gmt_format", self.gmt_format, ("datetime", "iso", "epoch_s", "epoch_ms"))
        _choice("times", "range_unit", self.range_unit, ("ms", "s"))
        _choice("times", "dnd_unit", self.dnd_unit, ("minutes", "epoch_s"))
        try:
            zone_of(self.zone)
        except ValueError as exc:
            raise ConfigError(f"dialect times.zone: {exc}") from None


@dataclass(frozen=True)
class Paging:
    """Paged reads (``/device/query_by_user``, ``/device/query_record``)."""

    max_page_size: int = 1000
    """The largest page the platform serves; the client asks no more."""
    total: str = "records"
    """What ``total`` counts: ``"records"`` of the whole result, or ``"pages"``."""

    def __post_init__(self) -> None:
        if isinstance(self.max_page_size, bool) or not isinstance(self.max_page_size, int):
            raise ConfigError(f"dialect paging.max_page_size: {self.max_page_size!r} is not an int")
        if not 1 <= self.max_page_size <= 1000:
            raise ConfigError(
                f"dialect paging.max_page_size: must be between 1 and 1000, got "
                f"{self.max_page_size}"
            )
        _choice("paging", "total", self.total, ("records", "pages"))


@dataclass(frozen=True)
class Capabilities:
    """What the platform offers beyond the operations themselves."""

    fleet_events: bool = True
    """``/device/query_record`` reads the whole fleet (no device, no user)."""
    fleet_refusal: str = "error"
    """How a fleet read the caller may not make is refused: ``"error"`` (a 403) or
    ``"empty"`` (an empty success). The client never takes an empty answer as permission."""

    def __post_init__(self) -> None:
        _choice("capabilities", "fleet_refusal", self.fleet_refusal, ("error", "empty"))


@dataclass(frozen=True)
class Serving:
    """What opslib's own server needs to speak this dialect over its core (``opslib
    server --dialect NAME``); the client does not read it. Every field defaults to "as the
    reference platform does"."""

    codes_out: Mapping[str, Mapping[int, int]] = field(default_factory=dict)
    """Coded fields of the answers (an :attr:`Dialect.enums` key): our code -> theirs."""
    codes_in: Mapping[str, Mapping[int, int]] = field(default_factory=dict)
    """Coded fields of the requests: their code -> ours; a code not listed is refused."""
    error_rules: tuple[tuple[int, str, str, int], ...] = ()
    """Which code a failure of ours is answered with, first match wins: (our status, an
    operation path prefix or ``""``, text the failure's message holds or ``""``, their
    code). Unmatched: the dialect's first code for the failure's class."""
    token_errors: Mapping[str, int] = field(default_factory=dict)
    """The token call's refusals: ``"<oauth error>/<grant_type>"`` or ``"<oauth error>"``
    -> their code (``invalid_grant/refresh_token``: 100003)."""
    over_cap: str = "cut"
    """A page asked larger than ``paging.max_page_size``: ``"cut"`` to it, or
    ``"refuse"`` (a parameter error)."""
    writes: str = "bare"
    """Add and delete answer ``"bare"`` strings (the spec) or the ``"envelope"``."""
    empty_data: str = "object"
    """``data`` of an answer that carries nothing, and of a failure: ``"object"`` or
    ``"null"``."""
    never: int | str | None = None
    """A ``gmt_*`` moment that never happened (``gmt_logout`` of a user still logged in)."""
    openid: str = "scoped"
    """The token answer's ``openid``: ``"user_id"`` itself, or an app-``"scoped"`` id."""
    secret_marker: str = ""
    """Reads carry the record's secret field (``device_secret``...) holding this text
    (the reference platform never sends secrets); empty: they carry none."""

    def __post_init__(self) -> None:
        _choice("serving", "over_cap", self.over_cap, ("cut", "refuse"))
        _choice("serving", "writes", self.writes, ("bare", "envelope"))
        _choice("serving", "empty_data", self.empty_data, ("object", "null"))
        _choice("serving", "openid", self.openid, ("user_id", "scoped"))
        for name in ("codes_out", "codes_in", "token_errors"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        object.__setattr__(self, "error_rules", tuple(tuple(r) for r in self.error_rules))
        for rule in self.error_rules:
            if len(rule) != 4 or not isinstance(rule[0], int) or not isinstance(rule[3], int):
                raise ConfigError(
                    f"dialect serving.error_rules: {list(rule)!r} is not [status, path, text, code]"
                )
