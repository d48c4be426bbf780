"""Fake time for client tests: the platform's clock and the client's, moved by the tests."""

from __future__ import annotations

import time

from opslib.server import FakeClock


class Clocks:
    """The platform's fake clock and the client's, both starting now."""

    def __init__(self) -> None:
        self.platform = FakeClock(time.time_ns() // 1_000_000)
        self.client = FakeClock(self.platform.now_ms())

    def client_seconds(self) -> float:
        return self.client.now_ms() / 1000

    def advance(self, seconds: float) -> None:
        """Both clocks: the time passes for everyone."""
        self.platform.advance(seconds=seconds)
        self.client.advance(seconds=seconds)
