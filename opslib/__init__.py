"""opslib: a pandas client for a smart-device platform.

>>> import opslib
>>> client = opslib.connect()          # nothing configured: the embedded demo platform
>>> client.devices.list().shape        # doctest: +SKIP
(5000, 23)

Every operation returns a typed pandas DataFrame; see ``docs/client.md``.

The public names are imported when first used (PEP 562): ``import opslib`` alone imports
no pandas, so the ``opslib`` command reaches a report's lock before any heavy import.
"""

import typing

from opslib._lazy import attach as _attach

if typing.TYPE_CHECKING:
    from opslib.client import Client, Secret, connect, gc_threshold
    from opslib.dialects import Dialect
    from opslib.exceptions import (
        APIError,
        AuthenticationError,
        BadRequest,
        BulkWriteError,
        ConfigError,
        Conflict,
        IncompleteRead,
        NotFound,
        OpsError,
        OutcomeUnknown,
        PayloadTooLarge,
        PermissionDenied,
        ProtocolError,
        RateLimited,
        RequestTimeout,
        ServerError,
        TransportError,
        Unsupported,
        VerificationFailed,
    )
    from opslib.probing import ProbeResult, probe
    from opslib.store import sync

__all__ = [
    "APIError",
    "AuthenticationError",
    "BadRequest",
    "BulkWriteError",
    "Client",
    "ConfigError",
    "Conflict",
    "Dialect",
    "IncompleteRead",
    "NotFound",
    "OpsError",
    "OutcomeUnknown",
    "PayloadTooLarge",
    "PermissionDenied",
    "ProbeResult",
    "ProtocolError",
    "RateLimited",
    "RequestTimeout",
    "Secret",
    "ServerError",
    "TransportError",
    "Unsupported",
    "VerificationFailed",
    "connect",
    "gc_threshold",
    "probe",
    "sync",
]

# Each public name -> the module that defines it (imported on first use): the errors'
# module unless named here.
_HOME = {name: "opslib.exceptions" for name in __all__} | {
    "Client": "opslib.client",
    "Secret": "opslib.client",
    "connect": "opslib.client",
    "gc_threshold": "opslib.client",
    "Dialect": "opslib.dialects",
    "ProbeResult": "opslib.probing",
    "probe": "opslib.probing",
    "sync": "opslib.store",
}


# Hidden from type checkers, which read the imports above: they still flag an unknown name.
if not typing.TYPE_CHECKING:
    __getattr__, __dir__ = _attach(__name__, _HOME)
