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
events, as ``seed_as_chint`` leaves the demo data. A platform without a whole-fleet
listing has its devices listed per user: the demo plain user's devices report.

It talks only to the ``base_url`` it is given (proxies from the environment are ignored).
"""

from __future__ import annotations

import math
import sys
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import numpy as np

from opslib.dialects import Dialect
from opslib.enums import DeviceStatus, EventType
from opslib.exceptions import ConfigError
from opslib.server import demo
from opslib.server._simresult import SimDevice as _Device
from opslib.server._simresult import SimulationError, SimulationResult, UnknownProduct
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
_DEVICE_GONE = frozenset({401, 404, 100001, 8202})
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
        self._kinds = set(self.dialect.event_kinds.values())
        self.fail_product = fail_product

    # ----------------------------------------------------------------- platform calls

    def _post(self, http: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = http.post(path, json=body)
        payload = response.json()
        if response.status_code != 200 or payload.get("error_code") != 200:
            message = payload.get("error_msg") or payload.get("error_description") or ""
            raise SimulationError(f"{path} answered {response.status_code}: {message}")
        return payload

    def login(self, http: httpx.Client) -> tuple[str, str]:
        """Log in as the demo ops account (the demo plain user on a platform without a
        whole-fleet listing).

        Parameters
        ----------
        http
            A client bound to the platform.

        Returns
        -------
        tuple of str
            ``(user_id, access_token)``.
        """
        # Without a whole-fleet listing, the demo plain user's own devices report.
        fleet = self.dialect.capabilities.fleet_events
        login = self._post(
            http,
            "/user/login",
            {
                "message_id": str(uuid.uuid4()),
                "user_id": "",
                "params": {
                    "client_id": demo.CLIENT_ID,
                    "login_model": self.dialect.selectors["login_model"]["password"],
                    "area_code": demo.AREA_CODE,
                    "phone": demo.OPS_PHONE if fleet else demo.USER_PHONE,
                    "password": demo.OPS_PASSWORD if fleet else demo.USER_PASSWORD,
                },
            },
        )["data"]
        response = http.post(
            "/token/access",
            params={
                "grant_type": "authorization_code",
                "client_id": demo.CLIENT_ID,
                "client_secret": demo.CLIENT_SECRET,
                "code": login["code"],
                "redirect_uri": "none",
            },
        )
        token = response.json()
        if response.status_code != 200 or "access_token" not in token:
            raise SimulationError(
                f"/token/access answered {response.status_code}: "
                f"{token.get('error_description', '')}"
            )
        return str(login["user_id"]), str(token["access_token"])

    def fleet(
        self, http: httpx.Client, user_id: str, token: str, *, product_id: str = ""
    ) -> list[_Device]:
        """The first ``devices`` devices of the fleet listing (ordered by bind time), or
        every device of ``product_id``.

        Parameters
        ----------
        http
            A client bound to the platform.
        user_id, token
            The ops account's user_id and access token.
        product_id
            Every device of this product instead (the whole listing is read).

        Returns
        -------
        list
            The devices with their derived demo secrets, status and properties.
        """
        found: list[_Device] = []
        limit = math.inf if product_id else self.n_devices
        page_size = int(min(self.dialect.paging.max_page_size, limit))
        owner = "" if self.dialect.capabilities.fleet_events else user_id
        page_no = 1
        while len(found) < limit:
            data = self._post(
                http,
                "/device/query_by_user",
                {
                    "message_id": str(uuid.uuid4()),
                    "user_id": user_id,
                    "params": {
                        "access_token": token,
                        "user_id": owner,
                        "page_no": page_no,
                        "page_size": page_size,
                    },
                },
            )["data"]
            listed = data.get("device_list") or []
            for item in listed:
                if product_id and item.get("product_id") != product_id:
                    continue
                found.append(
                    _Device(
                        device_id=item["device_id"],
                        secret=demo_device_secret(item["device_id"]),
                        status=int(item.get("status") or 0),
                        properties=dict(item.get("properties") or {}),
                    )
                )
            if len(listed) < page_size or page_no * page_size >= int(data.get("total", 0)):
                break
            page_no += 1
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
        body = {
            "message_id": str(uuid.uuid4()),
            "device_id": device.device_id,
            "device_secret": device.secret,
            "events": events,
        }
        try:
            response = http.post("/device/report", json=body)
        except httpx.HTTPError:
            return 0, True
        try:
            payload = response.json()
        except ValueError:
            payload = {}
        code = payload.get("error_code", response.status_code)
        if response.status_code == 200 and code == 200:
            return int((payload.get("data") or {}).get("accepted", 0)), True
        if code == 429:
            retry = float(response.headers.get("Retry-After", "1") or 1)
            self._stop.wait(min(retry, 5.0))
        # 401/404 (the chint codes 100001/8202 in a 200): not a seeded device (its own
        # secret) or gone: drop it.
        return 0, code not in _DEVICE_GONE

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
        with httpx.Client(base_url=self.base_url, timeout=self._timeout, trust_env=False) as http:
            try:
                user_id, token = self.login(http)
                self.devices = self.fleet(http, user_id, token)
            except (httpx.HTTPError, ValueError, KeyError) as exc:
                raise SimulationError(
                    f"cannot reach the platform at {self.base_url}: {exc}"
                ) from exc
            if not self.devices:
                raise SimulationError("the fleet listing is empty: nothing to simulate")
            if self.fail_product:
                from opslib.server.failure import fail_product

                failed = fail_product(self, http, user_id, token, result, out=out)
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
        0 when events were accepted (or devices failed), 1 when the platform could not be
        used or accepted nothing, 2 on a bad argument (an unknown ``fail_product`` too).
    """
    try:
        if demo:
            from opslib.client._embedded import embedded_platform

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
