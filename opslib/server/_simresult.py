"""What a simulator run did, and the devices it drives (:mod:`opslib.server.simulate`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SimulationError", "SimulationResult"]


class SimulationError(RuntimeError):
    """The simulator could not start: login, token or fleet listing failed."""


class UnknownProduct(SimulationError):
    """``fail_product`` names no product of the fleet listing (a bad argument)."""


@dataclass
class SimulationResult:
    """What a run did.

    Attributes
    ----------
    devices
        Devices that took part.
    seconds
        Wall-clock duration of the reporting loop.
    requests
        ``/device/report`` requests sent.
    sent
        Events sent.
    accepted
        Events the platform accepted (``data.accepted``).
    failed_requests
        Requests that failed (HTTP error, transport error).
    by_type
        Accepted events per event type label.
    failed_devices
        Devices of ``fail_product`` made to fail (a fault alarm, offline, then silent).
    """

    devices: int = 0
    seconds: float = 0.0
    requests: int = 0
    sent: int = 0
    accepted: int = 0
    failed_requests: int = 0
    by_type: Counter[str] = field(default_factory=Counter)
    failed_devices: int = 0

    def summary(self) -> str:
        """One line for humans."""
        mix = ", ".join(f"{label} {n}" for label, n in sorted(self.by_type.items()))
        rate = self.accepted / self.seconds if self.seconds > 0 else 0.0
        return (
            f"{self.devices} devices, {self.seconds:.1f} s: {self.accepted} events accepted "
            f"of {self.sent} sent ({rate:.1f}/s) in {self.requests} requests, "
            f"{self.failed_requests} failed" + (f"; {mix}" if mix else "")
            + (f"; {self.failed_devices} devices failed" if self.failed_devices else "")
        )  # fmt: skip


@dataclass
class SimDevice:
    """A device the simulator drives: its secret and its simulated state."""

    device_id: str
    secret: str
    status: int
    properties: dict[str, Any]
