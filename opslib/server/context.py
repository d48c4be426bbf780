"""What a handler sees: the connection, the moment, the settings, the caller."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

from opslib.enums import Role
from opslib.server.config import Settings
from opslib.server.database import Database
from opslib.server.ratelimit import Backstop, FailureWindow, HashGate, Quota
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
    """What limits a caller's cost across requests, kept in the server's memory (protocol
    §8): password hashes at once (in all and per client address); wrong device secrets
    per (device, address), per address and per device; wrong passwords, SMS codes and
    client secrets per address; client secrets per client; SMS sends per address; the
    events a user's devices report. (Failed logins per phone are in the database.)"""

    def __init__(self, settings: Settings) -> None:
        s = settings
        self.hashes = HashGate(
            slots=s.password_hash_slots, per_key=s.password_hash_slots_per_address
        )
        window = s.secret_failure_window_ms
        self.device_failures = FailureWindow(limit=s.device_failure_limit, window_ms=window)
        self.address_failures = FailureWindow(limit=s.address_failure_limit, window_ms=window)
        self.device_backstop = self._backstop(s, s.device_backstop_free, window)
        self.address_logins = FailureWindow(
            limit=s.address_login_failure_limit, window_ms=s.login_failure_window_ms
        )
        self.address_codes = FailureWindow(
            limit=s.address_code_failure_limit, window_ms=s.code_failure_window_ms
        )
        self.address_clients = FailureWindow(
            limit=s.address_client_failure_limit, window_ms=s.client_failure_window_ms
        )
        self.client_backstop = self._backstop(s, s.client_backstop_free, s.client_failure_window_ms)
        self.address_sms = FailureWindow(
            limit=s.sms_address_limit, window_ms=s.sms_address_window_ms
        )
        self.events = Quota(limit=s.user_event_quota, window_ms=s.user_event_quota_window_ms)

    @staticmethod
    def _backstop(s: Settings, free: int, window_ms: int) -> Backstop:
        return Backstop(
            free=free, window_ms=window_ms, base_ms=s.backstop_base_ms, max_ms=s.backstop_max_ms
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
