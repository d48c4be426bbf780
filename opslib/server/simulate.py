"""Live device traffic for a running platform (``opslib simulate``).

The simulator logs in as the demo ops account, lists the fleet, takes the first ``devices``
devices and makes them report events through ``POST /device/report`` (protocol §6.19) at
about ``rate`` events per second in total, for ``seconds`` seconds, then stops by itself.
Seeded devices have derivable secrets (:func:`opslib.server.security.demo_device_secret`);
a device bound through the API has its own secret, answers 401, and is dropped.

The mix is a device's life: mostly property reports (the device's current properties, each
number nudged a little and an occasional switch flipped), now and then a warning alarm, a
command echo, a disconnection (an offline event; the device's next report is an online
event) or, rarely, a fault alarm (``F`` code) followed later by a recovery.

Under a platform's dialect (``opslib simulate --dialect chint``) it speaks that dialect
(its login selector, its page cap) and writes only the event kinds the platform reports:
under ``chint`` property reports and alarms (its faults), no online/offline or command
events, as ``fold_onto_dialect`` leaves the demo data. A platform without a whole-fleet
listing has its devices listed per user: the demo plain user's devices report.

What a user does (logging in, listing the fleet) goes through the client
(:func:`opslib.connect`, ``client.devices``); the device reports through the protocol
layer: the path of :data:`opslib.protocol.operations.REPORT`, and the answer read by the
dialect's :class:`~opslib.protocol.Codec` (a success, else the exception its code means: a
device refused or gone is dropped, a rate limit waited out).

It talks only to the ``base_url`` it is given (proxies from the environment are ignored).
"""

from __future__ import annotations

import math
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import httpx
import numpy as np

from opslib._missing import is_missing
from opslib.client import Client, connect
from opslib.dialects import Dialect
from opslib.enums import DeviceStatus, EventType
from opslib.exceptions import (
    AuthenticationError,
    ConfigError,
    NotFound,
    OpsError,
    RateLimited,
    TransportError,
)
from opslib.protocol import Codec
from opslib.protocol import operations as ops
from opslib.server import demo
from opslib.server._simresult import SimDevice as _Device
from opslib.server._simresult import SimulationError, SimulationResult, UnknownProduct
from opslib.server.failure import fail_devices
from opslib.server.security import demo_device_secret

__all__ = [
    "SimulationError",
    "SimulationResult",
    "Simulator",
    "UnknownProduct",
    "simulate_command",
]

MAX_EVENTS_PER_REPORT = 500
TICK_S = 0.1  # events due within one tick go out together, one request per device

_WARNINGS = (
    ("E101", "low battery"),
    ("E102", "high temperature"),
    ("E103", "weak signal"),
    ("E104", "overload"),
)
_FAULTS = (("F201", "hardware failure"), ("F204", "power supply fault"))
_COMMANDS: tuple[dict[str, Any], ...] = (
    {"command": "set_power", "value": True, "source": "app"},
    {"command": "set_power", "value": False, "source": "automation"},
)
# A report refused for one of these: not a seeded device (its own secret) or gone: dropped.
_DEVICE_GONE = (AuthenticationError, NotFound)
_RATE_WAIT_S = (1.0, 5.0)  # a rate limit's wait without Retry-After, and the longest
_PROPERTIES = "properties."  # the device frame's columns of its latest properties
_PERCENT_KEYS = {"battery", "brightness", "humidity", "storage_pct"}


class Simulator:
    """Seeded devices reporting events to one platform.

    Parameters
    ----------
    base_url
        The platform, e.g. ``http://127.0.0.1:8000``; nothing else is contacted.
    devices
        How many fleet devices report (the first ones of the fleet listing).
    rate
        Events per second, all devices together.
    seconds
        How long to report; the run stops by itself.
    seed
        Seed of the random choices (default: unpredictable).
    timeout
        Per-request timeout in seconds.
    dialect
        The platform's built-in dialect (``"opslib"``, ``"chint"``...): its login selector,
        page cap and fleet listing, and only the event kinds it reports.
    fail_product
        A product id: every device of it in the fleet fails first (a fault alarm, then
        offline where the platform reports it) and then stays silent
        (:mod:`opslib.server.failure`); the others report as usual.

    Examples
    --------
    >>> sim = Simulator("http://127.0.0.1:8000", devices=5, rate=10, seconds=3)
    >>> result = sim.run()  # doctest: +SKIP
    """

    def __init__(
        self,
        base_url: str,
        *,
        devices: int = 10,
        rate: float = 5.0,
        seconds: float = 30.0,
        seed: int | None = None,
        timeout: float = 10.0,
        dialect: str = "opslib",
        fail_product: str = "",
    ) -> None:
        if devices < 1:
            raise ValueError(f"devices must be at least 1, got {devices}")
        if not (rate > 0 and math.isfinite(rate)):
            raise ValueError(f"rate must be a positive number of events per second, got {rate}")
        if not (seconds > 0 and math.isfinite(seconds)):
            raise ValueError(f"seconds must be a positive, finite duration, got {seconds}")
        self.base_url = base_url.rstrip("/")
        self.n_devices = devices
        self.rate = float(rate)
        self.seconds = float(seconds)
        self.rng = np.random.default_rng(seed)
        self._timeout = timeout
        self._stop = threading.Event()
        self.devices: list[_Device] = []
        self.dialect = Dialect.named(dialect)
        self.codec = Codec(self.dialect)
        self._kinds = set(self.codec.event_kinds()["kinds"].values())
        self.fail_product = fail_product

    # ----------------------------------------------------------------- platform calls

    def connect(self) -> Client:
        """Log in through the client as the demo ops account (the demo plain user on a
        platform without a whole-fleet listing).

        Returns
        -------
        opslib.Client
            Logged in, speaking the simulator's dialect; close it when done.

        Raises
        ------
        opslib.OpsError
            The platform cannot be reached or refused the login.
        """
        fleet = self.codec.fleet_events
        return connect(
            self.base_url,
            client_id=demo.CLIENT_ID,
            client_secret=demo.CLIENT_SECRET,
            area_code=demo.AREA_CODE,
            phone=demo.OPS_PHONE if fleet else demo.USER_PHONE,
            password=demo.OPS_PASSWORD if fleet else demo.USER_PASSWORD,
            dialect=self.dialect,
            token_cache=False,
            timeout=self._timeout,
            max_retries=0,
            # httpx's own transport, given: no proxy from the environment applies
            transport=httpx.HTTPTransport(),
        )

    def fleet(self, client: Client, *, product_id: str = "") -> list[_Device]:
        """The first ``devices`` devices of the fleet listing (ordered by bind time); the
        caller's own devices on a platform without a whole-fleet listing. With
        ``product_id``, every device of that product instead.

        Parameters
        ----------
        client
            Logged in (:meth:`connect`).
        product_id
            A product: the whole listing is read for its devices.

        Returns
        -------
        list
            The devices with their derived demo secrets, status and properties.
        """
        owner = None if self.codec.fleet_events else client.user_id
        limit = None if product_id else self.n_devices
        frame = client.devices.list(owner, limit=limit, progress=False)
        if product_id:
            frame = frame[frame["product_id"].astype("string") == product_id]
        found = []
        for row in frame.to_dict("records"):
            device_id, status = str(row["device_id"]), row.get("status")
            status = status if isinstance(status, int) else 0  # an empty cell: None
            found.append(_Device(device_id, demo_device_secret(device_id), status, _props(row)))
        return found if product_id else found[: self.n_devices]

    # ----------------------------------------------------------------- the event mix

    def _nudge(self, value: Any, key: str) -> Any:
        rng = self.rng
        if isinstance(value, bool):
            return (not value) if rng.random() < 0.1 else value
        if isinstance(value, int):
            step = max(1, abs(value) // 20)
            new = value + int(rng.integers(-step, step + 1))
            return min(max(new, 0), 100) if key in _PERCENT_KEYS else new
        if isinstance(value, float):
            return round(value + float(rng.normal(0.0, max(0.1, abs(value) * 0.02))), 1)
        return value

    def _next_event(self, device: _Device) -> dict[str, Any]:
        """The device's next event, and its effect on the device's simulated state."""
        rng = self.rng
        connectivity = "connectivity" in self._kinds
        if connectivity and device.status != DeviceStatus.ONLINE:
            device.status = int(DeviceStatus.ONLINE)
            return {"event_type": int(EventType.ONLINE), "properties": {"reason": "reconnect"}}
        u = rng.random()
        if u < 0.03 and not connectivity:
            u = 1.0  # no disconnection there: a property report instead
        if u < 0.03:
            device.status = int(DeviceStatus.OFFLINE)
            return {"event_type": int(EventType.OFFLINE), "properties": {"reason": "network_lost"}}
        if u < 0.035:
            if connectivity:  # a status only a platform with online events moves back
                device.status = int(DeviceStatus.FAULT)
            code, message = _FAULTS[int(rng.integers(len(_FAULTS)))]
            return {
                "event_type": int(EventType.ALARM),
                "code": code,
                "properties": {"level": "fault", "message": message},
            }
        if u < 0.085:
            code, message = _WARNINGS[int(rng.integers(len(_WARNINGS)))]
            return {
                "event_type": int(EventType.ALARM),
                "code": code,
                "properties": {"level": "warning", "message": message},
            }
        if u < 0.115 and "command" in self._kinds:
            command = _COMMANDS[int(rng.integers(len(_COMMANDS)))]
            return {"event_type": int(EventType.COMMAND), "properties": dict(command)}
        if device.properties:
            device.properties = {k: self._nudge(v, k) for k, v in device.properties.items()}
        else:
            device.properties = {"rssi": int(rng.integers(-80, -40))}
        return {"event_type": int(EventType.PROPERTY_REPORT), "properties": dict(device.properties)}

    # ----------------------------------------------------------------- the loop

    def stop(self) -> None:
        """Ask a running :meth:`run` to finish early (thread-safe)."""
        self._stop.set()

    def report_events(
        self, http: httpx.Client, device: _Device, events: list[dict[str, Any]]
    ) -> tuple[int, bool]:
        """Send one device's events; return (accepted, still usable)."""
        body = report_body(device.device_id, device.secret, events)
        try:
            response = http.post(ops.REPORT.path, json=body)
        except httpx.HTTPError:
            return 0, True
        try:
            payload = response.json()
        except ValueError:
            payload = None
        errors = self.codec.errors
        if errors.is_success(response.status_code, payload):
            data = payload.get("data")
            accepted = data.get("accepted", 0) if isinstance(data, dict) else 0
            return int(accepted), True
        header = response.headers.get("Retry-After", "")
        failure = errors.error(
            response.status_code,
            payload,
            operation=ops.REPORT.path,
            retry_after=float(header) if header.isdigit() else None,
        )
        if isinstance(failure, RateLimited):
            wait, longest = _RATE_WAIT_S
            self._stop.wait(min(failure.retry_after or wait, longest))
        return 0, not isinstance(failure, _DEVICE_GONE)

    def run(self, *, out: Callable[[str], Any] | None = None) -> SimulationResult:
        """Log in, pick the devices, report for ``seconds`` seconds, return the counts.

        Parameters
        ----------
        out
            Where progress lines go (default: nowhere).

        Returns
        -------
        SimulationResult
            Requests, events sent and accepted, by type.

        Raises
        ------
        SimulationError
            Login, token exchange or the fleet listing failed, or the fleet is empty.
        """
        result = SimulationResult()
        failing: list[_Device] = []
        try:
            with self.connect() as client:
                self.devices = self.fleet(client)
                if self.fail_product:
                    failing = self.fleet(client, product_id=self.fail_product)
        except (TransportError, httpx.HTTPError) as exc:
            raise SimulationError(f"cannot reach the platform at {self.base_url}: {exc}") from exc
        except OpsError as exc:
            raise SimulationError(f"the platform at {self.base_url} refused: {exc}") from exc
        with httpx.Client(base_url=self.base_url, timeout=self._timeout, trust_env=False) as http:
            if not self.devices:
                raise SimulationError("the fleet listing is empty: nothing to simulate")
            if self.fail_product:
                failed = fail_devices(
                    lambda device, events: self.report_events(http, device, events),
                    failing, result, product=self.fail_product,
                    connectivity="connectivity" in self._kinds, out=out,
                )  # fmt: skip
                self.devices = [d for d in self.devices if d.device_id not in failed]
            if out:
                out(
                    f"simulating {len(self.devices)} devices at {self.rate:g} events/s "
                    f"for {self.seconds:g} s against {self.base_url}"
                )
            self._loop(http, result)
        return result

    def _loop(self, http: httpx.Client, result: SimulationResult) -> None:
        active = list(self.devices)
        weights = self.rng.lognormal(0.0, 0.5, len(active))
        start = time.monotonic()
        deadline = start + self.seconds
        scheduled = 0
        labels = {int(t): t.label for t in EventType}
        while active and not self._stop.is_set():
            now = time.monotonic()
            if now >= deadline:
                break
            due = int(self.rate * (now - start)) - scheduled
            if due <= 0:
                wake = min(start + (scheduled + 1) / self.rate, deadline)
                self._stop.wait(max(0.0, min(wake - now, TICK_S)))
                continue
            due = min(due, MAX_EVENTS_PER_REPORT * len(active))
            scheduled += due
            p = weights / weights.sum()
            picks = np.bincount(self.rng.choice(len(active), size=due, p=p), minlength=len(active))
            dropped: list[int] = []
            for index in np.flatnonzero(picks).tolist():
                device = active[index]
                count = min(int(picks[index]), MAX_EVENTS_PER_REPORT)
                events = [self._next_event(device) for _ in range(count)]
                accepted, usable = self.report_events(http, device, events)
                result.requests += 1
                result.sent += len(events)
                result.accepted += accepted
                if accepted:
                    result.by_type.update(labels[e["event_type"]] for e in events[:accepted])
                else:
                    result.failed_requests += 1
                if not usable:
                    dropped.append(index)
            if dropped:
                keep = [i for i in range(len(active)) if i not in dropped]
                active = [active[i] for i in keep]
                weights = weights[keep]
        result.devices = len(self.devices)
        result.seconds = time.monotonic() - start


def report_body(device_id: str, device_secret: str, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The request of :data:`~opslib.protocol.operations.REPORT` (protocol §6.19): a
    device's credentials and its events, under a new ``message_id`` (not an envelope: a
    device has no user and no token).

    >>> sorted(report_body("dev-1", "s3cret", [{"event_type": 3}]))
    ['device_id', 'device_secret', 'events', 'message_id']
    """
    return {
        "message_id": str(uuid.uuid4()),
        "device_id": device_id,
        "device_secret": device_secret,
        "events": events,
    }


def _props(row: Mapping[Any, Any]) -> dict[str, Any]:
    """A device's latest properties from its frame row's ``properties.*`` cells (an empty
    one is None, NaN or ``pd.NA``), nested again where a member was an object."""
    out: dict[str, Any] = {}
    for column, value in row.items():
        if is_missing(value) or not str(column).startswith(_PROPERTIES):
            continue
        *parents, leaf = str(column)[len(_PROPERTIES) :].split(".")
        target = out
        for name in parents:
            target = target.setdefault(name, {})
        target[leaf] = value
    return out


def simulate_command(
    base_url: str | None,
    *,
    devices: int = 10,
    rate: float = 5.0,
    seconds: float = 30.0,
    dialect: str = "opslib",
    fail_product: str = "",
    demo: bool = False,
    out: Callable[[str], Any] = print,
) -> int:
    """``opslib simulate``: make seeded devices report for a while and print the counts.

    Parameters
    ----------
    base_url
        The running platform (None with ``demo``).
    devices
        How many fleet devices report.
    rate
        Events per second in total.
    seconds
        Duration; the run stops by itself.
    dialect
        The platform's built-in dialect (``opslib server --dialect``).
    fail_product
        A product id whose every device fails first, then stays silent.
    demo
        Report to the embedded demo platform (its database is what ``--demo`` reports read).
    out
        Where the lines go (default ``print``).

    Returns
    -------
    int
        0 when events were accepted, 1 when the platform could not be used or accepted
        nothing, 2 on a bad argument (an unknown ``fail_product`` too).
    """
    try:
        if demo:
            from opslib.client import embedded_platform

            base_url = embedded_platform(Dialect.named(dialect)).base_url
        simulator = Simulator(
            str(base_url), devices=devices, rate=rate, seconds=seconds, dialect=dialect,
            fail_product=fail_product,
        )  # fmt: skip
    except (ValueError, ConfigError) as exc:
        print(f"opslib simulate: {exc}", file=sys.stderr)
        return 2
    try:
        result = simulator.run(out=out)
    except UnknownProduct as exc:
        print(f"opslib simulate: {exc}", file=sys.stderr)
        return 2
    except SimulationError as exc:
        print(f"opslib simulate: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        simulator.stop()
        return 130
    out(result.summary())
    return 0 if result.accepted else 1
