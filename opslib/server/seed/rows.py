"""The ``devices`` and ``bindings`` rows, made after the events.

A device row carries its latest state: ``properties`` is its last property report and
``gmt_last_seen`` its last event, so it needs the whole event stream first. Bindings give
each bound device one owner, about 10 % also a share with another user (the demo user gets
two shares). Both draw from the generator after the events, in this order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opslib.server.security import demo_device_secret, sha256_hex
from opslib.server.seed.arrays import I64, obj
from opslib.server.seed.events import EventStream
from opslib.server.seed.fleet import Fleet
from opslib.server.seed.identity import DeviceIdentity
from opslib.server.seed.people import People
from opslib.server.seed.products import Products
from opslib.server.seed.properties import property_json
from opslib.server.seed.scales import DAY_MS, HOUR_MS, MINUTE_MS, Run
from opslib.server.seed.specials import SpecialEvents

__all__ = ["binding_rows", "device_rows"]


def device_rows(
    run: Run,
    products: Products,
    fleet: Fleet,
    identity: DeviceIdentity,
    specials: SpecialEvents,
    stream: EventStream,
) -> list[tuple[Any, ...]]:
    """The ``devices`` rows, once ``stream`` has yielded every day.

    A device that came online but has no event in the window was last seen before it (a
    dormant one at its ``t1``) and gets a property report drawn for that moment.

    Parameters
    ----------
    run
        The shared state of this seed.
    products, fleet, identity, specials
        What the earlier stages made.
    stream
        The exhausted event stream (each device's latest event and property report).

    Returns
    -------
    list of tuple
        One row per device.
    """
    f, rng = fleet, run.rng
    n = f.n
    last_seen = stream.last_ts.copy()
    no_events = f.ever_online & (last_seen < 0)
    # Came online once but nothing in the window: last seen before it (dormant: at t1).
    before = run.start - rng.integers(HOUR_MS, 5 * DAY_MS, n)
    before = np.maximum(before, f.bind + MINUTE_MS)
    last_seen = np.where(no_events, np.where(f.dormant, f.t1, before), last_seen)
    props = stream.last_props.copy()
    missing = np.flatnonzero(f.ever_online & np.array([p is None for p in props.tolist()]))
    for ci, cat in enumerate(products.cats):
        idx = missing[f.kind_code[missing] == ci]
        if len(idx):
            reports = property_json(run, f, specials.gaps, cat.kind, idx, last_seen[idx])
            props[idx] = obj(reports)
    rows = []
    for i in range(n):
        online = bool(f.ever_online[i])
        dev_id = f.ids[i]
        rows.append(
            (
                dev_id,
                sha256_hex(demo_device_secret(dev_id)),
                products.product_ids[f.product[i]],
                int(f.kind_code[i]) + 1,
                identity.mac[i],
                identity.sdk[i],
                specials.firmware[i],
                identity.net_addr[i],
                int(f.status[i]),
                props[i] if online else "{}",
                identity.nick[i],
                int(f.created[i]),
                int(last_seen[i]) if online else None,
            )
        )
    return rows


def binding_rows(run: Run, people: People, fleet: Fleet) -> list[tuple[Any, ...]]:
    """The ``bindings`` rows: one owner per bound device, then the shares.

    Parameters
    ----------
    run
        The shared state of this seed (after :func:`device_rows`).
    people, fleet
        The users and the devices.

    Returns
    -------
    list of tuple
        Owner rows in device order, then share rows.
    """
    rng, f = run.rng, fleet
    n = f.n
    bound = np.flatnonzero(f.owner >= 0)
    group = rng.choice(6, size=n, p=[0.35, 0.2, 0.15, 0.12, 0.1, 0.08])
    rows = [
        (
            f.ids[i],
            people.ids[f.owner[i]],
            1,
            int(group[i]),
            int(f.is_sub[i]),
            int(f.bind[i]),
        )
        for i in bound.tolist()
    ]
    # ~10 % shared with another plain user; the demo user gets two shares.
    shared = bound[rng.random(len(bound)) < 0.1]
    plain = np.arange(2, people.n)
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
    lo = np.maximum(f.bind[shared], people.register[sharee])
    s_bind = lo + (rng.random(len(shared)) * np.maximum(run.until - lo, 0)).astype(I64)
    rows += [
        (f.ids[d], people.ids[u], 0, int(g), int(f.is_sub[d]), int(b))
        for d, u, g, b in zip(
            shared.tolist(), sharee.tolist(), s_group.tolist(), s_bind.tolist(), strict=True
        )
    ]
    return rows
