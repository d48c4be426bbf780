"""What a handler sees: the connection, the moment, the settings, the caller."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

from opslib.enums import Role
from opslib.server.config import Settings
from opslib.server.database import Database
from opslib.server.ratelimit import FailureWindow, HashGate
from opslib.server.services.paging import BucketIndex
from opslib.server.sms import SmsGateway

__all__ = ["Caller", "Context", "Guards", "gmt"]


@dataclass(frozen=True)
class Caller:
    """The user an access token belongs to."""

    user_id: str
    role: int
    client_id: str

    @property
    def is_ops(self) -> bool:
        """ops or admin (protocol §7)."""
        return self.role >= Role.OPS

    @property
    def is_admin(self) -> bool:
        return self.role >= Role.ADMIN


class Guards:
    """What limits a caller's cost across requests: password hashes at once, wrong
    device secrets per device and per client address (protocol §8)."""

    def __init__(self, settings: Settings) -> None:
        self.hashes = HashGate(slots=settings.password_hash_slots)
        window = settings.secret_failure_window_ms
        self.device_failures = FailureWindow(limit=settings.device_failure_limit, window_ms=window)
        self.address_failures = FailureWindow(
            limit=settings.address_failure_limit, window_ms=window
        )


@dataclass
class Context:
    """One request's view of the platform.

    ``conn`` is inside the route's transaction (read snapshot or ``BEGIN IMMEDIATE``),
    except for routes that manage transactions themselves through ``db``.
    """

    db: Database
    conn: sqlite3.Connection
    now: int
    settings: Settings
    sms: SmsGateway
    message_id: str
    caller: Caller | None = None
    prepared: Any = None
    buckets: BucketIndex = field(default_factory=BucketIndex)
    client: str = ""  # the client's address (the proxy's, behind one)
    guards: Guards = field(default_factory=lambda: Guards(Settings()))

    @property
    def user(self) -> Caller:
        """The authenticated caller (routes with a user role always have one)."""
        if self.caller is None:
            raise RuntimeError("this route has no authenticated caller")
        return self.caller


def gmt(ms: int | None) -> str | None:
    """Format epoch ms as the wire's ``YYYY-MM-DD HH:MM:SS`` (UTC); None stays None.

    Examples
    --------
    >>> gmt(1714521600999)
    '2024-05-01 00:00:00'
    >>> gmt(None) is None
    True
    """
    if ms is None:
        return None
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ms // 1000))
