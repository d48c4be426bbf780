"""The fleet stage: which product each device is, who owns it, when it was bound, whether and
until when it is online, and how busy it is.

About 3 % of the devices never came online (no events, ``gmt_last_seen`` NULL) and 1 % are
unbound stock. Every owner of a sub-device also owns a gateway. The demo user owns a
hand-picked household of about ten devices set up well before the window.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from opslib.server.seed.arrays import I64, BoolArray, FloatArray, IntArray, ObjArray, unique_ids
from opslib.server.seed.people import People
from opslib.server.seed.products import NODE_GATEWAY, NODE_SUB_DEVICE, Products
from opslib.server.seed.scales import DAY_MS, HOUR_MS, MINUTE_MS, Run
from opslib.server.seed.vocabulary import CLIMATE_MODES

__all__ = ["Fleet", "build_fleet"]


@dataclass
class Fleet:
    """Per-device arrays (index = device number) the later stages read.

    Devices ``0 .. n_demo - 1`` belong to the demo user, ``n_bound .. n - 1`` are unbound
    stock. ``weight`` and ``alarm_p`` are the only arrays changed after this stage (the noisy
    devices' shares).

    Attributes
    ----------
    n, n_bound, n_demo
        Number of devices, of bound devices, of the demo user's devices.
    ids
        ``device_id`` of each device.
    product, kind_code, kind
        Product index, category index (into ``Products.cats``) and category kind.
    owner
        User index, -1 for unbound stock.
    is_sub
        The device is a sub-device (behind a gateway).
    bind, created
        Binding and creation moments (epoch ms).
    ever_online
        The device came online at least once.
    status
        Target status (1 online, 2 offline, 3 fault; 0 never online).
    dormant
        Offline since before the window: no events in it.
    t0, t1
        First moment an event may happen (in window) and the last (online: until;
        offline/fault: when it went down).
    weight, alarm_p, command_p
        Relative event volume, share of warning alarms and share of commands.
    params
        Per-device parameters of the property reports (base temperature, rated watts, ...).
    noisy, noisy_share
        The few devices that produce 2-5 % of all events each, and their shares.
    """

    n: int
    n_bound: int
    n_demo: int
    ids: list[str]
    product: IntArray
    kind_code: IntArray
    kind: ObjArray
    owner: IntArray
    is_sub: BoolArray
    bind: IntArray
    created: IntArray
    ever_online: BoolArray
    status: IntArray
    dormant: BoolArray
    t0: IntArray
    t1: IntArray
    weight: FloatArray
    alarm_p: FloatArray
    command_p: FloatArray
    params: dict[str, np.ndarray[Any, Any]]
    noisy: IntArray
    noisy_share: FloatArray


def build_fleet(run: Run, products: Products, people: People) -> Fleet:
    """Generate the devices' products, owners, binding times, status and activity.

    Parameters
    ----------
    run
        The shared state of this seed.
    products
        The products (from :func:`~opslib.server.seed.products.build_products`).
    people
        The users (from :func:`~opslib.server.seed.people.build_people`).

    Returns
    -------
    Fleet
        The per-device arrays.
    """
    rng = run.rng
    n = run.scale.devices
    ids = unique_ids(rng, n, "dev-", 12)
    n_stock = max(1, round(0.01 * n))
    n_bound = n - n_stock
    n_demo = min(10, n_bound)
    product, owner = _products_and_owners(run, products, people, n_bound, n_demo)
    cat = products.product_cat[product]
    is_sub = products.product_node[product] == NODE_SUB_DEVICE
    bind, created = _binding_times(run, people, owner, n_bound, n_demo)
    ever = _ever_online(run, n_bound, n_demo)
    status, t0, t1, dormant = _status_and_span(run, bind, ever, n_demo)

    cats = products.cats
    kinds = np.array([c.kind for c in cats], dtype=object)
    weight = rng.lognormal(0.0, 1.0, n) * np.array([c.activity for c in cats])[cat]
    weight[:n_demo] *= 2.0
    weight[~ever | dormant] = 0.0
    alarm_p = np.array([c.alarm_p for c in cats])[cat]
    command_p = np.array([c.command_p for c in cats])[cat]
    params = _device_params(run, people, owner, is_sub, t0)
    noisy, noisy_share = _noisy(run, status, bind, ever, n_demo)
    if len(noisy):
        alarm_p[noisy[0]] = 0.35  # one noisy device flaps alarms
    return Fleet(
        n=n,
        n_bound=n_bound,
        n_demo=n_demo,
        ids=ids,
        product=product,
        kind_code=cat,
        kind=kinds[cat],
        owner=owner,
        is_sub=is_sub,
        bind=bind,
        created=created,
        ever_online=ever,
        status=status,
        dormant=dormant,
        t0=t0,
        t1=t1,
        weight=weight,
        alarm_p=alarm_p,
        command_p=command_p,
        params=params,
        noisy=noisy,
        noisy_share=noisy_share,
    )


def _products_and_owners(
    run: Run, products: Products, people: People, n_bound: int, n_demo: int
) -> tuple[IntArray, IntArray]:
    """Each device's product and owner (-1: stock); owners of sub-devices get a gateway."""
    rng, n = run.rng, run.scale.devices
    released = np.flatnonzero(products.product_status == 1)

    # Products: the demo user's ~10 devices are a hand-picked household.
    product = rng.choice(len(products.product_ids), size=n, p=products.product_weight)
    product[:n_demo] = _demo_products(products, released, n_demo)

    # Owners: the plain users (index 3..) own devices with heavy-tailed household sizes.
    owner = np.full(n, -1, dtype=I64)
    owner[:n_demo] = 2
    others = np.arange(3, people.n)
    if len(others):
        uw = rng.lognormal(0.0, 0.9, len(others))
        owner[n_demo:n_bound] = rng.choice(others, size=n_bound - n_demo, p=uw / uw.sum())
    else:
        owner[n_demo:n_bound] = 2

    # Every owner of a sub-device also owns a gateway: convert one of their devices.
    node = products.product_node[product]
    gateways = released[products.product_node[released] == NODE_GATEWAY]
    if len(gateways):
        bound_idx = np.arange(n_bound)
        has_sub = np.bincount(
            owner[bound_idx][node[bound_idx] == NODE_SUB_DEVICE], minlength=people.n
        )
        has_gw = np.bincount(owner[bound_idx][node[bound_idx] == NODE_GATEWAY], minlength=people.n)
        need = (has_sub > 0) & (has_gw == 0)
        need[2] = False
        order = np.argsort(owner[n_demo:n_bound], kind="stable") + n_demo
        users_sorted = owner[order]
        firsts, first_pos = np.unique(users_sorted, return_index=True)
        convert = order[first_pos[need[firsts]]]
        product[convert] = rng.choice(gateways, size=len(convert))
    return product, owner


def _demo_products(products: Products, released: IntArray, n_demo: int) -> IntArray:
    """A household: one gateway, then released products of the other categories in turn."""
    node_of, cat_of = products.product_node, products.product_cat
    picks: list[int] = []
    gateways = [int(p) for p in released if node_of[p] == NODE_GATEWAY]
    if gateways:
        picks.append(gateways[0])
    by_cat = [
        [int(p) for p in released if cat_of[p] == ci and node_of[p] != NODE_GATEWAY]
        for ci in range(len(products.cats))
    ]
    for round_no in range(max(len(lst) for lst in by_cat)):
        picks += [lst[round_no] for lst in by_cat if round_no < len(lst)]
    picks = picks or [int(released[0])]
    while len(picks) < n_demo:  # few products: repeat them
        picks += picks
    return np.array(picks[:n_demo], dtype=I64)


def _binding_times(
    run: Run, people: People, owner: IntArray, n_bound: int, n_demo: int
) -> tuple[IntArray, IntArray]:
    """Binding times (after the owner registered, within two years) and creation times."""
    rng, n, until = run.rng, run.scale.devices, run.until
    reg = np.where(owner >= 0, people.register[np.maximum(owner, 0)], until - 60 * DAY_MS)
    lo = np.maximum(reg, until - 730 * DAY_MS)
    bind = lo + (rng.random(n) * (until - 10 * MINUTE_MS - lo)).astype(I64)
    # The demo household was set up well before the window.
    demo_hi = run.start - 5 * DAY_MS
    bind[:n_demo] = np.minimum(bind[:n_demo], demo_hi - rng.integers(0, 200 * DAY_MS, n_demo))
    bind[:n_demo] = np.maximum(bind[:n_demo], reg[:n_demo] + HOUR_MS)
    created = bind - rng.integers(HOUR_MS, 90 * DAY_MS, n)
    stock = np.arange(n_bound, n)
    created[stock] = until - rng.integers(HOUR_MS, 60 * DAY_MS, n - n_bound)
    return bind, created


def _ever_online(run: Run, n_bound: int, n_demo: int) -> BoolArray:
    """Never online: the stock plus ~2 % bound but never powered up."""
    rng, n = run.rng, run.scale.devices
    ever = np.ones(n, dtype=bool)
    ever[np.arange(n_bound, n)] = False
    n_never = max(1, round(0.02 * n))
    candidates = np.arange(n_demo, n_bound)
    ever[rng.choice(candidates, size=min(n_never, len(candidates)), replace=False)] = False
    return ever


def _status_and_span(
    run: Run, bind: IntArray, ever: BoolArray, n_demo: int
) -> tuple[IntArray, IntArray, IntArray, BoolArray]:
    """Target status of the devices that came online, their active span and the dormant ones.

    Returns ``(status, t0, t1, dormant)``.
    """
    rng, n, until, start = run.rng, run.scale.devices, run.until, run.start
    status = np.zeros(n, dtype=I64)
    status[ever] = rng.choice([1, 2, 3], size=int(ever.sum()), p=[0.72, 0.24, 0.04])
    if n_demo == 10:
        status[:10] = [1, 1, 1, 1, 1, 1, 1, 1, 2, 3]
    t0 = np.maximum(start, bind + 30_000)
    activated = ever & (bind >= start)
    t0[activated] = bind[activated] + rng.integers(5_000, 120_000, int(activated.sum()))
    t1 = np.full(n, until, dtype=I64)
    down = ever & (status != 1)
    mean_last = run.window / 5.0
    t1_recent = until - rng.exponential(mean_last, n).astype(I64)
    t1_recent = np.clip(t1_recent, t0 + MINUTE_MS, until - MINUTE_MS)
    dormant = (
        down
        & (status == 2)
        & (rng.random(n) < 0.12)
        & (bind < start - 2 * DAY_MS)
        & (np.arange(n) >= n_demo)
    )
    span_before = np.minimum(180 * DAY_MS, start - bind - HOUR_MS)
    t1_dormant = start - HOUR_MS - (rng.random(n) * np.maximum(span_before, 0)).astype(I64)
    t1 = np.where(down, np.where(dormant, t1_dormant, t1_recent), t1)
    # A device bound so late that it cannot fit a downtime stays online.
    too_late = down & ~dormant & (t1 <= t0)
    status[too_late] = 1
    t1[too_late] = until
    return status, t0, t1, dormant


def _device_params(
    run: Run, people: People, owner: IntArray, is_sub: BoolArray, t0: IntArray
) -> dict[str, np.ndarray[Any, Any]]:
    """Per-device parameters of the property reports (drawn in this fixed key order)."""
    rng, n = run.rng, run.scale.devices
    sub_per_owner = np.bincount(owner[(owner >= 0) & is_sub], minlength=people.n)
    return {
        "temp_base": rng.normal(21.5, 1.5, n),
        "hum_base": rng.normal(45.0, 7.0, n),
        "batt0": rng.uniform(35.0, 100.0, n),
        "drain": rng.uniform(0.05, 0.6, n),
        "rated_w": rng.choice([60.0, 150.0, 400.0, 800.0, 1500.0], size=n)
        * rng.uniform(0.8, 1.2, n),
        "color_temp": rng.choice([2700, 3000, 4000, 5000, 6500], size=n),
        "mode": rng.choice(len(CLIMATE_MODES), size=n, p=[0.45, 0.25, 0.25, 0.05]),
        "target": np.round(rng.normal(22.0, 1.5, n) * 2) / 2,
        "rssi": rng.integers(-80, -40, n),
        "bitrate": rng.choice([512, 1024, 2048, 4096], size=n),
        "boot": t0 - rng.integers(HOUR_MS, 40 * DAY_MS, n),
        "sub_count": sub_per_owner[np.maximum(owner, 0)],
    }


def _noisy(
    run: Run, status: IntArray, bind: IntArray, ever: BoolArray, n_demo: int
) -> tuple[IntArray, FloatArray]:
    """~5 devices that produce 2-5 % of all events each, and their shares."""
    rng = run.rng
    eligible = np.flatnonzero((status == 1) & (bind < run.start) & ever)
    eligible = eligible[eligible >= n_demo]
    k = min(5, len(eligible) // 10)
    noisy = rng.choice(eligible, size=k, replace=False) if k else np.zeros(0, I64)
    return noisy, rng.uniform(0.02, 0.05, k)
