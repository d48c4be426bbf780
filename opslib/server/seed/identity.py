"""The identity stage: what a device row says about the device itself (MAC address, SDK
version, network address and nick name). The firmware comes with the events.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opslib.server.seed.arrays import I64
from opslib.server.seed.fleet import Fleet
from opslib.server.seed.products import (
    NET_BLE,
    NET_CELLULAR,
    NET_ETHERNET,
    NET_WIFI,
    NET_ZIGBEE,
    Products,
)
from opslib.server.seed.scales import Run
from opslib.server.seed.vocabulary import DEVICE_NOUNS, ROOMS

__all__ = ["SDK_RELEASES", "DeviceIdentity", "build_identity"]

SDK_RELEASES: dict[int, tuple[str, ...]] = {
    NET_WIFI: ("3.2.0", "3.3.1", "3.4.2", "4.0.1"),
    NET_BLE: ("1.8.4", "2.0.0", "2.1.3"),
    NET_ZIGBEE: ("3.0.1", "3.1.0", "3.2.2"),
    NET_CELLULAR: ("5.1.0", "5.2.3"),
    NET_ETHERNET: ("2.4.0", "2.5.1"),
}


@dataclass(frozen=True)
class DeviceIdentity:
    """Per-device columns of the ``devices`` table (index = device number).

    Attributes
    ----------
    mac
        MAC address, ``AA:BB:...``; one random OUI per product.
    sdk
        SDK version, by network type, most on the latest release.
    net_addr
        IP address or short (Zigbee/BLE) address; empty for devices never online.
    nick
        ``"<room> <noun>"`` for about 60 % of bound devices (all of the demo user's).
    """

    mac: list[str]
    sdk: list[str]
    net_addr: list[str]
    nick: list[str]


def build_identity(run: Run, products: Products, fleet: Fleet) -> DeviceIdentity:
    """Generate MAC, SDK, network address and nick name of every device.

    Parameters
    ----------
    run
        The shared state of this seed.
    products
        The products.
    fleet
        The devices (from :func:`~opslib.server.seed.fleet.build_fleet`).

    Returns
    -------
    DeviceIdentity
        The four columns.
    """
    rng = run.rng
    n, n_bound, n_demo = fleet.n, fleet.n_bound, fleet.n_demo
    product = fleet.product
    n_prod = len(products.product_ids)
    oui = rng.integers(0, 1 << 24, n_prod) & 0xFCFFFF  # unicast, globally administered
    nic = np.zeros(n, dtype=I64)
    for p in range(n_prod):
        members = np.flatnonzero(product == p)
        if len(members):
            nic[members] = rng.choice(1 << 24, size=len(members), replace=False)
    mac_int = (oui[product] << 24) | nic
    mac = [
        ":".join(f"{(m >> sh) & 0xFF:02X}" for sh in (40, 32, 24, 16, 8, 0))
        for m in mac_int.tolist()
    ]
    net = products.product_net[product]
    sdk = np.empty(n, dtype=object)
    for net_type, releases in SDK_RELEASES.items():
        members = np.flatnonzero(net == net_type)
        k = len(releases)
        share = 0.4 ** np.arange(k - 1, -1, -1, dtype=np.float64)  # most on the latest
        share /= share.sum()
        pick = rng.choice(k, size=len(members), p=share)
        sdk[members] = np.array(releases, dtype=object)[pick]
    octets = rng.integers(2, 254, (n, 3))
    short = rng.integers(1, 0xFFF0, n)
    addr = []
    for i in range(n):
        nt = int(net[i])
        if not fleet.ever_online[i]:
            addr.append("")
        elif nt == NET_WIFI:
            addr.append(f"192.168.{(0, 1, 86)[octets[i, 0] % 3]}.{octets[i, 1]}")
        elif nt == NET_ETHERNET:
            addr.append(f"10.0.{octets[i, 0]}.{octets[i, 1]}")
        elif nt == NET_CELLULAR:
            addr.append(f"100.64.{octets[i, 0]}.{octets[i, 2]}")
        else:
            addr.append(f"0x{short[i]:04X}")
    named = rng.random(n) < 0.6
    room = rng.integers(0, len(ROOMS), n)
    noun = rng.integers(0, 12, n)
    nick = []
    kinds = fleet.kind
    for i in range(n):
        if i >= n_bound or not (named[i] or i < n_demo):
            nick.append("")
        else:
            nouns = DEVICE_NOUNS[kinds[i]]
            nick.append(f"{ROOMS[room[i]]} {nouns[noun[i] % len(nouns)]}")
    return DeviceIdentity(mac=mac, sdk=sdk.tolist(), net_addr=addr, nick=nick)
