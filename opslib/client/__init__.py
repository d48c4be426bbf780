"""The client: ``connect()``, :class:`Client` and its resources, behind this curated surface.

Everything else in this folder is private (a leading underscore) and may change; what a
program outside ``opslib/client`` may use is listed in ``__all__``.

The names are imported when first used (PEP 562): ``config_path`` or ``resolve_settings``
import no pandas, so a command that only reads the config file stays fast.
"""

import typing

from opslib._lazy import attach as _attach

if typing.TYPE_CHECKING:
    from opslib.client._client import Client
    from opslib.client._collector import gc_threshold
    from opslib.client._connect import connect
    from opslib.client._embedded import EmbeddedPlatform, embedded_platform
    from opslib.client._event_cache_admin import cache_command
    from opslib.client._settings import (
        Secret,
        Settings,
        config_path,
        profile_table,
        resolve_settings,
    )

__all__ = [
    "Client",
    "EmbeddedPlatform",
    "Secret",
    "Settings",
    "cache_command",
    "config_path",
    "connect",
    "embedded_platform",
    "gc_threshold",
    "profile_table",
    "resolve_settings",
]

# Each public name -> its private module (imported on first use).
_HOME = {
    "Client": "opslib.client._client",
    "EmbeddedPlatform": "opslib.client._embedded",
    "Secret": "opslib.client._settings",
    "Settings": "opslib.client._settings",
    "cache_command": "opslib.client._event_cache_admin",
    "config_path": "opslib.client._settings",
    "connect": "opslib.client._connect",
    "embedded_platform": "opslib.client._embedded",
    "gc_threshold": "opslib.client._collector",
    "profile_table": "opslib.client._settings",
    "resolve_settings": "opslib.client._settings",
}


# Hidden from type checkers, which read the imports above: they still flag an unknown name.
if not typing.TYPE_CHECKING:
    __getattr__, __dir__ = _attach(__name__, _HOME)
