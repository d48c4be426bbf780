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
- ``required``, ``filters``, ``capabilities``, ``secrets``: what the platform needs and
  offers;
- ``serving``: what opslib's own server needs to speak it (codes mapped onto ours, which
  failure code it answers);
- ``provenance``: where each value comes from (documented, or assumed and why).

This package is data: :mod:`opslib.protocol` reads and writes the wire by it, and
:mod:`opslib.protocol.tables` reads it from (and writes it as) a profile's TOML table.

>>> from opslib.dialects import Dialect
>>> Dialect.named("vendor").paging.max_page_size
100
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

from opslib.dialects.sections import (
    EVENT_KINDS,
    Capabilities,
    Errors,
    Paging,
    Serving,
    Times,
    TokenCall,
    _frozen,
)
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

__all__ = ["SECTIONS", "Dialect"]


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
    from opslib.protocol.operations import SPEC_OPERATIONS

    return {op.path: op.required for op in SPEC_OPERATIONS if op.answer != "token"}


# The sections that are dataclasses, by field name.
SECTIONS: Mapping[str, type] = types.MappingProxyType(
    {
        "token": TokenCall,
        "errors": Errors,
        "times": Times,
        "paging": Paging,
        "capabilities": Capabilities,
        "serving": Serving,
    }
)


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
    filters: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """Coded parameters a read filters by -> the codes allowed there, where fewer than the
    field's labels (``{"event_type": (0, 1)}``); unlisted: any labelled code."""
    capabilities: Capabilities = field(default_factory=Capabilities)
    secrets: frozenset[str] = frozenset({"device_secret", "product_secret"})
    """Fields dropped from frames by default (a platform may send them in reads)."""
    serving: Serving = field(default_factory=Serving)
    provenance: Mapping[str, str] = field(default_factory=dict, compare=False)
    """``"section.field"`` -> ``"documented: <where>"`` or ``"assumed: <why>"``."""

    _registry: ClassVar[dict[str, Callable[[], Dialect]]] = {}

    def __post_init__(self) -> None:
        for name in ("selectors", "enums", "event_kinds", "required", "provenance"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        object.__setattr__(self, "filters", _frozen({k: tuple(v) for k, v in self.filters.items()}))
        object.__setattr__(self, "secrets", frozenset(self.secrets))
        bad = sorted(k for k, v in self.event_kinds.items() if v not in EVENT_KINDS)
        if bad:
            raise ConfigError(
                f"dialect event_kinds: {self.event_kinds[bad[0]]!r} (event_type {bad[0]}) is "
                f"not one of {list(EVENT_KINDS)}"
            )

    def __reduce__(self) -> tuple[Any, ...]:
        # Read-only tables do not pickle (a Dask task graph carries the dialect): rebuild
        # from plain ones.
        return (_rebuild, ({f.name: _thaw(getattr(self, f.name)) for f in fields(self)},))

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
            section = SECTIONS.get(key)
            if section is not None and isinstance(value, Mapping):
                changes[key] = replace(getattr(self, key), **value)
        return replace(self, **changes)


def _thaw(value: Any) -> Any:
    """Plain dicts for read-only tables, and for a section's fields."""
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, Errors | TokenCall | Times | Paging | Capabilities | Serving):
        return {f.name: _thaw(getattr(value, f.name)) for f in fields(value)}
    return value


def _rebuild(values: dict[str, Any]) -> Dialect:
    for name, section in SECTIONS.items():
        values[name] = section(**values[name])
    return Dialect(**values)
