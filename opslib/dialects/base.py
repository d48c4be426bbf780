"""``Dialect``: every point the interface spec leaves open, as one object read top to bottom.

The spec fixes the 18 operations, their paths and their field names; it leaves open how a
platform signals failure, what its times look like, how it pages, what its selectors mean
and more ("not shown"). A :class:`Dialect` holds one platform's answers to all of them.
Every field defaults to the reference platform's choice (``docs/protocol.md``), so
``Dialect()`` is opslib's own platform and a dialect for another one names only what
differs. The client builds its requests and reads the answers by it; the reference
server's HTTP edge speaks it (``opslib server --dialect NAME``).

Sections, in the order a request meets them:

- ``token``: the ``/token/access`` call, the login answer, token lifetimes;
- ``errors``: how failure is signalled, the platform's codes and messages;
- ``times``: the ``gmt_*`` strings and the unit of ``start``/``end``;
- ``paging``: the largest page served and what ``total`` counts;
- ``selectors``, ``enums``, ``event_kinds``: what the integers mean;
- ``required``, ``capabilities``, ``secrets``: what the platform needs and offers;
- ``provenance``: where each value comes from (documented, or assumed and why).

>>> from opslib.dialects import Dialect
>>> Dialect.named("vendor").paging.max_page_size
100
>>> Dialect.from_mapping({"base": "opslib", "times": {"range_unit": "s"}}).times.range_unit
's'
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

from opslib.enums import (
    AuthModel,
    CodeModel,
    DeviceStatus,
    EncryptType,
    EventType,
    LoginModel,
    NetType,
    NodeType,
    Owned,
    Popular,
    ProductStatus,
    RecordQueryModel,
    SettingQueryModel,
    UpdateModel,
    UserQueryModel,
    UserStatus,
    labels,
)
from opslib.exceptions import ConfigError

__all__ = [
    "Capabilities",
    "Dialect",
    "Errors",
    "Paging",
    "Times",
    "TokenCall",
    "dnd_from_epoch_s",
    "dnd_to_epoch_s",
    "zone_of",
]

# The opslib exception classes a platform code may map to (opslib/exceptions.py).
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


# The day a do-not-disturb time of day is written on, where a platform wants epoch seconds:
# a fixed day (the platform reads only the time of day), the second so no zone goes negative.
_DND_DAY = dt.date(1970, 1, 2)


def dnd_to_epoch_s(minutes: int, zone: str) -> int:
    """A do-not-disturb time, minutes after midnight, as the epoch seconds of that time of
    day in ``zone`` on a fixed day (1970-01-02): how a platform with
    ``times.dnd_unit = "epoch_s"`` reads it.

    Examples
    --------
    >>> dnd_to_epoch_s(22 * 60, "+08:00")
    136800
    >>> dnd_from_epoch_s(136800, "+08:00")
    1320
    """
    hours, mins = divmod(int(minutes), 60)
    moment = dt.datetime.combine(_DND_DAY, dt.time(hours, mins), tzinfo=zone_of(zone))
    return int(moment.timestamp())


def dnd_from_epoch_s(seconds: float, zone: str) -> int:
    """Epoch seconds as a do-not-disturb time: minutes after midnight in ``zone`` (the day
    is ignored; seconds are dropped).

    Examples
    --------
    >>> dnd_from_epoch_s(1609509600, "Asia/Shanghai")
    1200
    """
    moment = dt.datetime.fromtimestamp(float(seconds), zone_of(zone))
    return moment.hour * 60 + moment.minute


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


def _selectors() -> Mapping[str, Mapping[str, int]]:
    def of(enum: Any) -> dict[str, int]:
        return {m.name.lower(): int(m) for m in enum}

    return {
        "auth_model": of(AuthModel),
        "code_model": of(CodeModel),
        "login_model": of(LoginModel),
        "update_model": of(UpdateModel),
        "user_query_model": of(UserQueryModel),
        "record_query_model": of(RecordQueryModel),
        "setting_query_model": of(SettingQueryModel),
        "owned": of(Owned),
    }


def _enums() -> Mapping[str, Mapping[int, str]]:
    return {
        "event_type": labels(EventType),
        "user_status": labels(UserStatus),
        "device_status": labels(DeviceStatus),
        "product_status": labels(ProductStatus),
        "net_type": labels(NetType),
        "node_type": labels(NodeType),
        "encrypt_type": labels(EncryptType),
        "popular": labels(Popular),
    }


def _event_kinds() -> Mapping[int, str]:
    return {
        int(EventType.ONLINE): "connectivity",
        int(EventType.OFFLINE): "connectivity",
        int(EventType.PROPERTY_REPORT): "property",
        int(EventType.ALARM): "fault",
        int(EventType.COMMAND): "command",
        int(EventType.FIRMWARE_UPGRADE): "firmware",
    }


def _required() -> Mapping[str, tuple[str, ...]]:
    # protocol §6: the parameters required whatever the selector (access_token aside).
    return {
        "/user/auth_code": ("client_id", "auth_model", "code_model", "area_code", "phone"),
        "/user/login": ("client_id", "login_model", "area_code", "phone"),
        "/user/register": ("client_id", "auth_code", "area_code", "phone", "password"),
        "/product/query_category": ("client_id",),
        "/product/query_list_by_category": ("client_id", "category_id"),
        "/device/query_by_user": (),
        "/device/query_record": ("query_model", "start", "end"),
        "/device/query": ("device_id",),
        "/user/query": ("query_model",),
        "/device/bind": ("device_id", "device_secret", "product_id"),
        "/user/query_sys_setting": ("query_model",),
        "/product/delete": ("product_id",),
        "/product/add": (
            "product_id",
            "product_secret",
            "product_name",
            "category_id",
            "net_type",
            "node_type",
        ),
        "/user/update_sys_setting": ("message_config",),
        "/user/update_pwd": ("update_model", "new_password"),
        "/user/update_user_info": (),
        "/device/update_info": ("device_id",),
    }


# The sections that are dataclasses, by field name.
_SECTIONS: dict[str, type] = {
    "token": TokenCall,
    "errors": Errors,
    "times": Times,
    "paging": Paging,
    "capabilities": Capabilities,
}


@dataclass(frozen=True)
class Dialect:
    """One platform's answers to every point the interface spec leaves open.

    Every field defaults to the reference platform's choice (``docs/protocol.md``): the
    default ``Dialect()`` is named ``"opslib"``. Built-in dialects: :meth:`names`.

    Examples
    --------
    >>> d = Dialect.named("vendor")
    >>> d.errors.signalling, d.times.range_unit, d.paging.total
    ('body', 's', 'pages')
    >>> Dialect().token.params
    'query'
    """

    name: str = "opslib"
    """What the dialect is called (a built-in name, or the profile's own)."""
    token: TokenCall = field(default_factory=TokenCall)
    errors: Errors = field(default_factory=Errors)
    times: Times = field(default_factory=Times)
    paging: Paging = field(default_factory=Paging)
    selectors: Mapping[str, Mapping[str, int]] = field(default_factory=_selectors)
    """Integer selectors: field -> meaning -> the platform's integer
    (``{"login_model": {"password": 1, "sms_code": 2}}``)."""
    enums: Mapping[str, Mapping[int, str]] = field(default_factory=_enums)
    """Enumerated fields of the answers: field -> code -> label."""
    event_kinds: Mapping[int, str] = field(default_factory=_event_kinds)
    """event_type code -> its kind (``connectivity``, ``property``, ``fault``, ``system``,
    ``command``, ``firmware``, ``other``)."""
    required: Mapping[str, tuple[str, ...]] = field(default_factory=_required)
    """Operation path -> the parameters the platform requires."""
    capabilities: Capabilities = field(default_factory=Capabilities)
    secrets: frozenset[str] = frozenset({"device_secret", "product_secret"})
    """Fields dropped from frames by default (a platform may send them in reads)."""
    provenance: Mapping[str, str] = field(default_factory=dict, compare=False)
    """``"section.field"`` -> ``"documented: <where>"`` or ``"assumed: <why>"``."""

    _registry: ClassVar[dict[str, Callable[[], Dialect]]] = {}

    def __post_init__(self) -> None:
        for name in ("selectors", "enums", "event_kinds", "required", "provenance"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        object.__setattr__(self, "secrets", frozenset(self.secrets))
        bad = sorted(k for k, v in self.event_kinds.items() if v not in EVENT_KINDS)
        if bad:
            raise ConfigError(
                f"dialect event_kinds: {self.event_kinds[bad[0]]!r} (event_type {bad[0]}) is "
                f"not one of {list(EVENT_KINDS)}"
            )

    def __reduce__(self) -> tuple[Any, ...]:
        # Read-only tables do not pickle (a Dask task graph carries the dialect): rebuild
        # from plain tables.
        return (_rebuild, (self.name, self.to_mapping()))

    # -- the built-in dialects -----------------------------------------------------------

    @classmethod
    def register(cls, name: str, make: Callable[[], Dialect]) -> None:
        """Make a dialect known by ``name`` to :meth:`named` (the built-ins register here)."""
        cls._registry[name] = make

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The built-in dialects' names.

        >>> "vendor" in Dialect.names()
        True
        """
        return tuple(sorted(cls._registry))

    @classmethod
    def named(cls, name: str) -> Dialect:
        """The built-in dialect ``name``; a :class:`~opslib.ConfigError` names the known ones.

        >>> Dialect.named("opslib") == Dialect()
        True
        """
        make = cls._registry.get(name)
        if make is None:
            raise ConfigError(f"unknown dialect {name!r}; built-in: {list(cls.names())}")
        return make()

    def replace(self, **changes: Any) -> Dialect:
        """A copy with some fields changed; a section given as a mapping changes only the
        fields it names.

        >>> Dialect().replace(times={"range_unit": "s"}).times.range_unit
        's'
        """
        for key, value in list(changes.items()):
            section = _SECTIONS.get(key)
            if section is not None and isinstance(value, Mapping):
                changes[key] = replace(getattr(self, key), **value)
        return replace(self, **changes)

    # -- a profile's [profiles.NAME.dialect] table ---------------------------------------

    @classmethod
    def from_mapping(cls, table: Mapping[str, Any] | str) -> Dialect:
        """A dialect from a profile's ``[profiles.NAME.dialect]`` table (or a built-in name).

        ``base`` names the built-in dialect the table starts from (default ``"opslib"``);
        each section table then overrides only the fields it names. Keys of code tables are
        strings in TOML (``"10001" = "NotFound"``) and become integers.

        >>> d = Dialect.from_mapping({"base": "vendor", "paging": {"max_page_size": 50}})
        >>> d.paging.max_page_size, d.errors.signalling
        (50, 'body')
        """
        if isinstance(table, str):
            return cls.named(table)
        if not isinstance(table, Mapping):
            raise ConfigError(f"a dialect is a table or a built-in name, got {table!r}")
        known = {f.name for f in fields(cls) if not f.name.startswith("_")} | {"base"}
        unknown = sorted(set(table) - known)
        if unknown:
            raise ConfigError(f"dialect: unknown keys {unknown}; allowed: {sorted(known)}")
        base_name = table.get("base", "opslib")
        dialect = cls.named(str(base_name))
        changes: dict[str, Any] = {"name": str(table.get("name", base_name))}
        for key, value in table.items():
            if key in ("base", "name"):
                continue
            if key in _SECTIONS:
                changes[key] = _section(key, getattr(dialect, key), value)
            else:
                changes[key] = _top_field(key, value)
        try:
            return dialect.replace(**changes)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"dialect: {exc}") from None

    def to_mapping(self, base: Dialect | None = None) -> dict[str, Any]:
        """The dialect as plain tables (TOML's types); with ``base``, only what differs."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name.startswith("_") or f.name == "name":
                continue
            value = getattr(self, f.name)
            if f.name in _SECTIONS:
                section = {}
                for sf in fields(value):
                    v = getattr(value, sf.name)
                    if base is None or v != getattr(getattr(base, f.name), sf.name):
                        section[sf.name] = _plain(v)
                if section:
                    out[f.name] = section
            elif base is None or value != getattr(base, f.name):
                out[f.name] = _plain(value)
        return out

    def to_toml(self, profile: str | None = None, *, base: str | None = None) -> str:
        """The dialect as TOML, ready to paste into ``config.toml``.

        With ``profile`` the tables are ``[profiles.PROFILE.dialect...]``; with ``base`` (a
        built-in name) the text says ``base = "..."`` and only what differs from it.

        >>> print(Dialect.named("vendor").to_toml("plant", base="vendor"))
        [profiles.plant.dialect]
        base = "vendor"
        <BLANKLINE>
        """
        prefix = f"profiles.{_key(profile)}.dialect" if profile else "dialect"
        tables = self.to_mapping(Dialect.named(base) if base else None)
        lines = [f"[{prefix}]"]
        if base:
            lines.append(f"base = {_toml_value(base)}")
        if self.name != (base or "opslib"):
            lines.append(f"name = {_toml_value(self.name)}")
        nested: list[tuple[str, Mapping[str, Any]]] = []
        for key, value in tables.items():
            if isinstance(value, Mapping):
                nested.append((key, value))
            else:
                lines.append(f"{_key(key)} = {_toml_value(value)}")
        for key, value in nested:
            _toml_table(lines, f"{prefix}.{_key(key)}", value)
        return "\n".join(lines) + "\n"


def _rebuild(name: str, table: dict[str, Any]) -> Dialect:
    return Dialect.from_mapping({**table, "name": name})


# -- reading tables ----------------------------------------------------------------------


def _int_key(where: str, key: Any) -> int:
    try:
        return int(key)
    except (TypeError, ValueError):
        raise ConfigError(f"dialect {where}: key {key!r} is not an integer") from None


def _section(name: str, current: Any, value: Any) -> Any:
    if not isinstance(value, Mapping):
        raise ConfigError(f"dialect {name}: must be a table, got {value!r}")
    allowed = {f.name for f in fields(current)}
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise ConfigError(f"dialect {name}: unknown keys {unknown}; allowed: {sorted(allowed)}")
    changes: dict[str, Any] = {}
    for key, v in value.items():
        where = f"{name}.{key}"
        default = getattr(current, key)
        if isinstance(default, frozenset):
            changes[key] = frozenset(_int_key(where, x) for x in _list(where, v))
        elif isinstance(default, tuple):
            changes[key] = tuple(str(x) for x in _list(where, v))
        elif key == "codes":
            changes[key] = {_int_key(where, k): str(x) for k, x in _table(where, v).items()}
        elif isinstance(default, Mapping):
            changes[key] = {str(k): str(x) for k, x in _table(where, v).items()}
        elif isinstance(default, bool):
            if not isinstance(v, bool):
                raise ConfigError(f"dialect {where}: {v!r} is not true or false")
            changes[key] = v
        else:
            changes[key] = v
    try:
        return replace(current, **changes)
    except TypeError as exc:
        raise ConfigError(f"dialect {name}: {exc}") from None


def _list(where: str, value: Any) -> list[Any]:
    if not isinstance(value, list | tuple | set | frozenset):
        raise ConfigError(f"dialect {where}: must be a list, got {value!r}")
    return list(value)


def _table(where: str, value: Any) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"dialect {where}: must be a table, got {value!r}")
    return value


def _top_field(key: str, value: Any) -> Any:
    if key == "selectors":
        return {
            str(k): {str(m): _int(f"selectors.{k}.{m}", n) for m, n in _table(key, v).items()}
            for k, v in _table(key, value).items()
        }
    if key == "enums":
        return {
            str(k): {_int_key(f"enums.{k}", c): str(label) for c, label in _table(key, v).items()}
            for k, v in _table(key, value).items()
        }
    if key == "event_kinds":
        return {_int_key(key, c): str(kind) for c, kind in _table(key, value).items()}
    if key == "required":
        return {
            str(p): tuple(str(x) for x in _list(f"required.{p}", v))
            for p, v in _table(key, value).items()
        }
    if key == "secrets":
        return frozenset(str(x) for x in _list(key, value))
    if key == "provenance":
        return {str(k): str(v) for k, v in _table(key, value).items()}
    raise ConfigError(f"dialect: unknown key {key!r}")  # pragma: no cover - checked before


def _int(where: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"dialect {where}: {value!r} is not an integer")
    return value


# -- writing TOML --------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """A value as TOML's types: frozensets become sorted lists, mappings plain dicts with
    string keys."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, frozenset | set):
        return sorted(value)
    if isinstance(value, tuple):
        return list(value)
    if dataclasses.is_dataclass(value):  # pragma: no cover - sections are handled apart
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    return value


def _key(key: str) -> str:
    if key and all(c.isalnum() or c in "_-" for c in key):
        return key
    return _toml_value(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        inner = ", ".join(f"{_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def _toml_table(lines: list[str], header: str, table: Mapping[str, Any]) -> None:
    lines.append("")
    lines.append(f"[{header}]")
    for key, value in table.items():
        lines.append(f"{_key(key)} = {_toml_value(value)}")
