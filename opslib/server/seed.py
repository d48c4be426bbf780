"""Deterministic generator of demo data for the reference platform (``opslib seed``).

The same ``seed_value`` and ``until`` always give byte-identical table contents: every
random choice, every id and every timestamp comes from one
``numpy.random.default_rng(seed_value)`` drawn in a fixed order, and nothing reads the clock
but the default of ``until``.

What it writes (every scale):

- the demo client, the ops account (role 2), the admin account (role 3) and a plain demo user
  with about ten devices and their events, with the credentials of :mod:`opslib.server.demo`;
  the other users have phones ``5551000000 + n`` and the demo user password. **This is demo
  data**: argon2id is slow on purpose (~50 ms a hash), so each *distinct* password is hashed
  once, with a salt drawn from the generator, and the hash string is shared by every seeded
  user with that password. A real platform never shares salts;
- a settings row for every user;
- a catalogue (lighting, sensors, gateways, sockets & plugs, cameras, climate) whose
  products have realistic network, node, encryption, status and popularity spreads;
- devices with MAC addresses, SDK and firmware versions (most on the latest firmware, rolled
  out during the window, a tail on older ones), network addresses, a latest-state
  ``properties`` object matching their last property report, and ``gmt_last_seen`` equal to
  their last event; about 3 % never came online (no events, ``gmt_last_seen`` NULL) and 1 %
  are unbound stock;
- bindings: one owner per bound device, about 10 % also shared with another user;
- events over the last ``days`` ending at ``until``: a day/night cycle (a sinusoid over the
  local hour, UTC-5), a few noisy devices with 2-5 % of all events each, downtime episodes
  (an offline event or a fault alarm, later an online event, nothing in between), warning
  alarms, commands and a firmware rollout. A device's ``status`` is the one its events imply
  under protocol §6.19 (online → 1, offline → 2, ``F`` alarm → 3).

Events are generated one day at a time, so memory stays bounded at any scale.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from argon2 import PasswordHasher
from argon2.low_level import hash_secret

from opslib.enums import DeviceStatus, EncryptType, EventType, NetType, NodeType, Role
from opslib.server import demo, store
from opslib.server.security import demo_device_secret, sha256_hex
from opslib.server.store import bulk

__all__ = ["SCALES", "DatabaseNotEmptyError", "Scale", "seed_command", "seed_database"]

DAY_MS = 86_400_000
HOUR_MS = 3_600_000
MINUTE_MS = 60_000
BUCKET_MS = 600_000
LOCAL_UTC_OFFSET_H = -5  # the fleet lives mostly in UTC-5 (area code 1)
SEEDED_PHONE_BASE = 5_551_000_000
ICON_BASE = "https://cdn.opslib.example/icons"
AVATAR_BASE = "https://cdn.opslib.example/avatars"

I64 = np.int64
IntArray = np.ndarray[Any, np.dtype[np.int64]]
FloatArray = np.ndarray[Any, np.dtype[np.float64]]
BoolArray = np.ndarray[Any, np.dtype[np.bool_]]
ObjArray = np.ndarray[Any, np.dtype[np.object_]]


class DatabaseNotEmptyError(RuntimeError):
    """The target database already holds users; seeding would mix generated and real data."""


@dataclass(frozen=True)
class Scale:
    """How much data a scale generates.

    Attributes
    ----------
    name
        ``small``, ``demo`` or ``large``.
    categories, products, users, devices, events
        Row counts (``users`` includes the ops, admin and demo accounts).
    days
        Length of the event window ending at ``until``.
    """

    name: str
    categories: int
    products: int
    users: int
    devices: int
    events: int
    days: int


SCALES: dict[str, Scale] = {
    "small": Scale("small", 3, 8, 20, 60, 400, 3),
    "demo": Scale("demo", 6, 40, 500, 5_000, 1_000_000, 30),
    "large": Scale("large", 6, 60, 5_000, 50_000, 20_000_000, 30),
    # benchmarks: the fleet of 50,000 devices with demo's million events (seeds in seconds)
    "bench": Scale("bench", 6, 60, 5_000, 50_000, 1_000_000, 30),
}

# --------------------------------------------------------------------------- catalogue


@dataclass(frozen=True)
class _Category:
    kind: str  # lighting | sensors | gateways | sockets | cameras | climate
    name: str
    short: str  # product_id infix
    weight: float  # share of the fleet
    activity: float  # relative event volume of one device
    command_p: float  # share of a device's events that are commands
    alarm_p: float  # share that are warning alarms
    firmware: tuple[str, ...]  # releases, oldest first; the last is rolled out in the window
    products: tuple[tuple[str, int, int], ...]  # (name, net_type, node_type)


_W, _B, _Z, _C, _E = (
    int(NetType.WIFI),
    int(NetType.BLE),
    int(NetType.ZIGBEE),
    int(NetType.CELLULAR),
    int(NetType.ETHERNET),
)
_D, _G, _S = int(NodeType.DIRECT), int(NodeType.GATEWAY), int(NodeType.SUB_DEVICE)

# Order matters: the small scale takes the first three (lighting, sensors, gateways).
# fmt: off
CATEGORIES: tuple[_Category, ...] = (
    _Category("lighting", "Lighting", "light", 0.28, 1.0, 0.12, 0.01,
              ("1.3.8", "1.4.2", "1.5.0", "2.0.1"),
              (("Smart Bulb A19", _W, _D), ("LED Light Strip", _W, _D),
               ("Zigbee Bulb E27", _Z, _S), ("Ceiling Light 40W", _W, _D),
               ("Smart Desk Lamp", _W, _D), ("BLE Mesh Spotlight GU10", _B, _S),
               ("Outdoor Floodlight", _W, _D), ("Zigbee Dimmer Switch", _Z, _S))),
    _Category("sensors", "Sensors", "sensor", 0.25, 1.6, 0.01, 0.03,
              ("2.1.0", "2.2.4", "2.3.1", "3.0.0"),
              (("Temperature & Humidity Sensor", _Z, _S), ("Door & Window Sensor", _Z, _S),
               ("Smoke Detector", _W, _D), ("Motion Sensor", _Z, _S),
               ("Water Leak Sensor", _Z, _S), ("Air Quality Monitor", _W, _D),
               ("BLE Thermometer", _B, _S), ("Vibration Sensor", _Z, _S))),
    _Category("gateways", "Gateways", "gw", 0.07, 0.6, 0.02, 0.015,
              ("4.0.3", "4.1.0", "4.2.2"),
              (("Zigbee Hub", _E, _G), ("BLE Mesh Gateway", _W, _G),
               ("Multi-protocol Gateway Pro", _E, _G), ("4G Gateway", _C, _G),
               ("Mini Zigbee Bridge", _W, _G), ("Home Hub 2", _E, _G),
               ("Thread Border Router", _E, _G), ("Outdoor LoRa Gateway", _C, _G))),
    _Category("sockets", "Sockets & plugs", "plug", 0.22, 1.2, 0.10, 0.01,
              ("1.0.9", "1.1.5", "1.2.0"),
              (("Smart Plug", _W, _D), ("Smart Plug Mini", _W, _D),
               ("Power Strip 4-outlet", _W, _D), ("In-wall Socket", _W, _D),
               ("Energy Monitor Plug", _Z, _S), ("Outdoor Plug", _W, _D),
               ("Zigbee Plug", _Z, _S), ("USB Charging Socket", _W, _D))),
    _Category("cameras", "Cameras", "cam", 0.10, 0.8, 0.05, 0.02,
              ("5.2.1", "5.3.0", "5.4.2", "6.0.0"),
              (("Indoor Camera", _W, _D), ("Outdoor Camera", _W, _D),
               ("Video Doorbell", _W, _D), ("Pan-Tilt Camera", _W, _D),
               ("PoE Bullet Camera", _E, _D), ("Baby Monitor", _W, _D),
               ("4G Trail Camera", _C, _D), ("Dome Camera", _E, _D))),
    _Category("climate", "Climate", "climate", 0.08, 1.0, 0.10, 0.015,
              ("3.0.2", "3.1.1", "3.2.0"),
              (("Smart Thermostat", _W, _D), ("AC Controller", _W, _D),
               ("Radiator Valve", _Z, _S), ("Dehumidifier", _W, _D),
               ("Air Purifier", _W, _D), ("Ceiling Fan Controller", _W, _D),
               ("Smart Heater", _W, _D), ("Humidifier", _W, _D))),
)
# fmt: on

_SDK_RELEASES: dict[int, tuple[str, ...]] = {
    _W: ("3.2.0", "3.3.1", "3.4.2", "4.0.1"),
    _B: ("1.8.4", "2.0.0", "2.1.3"),
    _Z: ("3.0.1", "3.1.0", "3.2.2"),
    _C: ("5.1.0", "5.2.3"),
    _E: ("2.4.0", "2.5.1"),
}

_FIRST_NAMES = (
    "Alex",
    "Sam",
    "Jordan",
    "Taylor",
    "Morgan",
    "Casey",
    "Riley",
    "Jamie",
    "Avery",
    "Quinn",
    "Maria",
    "James",
    "Linda",
    "Robert",
    "Emma",
    "Noah",
    "Olivia",
    "Liam",
    "Ava",
    "Lucas",
    "Mia",
    "Ethan",
    "Sofia",
    "Mason",
    "Chloe",
    "Logan",
    "Grace",
    "Owen",
    "Zoe",
    "Henry",
)
_LAST_INITIALS = "ABCDEFGHIJKLMNOPRSTVWY"
_ROOMS = (
    "Living room",
    "Kitchen",
    "Bedroom",
    "Office",
    "Hallway",
    "Garage",
    "Porch",
    "Kids room",
    "Bathroom",
    "Basement",
    "Attic",
    "Garden",
)
_DEVICE_NOUNS = {
    "lighting": ("lamp", "ceiling light", "light strip", "bulb"),
    "sensors": ("sensor", "thermometer", "detector"),
    "gateways": ("hub", "gateway"),
    "sockets": ("plug", "socket", "power strip"),
    "cameras": ("camera", "cam"),
    "climate": ("thermostat", "AC", "purifier", "fan"),
}

_WARNINGS: dict[str, tuple[tuple[str, str, float], ...]] = {
    # kind -> (code, message, weight)
    "lighting": (("E102", "high temperature", 1.0), ("E103", "weak signal", 3.0)),
    "sensors": (
        ("E101", "low battery", 4.0),
        ("E103", "weak signal", 2.0),
        ("E107", "humidity out of range", 1.0),
    ),
    "gateways": (("E103", "weak signal", 1.0), ("E106", "sub-device unreachable", 3.0)),
    "sockets": (
        ("E102", "high temperature", 1.0),
        ("E103", "weak signal", 2.0),
        ("E104", "overload", 2.0),
    ),
    "cameras": (("E103", "weak signal", 2.0), ("E105", "storage almost full", 2.0)),
    "climate": (
        ("E102", "high temperature", 1.0),
        ("E103", "weak signal", 1.0),
        ("E107", "humidity out of range", 2.0),
    ),
}
_FAULTS = (
    ("F201", "hardware failure", 1.0),
    ("F202", "overheat shutdown", 1.0),
    ("F203", "sensor failure", 1.0),
    ("F204", "power supply fault", 2.0),
)
_OFFLINE_REASONS = (("heartbeat_timeout", 6.0), ("power_loss", 2.0), ("network_lost", 2.0))
_COMMAND_SOURCES = (("app", 0.55), ("automation", 0.25), ("schedule", 0.12), ("voice", 0.08))
_COMMAND_VALUES: dict[str, tuple[str, ...]] = {
    "bool": ("true", "false"),
    "pct": tuple(str(5 * k) for k in range(2, 21)),
    "ct": ("2700", "3000", "4000", "5000", "6500"),
    "temp": tuple(f"{18 + k / 2:.1f}" for k in range(17)),
    "sec": ("30", "60", "300", "600"),
    "min": ("15", "30", "60", "120"),
    "mode": ('"cool"', '"heat"', '"auto"', '"fan"'),
    "none": ("",),
}
_COMMANDS: dict[str, tuple[tuple[str, str, float], ...]] = {
    "lighting": (
        ("set_power", "bool", 5.0),
        ("set_brightness", "pct", 3.0),
        ("set_color_temp", "ct", 1.0),
    ),
    "sensors": (("set_report_interval", "sec", 1.0),),
    "gateways": (("permit_join", "sec", 2.0), ("reboot", "none", 1.0)),
    "sockets": (("set_power", "bool", 5.0), ("set_timer", "min", 1.0)),
    "cameras": (("snapshot", "none", 3.0), ("set_recording", "bool", 2.0), ("reboot", "none", 0.5)),
    "climate": (
        ("set_power", "bool", 3.0),
        ("set_target_temp", "temp", 4.0),
        ("set_mode", "mode", 1.0),
    ),
}
_LIGHTING_JSON = '{"power":%s,"brightness":%d,"color_temp":%d}'
_SOCKET_JSON = '{"power":%s,"watts":%.1f,"voltage":%.1f}'
_SENSOR_JSON = '{"temperature":%.1f,"humidity":%d,"battery":%d}'
_CAMERA_JSON = '{"recording":%s,"motion":%s,"bitrate_kbps":%d}'
_CLIMATE_JSON = '{"power":%s,"mode":"%s","target_temp":%.1f,"current_temp":%.1f}'
_GATEWAY_JSON = '{"sub_devices":%d,"rssi":%d,"uptime_h":%d}'
_CLIMATE_MODES = ("cool", "heat", "auto", "fan")


def _choice_table(entries: list[tuple[str, float]]) -> tuple[ObjArray, FloatArray]:
    strings = np.empty(len(entries), dtype=object)
    strings[:] = [s for s, _ in entries]
    weights = np.array([w for _, w in entries], dtype=np.float64)
    return strings, weights / weights.sum()


def _command_table(kind: str) -> tuple[ObjArray, FloatArray]:
    entries: list[tuple[str, float]] = []
    for name, value_kind, weight in _COMMANDS[kind]:
        values = _COMMAND_VALUES[value_kind]
        for source, source_weight in _COMMAND_SOURCES:
            for value in values:
                if value_kind == "none":
                    text = f'{{"command":"{name}","source":"{source}"}}'
                else:
                    text = f'{{"command":"{name}","value":{value},"source":"{source}"}}'
                entries.append((text, weight * source_weight / len(values)))
    return _choice_table(entries)


def _alarm_table(
    codes: tuple[tuple[str, str, float], ...], level: str
) -> tuple[ObjArray, ObjArray, FloatArray]:
    code_arr = np.empty(len(codes), dtype=object)
    code_arr[:] = [c for c, _, _ in codes]
    props, weights = _choice_table(
        [(f'{{"level":"{level}","message":"{m}"}}', w) for _, m, w in codes]
    )
    return code_arr, props, weights


# --------------------------------------------------------------------------- helpers


def _unique_ids(rng: np.random.Generator, n: int, prefix: str, hex_digits: int) -> list[str]:
    """``n`` distinct ids ``prefix`` + ``hex_digits`` hex digits drawn from ``rng``."""
    values = rng.choice(1 << (4 * hex_digits), size=n, replace=False)
    return [f"{prefix}{v:0{hex_digits}x}" for v in values.tolist()]


def _scramble(seq: np.ndarray[Any, np.dtype[np.uint64]], key: np.uint64) -> np.ndarray[Any, Any]:
    """A bijection of uint64 (splitmix64's finaliser): distinct inputs, distinct ids."""
    z = seq + key
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _hex16(values: np.ndarray[Any, Any], prefix: str) -> list[str]:
    text = values.astype(">u8").tobytes().hex()
    return [prefix + text[i : i + 16] for i in range(0, len(text), 16)]


def _obj(values: list[str]) -> ObjArray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _hash_password(password: str, salt: bytes) -> str:
    """argon2id with argon2-cffi's default parameters and a given (generated) salt."""
    hasher = PasswordHasher()
    return hash_secret(
        password.encode("utf-8"),
        salt,
        time_cost=hasher.time_cost,
        memory_cost=hasher.memory_cost,
        parallelism=hasher.parallelism,
        hash_len=hasher.hash_len,
        type=hasher.type,
    ).decode("ascii")


def _last_positions(values: IntArray) -> tuple[IntArray, IntArray]:
    """Distinct ``values`` and the position of the last occurrence of each."""
    uniq, first_rev = np.unique(values[::-1], return_index=True)
    return uniq, len(values) - 1 - first_rev


def _local_hour(ts: IntArray) -> FloatArray:
    return np.asarray(((ts / HOUR_MS) + LOCAL_UTC_OFFSET_H) % 24.0, dtype=np.float64)


def _json_bool(mask: BoolArray) -> list[str]:
    out: list[str] = np.where(mask, "true", "false").tolist()
    return out


# --------------------------------------------------------------------------- the generator


@dataclass
class _Fleet:
    """Per-device arrays (index = device number) the event generator reads."""

    kind: ObjArray  # category kind per device
    kind_code: IntArray  # index into CATEGORIES
    owner: IntArray  # user index, -1 for unbound stock
    t0: IntArray  # first moment an event may happen (in window)
    t1: IntArray  # last moment (online: until; offline/fault: when it went down)
    ever_online: BoolArray
    weight: FloatArray
    alarm_p: FloatArray
    command_p: FloatArray
    params: dict[str, np.ndarray[Any, Any]] = field(default_factory=dict)


class _Generator:
    def __init__(self, scale: Scale, seed_value: int, until_ms: int) -> None:
        self.scale = scale
        self.rng = np.random.default_rng(seed_value)
        self.until = until_ms
        self.window = scale.days * DAY_MS
        self.start = until_ms - self.window
        if self.window >= 1 << 32:
            raise ValueError("the event window must be shorter than 49 days")

    # ----------------------------------------------------------------- catalogue

    def catalogue(self) -> None:
        rng, s = self.rng, self.scale
        cats = CATEGORIES[: s.categories]
        self.categories = [
            (i + 1, c.name, f"{ICON_BASE}/categories/{c.kind}.svg") for i, c in enumerate(cats)
        ]
        per_cat = [
            s.products // len(cats) + (1 if i < s.products % len(cats) else 0)
            for i in range(len(cats))
        ]
        rows: list[tuple[Any, ...]] = []
        cat_of, node_of, net_of, status_of, weight_of = [], [], [], [], []
        for ci, (cat, count) in enumerate(zip(cats, per_cat, strict=True)):
            for j in range(count):
                name, net, node = cat.products[j % len(cat.products)]
                if j >= len(cat.products):
                    name = f"{name} Gen {j // len(cat.products) + 1}"
                product_id = f"p-{cat.short}-{j + 1:02d}"
                status = 1 if j == 0 else int(rng.choice(3, p=[0.1, 0.8, 0.1]))
                popular = int(status == 1 and rng.random() < 0.3)
                if cat.kind == "cameras" or net in (_C, _E):
                    encrypt = int(EncryptType.TLS)
                elif node == _S:
                    encrypt = int(rng.choice(3, p=[0.05, 0.9, 0.05]))
                else:
                    encrypt = int(rng.choice(3, p=[0.1, 0.3, 0.6]))
                vendor = int(rng.choice([0, 1, 2, 10, 20], p=[0.4, 0.25, 0.15, 0.1, 0.1]))
                created = self.until - int(rng.integers(400, 1000)) * DAY_MS
                created += int(rng.integers(0, DAY_MS))
                modified = created + int(rng.random() * (self.until - created) * 0.6)
                secret = rng.bytes(16).hex()
                rows.append(
                    (
                        product_id,
                        sha256_hex(secret),
                        name,
                        f"{ICON_BASE}/products/{product_id}.png",
                        ci + 1,
                        vendor,
                        net,
                        encrypt,
                        node,
                        status,
                        popular,
                        created,
                        modified,
                    )
                )
                base = float(rng.lognormal(0.0, 0.6)) * (2.0 if popular else 1.0)
                weight = {0: 0.0, 1: base, 2: 0.25 * base}[status]
                cat_of.append(ci)
                node_of.append(node)
                net_of.append(net)
                status_of.append(status)
                weight_of.append(weight)
        self.products = rows
        self.product_ids = [r[0] for r in rows]
        self.product_cat = np.array(cat_of, dtype=I64)
        self.product_node = np.array(node_of, dtype=I64)
        self.product_net = np.array(net_of, dtype=I64)
        self.product_status = np.array(status_of, dtype=I64)
        w = np.array(weight_of, dtype=np.float64)
        cat_w = np.array([c.weight for c in cats])
        for ci in range(len(cats)):
            in_cat = self.product_cat == ci
            if w[in_cat].sum() > 0:
                w[in_cat] *= cat_w[ci] / w[in_cat].sum()
        self.product_weight = w / w.sum()
        self.cats = cats

    # ----------------------------------------------------------------- users

    def users(self) -> None:
        rng, s = self.rng, self.scale
        n = max(s.users, 3)
        self.n_users = n
        uids = _unique_ids(rng, n, "u-", 12)
        self.user_ids = uids
        salts = {
            p: rng.bytes(16)
            for p in (
                demo.OPS_PASSWORD,
                demo.ADMIN_PASSWORD,
                demo.USER_PASSWORD,
                demo.SEEDED_USER_PASSWORD,
            )
        }
        hashes = {p: _hash_password(p, salt) for p, salt in salts.items()}
        until = self.until

        # Sign-ups spread over ~2.5 years, more of them recently.
        register = until - 900 * DAY_MS + (rng.beta(1.6, 1.0, n) * 899 * DAY_MS).astype(I64)
        register[0] = until - 820 * DAY_MS + int(rng.integers(0, DAY_MS))
        register[1] = until - 810 * DAY_MS + int(rng.integers(0, DAY_MS))
        register[2] = until - 400 * DAY_MS + int(rng.integers(0, DAY_MS))
        modified = register + (rng.random(n) * (until - register) * 0.5).astype(I64)
        logged_in = rng.random(n) < 0.9
        logged_in[:3] = True
        last_login = until - (rng.exponential(5 * DAY_MS, n)).astype(I64)
        last_login = np.maximum(last_login, modified)
        logged_out = logged_in & (rng.random(n) < 0.25)
        logout = register + (rng.random(n) * (last_login - register)).astype(I64)
        status = rng.choice(3, size=n, p=[0.97, 0.02, 0.01]) + 1
        status[:3] = 1
        has_identity = rng.random(n) < 0.4
        has_nick = rng.random(n) < 0.7
        has_avatar = rng.random(n) < 0.3
        has_network = rng.random(n) < 0.5
        first = rng.integers(0, len(_FIRST_NAMES), n)
        last = rng.integers(0, len(_LAST_INITIALS), n)
        wifi_pw = [rng.bytes(9).hex() for _ in range(n)]
        ssid_tag = rng.integers(0, 1 << 16, n)

        rows: list[tuple[Any, ...]] = []
        phones: list[str] = []
        roles: list[int] = []
        for i in range(n):
            if i == 0:
                phone, role, pw, nick = demo.OPS_PHONE, Role.OPS, demo.OPS_PASSWORD, "Ops desk"
            elif i == 1:
                phone, role, pw = demo.ADMIN_PHONE, Role.ADMIN, demo.ADMIN_PASSWORD
                nick = "Platform admin"
            elif i == 2:
                phone, role, pw, nick = demo.USER_PHONE, Role.USER, demo.USER_PASSWORD, "Demo User"
            else:
                phone = str(SEEDED_PHONE_BASE + i - 3)
                role, pw = Role.USER, demo.SEEDED_USER_PASSWORD
                nick = f"{_FIRST_NAMES[first[i]]} {_LAST_INITIALS[last[i]]}." if has_nick[i] else ""
            identity = (
                f"{_FIRST_NAMES[first[i]].lower()}.{_LAST_INITIALS[last[i]].lower()}{i}"
                if has_identity[i] or i == 2
                else None
            )
            avatar = f"{AVATAR_BASE}/{uids[i]}.png" if has_avatar[i] else ""
            if has_network[i] or i == 2:
                ssid, net_pw = f"Home-{ssid_tag[i]:04X}", wifi_pw[i]
            else:
                ssid, net_pw = "", ""
            rows.append(
                (
                    uids[i],
                    demo.AREA_CODE,
                    phone,
                    hashes[pw],
                    int(role),
                    int(status[i]),
                    identity,
                    nick,
                    avatar,
                    ssid,
                    net_pw,
                    int(register[i]),
                    int(modified[i]),
                    int(last_login[i]) if logged_in[i] else None,
                    int(logout[i]) if logged_out[i] else None,
                )
            )
            phones.append(phone)
            roles.append(int(role))
        self.user_rows = rows
        self.user_register = register

        page = rng.choice([10, 20, 50], size=n, p=[0.15, 0.7, 0.15])
        recv_sys = rng.random(n) < 0.85
        recv_dev = rng.random(n) < 0.92
        dnd = rng.random(n) < 0.25
        dnd_start = rng.choice([1260, 1320, 1380], size=n)
        dnd_end = rng.choice([360, 420, 480], size=n)
        unread = rng.poisson(2.0, n)
        s_modified = register + (rng.random(n) * (until - register)).astype(I64)
        self.settings_rows = [
            (
                uids[i],
                int(page[i]),
                int(recv_sys[i]),
                int(recv_dev[i]),
                int(dnd[i]),
                int(dnd_start[i]),
                int(dnd_end[i]),
                int(unread[i]),
                int(s_modified[i]),
            )
            for i in range(n)
        ]

    # ----------------------------------------------------------------- devices

    def devices(self) -> None:
        rng, s = self.rng, self.scale
        n = s.devices
        self.n_devices = n
        dev_ids = _unique_ids(rng, n, "dev-", 12)
        self.device_ids = dev_ids
        released = np.flatnonzero(self.product_status == 1)

        # Products: the demo user's ~10 devices are a hand-picked household.
        n_stock = max(1, round(0.01 * n))
        n_bound = n - n_stock
        n_demo = min(10, n_bound)
        product = rng.choice(len(self.product_ids), size=n, p=self.product_weight)
        demo_products = self._demo_products(released, n_demo)
        product[:n_demo] = demo_products

        # Owners: the plain users (index 3..) own devices with heavy-tailed household sizes.
        owner = np.full(n, -1, dtype=I64)
        owner[:n_demo] = 2
        others = np.arange(3, self.n_users)
        if len(others):
            uw = rng.lognormal(0.0, 0.9, len(others))
            owner[n_demo:n_bound] = rng.choice(others, size=n_bound - n_demo, p=uw / uw.sum())
        else:
            owner[n_demo:n_bound] = 2

        # Every owner of a sub-device also owns a gateway: convert one of their devices.
        node = self.product_node[product]
        gateways = released[self.product_node[released] == _G]
        if len(gateways):
            bound_idx = np.arange(n_bound)
            has_sub = np.bincount(owner[bound_idx][node[bound_idx] == _S], minlength=self.n_users)
            has_gw = np.bincount(owner[bound_idx][node[bound_idx] == _G], minlength=self.n_users)
            need = (has_sub > 0) & (has_gw == 0)
            need[2] = False
            order = np.argsort(owner[n_demo:n_bound], kind="stable") + n_demo
            users_sorted = owner[order]
            firsts, first_pos = np.unique(users_sorted, return_index=True)
            convert = order[first_pos[need[firsts]]]
            product[convert] = rng.choice(gateways, size=len(convert))
            node = self.product_node[product]
        cat = self.product_cat[product]
        self.device_product = product
        self.device_cat = cat
        self.device_owner = owner
        self.is_sub = node == _S

        # Binding times: after the owner registered, within the last two years.
        until = self.until
        reg = np.where(owner >= 0, self.user_register[np.maximum(owner, 0)], until - 60 * DAY_MS)
        lo = np.maximum(reg, until - 730 * DAY_MS)
        bind = lo + (rng.random(n) * (until - 10 * MINUTE_MS - lo)).astype(I64)
        # The demo household was set up well before the window.
        demo_hi = self.start - 5 * DAY_MS
        bind[:n_demo] = np.minimum(bind[:n_demo], demo_hi - rng.integers(0, 200 * DAY_MS, n_demo))
        bind[:n_demo] = np.maximum(bind[:n_demo], reg[:n_demo] + HOUR_MS)
        created = bind - rng.integers(HOUR_MS, 90 * DAY_MS, n)
        stock = np.arange(n_bound, n)
        created[stock] = until - rng.integers(HOUR_MS, 60 * DAY_MS, n_stock)
        self.device_bind = bind
        self.device_created = created

        # Never online: the stock plus ~2 % bound but never powered up.
        ever = np.ones(n, dtype=bool)
        ever[stock] = False
        n_never = max(1, round(0.02 * n))
        candidates = np.arange(n_demo, n_bound)
        ever[rng.choice(candidates, size=min(n_never, len(candidates)), replace=False)] = False
        self.ever_online = ever

        # Target status of the devices that came online, then their active span.
        status = np.zeros(n, dtype=I64)
        status[ever] = rng.choice([1, 2, 3], size=int(ever.sum()), p=[0.72, 0.24, 0.04])
        if n_demo == 10:
            status[:10] = [1, 1, 1, 1, 1, 1, 1, 1, 2, 3]
        t0 = np.maximum(self.start, bind + 30_000)
        activated = ever & (bind >= self.start)
        t0[activated] = bind[activated] + rng.integers(5_000, 120_000, int(activated.sum()))
        t1 = np.full(n, until, dtype=I64)
        down = ever & (status != 1)
        mean_last = self.window / 5.0
        t1_recent = until - rng.exponential(mean_last, n).astype(I64)
        t1_recent = np.clip(t1_recent, t0 + MINUTE_MS, until - MINUTE_MS)
        dormant = (
            down
            & (status == 2)
            & (rng.random(n) < 0.12)
            & (bind < self.start - 2 * DAY_MS)
            & (np.arange(n) >= n_demo)
        )
        span_before = np.minimum(180 * DAY_MS, self.start - bind - HOUR_MS)
        t1_dormant = self.start - HOUR_MS - (rng.random(n) * np.maximum(span_before, 0)).astype(I64)
        t1 = np.where(down, np.where(dormant, t1_dormant, t1_recent), t1)
        # A device bound so late that it cannot fit a downtime stays online.
        too_late = down & ~dormant & (t1 <= t0)
        status[too_late] = 1
        t1[too_late] = until
        self.device_status = status
        self.dormant = dormant

        kinds = np.array([c.kind for c in self.cats], dtype=object)
        weight = rng.lognormal(0.0, 1.0, n) * np.array([c.activity for c in self.cats])[cat]
        weight[:n_demo] *= 2.0
        weight[~ever | dormant] = 0.0
        alarm_p = np.array([c.alarm_p for c in self.cats])[cat]
        command_p = np.array([c.command_p for c in self.cats])[cat]
        self.fleet = _Fleet(
            kind=kinds[cat],
            kind_code=cat,
            owner=owner,
            t0=t0,
            t1=t1,
            ever_online=ever,
            weight=weight,
            alarm_p=alarm_p,
            command_p=command_p,
        )
        self._device_params(n)
        self._noisy(n_demo)
        self._device_columns(n, n_bound, n_demo)

    def _demo_products(self, released: IntArray, n_demo: int) -> IntArray:
        """A household: one gateway, then released products of the other categories in turn."""
        picks: list[int] = []
        gateways = [int(p) for p in released if self.product_node[p] == _G]
        if gateways:
            picks.append(gateways[0])
        by_cat = [
            [int(p) for p in released if self.product_cat[p] == ci and self.product_node[p] != _G]
            for ci in range(len(self.cats))
        ]
        for round_no in range(max(len(lst) for lst in by_cat)):
            picks += [lst[round_no] for lst in by_cat if round_no < len(lst)]
        picks = picks or [int(released[0])]
        while len(picks) < n_demo:  # a tiny catalogue: repeat products
            picks += picks
        return np.array(picks[:n_demo], dtype=I64)

    def _device_params(self, n: int) -> None:
        rng, f = self.rng, self.fleet
        sub_per_owner = np.bincount(f.owner[(f.owner >= 0) & self.is_sub], minlength=self.n_users)
        f.params = {
            "temp_base": rng.normal(21.5, 1.5, n),
            "hum_base": rng.normal(45.0, 7.0, n),
            "batt0": rng.uniform(35.0, 100.0, n),
            "drain": rng.uniform(0.05, 0.6, n),
            "rated_w": rng.choice([60.0, 150.0, 400.0, 800.0, 1500.0], size=n)
            * rng.uniform(0.8, 1.2, n),
            "color_temp": rng.choice([2700, 3000, 4000, 5000, 6500], size=n),
            "mode": rng.choice(len(_CLIMATE_MODES), size=n, p=[0.45, 0.25, 0.25, 0.05]),
            "target": np.round(rng.normal(22.0, 1.5, n) * 2) / 2,
            "rssi": rng.integers(-80, -40, n),
            "bitrate": rng.choice([512, 1024, 2048, 4096], size=n),
            "boot": f.t0 - rng.integers(HOUR_MS, 40 * DAY_MS, n),
            "sub_count": sub_per_owner[np.maximum(f.owner, 0)],
        }

    def _noisy(self, n_demo: int) -> None:
        """~5 devices that produce 2-5 % of all events each (one of them flapping alarms)."""
        rng, f = self.rng, self.fleet
        eligible = np.flatnonzero(
            (self.device_status == 1) & (self.device_bind < self.start) & f.ever_online
        )
        eligible = eligible[eligible >= n_demo]
        k = min(5, len(eligible) // 10)
        self.noisy = rng.choice(eligible, size=k, replace=False) if k else np.zeros(0, I64)
        self.noisy_share = rng.uniform(0.02, 0.05, k)
        if k:
            f.alarm_p[self.noisy[0]] = 0.35

    def _device_columns(self, n: int, n_bound: int, n_demo: int) -> None:
        """MAC, SDK, network address, nick name (the firmware comes with the events)."""
        rng = self.rng
        product = self.device_product
        n_prod = len(self.product_ids)
        oui = rng.integers(0, 1 << 24, n_prod) & 0xFCFFFF  # unicast, globally administered
        nic = np.zeros(n, dtype=I64)
        for p in range(n_prod):
            members = np.flatnonzero(product == p)
            if len(members):
                nic[members] = rng.choice(1 << 24, size=len(members), replace=False)
        mac_int = (oui[product] << 24) | nic
        self.mac = [
            ":".join(f"{(m >> sh) & 0xFF:02X}" for sh in (40, 32, 24, 16, 8, 0))
            for m in mac_int.tolist()
        ]
        net = self.product_net[product]
        sdk = np.empty(n, dtype=object)
        for net_type, releases in _SDK_RELEASES.items():
            members = np.flatnonzero(net == net_type)
            k = len(releases)
            share = 0.4 ** np.arange(k - 1, -1, -1, dtype=np.float64)  # most on the latest
            share /= share.sum()
            pick = rng.choice(k, size=len(members), p=share)
            sdk[members] = np.array(releases, dtype=object)[pick]
        self.sdk = sdk.tolist()
        octets = rng.integers(2, 254, (n, 3))
        short = rng.integers(1, 0xFFF0, n)
        addr = []
        for i in range(n):
            nt = int(net[i])
            if not self.ever_online[i]:
                addr.append("")
            elif nt == _W:
                addr.append(f"192.168.{(0, 1, 86)[octets[i, 0] % 3]}.{octets[i, 1]}")
            elif nt == _E:
                addr.append(f"10.0.{octets[i, 0]}.{octets[i, 1]}")
            elif nt == _C:
                addr.append(f"100.64.{octets[i, 0]}.{octets[i, 2]}")
            else:
                addr.append(f"0x{short[i]:04X}")
        self.net_addr = addr
        named = rng.random(n) < 0.6
        room = rng.integers(0, len(_ROOMS), n)
        noun = rng.integers(0, 12, n)
        nick = []
        kinds = self.fleet.kind
        for i in range(n):
            if i >= n_bound or not (named[i] or i < n_demo):
                nick.append("")
            else:
                nouns = _DEVICE_NOUNS[kinds[i]]
                nick.append(f"{_ROOMS[room[i]]} {nouns[noun[i] % len(nouns)]}")
        self.nick = nick

    # ----------------------------------------------------------------- special events

    def special_events(self) -> None:
        """Activations, downtime episodes, final downs and the firmware rollout."""
        rng, f, s = self.rng, self.fleet, self.scale
        n = self.n_devices
        in_window = f.ever_online & ~self.dormant
        dev_all = np.arange(n)

        # Downtime episodes inside [t0, t1): count per device ~ Poisson(flakiness * days).
        span = np.where(in_window, f.t1 - f.t0, 0)
        flaky = rng.lognormal(np.log(0.12), 0.8, n)
        counts = rng.poisson(flaky * span / DAY_MS)
        budget = int(0.15 * s.events / 2)
        if counts.sum() > budget:
            counts = rng.binomial(counts, budget / counts.sum())
        g_dev = np.repeat(dev_all, counts)
        g_start = (
            f.t0[g_dev]
            + 1_000
            + (rng.random(len(g_dev)) * np.maximum(span[g_dev] - 5 * MINUTE_MS, 0)).astype(I64)
        )
        g_dur = np.clip(rng.lognormal(np.log(15 * MINUTE_MS), 1.2, len(g_dev)), 30_000, 2 * DAY_MS)
        g_end = g_start + g_dur.astype(I64)
        g_fault = rng.random(len(g_dev)) < 0.12
        ok = g_end < f.t1[g_dev] - MINUTE_MS
        g_dev, g_start, g_end, g_fault = g_dev[ok], g_start[ok], g_end[ok], g_fault[ok]
        key_s = (g_dev << 32) | (g_start - self.start)
        order = np.argsort(key_s, kind="stable")
        g_dev, g_start, g_end, g_fault = g_dev[order], g_start[order], g_end[order], g_fault[order]
        key_s = key_s[order]
        key_e = (g_dev << 32) | (g_end - self.start + MINUTE_MS)
        if len(key_s):
            prev_end = np.concatenate([[-1], np.maximum.accumulate(key_e)[:-1]])
            keep = key_s > prev_end
            g_dev, g_start, g_end, g_fault = g_dev[keep], g_start[keep], g_end[keep], g_fault[keep]
        self.gap_dev, self.gap_start, self.gap_end = g_dev, g_start, g_end
        self.gap_key_s = (g_dev << 32) | (g_start - self.start)
        self.gap_key_e = (g_dev << 32) | (g_end - self.start)

        # Firmware: releases per category, the last one rolled out 40 % into the window.
        release = self.start + int(0.4 * self.window)
        self.release = release
        n_rel = np.array([len(c.firmware) for c in self.cats])[f.kind_code]
        back = np.minimum(rng.choice(3, size=n, p=[0.75, 0.2, 0.05]) + 1, n_rel - 1)
        prior = n_rel - 1 - back
        eligible = in_window & (self.device_bind < release) & (f.t1 > release + HOUR_MS)
        n_elig = max(1, int(eligible.sum()))
        p_up = min(0.8, 0.05 * s.events / n_elig)
        up = eligible & (rng.random(n) < p_up)
        up_ts = release + rng.exponential(0.1 * self.window, n).astype(I64)
        inside, gap_i = self._in_gap(dev_all, up_ts)
        up_ts = np.where(inside, self.gap_end[np.maximum(gap_i, 0)] + 5_000, up_ts)
        inside, _ = self._in_gap(dev_all, up_ts)
        up &= ~inside & (up_ts < f.t1 - 1_000) & (up_ts > f.t0)
        shipped = np.where(self.ever_online, self.device_bind, self.device_created) >= release
        latest = up | shipped
        fw_index = np.where(latest, n_rel - 1, prior)
        fw_names = [c.firmware for c in self.cats]
        self.firmware = [
            fw_names[c][v] for c, v in zip(f.kind_code.tolist(), fw_index.tolist(), strict=True)
        ]
        up_dev = np.flatnonzero(up)
        # "version" is what /device/report reads (protocol §6.19); "from"/"to" for people.
        up_props = []
        for d in up_dev.tolist():
            old, new = fw_names[f.kind_code[d]][prior[d]], fw_names[f.kind_code[d]][n_rel[d] - 1]
            up_props.append(f'{{"from":"{old}","to":"{new}","version":"{new}"}}')

        # Final downs (offline devices: an offline event; faulty ones: a fault alarm).
        final = in_window & (self.device_status != 1)
        fin_dev = np.flatnonzero(final)
        fin_fault = self.device_status[fin_dev] == DeviceStatus.FAULT
        act_dev = np.flatnonzero(in_window & (self.device_bind >= self.start))

        fault_codes, fault_props, fault_w = _alarm_table(_FAULTS, "fault")
        off_props, off_w = _choice_table([(f'{{"reason":"{r}"}}', w) for r, w in _OFFLINE_REASONS])

        def downs(fault: BoolArray) -> tuple[IntArray, ObjArray, ObjArray]:
            k = len(fault)
            fi = rng.choice(len(fault_codes), size=k, p=fault_w)
            oi = rng.choice(len(off_props), size=k, p=off_w)
            types = np.where(fault, int(EventType.ALARM), int(EventType.OFFLINE)).astype(I64)
            props = np.where(fault, fault_props[fi], off_props[oi])
            codes = np.where(fault, fault_codes[fi], "")
            return types, props.astype(object), codes.astype(object)

        gs_type, gs_props, gs_code = downs(g_fault)
        fin_type, fin_props, fin_code = downs(fin_fault)
        n_end, n_act = len(self.gap_dev), len(act_dev)
        sp_dev = np.concatenate([act_dev, self.gap_dev, self.gap_dev, fin_dev, up_dev])
        sp_ts = np.concatenate(
            [f.t0[act_dev], self.gap_start, self.gap_end, f.t1[fin_dev], up_ts[up_dev]]
        )
        sp_type = np.concatenate(
            [
                np.full(n_act, int(EventType.ONLINE), I64),
                gs_type,
                np.full(n_end, int(EventType.ONLINE), I64),
                fin_type,
                np.full(len(up_dev), int(EventType.FIRMWARE_UPGRADE), I64),
            ]
        )
        sp_props = np.concatenate(
            [
                np.full(n_act, '{"reason":"activation"}', dtype=object),
                gs_props,
                np.full(n_end, '{"reason":"reconnect"}', dtype=object),
                fin_props,
                _obj(up_props),
            ]
        )
        sp_code = np.concatenate(
            [
                np.full(n_act, "", dtype=object),
                gs_code,
                np.full(n_end, "", dtype=object),
                fin_code,
                np.full(len(up_dev), "", dtype=object),
            ]
        )
        order = np.argsort(sp_ts, kind="stable")
        self.sp_dev, self.sp_ts, self.sp_type = sp_dev[order], sp_ts[order], sp_type[order]
        self.sp_props, self.sp_code = sp_props[order], sp_code[order]
        self.bulk_total = s.events - len(order)
        if self.bulk_total <= 0:
            raise ValueError(f"scale {s.name!r} has too few events for its devices")

    def _in_gap(self, dev: IntArray, ts: IntArray) -> tuple[BoolArray, IntArray]:
        """Which (device, ts) fall inside a closed downtime episode (ends included)."""
        if not len(self.gap_key_s):
            return np.zeros(len(dev), dtype=bool), np.full(len(dev), -1, dtype=I64)
        rel = np.clip(ts - self.start, 0, (1 << 32) - 1)
        key = (dev << 32) | rel
        i = np.searchsorted(self.gap_key_s, key, side="right") - 1
        inside = (i >= 0) & (key <= self.gap_key_e[np.maximum(i, 0)])
        return inside, np.where(inside, i, -1)

    # ----------------------------------------------------------------- bulk events by day

    def _day_totals(self) -> IntArray:
        f, rng = self.fleet, self.rng
        days = self.scale.days
        cs = self.start + np.arange(days, dtype=I64) * DAY_MS
        cov = (
            np.clip(
                np.minimum(f.t1[None, :], cs[:, None] + DAY_MS)
                - np.maximum(f.t0[None, :], cs[:, None]),
                0,
                DAY_MS,
            )
            / DAY_MS
        )
        if len(self.noisy):
            normal = np.ones(self.n_devices, dtype=bool)
            normal[self.noisy] = False
            covered = cov.sum(axis=0)
            w_normal = float((f.weight * covered)[normal].sum())
            share = self.noisy_share / max(1e-9, 1.0 - self.noisy_share.sum())
            f.weight[self.noisy] = share * w_normal / np.maximum(covered[self.noisy], 1e-9)
        weekday = ((cs + LOCAL_UTC_OFFSET_H * HOUR_MS) // DAY_MS + 3) % 7  # 0 = Monday
        week_factor = np.where(weekday >= 5, 1.1, 1.0)
        w_day = (cov * f.weight[None, :]).sum(axis=1) * week_factor
        self.cov = cov
        return rng.multinomial(self.bulk_total, w_day / w_day.sum()).astype(I64)

    def _day_bulk(self, k: int, total: int) -> tuple[IntArray, IntArray]:
        """Sample ``total`` (device, ts) pairs in day ``k``: weights, day/night, spans, gaps."""
        f, rng = self.fleet, self.rng
        cs = self.start + k * DAY_MS
        minute = cs // MINUTE_MS + np.arange(1440)
        hour = ((minute / 60.0) + LOCAL_UTC_OFFSET_H) % 24.0
        intensity = 1.0 + 0.6 * np.cos(2 * np.pi * (hour - 19.0) / 24.0)
        cdf = np.cumsum(intensity)
        cdf /= cdf[-1]
        p = f.weight * self.cov[k]
        if total == 0 or p.sum() <= 0:
            return np.zeros(0, I64), np.zeros(0, I64)
        p = p / p.sum()
        devs: list[IntArray] = []
        stamps: list[IntArray] = []
        need, barren = total, 0
        while need > 0:
            m = int(need * 1.15) + 64
            dev = rng.choice(self.n_devices, size=m, p=p)
            mins = np.minimum(np.searchsorted(cdf, rng.random(m), side="right"), 1439)
            ts = cs + mins * MINUTE_MS + rng.integers(0, MINUTE_MS, m)
            ok = (ts > f.t0[dev]) & (ts < f.t1[dev])
            inside, _ = self._in_gap(dev, ts)
            ok &= ~inside
            idx = np.flatnonzero(ok)[:need]
            devs.append(dev[idx])
            stamps.append(ts[idx])
            need -= len(idx)
            barren = 0 if len(idx) else barren + 1
            if barren > 20:
                raise RuntimeError(f"cannot place events in day {k} of the window")
        return np.concatenate(devs), np.concatenate(stamps)

    def _bulk_kinds(self, dev: IntArray, ts: IntArray) -> tuple[IntArray, ObjArray, ObjArray]:
        """Event type, properties JSON and code of bulk events."""
        f, rng = self.fleet, self.rng
        m = len(dev)
        u = rng.random(m)
        a = f.alarm_p[dev]
        etype = np.where(
            u < a,
            int(EventType.ALARM),
            np.where(
                u < a + f.command_p[dev], int(EventType.COMMAND), int(EventType.PROPERTY_REPORT)
            ),
        ).astype(I64)
        props = np.empty(m, dtype=object)
        codes = np.full(m, "", dtype=object)
        kc = f.kind_code[dev]
        for ci, cat in enumerate(self.cats):
            in_cat = kc == ci
            idx = np.flatnonzero(in_cat & (etype == EventType.PROPERTY_REPORT))
            if len(idx):
                props[idx] = _obj(self._property_json(cat.kind, dev[idx], ts[idx]))
            idx = np.flatnonzero(in_cat & (etype == EventType.COMMAND))
            if len(idx):
                table, w = self.command_tables[cat.kind]
                props[idx] = table[rng.choice(len(table), size=len(idx), p=w)]
            idx = np.flatnonzero(in_cat & (etype == EventType.ALARM))
            if len(idx):
                code_arr, prop_arr, w = self.warning_tables[cat.kind]
                pick = rng.choice(len(code_arr), size=len(idx), p=w)
                props[idx] = prop_arr[pick]
                codes[idx] = code_arr[pick]
        return etype, props, codes

    def _property_json(self, kind: str, dev: IntArray, ts: IntArray) -> list[str]:
        """Property-report JSON objects of ``kind`` devices at moments ``ts``."""
        rng, prm = self.rng, self.fleet.params
        m = len(dev)
        h = _local_hour(ts)
        evening = (h >= 17.5) | (h < 0.5)
        if kind == "lighting":
            on_p = 0.12 + 0.75 * evening + 0.35 * ((h >= 6.0) & (h < 8.5))
            power = _json_bool(rng.random(m) < np.minimum(on_p, 0.95))
            bright = (rng.integers(2, 21, m) * 5).tolist()
            ct = prm["color_temp"][dev].tolist()
            return [_LIGHTING_JSON % v for v in zip(power, bright, ct, strict=True)]
        if kind == "sockets":
            on = rng.random(m) < 0.55 + 0.25 * evening
            watts = np.where(
                on, prm["rated_w"][dev] * rng.uniform(0.25, 1.0, m), rng.uniform(0.3, 0.8, m)
            )
            volts = 120.0 + rng.normal(0.0, 1.2, m)
            return [
                _SOCKET_JSON % v
                for v in zip(_json_bool(on), watts.tolist(), volts.tolist(), strict=True)
            ]
        if kind == "sensors":
            wave = np.sin(2 * np.pi * (h - 9.0) / 24.0)
            temp = prm["temp_base"][dev] + 2.5 * wave + rng.normal(0.0, 0.3, m)
            hum = np.clip(prm["hum_base"][dev] - 8.0 * wave + rng.normal(0.0, 2.0, m), 10, 95)
            days = (ts - self.start) / DAY_MS
            batt = np.clip(prm["batt0"][dev] - prm["drain"][dev] * days, 1, 100)
            return [
                _SENSOR_JSON % v
                for v in zip(
                    temp.tolist(), hum.astype(I64).tolist(), batt.astype(I64).tolist(), strict=True
                )
            ]
        if kind == "cameras":
            rec = _json_bool(rng.random(m) < 0.85)
            motion = _json_bool(rng.random(m) < 0.1 + 0.3 * ((h >= 7.0) & (h < 22.0)))
            rate = (prm["bitrate"][dev] * rng.uniform(0.8, 1.05, m)).astype(I64).tolist()
            return [_CAMERA_JSON % v for v in zip(rec, motion, rate, strict=True)]
        if kind == "climate":
            power = _json_bool(rng.random(m) < 0.5 + 0.3 * evening)
            modes = np.array(_CLIMATE_MODES, dtype=object)[prm["mode"][dev]].tolist()
            target = prm["target"][dev]
            current = target + rng.normal(0.0, 1.2, m)
            return [
                _CLIMATE_JSON % v
                for v in zip(power, modes, target.tolist(), current.tolist(), strict=True)
            ]
        # gateways: uptime since the last reconnect (or boot)
        key = (dev << 32) | np.clip(ts - self.start, 0, (1 << 32) - 1)
        if len(self.gap_key_e):
            i = np.searchsorted(self.gap_key_e, key, side="right") - 1
            valid = (i >= 0) & (self.gap_dev[np.maximum(i, 0)] == dev)
            last_up = np.where(valid, self.gap_end[np.maximum(i, 0)], prm["boot"][dev])
        else:
            last_up = prm["boot"][dev]
        uptime = np.maximum(ts - last_up, 0) // HOUR_MS
        rssi = prm["rssi"][dev] + rng.integers(-3, 4, m)
        return [
            _GATEWAY_JSON % v
            for v in zip(
                prm["sub_count"][dev].tolist(), rssi.tolist(), uptime.tolist(), strict=True
            )
        ]

    def events(self) -> Iterator[Iterator[tuple[Any, ...]]]:
        """Yield one day of event rows at a time (each an iterator of row tuples)."""
        f = self.fleet
        self.command_tables = {c.kind: _command_table(c.kind) for c in self.cats}
        self.warning_tables = {
            c.kind: _alarm_table(_WARNINGS[c.kind], "warning") for c in self.cats
        }
        totals = self._day_totals()
        key = np.uint64(self.rng.integers(0, 1 << 63, dtype=np.uint64))
        dev_ids = _obj(self.device_ids)
        owner_ids = np.empty(self.n_devices, dtype=object)
        owner_ids[:] = [self.user_ids[o] if o >= 0 else "" for o in f.owner.tolist()]
        self.last_ts = np.full(self.n_devices, -1, dtype=I64)
        self.last_props = np.full(self.n_devices, None, dtype=object)
        self.event_count = 0
        for k in range(self.scale.days):
            cs = self.start + k * DAY_MS
            dev, ts = self._day_bulk(k, int(totals[k]))
            etype, props, codes = self._bulk_kinds(dev, ts)
            lo, hi = np.searchsorted(self.sp_ts, [cs, cs + DAY_MS], side="left")
            dev = np.concatenate([dev, self.sp_dev[lo:hi]])
            ts = np.concatenate([ts, self.sp_ts[lo:hi]])
            etype = np.concatenate([etype, self.sp_type[lo:hi]])
            props = np.concatenate([props, self.sp_props[lo:hi]])
            codes = np.concatenate([codes, self.sp_code[lo:hi]])
            order = np.argsort(ts, kind="stable")
            dev, ts, etype, props, codes = (
                dev[order],
                ts[order],
                etype[order],
                props[order],
                codes[order],
            )
            seq = np.arange(self.event_count, self.event_count + len(ts), dtype=np.uint64)
            self.event_count += len(ts)
            ids = _hex16(_scramble(seq, key), "evt-")
            # Latest moment and latest property report of every device (ts ascending).
            last_dev, last_pos = _last_positions(dev)
            self.last_ts[last_dev] = ts[last_pos]
            rep = np.flatnonzero(etype == EventType.PROPERTY_REPORT)
            last_dev, last_pos = _last_positions(dev[rep])
            self.last_props[last_dev] = props[rep[last_pos]]
            yield zip(
                ids,
                dev_ids[dev].tolist(),
                owner_ids[dev].tolist(),
                etype.tolist(),
                props.tolist(),
                codes.tolist(),
                ts.tolist(),
                strict=True,
            )

    # ----------------------------------------------------------------- rows after the events

    def device_rows(self) -> list[tuple[Any, ...]]:
        f, rng = self.fleet, self.rng
        n = self.n_devices
        last_seen = self.last_ts.copy()
        no_events = f.ever_online & (last_seen < 0)
        # Came online once but nothing in the window: last seen before it (dormant: at t1).
        before = self.start - rng.integers(HOUR_MS, 5 * DAY_MS, n)
        before = np.maximum(before, self.device_bind + MINUTE_MS)
        last_seen = np.where(no_events, np.where(self.dormant, f.t1, before), last_seen)
        props = self.last_props.copy()
        missing = np.flatnonzero(f.ever_online & np.array([p is None for p in props.tolist()]))
        for ci, cat in enumerate(self.cats):
            idx = missing[f.kind_code[missing] == ci]
            if len(idx):
                props[idx] = _obj(self._property_json(cat.kind, idx, last_seen[idx]))
        rows = []
        for i in range(n):
            online = bool(f.ever_online[i])
            dev_id = self.device_ids[i]
            rows.append(
                (
                    dev_id,
                    sha256_hex(demo_device_secret(dev_id)),
                    self.product_ids[self.device_product[i]],
                    int(self.device_cat[i]) + 1,
                    self.mac[i],
                    self.sdk[i],
                    self.firmware[i],
                    self.net_addr[i],
                    int(self.device_status[i]),
                    props[i] if online else "{}",
                    self.nick[i],
                    int(self.device_created[i]),
                    int(last_seen[i]) if online else None,
                )
            )
        return rows

    def binding_rows(self) -> list[tuple[Any, ...]]:
        rng, f = self.rng, self.fleet
        n = self.n_devices
        bound = np.flatnonzero(f.owner >= 0)
        group = rng.choice(6, size=n, p=[0.35, 0.2, 0.15, 0.12, 0.1, 0.08])
        rows = [
            (
                self.device_ids[i],
                self.user_ids[f.owner[i]],
                1,
                int(group[i]),
                int(self.is_sub[i]),
                int(self.device_bind[i]),
            )
            for i in bound.tolist()
        ]
        # ~10 % shared with another plain user; the demo user gets two shares.
        shared = bound[rng.random(len(bound)) < 0.1]
        plain = np.arange(2, self.n_users)
        sharee = rng.choice(plain, size=len(shared)) if len(plain) > 1 else np.full(len(shared), 2)
        foreign = bound[f.owner[bound] != 2]
        to_demo = rng.choice(foreign, size=min(2, len(foreign)), replace=False)
        kept = ~np.isin(shared, to_demo)
        shared = np.concatenate([shared[kept], to_demo])
        sharee = np.concatenate([sharee[kept], np.full(len(to_demo), 2)])
        clash = sharee == f.owner[shared]
        if len(plain) > 1:
            sharee[clash] = plain[(np.searchsorted(plain, sharee[clash]) + 1) % len(plain)]
        ok = sharee != f.owner[shared]
        shared, sharee = shared[ok], sharee[ok]
        s_group = rng.choice(4, size=len(shared))
        lo = np.maximum(self.device_bind[shared], self.user_register[sharee])
        s_bind = lo + (rng.random(len(shared)) * np.maximum(self.until - lo, 0)).astype(I64)
        rows += [
            (self.device_ids[d], self.user_ids[u], 0, int(g), int(self.is_sub[d]), int(b))
            for d, u, g, b in zip(
                shared.tolist(), sharee.tolist(), s_group.tolist(), s_bind.tolist(), strict=True
            )
        ]
        return rows


# --------------------------------------------------------------------------- entry points


def _until_ms(until: dt.datetime | None) -> int:
    if until is None:
        return int(time.time()) * 1000
    if until.tzinfo is None:
        until = until.replace(tzinfo=dt.UTC)
    return int(until.timestamp() * 1000)


def _refuse_if_not_empty(path: Path) -> None:
    if not path.exists() or path.stat().st_size == 0:
        return
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        users = bulk.existing_user_count(conn)
    finally:
        conn.close()
    if users:
        raise DatabaseNotEmptyError(
            f"{path} already has {users} users; opslib seeds only an empty database "
            "(choose a new --db file)"
        )


def seed_database(
    db_path: str | Path,
    *,
    scale: str,
    seed_value: int = 42,
    until: dt.datetime | None = None,
) -> dict[str, Any]:
    """Fill an empty platform database with deterministic generated data.

    Parameters
    ----------
    db_path
        The SQLite file; created (with its directory) when missing. It must hold no users.
    scale
        ``"small"`` (tests), ``"demo"`` or ``"large"``; see :data:`SCALES`.
    seed_value
        Seed of the random generator: the same ``seed_value`` and ``until`` give the same
        table contents, byte for byte.
    until
        End of the event window (naive means UTC). Default: now, truncated to the second.

    Returns
    -------
    dict
        Row counts per table (``clients``, ``users``, ``settings``, ``categories``,
        ``products``, ``devices``, ``bindings``, ``events``, ``event_counts``), plus
        ``scale``, ``seed_value``, ``until`` (ISO 8601) and ``seconds`` taken.

    Raises
    ------
    DatabaseNotEmptyError
        The database already has users; nothing is written.
    ValueError
        Unknown scale.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.db")
    >>> seed_database(path, scale="small")["devices"]
    60
    """
    started = time.perf_counter()
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; choose one of {', '.join(SCALES)}")
    path = Path(db_path)
    _refuse_if_not_empty(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    until_ms = _until_ms(until)
    until_iso = dt.datetime.fromtimestamp(until_ms / 1000, tz=dt.UTC).isoformat()

    gen = _Generator(SCALES[scale], seed_value, until_ms)
    gen.catalogue()
    gen.users()
    gen.devices()
    gen.special_events()

    conn = store.connect(path)
    try:
        store.init_schema(conn, event_indexes=False)
        bulk.begin_bulk_load(conn)
        try:
            with store.transaction(conn):
                if bulk.existing_user_count(conn):  # someone was faster
                    raise DatabaseNotEmptyError(f"{path} already has users")
                bulk.set_meta(
                    conn,
                    items={
                        "seed.scale": scale,
                        "seed.seed_value": str(seed_value),
                        "seed.until": until_iso,
                    },
                )
                bulk.insert_clients(
                    conn,
                    rows=[
                        (
                            demo.CLIENT_ID,
                            sha256_hex(demo.CLIENT_SECRET),
                            "opslib demo",
                            until_ms - 900 * DAY_MS,
                        )
                    ],
                )
                bulk.insert_users(conn, rows=gen.user_rows)
                bulk.insert_settings(conn, rows=gen.settings_rows)
                bulk.insert_categories(conn, rows=gen.categories)
                bulk.insert_products(conn, rows=gen.products)
                for day_rows in gen.events():
                    bulk.insert_events(conn, rows=day_rows)
                bulk.insert_devices(conn, rows=gen.device_rows())
                bulk.insert_bindings(conn, rows=gen.binding_rows())
                store.create_event_indexes(conn)
                bulk.rebuild_event_counts(conn, bucket_ms=BUCKET_MS)
        finally:
            bulk.end_bulk_load(conn)
        counts: dict[str, Any] = dict(bulk.count_rows(conn))
    finally:
        conn.close()
    counts.update(
        scale=scale,
        seed_value=seed_value,
        until=until_iso,
        seconds=round(time.perf_counter() - started, 3),
    )
    return counts


def _parse_until(text: str | None) -> dt.datetime | None:
    if text is None:
        return None
    value = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def seed_command(
    db: str | Path,
    *,
    scale: str = "demo",
    seed_value: int = 42,
    until: str | dt.datetime | None = None,
    out: Callable[[str], Any] = print,
) -> int:
    """``opslib seed``: seed ``db`` and print a summary with the demo credentials.

    Parameters
    ----------
    db
        The SQLite file to create or fill; it must hold no users.
    scale
        ``small``, ``demo`` or ``large``.
    seed_value
        Random seed.
    until
        End of the event window, ISO 8601 (naive or ``Z`` means UTC), or a datetime;
        default now.
    out
        Where the summary lines go (default ``print``).

    Returns
    -------
    int
        0 on success, 1 when the database is not empty, 2 on a bad argument.
    """
    try:
        until_dt = _parse_until(until) if isinstance(until, str) or until is None else until
    except ValueError:
        print(f"opslib seed: --until {until!r} is not an ISO 8601 time", file=sys.stderr)
        return 2
    try:
        result = seed_database(db, scale=scale, seed_value=seed_value, until=until_dt)
    except DatabaseNotEmptyError as exc:
        print(f"opslib seed: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"opslib seed: {exc}", file=sys.stderr)
        return 2
    for line in summary_lines(db, result):
        out(line)
    return 0


def summary_lines(db: str | Path, result: dict[str, Any]) -> list[str]:
    """The human summary of a seed: counts and the (public, fake) demo credentials.

    Parameters
    ----------
    db
        The database path.
    result
        What :func:`seed_database` returned.

    Returns
    -------
    list of str
        Lines to print.
    """
    return [
        f"Seeded {db} ({result['scale']} scale, seed {result['seed_value']}, "
        f"events until {result['until']}) in {result['seconds']:.1f} s:",
        f"  {result['categories']} categories, {result['products']} products, "
        f"{result['users']} users, {result['devices']} devices, "
        f"{result['bindings']} bindings, {result['events']:,} events",
        "Demo credentials (public on purpose; the data is fake):",
        f"  client_id / client_secret  {demo.CLIENT_ID} / {demo.CLIENT_SECRET}",
        f"  ops account    area code {demo.AREA_CODE}, phone {demo.OPS_PHONE}, "
        f"password {demo.OPS_PASSWORD}",
        f"  admin account  area code {demo.AREA_CODE}, phone {demo.ADMIN_PHONE}, "
        f"password {demo.ADMIN_PASSWORD}",
        f"  plain user     area code {demo.AREA_CODE}, phone {demo.USER_PHONE}, "
        f"password {demo.USER_PASSWORD}",
        f"  other users    area code {demo.AREA_CODE}, phones {SEEDED_PHONE_BASE}+n, "
        f"password {demo.SEEDED_USER_PASSWORD}",
    ]
