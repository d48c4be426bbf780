"""A dialect from a profile's ``[profiles.NAME.dialect]`` table, and back as TOML.

``base`` names the built-in dialect a table starts from (default ``"opslib"``); each section
table then overrides only the fields it names. Keys of code tables are strings in TOML
(``"10001" = "NotFound"``) and become integers. :func:`dialect_to_toml` writes the same
tables (with ``tomli-w``), ready to paste into ``config.toml``.

>>> d = dialect_from_table({"base": "vendor", "paging": {"max_page_size": 50}})
>>> d.paging.max_page_size, d.errors.signalling
(50, 'body')
>>> print(dialect_to_toml(d, "plant", base="vendor"))
[profiles.plant.dialect]
base = "vendor"
<BLANKLINE>
[profiles.plant.dialect.paging]
max_page_size = 50
<BLANKLINE>
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields, replace
from typing import Any

import tomli_w

from opslib.dialects import Dialect
from opslib.dialects.base import SECTIONS
from opslib.exceptions import ConfigError

__all__ = ["dialect_from_table", "dialect_tables", "dialect_to_toml", "resolve_dialect"]


def resolve_dialect(value: Dialect | str | Mapping[str, Any] | None) -> Dialect:
    """A dialect from what a user gives: a :class:`~opslib.dialects.Dialect`, a built-in
    name, a profile's table, or None (the reference platform's).

    >>> resolve_dialect("vendor").name
    'vendor'
    """
    if value is None:
        return Dialect.named("opslib")
    if isinstance(value, Dialect):
        return value
    return dialect_from_table(value)


def dialect_from_table(table: Mapping[str, Any] | str) -> Dialect:
    """A dialect from a profile's ``[profiles.NAME.dialect]`` table (or a built-in name).

    Raises
    ------
    opslib.ConfigError
        An unknown key or a value of the wrong type, naming the key and what is allowed.
    """
    if isinstance(table, str):
        return Dialect.named(table)
    if not isinstance(table, Mapping):
        raise ConfigError(f"a dialect is a table or a built-in name, got {table!r}")
    known = {f.name for f in fields(Dialect) if not f.name.startswith("_")} | {"base"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"dialect: unknown keys {unknown}; allowed: {sorted(known)}")
    base_name = table.get("base", "opslib")
    dialect = Dialect.named(str(base_name))
    changes: dict[str, Any] = {"name": str(table.get("name", base_name))}
    for key, value in table.items():
        if key in ("base", "name"):
            continue
        if key in SECTIONS:
            changes[key] = _section(key, getattr(dialect, key), value)
        else:
            changes[key] = _TOP[key](key, value)
    try:
        return dialect.replace(**changes)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"dialect: {exc}") from None


def dialect_tables(dialect: Dialect, base: Dialect | None = None) -> dict[str, Any]:
    """The dialect as plain tables (TOML's types); with ``base``, only what differs."""
    out: dict[str, Any] = {}
    for f in fields(dialect):
        if f.name.startswith("_") or f.name == "name":
            continue
        value = getattr(dialect, f.name)
        if f.name in SECTIONS:
            section = {}
            for sf in fields(value):
                v = getattr(value, sf.name)
                if v is not None and (base is None or v != getattr(getattr(base, f.name), sf.name)):
                    section[sf.name] = _plain(v)
            if section:
                out[f.name] = section
        elif base is None or value != getattr(base, f.name):
            out[f.name] = _plain(value)
    return out


def dialect_to_toml(
    dialect: Dialect, profile: str | None = None, *, base: str | None = None
) -> str:
    """The dialect as TOML, ready to paste into ``config.toml``.

    With ``profile`` the tables are ``[profiles.PROFILE.dialect...]``; with ``base`` (a
    built-in name) the text says ``base = "..."`` and only what differs from it.
    """
    tables: dict[str, Any] = {}
    if base:
        tables["base"] = base
    if dialect.name != (base or "opslib"):
        tables["name"] = dialect.name
    tables.update(dialect_tables(dialect, Dialect.named(base) if base else None))
    doc = {"profiles": {profile: {"dialect": tables}}} if profile else {"dialect": tables}
    text = tomli_w.dumps(doc)
    # tomli-w writes only the tables that hold values: say the dialect's own header even
    # when it holds nothing but sub-tables, so the text pastes under the right profile
    header = f"[profiles.{_key(profile)}.dialect]" if profile else "[dialect]"
    return text if text.startswith(header) else f"{header}\n\n{text}"


# -- reading tables -------------------------------------------------------------------------


def _int_key(where: str, key: Any) -> int:
    try:
        return int(key)
    except (TypeError, ValueError):
        raise ConfigError(f"dialect {where}: key {key!r} is not an integer") from None


def _int(where: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"dialect {where}: {value!r} is not an integer")
    return value


def _list(where: str, value: Any) -> list[Any]:
    if not isinstance(value, list | tuple | set | frozenset):
        raise ConfigError(f"dialect {where}: must be a list, got {value!r}")
    return list(value)


def _table(where: str, value: Any) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"dialect {where}: must be a table, got {value!r}")
    return value


def _code_maps(where: str, value: Any) -> dict[str, dict[int, int]]:
    out: dict[str, dict[int, int]] = {}
    for key, codes in _table(where, value).items():
        inner = f"{where}.{key}"
        out[str(key)] = {
            _int_key(inner, c): _int(f"{inner}.{c}", n) for c, n in _table(inner, codes).items()
        }
    return out


# Section fields whose values are not read by the default's type.
_SECTION_FIELDS: dict[str, Callable[[str, Any], Any]] = {
    "errors.codes": lambda w, v: {_int_key(w, k): str(x) for k, x in _table(w, v).items()},
    "serving.codes_out": _code_maps,
    "serving.codes_in": _code_maps,
    "serving.token_errors": lambda w, v: {str(k): _int(w, x) for k, x in _table(w, v).items()},
    "serving.error_rules": lambda w, v: tuple(tuple(_list(w, r)) for r in _list(w, v)),
}


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
        if where in _SECTION_FIELDS:
            changes[key] = _SECTION_FIELDS[where](where, v)
        elif isinstance(default, frozenset):
            changes[key] = frozenset(_int_key(where, x) for x in _list(where, v))
        elif isinstance(default, tuple):
            changes[key] = tuple(str(x) for x in _list(where, v))
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


_TOP: dict[str, Callable[[str, Any], Any]] = {
    "selectors": lambda key, value: {
        str(k): {str(m): _int(f"selectors.{k}.{m}", n) for m, n in _table(key, v).items()}
        for k, v in _table(key, value).items()
    },
    "enums": lambda key, value: {
        str(k): {_int_key(f"enums.{k}", c): str(label) for c, label in _table(key, v).items()}
        for k, v in _table(key, value).items()
    },
    "event_kinds": lambda key, value: {
        _int_key(key, c): str(kind) for c, kind in _table(key, value).items()
    },
    "required": lambda key, value: {
        str(p): tuple(str(x) for x in _list(f"required.{p}", v))
        for p, v in _table(key, value).items()
    },
    "filters": lambda key, value: {
        str(p): tuple(_int(f"filters.{p}", x) for x in _list(f"filters.{p}", v))
        for p, v in _table(key, value).items()
    },
    "secrets": lambda key, value: frozenset(str(x) for x in _list(key, value)),
    "provenance": lambda key, value: {str(k): str(v) for k, v in _table(key, value).items()},
}


# -- writing --------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """A value as TOML's types: frozensets become sorted lists, mappings plain dicts with
    string keys, None left out."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, frozenset | set):
        return sorted(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _key(key: str) -> str:
    if key and all(c.isalnum() or c in "_-" for c in key):
        return key
    escaped = key.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
