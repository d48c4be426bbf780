"""The products stage: categories and products with realistic network, node, encryption,
status and popularity spreads, and each product's share of the fleet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from opslib.enums import EncryptType, NetType, NodeType
from opslib.server.security import sha256_hex
from opslib.server.seed.arrays import I64, FloatArray, IntArray
from opslib.server.seed.scales import DAY_MS, Run
from opslib.server.seed.vocabulary import ICON_BASE

__all__ = [
    "CATEGORIES",
    "NET_BLE",
    "NET_CELLULAR",
    "NET_ETHERNET",
    "NET_WIFI",
    "NET_ZIGBEE",
    "NODE_DIRECT",
    "NODE_GATEWAY",
    "NODE_SUB_DEVICE",
    "Category",
    "Products",
    "build_products",
]


@dataclass(frozen=True)
class Category:
    """One product category and how its devices behave."""

    kind: str  # lighting | sensors | gateways | sockets | cameras | climate
    name: str
    short: str  # product_id infix
    weight: float  # share of the fleet
    activity: float  # relative event volume of one device
    command_p: float  # share of a device's events that are commands
    alarm_p: float  # share that are warning alarms
    firmware: tuple[str, ...]  # releases, oldest first; the last is rolled out in the window
    products: tuple[tuple[str, int, int], ...]  # (name, net_type, node_type)


NET_WIFI = int(NetType.WIFI)
NET_BLE = int(NetType.BLE)
NET_ZIGBEE = int(NetType.ZIGBEE)
NET_CELLULAR = int(NetType.CELLULAR)
NET_ETHERNET = int(NetType.ETHERNET)
NODE_DIRECT = int(NodeType.DIRECT)
NODE_GATEWAY = int(NodeType.GATEWAY)
NODE_SUB_DEVICE = int(NodeType.SUB_DEVICE)

# One-letter names keep the table below one product pair a line.
_W, _B, _Z, _C, _E = NET_WIFI, NET_BLE, NET_ZIGBEE, NET_CELLULAR, NET_ETHERNET
_D, _G, _S = NODE_DIRECT, NODE_GATEWAY, NODE_SUB_DEVICE

# Order matters: the small scale takes the first three (lighting, sensors, gateways).
# fmt: off
CATEGORIES: tuple[Category, ...] = (
    Category("lighting", "Lighting", "light", 0.28, 1.0, 0.12, 0.01,
              ("1.3.8", "1.4.2", "1.5.0", "2.0.1"),
              (("Smart Bulb A19", _W, _D), ("LED Light Strip", _W, _D),
               ("Zigbee Bulb E27", _Z, _S), ("Ceiling Light 40W", _W, _D),
               ("Smart Desk Lamp", _W, _D), ("BLE Mesh Spotlight GU10", _B, _S),
               ("Outdoor Floodlight", _W, _D), ("Zigbee Dimmer Switch", _Z, _S))),
    Category("sensors", "Sensors", "sensor", 0.25, 1.6, 0.01, 0.03,
              ("2.1.0", "2.2.4", "2.3.1", "3.0.0"),
              (("Temperature & Humidity Sensor", _Z, _S), ("Door & Window Sensor", _Z, _S),
               ("Smoke Detector", _W, _D), ("Motion Sensor", _Z, _S),
               ("Water Leak Sensor", _Z, _S), ("Air Quality Monitor", _W, _D),
               ("BLE Thermometer", _B, _S), ("Vibration Sensor", _Z, _S))),
    Category("gateways", "Gateways", "gw", 0.07, 0.6, 0.02, 0.015,
              ("4.0.3", "4.1.0", "4.2.2"),
              (("Zigbee Hub", _E, _G), ("BLE Mesh Gateway", _W, _G),
               ("Multi-protocol Gateway Pro", _E, _G), ("4G Gateway", _C, _G),
               ("Mini Zigbee Bridge", _W, _G), ("Home Hub 2", _E, _G),
               ("Thread Border Router", _E, _G), ("Outdoor LoRa Gateway", _C, _G))),
    Category("sockets", "Sockets & plugs", "plug", 0.22, 1.2, 0.10, 0.01,
              ("1.0.9", "1.1.5", "1.2.0"),
              (("Smart Plug", _W, _D), ("Smart Plug Mini", _W, _D),
               ("Power Strip 4-outlet", _W, _D), ("In-wall Socket", _W, _D),
               ("Energy Monitor Plug", _Z, _S), ("Outdoor Plug", _W, _D),
               ("Zigbee Plug", _Z, _S), ("USB Charging Socket", _W, _D))),
    Category("cameras", "Cameras", "cam", 0.10, 0.8, 0.05, 0.02,
              ("5.2.1", "5.3.0", "5.4.2", "6.0.0"),
              (("Indoor Camera", _W, _D), ("Outdoor Camera", _W, _D),
               ("Video Doorbell", _W, _D), ("Pan-Tilt Camera", _W, _D),
               ("PoE Bullet Camera", _E, _D), ("Baby Monitor", _W, _D),
               ("4G Trail Camera", _C, _D), ("Dome Camera", _E, _D))),
    Category("climate", "Climate", "climate", 0.08, 1.0, 0.10, 0.015,
              ("3.0.2", "3.1.1", "3.2.0"),
              (("Smart Thermostat", _W, _D), ("AC Controller", _W, _D),
               ("Radiator Valve", _Z, _S), ("Dehumidifier", _W, _D),
               ("Air Purifier", _W, _D), ("Ceiling Fan Controller", _W, _D),
               ("Smart Heater", _W, _D), ("Humidifier", _W, _D))),
)
# fmt: on


@dataclass(frozen=True)
class Products:
    """What the products stage made: table rows and per-product arrays (index = product).

    Attributes
    ----------
    cats
        The categories of this scale (the first ``scale.categories`` of :data:`CATEGORIES`).
    category_rows, product_rows
        Rows of the ``categories`` and ``products`` tables.
    product_ids
        ``product_id`` of each product.
    product_cat, product_node, product_net, product_status
        Category index (into ``cats``), node type, network type and status of each product.
    product_weight
        Each product's share of the fleet (sums to 1; unreleased products get none).
    """

    cats: tuple[Category, ...]
    category_rows: list[tuple[Any, ...]]
    product_rows: list[tuple[Any, ...]]
    product_ids: list[str]
    product_cat: IntArray
    product_node: IntArray
    product_net: IntArray
    product_status: IntArray
    product_weight: FloatArray


def build_products(run: Run) -> Products:
    """Generate the categories and products of ``run.scale`` (the first stage).

    Parameters
    ----------
    run
        The shared state of this seed.

    Returns
    -------
    Products
        Rows for the tables and the per-product arrays later stages read.
    """
    rng, s = run.rng, run.scale
    cats = CATEGORIES[: s.categories]
    category_rows = [
        (i + 1, c.name, f"{ICON_BASE}/categories/{c.kind}.svg") for i, c in enumerate(cats)
    ]
    per_cat = [
        s.products // len(cats) + (1 if i < s.products % len(cats) else 0) for i in range(len(cats))
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
            created = run.until - int(rng.integers(400, 1000)) * DAY_MS
            created += int(rng.integers(0, DAY_MS))
            modified = created + int(rng.random() * (run.until - created) * 0.6)
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
    product_cat = np.array(cat_of, dtype=I64)
    w = np.array(weight_of, dtype=np.float64)
    cat_w = np.array([c.weight for c in cats])
    for ci in range(len(cats)):
        in_cat = product_cat == ci
        if w[in_cat].sum() > 0:
            w[in_cat] *= cat_w[ci] / w[in_cat].sum()
    return Products(
        cats=cats,
        category_rows=category_rows,
        product_rows=rows,
        product_ids=[r[0] for r in rows],
        product_cat=product_cat,
        product_node=np.array(node_of, dtype=I64),
        product_net=np.array(net_of, dtype=I64),
        product_status=np.array(status_of, dtype=I64),
        product_weight=w / w.sum(),
    )
