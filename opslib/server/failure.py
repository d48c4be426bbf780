"""One product's devices fail (``opslib simulate --fail-product P``).

Every device of the product in the fleet listing reports a fault alarm (an ``F`` code, so
the platform marks it faulty), then, where the platform reports connectivity, an offline
event; after that it reports nothing: it has gone silent. The other devices of the
simulation report as usual. On the demo platform this makes what an operator would be
paged for: a product's fault rate jumps, its devices go offline, the offline share rises
(the README's "Alerts" example).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from opslib.enums import EventType
from opslib.server._simresult import SimDevice, SimulationResult, UnknownProduct

__all__ = ["fail_devices", "failure_events"]

FAULT = ("F201", "hardware failure")


def failure_events(connectivity: bool) -> list[dict[str, Any]]:
    """A failing device's last events: a fault alarm, then offline (where reported).

    Examples
    --------
    >>> [e["event_type"] for e in failure_events(True)]
    [4, 2]
    """
    code, message = FAULT
    events: list[dict[str, Any]] = [
        {
            "event_type": int(EventType.ALARM),
            "code": code,
            "properties": {"level": "fault", "message": message},
        }
    ]
    if connectivity:
        events.append(
            {"event_type": int(EventType.OFFLINE), "properties": {"reason": "device failure"}}
        )
    return events


def fail_devices(
    report: Callable[[SimDevice, list[dict[str, Any]]], tuple[int, bool]],
    devices: Sequence[SimDevice],
    result: SimulationResult,
    *,
    product: str,
    connectivity: bool,
    out: Callable[[str], Any] | None = None,
) -> set[str]:
    """Make ``devices`` (every device of ``product``) fail, each through ``report(device,
    events)`` (the simulator's report of a device's events: accepted, still usable); the
    ids of those the platform took the failure from. ``connectivity``: the platform
    reports online and offline events.

    Raises
    ------
    UnknownProduct
        No device of that product in the fleet listing.
    """
    if not devices:
        raise UnknownProduct(
            f"--fail-product {product!r}: no device of that product in the fleet listing"
        )
    events = failure_events(connectivity)
    failed = set()
    for device in devices:
        accepted, _ = report(device, events)
        result.requests += 1
        result.sent += len(events)
        result.accepted += accepted
        if accepted:
            failed.add(device.device_id)
        else:
            result.failed_requests += 1
    result.failed_devices = len(failed)
    if out:
        out(f"{len(failed)} of {len(devices)} devices of {product} failed and went silent")
    return failed
