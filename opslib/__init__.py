"""opslib: a pandas client for a smart-device platform.

>>> import opslib
>>> client = opslib.connect()          # nothing configured: the embedded demo platform
>>> client.devices.list().shape        # doctest: +SKIP
(5000, 23)

Every operation returns a typed pandas DataFrame; see ``docs/client.md``.
"""

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
    RateLimited,
    RequestTimeout,
    ServerError,
    TransportError,
    VerificationFailed,
)
from opslib.probing import ProbeResult, probe

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
    "RateLimited",
    "RequestTimeout",
    "Secret",
    "ServerError",
    "TransportError",
    "VerificationFailed",
    "connect",
    "gc_threshold",
    "probe",
]
