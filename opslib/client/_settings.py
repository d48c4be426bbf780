"""Where connect() finds its settings, and the :class:`Secret` type that keeps them masked.

Resolution order, per setting: the argument given to ``connect()``, then the environment
(``OPSLIB_BASE_URL``, ``OPSLIB_CLIENT_ID``, ``OPSLIB_CLIENT_SECRET``, ``OPSLIB_AREA_CODE``,
``OPSLIB_PHONE``, ``OPSLIB_PASSWORD``, ``OPSLIB_TOKEN_CACHE``, ``OPSLIB_DIALECT`` naming a
built-in dialect), then the selected profile of
the config file (``OPSLIB_CONFIG``, else ``<user config dir>/opslib/config.toml``, which is
``~/.config/opslib/config.toml`` on Linux). The profile is the ``profile`` argument, else
``OPSLIB_PROFILE``, else the file's ``default_profile``, else a profile named ``default``.
With no base URL from any of them, connect() uses the embedded reference platform.

A profile's platform dialect (:class:`~opslib.dialects.Dialect`) is its ``dialect`` key: a
built-in name (``dialect = "vendor"``) or a ``[profiles.NAME.dialect]`` table (``base =
"vendor"`` and the fields that differ, as ``opslib probe`` writes it).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import orjson
import platformdirs

from opslib.client._constants import APP_NAME, TOKEN_CACHE_FILENAME
from opslib.dialects import Dialect
from opslib.exceptions import ConfigError
from opslib.protocol.tables import resolve_dialect

__all__ = ["Secret", "Settings", "config_path", "encode", "resolve_settings", "reveal"]


class Secret:
    """A string that never shows itself in a repr, a str(), a log line or a traceback.

    Examples
    --------
    >>> s = Secret("hunter2hunter2")
    >>> s
    Secret('**********')
    >>> s.get_secret_value()
    'hunter2hunter2'
    """

    __slots__ = ("_value",)

    def __init__(self, value: str | Secret) -> None:
        if isinstance(value, Secret):
            value = value.get_secret_value()
        if not isinstance(value, str):
            raise TypeError(f"a Secret wraps a str, not {type(value).__name__}")
        self._value = value

    def get_secret_value(self) -> str:
        """The wrapped string; call it only where the value goes on the wire."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    def __str__(self) -> str:
        return "**********"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash((Secret, self._value))

    def __bool__(self) -> bool:
        return bool(self._value)


def _secret_value(value: Any) -> str:
    if isinstance(value, Secret):
        return value.get_secret_value()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def encode(body: Any) -> bytes:
    """A request body as JSON, :class:`Secret` values revealed only in the bytes: the dicts
    a traceback's frames show hold masked Secrets, never the value."""
    return orjson.dumps(body, default=_secret_value)


def reveal(form: Mapping[str, str | Secret]) -> dict[str, str]:
    """The token call's fields with their Secrets revealed, built inside the request."""
    return {k: v.get_secret_value() if isinstance(v, Secret) else v for k, v in form.items()}


def secret_or_none(value: str | Secret | None) -> Secret | None:
    """Wrap a value as a Secret; None and "" stay None."""
    if value is None or (isinstance(value, str) and not value):
        return None
    return Secret(value)


@dataclass(frozen=True)
class Settings:
    """The resolved settings of one client; secrets are :class:`Secret`.

    ``base_url`` None means "use the embedded platform". ``token_cache`` None means off.
    ``dialect`` None means the reference platform's.
    """

    base_url: str | None = None
    client_id: str | None = None
    client_secret: Secret | None = None
    area_code: str | None = None
    phone: str | None = None
    password: Secret | None = None
    profile: str | None = None
    token_cache: Path | None = None
    dialect: Dialect | None = None

    @property
    def embedded(self) -> bool:
        return self.base_url is None


_ENV = {
    "base_url": "OPSLIB_BASE_URL",
    "client_id": "OPSLIB_CLIENT_ID",
    "client_secret": "OPSLIB_CLIENT_SECRET",
    "area_code": "OPSLIB_AREA_CODE",
    "phone": "OPSLIB_PHONE",
    "password": "OPSLIB_PASSWORD",
    "token_cache": "OPSLIB_TOKEN_CACHE",
    "dialect": "OPSLIB_DIALECT",
}
_SECRETS = ("client_secret", "password")
# A profile may also hold its reports' notification table (opslib.reports.notify), its
# alert rules (opslib.reports.alerts) and the zone its reports show times in
# (opslib.reports.zones).
_PROFILE_KEYS = frozenset({*_ENV, "notify", "alerts", "tz"})


def config_path() -> Path:
    """The config file: ``OPSLIB_CONFIG``, else ``<user config dir>/opslib/config.toml``."""
    explicit = os.environ.get("OPSLIB_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def default_token_cache() -> Path:
    """``<user cache dir>/opslib/tokens.json``."""
    return Path(platformdirs.user_cache_dir(APP_NAME)) / TOKEN_CACHE_FILENAME


def profile_table(profile: str | None = None) -> tuple[str | None, dict[str, Any]]:
    """The name and table of the profile a connection uses: ``profile``, else
    ``OPSLIB_PROFILE``, else the config file's ``default_profile``, else a profile named
    ``default``; ``(None, {})`` when there is none.

    Raises
    ------
    ConfigError
        A profile asked for by name that the config file lacks (or no config file), a file
        that cannot be read, or a profile with unknown keys.
    """
    return _load_profile(profile or os.environ.get("OPSLIB_PROFILE") or None, config_path())


def _load_profile(name: str | None, path: Path) -> tuple[str | None, dict[str, Any]]:
    if not path.exists():
        if name is not None:
            raise ConfigError(
                f"profile {name!r} was asked for, but there is no config file at {path}"
            )
        return None, {}
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc}") from None
    profiles = doc.get("profiles", {})
    if not isinstance(profiles, dict):
        raise ConfigError(f"{path}: 'profiles' must be a table of [profiles.NAME] tables")
    if name is None:
        name = doc.get("default_profile") or ("default" if "default" in profiles else None)
        if name is None:
            return None, {}
    if name not in profiles:
        known = ", ".join(sorted(profiles)) or "none"
        raise ConfigError(f"{path}: no [profiles.{name}] table (profiles: {known})")
    table = profiles[name]
    unknown = sorted(set(table) - _PROFILE_KEYS)
    if unknown:
        raise ConfigError(
            f"{path}: [profiles.{name}] has unknown keys {unknown}; "
            f"allowed: {sorted(_PROFILE_KEYS)}"
        )
    return name, dict(table)


def _token_cache_path(value: Any) -> Path | None:
    if value is None or value is False:
        return None
    if value is True:
        return default_token_cache()
    text = str(value).strip()
    if text.lower() in ("", "0", "false", "no", "off"):
        return None
    if text.lower() in ("1", "true", "yes", "on"):
        return default_token_cache()
    return Path(text).expanduser()


def resolve_settings(
    *,
    base_url: str | None = None,
    client_id: str | None = None,
    client_secret: str | Secret | None = None,
    area_code: str | None = None,
    phone: str | None = None,
    password: str | Secret | None = None,
    profile: str | None = None,
    token_cache: str | os.PathLike[str] | bool | None = None,
    dialect: Dialect | str | dict[str, Any] | None = None,
) -> Settings:
    """Resolve every setting: arguments, then environment, then the config-file profile.

    Examples
    --------
    >>> resolve_settings(base_url="https://ops.example.com", client_id="c").base_url
    'https://ops.example.com'
    """
    args: dict[str, Any] = {
        "base_url": base_url,
        "client_id": client_id,
        "client_secret": client_secret,
        "area_code": area_code,
        "phone": phone,
        "password": password,
        "token_cache": token_cache,
        "dialect": dialect,
    }
    profile_name, table = profile_table(profile)
    values: dict[str, Any] = {}
    for key, env in _ENV.items():
        value = args[key]
        if value is None or (isinstance(value, str) and not value):
            value = os.environ.get(env) or None
        if value is None:
            value = table.get(key)
        values[key] = value
    for key in _SECRETS:
        values[key] = secret_or_none(values[key])
    for key in ("base_url", "client_id", "area_code", "phone"):
        if values[key] is not None:
            values[key] = str(values[key]).strip() or None
    if values["base_url"]:
        values["base_url"] = values["base_url"].rstrip("/")
        if not values["base_url"].lower().startswith(("http://", "https://")):
            where = f" (profile {profile_name!r})" if table.get("base_url") is not None else ""
            raise ConfigError(
                f"base_url {values['base_url']!r}{where} is not a platform's address; give "
                "an http:// or https:// URL such as 'https://ops.example.com'"
            )
    values["token_cache"] = _token_cache_path(values["token_cache"])
    if values["dialect"] is not None:
        try:
            values["dialect"] = resolve_dialect(values["dialect"])
        except ConfigError as exc:
            where = f" (profile {profile_name!r})" if table.get("dialect") is not None else ""
            raise ConfigError(f"{exc}{where}") from None
    settings = Settings(profile=profile_name, **values)
    if settings.base_url is not None and not settings.client_id:
        raise ConfigError(
            f"base_url {settings.base_url!r} is set but no client_id: give client_id=, "
            "OPSLIB_CLIENT_ID or client_id in the profile"
        )
    if settings.client_id and not settings.client_secret:
        raise ConfigError(
            "client_id is set but no client_secret: give client_secret=, OPSLIB_CLIENT_SECRET "
            "or client_secret in the profile"
        )
    return settings


def with_defaults(settings: Settings, **defaults: Any) -> Settings:
    """Fill the settings left None with ``defaults`` (used for the embedded platform)."""
    names = {f.name for f in fields(Settings)}
    fill = {k: v for k, v in defaults.items() if k in names and getattr(settings, k) is None}
    for key in _SECRETS:
        if key in fill:
            fill[key] = secret_or_none(fill[key])
    return replace(settings, **fill)
