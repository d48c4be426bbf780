"""The reference platform: all 18 operations of the interface over SQLite.

>>> from opslib.server import create_app, Settings
>>> Settings().access_token_ttl_s
7200
"""

from opslib.server.app import create_app
from opslib.server.clock import Clock, FakeClock, SystemClock
from opslib.server.config import Settings
from opslib.server.sms import OutboxGateway, SmsGateway

__all__ = [
    "Clock",
    "FakeClock",
    "OutboxGateway",
    "Settings",
    "SmsGateway",
    "SystemClock",
    "create_app",
]
