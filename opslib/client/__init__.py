"""The client: ``connect()``, :class:`Client` and its resources, behind this curated surface.

Everything else in this folder is private (a leading underscore) and may change; what a
program outside ``opslib/client`` may use is listed in ``__all__``.
"""

from opslib.client._client import Client
from opslib.client._collector import gc_threshold
from opslib.client._connect import connect
from opslib.client._embedded import EmbeddedPlatform, embedded_platform
from opslib.client._event_cache_admin import cache_command
from opslib.client._settings import Secret, Settings, config_path, resolve_settings

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
    "resolve_settings",
]
